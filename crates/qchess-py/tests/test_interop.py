"""Circuits: the game's circuit run in qiskit-aer and in Cirq's simulator, post-selected through
the sidecar, gives `probabilities()` to 1e-9."""

from __future__ import annotations

import re

import numpy as np
import pytest

import qchess

GAMES = [
    # split, merge, a capture on a superposed piece with a forced outcome, and a slide through
    # a superposed square (entangling)
    "b1^a3c3 e7e6 a3c3^b5",
    "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4.m1",
    "g1^f3h3 g8^f6h6 f3^g5e5 f6^d5g4 e5xg4.m0 d5^b4c3 e2e3 h6g8",
]


def qiskit_board(game: qchess.Game) -> dict[str, float]:
    from qiskit_aer import AerSimulator
    from qiskit import transpile

    circuit = game.to_qiskit(measurements=False)
    assert "qchess" in circuit.metadata
    circuit.save_statevector()
    simulator = AerSimulator(method="statevector")
    state = np.asarray(simulator.run(transpile(circuit, simulator, optimization_level=0)).result().get_statevector())
    return qchess.board_probabilities(np.abs(state) ** 2, circuit.metadata["qchess"])


def cirq_board(game: qchess.Game) -> dict[str, float]:
    import cirq

    circuit = game.to_cirq(measurements=False)
    # Every qubit the program declares, also those no gate touches.
    declared = int(re.search(r"qreg q\[(\d+)\];", game.circuit("qasm2")).group(1))
    qubits = cirq.LineQubit.range(declared)
    state = cirq.Simulator(dtype=np.complex128).simulate(circuit, qubit_order=qubits).final_state_vector
    return qchess.board_probabilities(np.abs(state) ** 2, game.sidecar(), little_endian=False)


@pytest.mark.parametrize("moves", GAMES)
def test_qiskit_statevector_matches(moves):
    game = qchess.Game(position=f"startpos moves {moves}")
    theirs = qiskit_board(game)
    ours = game.probabilities()
    assert max(abs(ours[sq] - theirs[sq]) for sq in ours) < 1e-9


@pytest.mark.parametrize("moves", GAMES)
def test_cirq_statevector_matches(moves):
    pytest.importorskip("cirq")
    game = qchess.Game(position=f"startpos moves {moves}")
    theirs = cirq_board(game)
    ours = game.probabilities()
    assert max(abs(ours[sq] - theirs[sq]) for sq in ours) < 1e-9


def test_circuit_texts_and_per_move_circuits():
    game = qchess.Game(position=f"startpos moves {GAMES[1]}")
    assert game.circuit().startswith("OPENQASM 3.0;")
    assert game.circuit("qasm2").startswith("OPENQASM 2.0;")
    assert '"gateset"' in game.circuit("ionq-json")
    per_move = game.move_circuits("qasm2")
    assert len(per_move) == 5
    assert per_move[-1] == (game.circuit("qasm2"), game.sidecar())
    assert game.sidecar()["postselect"] == [{"qubit": per_move[-1][1]["postselect"][0]["qubit"], "clbit": 0, "value": 1}]


def test_measured_circuit_keeps_its_measurements():
    game = qchess.Game(position=f"startpos moves {GAMES[0]}")
    names = {instruction.operation.name for instruction in game.to_qiskit().data}
    assert "measure" in names
