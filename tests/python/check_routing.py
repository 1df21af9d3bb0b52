"""Routed ISA circuits (`qchess compile --target`), checked with real Qiskit and qiskit-aer:

* `qasm3.loads` (and `qasm2.loads`) read our output;
* ISA: only the target's basis gates, every two-qubit gate on a pair of the device's coupling map
  (in a listed direction for ECR), checked against IBM's own configuration files;
* calibrated ISA: on ibm_torino, ibm_fez and ibm_brisbane, every instruction is one a Qiskit
  `Target` built from the configuration and calibration with the broken qubits and couplers left
  out supports (`instruction_supported`), and the printed estimated success probability is the
  one computed here from the same calibration (the rules of scripts/bench-routing.py);
* the printed figures (two-qubit gate count, depth) are what Qiskit counts in the loaded circuit;
* game circuits (the game sequences of check_sequences, a longer hand-made game and a seeded
  random game with measurements) on the Heron (ibm_fez) and Eagle (ibm_brisbane) maps: aer's exact statevector of
  the routed circuit, post-selected through the routed layout, gives the per-square
  probabilities of `qchess game --json` and the probability of the recorded outcomes;
* circuits up to 10 qubits on exactly-sized targets of every gate set: `Operator` equivalence with
  the unrouted circuit, once that is placed by the initial layout and permuted to the final one.
"""

import importlib.util
import json
import sys

import numpy as np
import qiskit.qasm2
import qiskit.qasm3
from qiskit import QuantumCircuit
from qiskit.quantum_info import Operator

from board_circuits import Board, SQUARES, max_difference, outcome_product, statevector
from check_sequences import GAME_SEQUENCES, declared_qubits, random_game
from qchess_helpers import REPO, Report, run_qchess

EXACT = 1e-9
DATA = REPO / "crates" / "qchess-route" / "data"
DEVICES = {"ibm-fez": "fez", "ibm-brisbane": "brisbane"}
CALIBRATED = {"ibm-torino": "torino", "ibm-fez": "fez", "ibm-brisbane": "brisbane"}
BASES = {
    "cz": {"cz", "rz", "sx", "x"},
    "ecr": {"ecr", "rz", "sx", "x"},
    "sqrt-iswap": {"sqrt_iswap", "rz", "rx"},
    "ionq": {"ms", "gpi", "gpi2"},
}
OPERATOR_MAX_QUBITS = 10
# Seeded random games, cut where the logical circuit passes this many qubits (routing adds the
# physical qubits SWAPs pass through, and aer must hold them all).
RANDOM_SEEDS = [6]
RANDOM_GAME_QUBITS = 16
# Extra random-looking games: official notation, every outcome pinned or drawn with the seed.
MORE_GAMES = [
    ("knights and bishops", "startpos", "g1^f3h3 b8^a6c6 b1^a3c3 g8^f6h6 e2e3 d7d6 f1^d3b5 c8^e6g4", 0),
]


def coupling(device: str) -> tuple[set, str]:
    conf = json.loads((DATA / f"conf_{device}.json").read_text())
    return {tuple(pair) for pair in conf["coupling_map"]}, conf["backend_name"]


def bench_script():
    """scripts/bench-routing.py as a module: its calibration rules (ESP, broken elements)."""
    spec = importlib.util.spec_from_file_location("bench_routing", REPO / "scripts" / "bench-routing.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def working_target(device: str):
    """A Qiskit Target of the device with its broken qubits and couplers left out (as
    qiskit-ibm-runtime leaves out what the live properties mark not operational), and the
    device's calibration."""
    from qiskit.circuit import Measure, Parameter
    from qiskit.circuit.library import CZGate, ECRGate, RZGate, SXGate, XGate
    from qiskit.transpiler import Target

    conf = json.loads((DATA / f"conf_{device}.json").read_text())
    props = json.loads((DATA / f"props_{device}.json").read_text())
    calibration = bench_script().Calibration(conf, props)
    working = [q for q in range(conf["n_qubits"]) if q not in calibration.broken_qubits]
    target = Target(num_qubits=conf["n_qubits"])
    for gate in (RZGate(Parameter("theta")), SXGate(), XGate(), Measure()):
        target.add_instruction(gate, {(q,): None for q in working})
    two = CZGate() if calibration.two == "cz" else ECRGate()
    target.add_instruction(two, {tuple(p): None for p in conf["coupling_map"] if not calibration.pair_broken(*p)})
    return target, calibration


def calibrated_isa(report: Report, name: str, position: str, moves: str, seed: int, target: str) -> None:
    label = f"calibrated {target} {name}"
    try:
        out, qc = compiled(position, moves, seed, target)
    except Exception as error:  # noqa: BLE001 - a loader or qchess failure is a finding
        report.check(label, False, f"{type(error).__name__}: {error}")
        return
    qiskit_target, calibration = working_target(CALIBRATED[target])
    problems = []
    for instruction in qc.data:
        qargs = tuple(qc.find_bit(q).index for q in instruction.qubits)
        if instruction.operation.name != "barrier" and not qiskit_target.instruction_supported(
                instruction.operation.name, qargs):
            problems.append(f"{instruction.operation.name} on {qargs} is not supported once broken elements are out")
    counted = bench_script().counted(qc, calibration)
    if counted["broken"]:
        problems.append(f"{counted['broken']} operations on broken elements")
    if abs(counted["esp"] - out["esp"]) > 1e-9 * out["esp"]:
        problems.append(f"printed ESP {out['esp']}, computed here {counted['esp']}")
    report.check(label, not problems,
                 "; ".join(problems[:3]) or f"ESP {out['esp']:.4f} (calibration of {out['calibration']}), "
                                             f"2q {out['two_qubit_gates']}, left out {len(out['left_out']['couplers'])} couplers")


def compiled(position: str, moves: str, seed: int, target: str, fmt: str = "qasm3") -> tuple[dict, QuantumCircuit]:
    out = run_qchess("compile", "--position", position, "--moves", moves, "--seed", str(seed),
                     "--target", target, "--format", fmt)
    qc = qiskit.qasm3.loads(out["qasm"]) if fmt == "qasm3" else qiskit.qasm2.loads(out["qasm"])
    return out, qc


def isa_problems(qc: QuantumCircuit, basis: set, pairs: set | None, directed: bool) -> list[str]:
    problems = []
    for instruction in qc.data:
        name = instruction.operation.name
        qubits = [qc.find_bit(q).index for q in instruction.qubits]
        if name in ("measure", "barrier"):
            continue
        if name not in basis:
            problems.append(f"{name} is not in {sorted(basis)}")
        if len(qubits) == 2 and pairs is not None:
            a, b = qubits
            if (a, b) not in pairs and (directed or (b, a) not in pairs):
                problems.append(f"{name} on ({a}, {b}) is not a coupled pair")
    return problems[:3]


def figures_problems(out: dict, qc: QuantumCircuit) -> list[str]:
    two = sum(1 for i in qc.data if len(i.qubits) == 2)
    problems = []
    if two != out["two_qubit_gates"]:
        problems.append(f"printed {out['two_qubit_gates']} two-qubit gates, qiskit counts {two}")
    if qc.depth() != out["depth"]:
        problems.append(f"printed depth {out['depth']}, qiskit says {qc.depth()}")
    return problems


def active_statevector(qc: QuantumCircuit) -> tuple[np.ndarray, dict]:
    """aer's statevector over the physical qubits the circuit touches (measurements dropped:
    post-selection reads where the measured qubits end), and physical -> dense index."""
    used = sorted({qc.find_bit(q).index for i in qc.data for q in i.qubits})
    dense = {p: k for k, p in enumerate(used)}
    reduced = QuantumCircuit(len(used))
    for instruction in qc.data:
        if instruction.operation.name in ("measure", "barrier"):
            continue
        reduced.append(instruction.operation, [dense[qc.find_bit(q).index] for q in instruction.qubits])
    return statevector(reduced), dense


def game_on_device(report: Report, name: str, position: str, moves: str, seed: int, target: str,
                   fmt: str = "qasm3") -> None:
    label = f"routed {target} {fmt} {name}"
    try:
        out, qc = compiled(position, moves, seed, target, fmt)
        game = run_qchess("game", "--position", position, "--moves", moves, "--seed", str(seed))
    except Exception as error:  # noqa: BLE001 - a loader or qchess failure is a finding
        report.check(label, False, f"{type(error).__name__}: {error}")
        return
    pairs, backend = coupling(DEVICES[target])
    problems = isa_problems(qc, BASES[out["basis"]], pairs, out["basis"] == "ecr")
    problems += figures_problems(out, qc)
    if out["target"] != backend or qc.num_qubits != out["physical_qubits"]:
        problems.append(f"target {out['target']} with {qc.num_qubits} qubits is not {backend}")
    state, dense = active_statevector(qc)
    sidecar = {
        "squares": {square: dense[p] for square, p in out["squares"].items()},
        "classical": out["classical"],
        "postselect": [{"qubit": dense[p["qubit"]], "value": p["value"]} for p in out["postselect"]],
    }
    if any(p not in dense for p in out["squares"].values()):
        problems.append("a square's qubit is idle in the routed circuit")
    board = Board(state, len(dense), sidecar)
    error, square = max_difference(board.probabilities(), game["probabilities"])
    detail = f"{len(dense)} active qubits, 2q {out['two_qubit_gates']}, depth {out['depth']}, max |dp| = {error:.1e} ({square})"
    ok = not problems and error < EXACT
    if "measured_board" not in game:
        product = outcome_product(game["moves"])
        ok = ok and abs(board.kept - product) < EXACT
        detail += f", P(postselect) = {board.kept:.6f} vs {product:.6f}"
    report.check(label, ok, "; ".join(problems) or detail)


def with_swaps(n: int, logical: QuantumCircuit, initial: list[int], final: list[int]) -> QuantumCircuit:
    """`logical` placed on `n` physical qubits by `initial`, then SWAPs that carry each logical
    qubit from `initial` to `final`."""
    qc = QuantumCircuit(n)
    qc.compose(logical, qubits=initial, inplace=True)
    where = list(initial)  # where[l] = current physical qubit of logical l
    holder = {p: l for l, p in enumerate(where)}
    for l in range(len(where)):
        if where[l] != final[l]:
            a, b = where[l], final[l]
            qc.swap(a, b)
            other = holder.get(b)
            holder[a], holder[b] = other, l
            where[l] = b
            if other is not None:
                where[other] = a
    return qc


def gates_only(qc: QuantumCircuit) -> QuantumCircuit:
    out = QuantumCircuit(qc.num_qubits)
    for instruction in qc.data:
        if instruction.operation.name not in ("measure", "barrier"):
            out.append(instruction.operation, [qc.find_bit(q).index for q in instruction.qubits])
    return out


def operator_equivalence(report: Report, name: str, position: str, moves: str, seed: int) -> None:
    base = ["--position", position, "--moves", moves, "--seed", str(seed)]
    logical = gates_only(qiskit.qasm3.loads(run_qchess("compile", *base, "--format", "qasm3")["qasm"]))
    n = logical.num_qubits
    if n > OPERATOR_MAX_QUBITS or n < 2:
        return
    targets = [f"line:{n}", f"line:{n}@ecr", f"line:{n}@sqrt-iswap", f"all:{n}"]
    if n % 2 == 0:
        targets.append(f"grid:2x{n // 2}@ecr")
    for target in targets:
        label = f"operator {target} {name}"
        try:
            out, routed = compiled(position, moves, seed, target)
        except Exception as error:  # noqa: BLE001
            report.check(label, False, f"{type(error).__name__}: {error}")
            continue
        initial = [entry["initial"] for entry in out["layout"]]
        final = [entry["final"] for entry in out["layout"]]
        problems = isa_problems(routed, BASES[out["basis"]], None, False) + figures_problems(out, routed)
        expected = with_swaps(routed.num_qubits, logical, initial, final)
        same = Operator(gates_only(routed)).equiv(Operator(expected))
        report.check(label, same and not problems,
                     "; ".join(problems) or f"{n} qubits, 2q {out['two_qubit_gates']}, Operator equal up to layouts: {same}")


def bench_against_qiskit(report: Report) -> None:
    """`qchess bench --workload routing --qiskit PYTHON` runs Qiskit's side (scripts/bench-routing.py)
    with this interpreter on every circuit and target; the workload itself fails when Qiskit's
    count of our routed circuit (two-qubit gates, depth, ESP, broken uses) differs from ours."""
    bench = run_qchess("bench", "--quick", "--workload", "routing", "--qiskit", sys.executable)
    routing = bench["workloads"][0]["details"]
    rows = routing["circuits"]
    compared = [r for r in rows if r["qiskit"] and r["qiskit"]["two_qubit_gates"] >= 1]
    report.check("bench routing --qiskit: Qiskit figures for every circuit", len(rows) >= 24 and len(compared) == len(rows),
                 f"{len(compared)} of {len(rows)} ({routing['qiskit']})")
    report.check("bench routing --qiskit: none of ours on a broken element",
                 all(r["ours"]["broken"] == 0 for r in rows), json.dumps([r["game"] for r in rows if r["ours"]["broken"]]))
    for target in CALIBRATED:
        medians = routing["medians"][target]["all"]
        # Figures side by side; the times are a benchmark's business (scripts/bench-routing.py), not a check's.
        report.check(f"bench routing --qiskit: {target} medians side by side", "qiskit" in medians
                     and medians["qiskit"]["median_esp"] > 0 and medians["qiskit"]["circuits_on_broken_elements"] >= 0,
                     json.dumps(medians.get("qiskit")))


def run() -> Report:
    report = Report("check_routing")
    bench_against_qiskit(report)
    games = [g for g in GAME_SEQUENCES if "fifty" not in g[0] or g[3] == 0] + MORE_GAMES
    seen = set()
    for name, position, moves, seed in games:
        for target in DEVICES:
            game_on_device(report, name, position, moves, seed, target)
        circuit = (position, moves.replace(".m0", "").replace(".m1", ""))
        if circuit not in seen:
            seen.add(circuit)
            operator_equivalence(report, name, position, moves, seed)
    name, position, moves, seed = GAME_SEQUENCES[0]
    game_on_device(report, name, position, moves, seed, "ibm-brisbane", "qasm2")
    for name, position, moves, seed in MORE_GAMES + [g for g in GAME_SEQUENCES if "fifty" not in g[0]][:3]:
        for target in CALIBRATED:
            calibrated_isa(report, name, position, moves, seed, target)
    for seed in RANDOM_SEEDS:
        moves = random_game(seed)
        per_move = run_qchess("compile", "--position", "startpos", "--moves", " ".join(moves), "--per-move")
        plies = max((e["ply"] for e in per_move if declared_qubits(e["qasm"]) <= RANDOM_GAME_QUBITS), default=0)
        for target in DEVICES:
            game_on_device(report, f"random game, seed {seed}, {plies} plies", "startpos", " ".join(moves[:plies]), 0, target)
    return report


def main() -> int:
    return run().finish()


if __name__ == "__main__":
    sys.exit(main())
