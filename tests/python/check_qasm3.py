"""`qchess sim` reading OpenQASM 3 as Qiskit's `qasm3.dumps` writes it, against Qiskit:
exact probabilities to 1e-9 against aer's statevector for general circuits (GHZ, QFT, random
circuits over Qiskit's standard gates, which the exporter writes as `stdgates.inc` calls and
gate definitions); ISA circuits transpiled for a 156-qubit device (physical qubits `$n`) by a
chi-squared test of sampled counts against aer's exact distribution of the measured bits; and a
dynamic circuit (`if`/`else` on a bit, a register condition, reset, mid-circuit measurement) by
a chi-squared test against its exact distribution, branched measurement by measurement on
Qiskit's Statevector (aer 0.18.2 fails to load this circuit: "unordered_map::at")."""

import sys
import tempfile
from pathlib import Path

import numpy as np
import qiskit.qasm3
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, transpile
from qiskit.transpiler import CouplingMap
from qiskit.quantum_info import Statevector

from qchess_helpers import Report, check_sampled
from qiskit_reference import aer_probabilities, check_exact, ghz, qft, random_circuit

SHOTS = 4000


def extra_gates(seed: int) -> QuantumCircuit:
    """Gates the exporter defines in the file: ecr, cs, sxdg, rzx, dcx, c3x, cswap, u2, u3."""
    rng = np.random.default_rng(seed)
    qc = QuantumCircuit(4)
    for q in range(4):
        qc.ry(float(rng.uniform(0, 3)), q)
    qc.ecr(0, 1)
    qc.cs(1, 2)
    qc.sxdg(3)
    qc.rzx(0.7, 2, 3)
    qc.dcx(0, 3)
    qc.mcx([0, 1, 2], 3)
    qc.cswap(3, 1, 2)
    qc.u(0.3, 0.4, 0.5, 0)
    qc.append(qiskit.circuit.library.U2Gate(0.2, 0.9), [1])
    qc.append(qiskit.circuit.library.U3Gate(0.6, 0.1, 1.4), [2])
    qc.csdg(0, 2)
    qc.ccz(0, 1, 2)
    return qc


def heavy_line(n: int) -> CouplingMap:
    return CouplingMap.from_line(n)


def dynamic() -> QuantumCircuit:
    """Mid-circuit measurement, if/else on a bit, a register condition and a reset."""
    q, c, d = QuantumRegister(3, "q"), ClassicalRegister(2, "c"), ClassicalRegister(2, "d")
    qc = QuantumCircuit(q, c, d)
    qc.ry(1.1, 0)
    qc.h(2)
    qc.measure(0, c[0])
    with qc.if_test((c[0], 1)) as otherwise:
        qc.x(1)
    with otherwise:
        qc.h(1)
    qc.cx(2, 0)
    qc.reset(2)
    qc.ry(0.4, 2)
    qc.measure(0, c[1])
    with qc.if_test((c, 3)):
        qc.rx(0.9, 2)
    qc.measure(2, d[0])
    qc.measure(1, d[1])
    return qc


def exact_dynamic(qc: QuantumCircuit) -> np.ndarray:
    """The exact distribution of `qc`'s classical bits, branching at every measurement and reset
    and following `if_else` blocks (of gates only), on Qiskit's Statevector."""
    out = np.zeros(2**qc.num_clbits)
    qubit_index = {q: i for i, q in enumerate(qc.qubits)}
    clbit_index = {c: i for i, c in enumerate(qc.clbits)}

    def step(state, bits, weight, index):
        while index < len(qc.data):
            inst = qc.data[index]
            name = inst.operation.name
            qubits = [qubit_index[q] for q in inst.qubits]
            if name in ("measure", "reset"):
                p_one = float(state.probabilities([qubits[0]])[1])
                for value, p in ((0, 1 - p_one), (1, p_one)):
                    if p < 1e-15:
                        continue
                    projector = np.zeros((2, 2))
                    projector[value, value] = 1 / np.sqrt(p)
                    branch, new_bits = state.evolve(projector, qubits), bits
                    if name == "measure":
                        clbit = clbit_index[inst.clbits[0]]
                        new_bits = (bits & ~(1 << clbit)) | (value << clbit)
                    elif value == 1:
                        branch = branch.evolve(np.array([[0, 1], [1, 0]]), qubits)
                    step(branch, new_bits, weight * p, index + 1)
                return
            if name == "if_else":
                target, value = inst.operation.condition
                read = [clbit_index[b] for b in target] if isinstance(target, ClassicalRegister) else [clbit_index[target]]
                held = sum(((bits >> b) & 1) << i for i, b in enumerate(read)) == value
                blocks = inst.operation.blocks
                block = blocks[0] if held else (blocks[1] if len(blocks) > 1 else None)
                if block is not None:
                    inner = {bit: qubits[i] for i, bit in enumerate(block.qubits)}
                    for gate in block.data:
                        state = state.evolve(gate.operation, [inner[q] for q in gate.qubits])
            elif name != "barrier":
                state = state.evolve(inst.operation, qubits)
            index += 1
        out[bits] += weight

    step(Statevector.from_int(0, 2**qc.num_qubits), 0, 1.0, 0)
    return out


def main() -> int:
    return run().finish()


def run() -> Report:
    report = Report("check_qasm3")
    circuits = [("ghz_3", ghz(3)), ("ghz_10", ghz(10)), ("qft_5", qft(5, 1)), ("qft_8", qft(8, 2)), ("extra_4q", extra_gates(3))]
    for n, gates, seed in [(1, 20, 13), (2, 30, 14), (3, 40, 15), (5, 60, 16), (8, 80, 17), (12, 120, 18)]:
        circuits.append((f"random_{n}q_{seed}", random_circuit(n, gates, seed)))
    with tempfile.TemporaryDirectory() as tmp:
        for name, qc in circuits:
            path = Path(tmp) / f"{name}.qasm3"
            path.write_text(qiskit.qasm3.dumps(qc))
            check_exact(report, name, qc, path)

        # ISA circuits over physical qubits of a 156-qubit line: `qchess sim` runs the qubits used.
        for name, qc in [("ghz_6", ghz(6)), ("random_5q_19", random_circuit(5, 40, 19))]:
            measured = qc.copy()
            measured.measure_all()
            isa = transpile(measured, coupling_map=heavy_line(156), basis_gates=["rz", "sx", "x", "cz"], optimization_level=1, seed_transpiler=0)
            text = qiskit.qasm3.dumps(isa)
            path = Path(tmp) / f"isa_{name}.qasm3"
            path.write_text(text)
            # aer's exact distribution of the measured bits (the logical circuit's, bit i = clbit i).
            expected = aer_probabilities(qc)
            if "$" not in text:
                report.check(f"isa     {name}", False, "the exporter wrote no physical qubits")
            else:
                check_sampled(report, f"isa     {name}", path, expected, SHOTS, 3)

        qc = dynamic()
        text = qiskit.qasm3.dumps(qc)
        path = Path(tmp) / "dynamic.qasm3"
        path.write_text(text)
        if "if (" not in text or "else" not in text:
            report.check("dynamic if/else, reset", False, f"the exporter wrote no if/else:\n{text}")
        else:
            check_sampled(report, "dynamic if/else, reset", path, exact_dynamic(qc), 20000, 4)
    return report


if __name__ == "__main__":
    sys.exit(main())
