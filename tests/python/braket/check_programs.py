"""The programs `qchess compile --target braket:DEVICE` writes, checked with the unmodified Amazon
Braket SDK, for every device whose capabilities are checked in (crates/qchess-route/data):

* the capabilities parse with the SDK's own schema models (`braket.device_schema`);
* each program is a `braket.ir.openqasm.Program`, loads as an SDK `Circuit` (`Circuit.from_ir`),
  and passes the SDK's `LocalEmulator` validation built from the same capabilities: only the
  device's native gates, only pairs its connectivity graph couples, inside the verbatim box;
* Braket's own state-vector simulator runs it exactly (shots=0, a probability result over the
  measured qubits): post-selected on the recorded outcomes, it gives the per-square
  probabilities of `qchess game --json` and the probability of those outcomes;
* the figures qchess prints (the estimated success probability) are the product of the SDK's
  fidelities over the program's gates, as Braket's emulator reads them.
"""

import json
import re
import sys
from pathlib import Path

import numpy as np
from braket.circuits import Circuit
from braket.devices import LocalSimulator
from braket.emulation.local_emulator import LocalEmulator
from braket.ir.openqasm import Program
from braket.schema_common import BraketSchemaBase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from qchess_helpers import REPO, Report, run_qchess  # noqa: E402

EXACT = 1e-9
DATA = REPO / "crates" / "qchess-route" / "data"
DEVICES = {
    "iqm-garnet": ("braket_iqm_garnet.json", "IqmDeviceCapabilities"),
    "iqm-emerald": ("braket_iqm_emerald.json", "IqmDeviceCapabilities"),
    "rigetti-ankaa-3": ("braket_rigetti_ankaa_3.json", "RigettiDeviceCapabilities"),
    "rigetti-cepheus-1-108q": ("braket_rigetti_cepheus_1_108q.json", "RigettiDeviceCapabilities"),
    "ionq-forte-enterprise-1": ("braket_ionq_forte_enterprise_1.json", "IonqDeviceCapabilities"),
}
# Official notation; every outcome pinned or drawn with the seed.
GAMES = [
    ("split and merge", "startpos", "b1^a3c3 e7e6 a3c3^b5", 0),
    ("superposed capture, m1", "startpos", "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4.m1", 0),
    ("excluded pawn step", "startpos", "g1^f3h3 a7a6 f2wf3.m0", 0),
    ("knights and bishops", "startpos", "g1^f3h3 b8^a6c6 b1^a3c3 g8^f6h6 e2e3 d7d6", 0),
]
MEASURE = re.compile(r"^c\[(\d+)\] = measure \$(\d+);$")


def outcome_product(moves: list) -> float:
    product = 1.0
    for move in moves:
        if move.get("outcome_probability") is not None:
            product *= move["outcome_probability"]
    return product


def exact_squares(out: dict) -> tuple[dict, float]:
    """Braket's exact run of the program: each square's probability after post-selection, and
    the probability the post-selections keep."""
    lines = out["qasm"].splitlines()
    measured = {}
    for line in lines:
        match = MEASURE.match(line)
        if match:
            measured[int(match.group(1))] = int(match.group(2))
    qubits = sorted(set(measured.values()))
    body = [line for line in lines if not MEASURE.match(line) and not line.startswith("bit[")]
    body.append("#pragma braket result probability " + ", ".join(f"${q}" for q in qubits))
    result = LocalSimulator("braket_sv").run(Program(source="\n".join(body)), shots=0).result()
    probabilities = np.asarray(result.values[0])
    position = {q: len(qubits) - 1 - i for i, q in enumerate(qubits)}  # big-endian: the first is the top bit
    bit = lambda index, q: (index >> position[q]) & 1  # noqa: E731
    keep = np.array([all(bit(i, p["qubit"]) == p["value"] for p in out["postselect"]) for i in range(len(probabilities))])
    kept = float(probabilities[keep].sum())
    squares = {}
    for square, q in out["squares"].items():
        ones = np.array([bit(i, q) == 1 for i in range(len(probabilities))])
        squares[square] = float(probabilities[keep & ones].sum()) / kept
    return squares, kept


def esp(out: dict, capabilities: dict) -> float:
    """The product of the fidelities over the program's operations, read as Braket's emulator
    reads them (one-qubit: RANDOMIZED_BENCHMARKING else SIMULTANEOUS_...; readout: READOUT;
    two-qubit: the gate's own), with the rules of data/SOURCES.md for IonQ's device-wide figures."""
    standardized = capabilities["standardized"]
    if "oneQubitProperties" in standardized:
        one, readout = {}, {}
        for q, props in standardized["oneQubitProperties"].items():
            names = {f["fidelityType"]["name"]: f["fidelity"] for f in props["oneQubitFidelity"]}
            one[int(q)] = names.get("RANDOMIZED_BENCHMARKING", names.get("SIMULTANEOUS_RANDOMIZED_BENCHMARKING", 1.0))
            readout[int(q)] = names.get("READOUT", 1.0)
        two = {}
        for pair, props in standardized["twoQubitProperties"].items():
            a, b = map(int, pair.split("-"))
            for f in props["twoQubitGateFidelity"]:
                two.setdefault(f["gateName"].lower(), {})[frozenset((a, b))] = f["fidelity"]
        one_f = lambda q: one.get(q, 1.0)  # noqa: E731
        read_f = lambda q: readout.get(q, 1.0)  # noqa: E731
        two_f = lambda g, a, b: two.get(g, {}).get(frozenset((a, b)), 1.0)  # noqa: E731
    else:
        fidelity = capabilities["provider"]["fidelity"]
        one_f = lambda q: fidelity["1Q"]["mean"]  # noqa: E731
        read_f = lambda q: standardized["readoutFidelity"][0]["fidelity"]  # noqa: E731
        two_f = lambda g, a, b: standardized["twoQubitGateFidelity"][0]["fidelity"]  # noqa: E731
    product = 1.0
    for line in out["qasm"].splitlines():
        line = line.strip().rstrip(";")
        match = MEASURE.match(line + ";")
        if match:
            product *= read_f(int(match.group(2)))
            continue
        if "$" not in line or line.startswith("//"):
            continue
        name = line.split("(")[0].split(" ")[0]
        qubits = [int(q) for q in re.findall(r"\$(\d+)", line)]
        if len(qubits) == 2:
            product *= two_f(name, *qubits)
        elif name != "rz":  # a frame change
            product *= one_f(qubits[0])
    return product


def check_device(report: Report, device: str, file: str, model: str) -> None:
    text = (DATA / file).read_text()
    capabilities = json.loads(text)
    parsed = BraketSchemaBase.parse_raw_schema(text)
    report.check(f"{device}: capabilities parse as {model}", type(parsed).__name__ == model, type(parsed).__name__)
    emulator = LocalEmulator.from_json(text)
    for name, position, moves, seed in GAMES:
        label = f"{device}: {name}"
        try:
            out = run_qchess("compile", "--position", position, "--moves", moves, "--seed", str(seed),
                             "--target", f"braket:{device}", "--format", "qasm3")
            game = run_qchess("game", "--position", position, "--moves", moves, "--seed", str(seed))
            program = Program(source=out["qasm"])
            circuit = Circuit.from_ir(program)
            emulator.validate(circuit)
            squares, kept = exact_squares(out)
        except Exception as error:  # noqa: BLE001 - a loader, validator or qchess failure is a finding
            report.check(label, False, f"{type(error).__name__}: {error}")
            continue
        worst = max(abs(squares[s] - game["probabilities"][s]) for s in squares)
        product = outcome_product(game["moves"])
        ours, theirs = out["esp"], esp(out, capabilities)
        ok = worst < EXACT and abs(kept - product) < EXACT and abs(ours - theirs) < 1e-9 * max(theirs, 1e-300)
        report.check(label, ok, f"{len(squares)} squares, max |dp| = {worst:.1e}, P(postselect) = {kept:.6f} vs "
                                f"{product:.6f}, ESP {ours:.6f} vs {theirs:.6f}, 2q {out['two_qubit_gates']}")


def main() -> int:
    report = Report("braket programs")
    for device, (file, model) in DEVICES.items():
        check_device(report, device, file, model)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
