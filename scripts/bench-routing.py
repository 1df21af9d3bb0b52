#!/usr/bin/env python3
"""Routing benchmark: qchess's router against Qiskit's transpiler at optimisation level 3, both
given the device's calibration (IBM's devices, and Amazon Braket's IQM and Rigetti devices).

The benchmark is the `routing` workload of `qchess bench` (crates/qchess-bench/src/routing.rs):
it builds the whole-game circuits (the example games, seeded random games and seeded
computer-against-computer games), routes them onto ibm-torino, ibm-fez and ibm-brisbane with
their published calibrations, and with `--qiskit PYTHON` runs this file with that interpreter to
transpile the same circuits with Qiskit. This file has two roles:

* `scripts/bench-routing.py [FLAGS]`: builds qchess (release) and runs
  `qchess bench --workload routing --qiskit <this interpreter> [FLAGS]` (for example `--json`
  or `--quick`), so that one command gives the side-by-side figures.
* `--transpile` (how the workload runs it): reads JSON on stdin,
  `{"targets": {NAME: {"backend", "configuration", "properties"}}, "circuits": [{"name", "qasm2",
  "routed": {NAME: QASM3}}], "seed"}`, and transpiles each logical circuit onto each device with
  `transpile(circuit, backend=Fake<Device>(), optimization_level=3, seed_transpiler=seed)` (timed
  once), the fake backend of qiskit-ibm-runtime built from the same published files (without
  qiskit-ibm-runtime, a Qiskit `Target` built here from the files given, with every gate's and
  measurement's error). It counts both its result and our routed circuit (loaded with
  `qasm3.loads`) in the same way: two-qubit gates, `depth()`, the estimated success probability
  (ESP) by the properties given, and the operations on broken elements, and writes
  `{"qiskit": VERSION, "backends": WHERE, "rows": [{"target", "name", "qiskit": {"two_qubit_gates",
  "depth", "ms", "esp", "broken"}, "ours": {"two_qubit_gates", "depth", "esp", "broken"}}]}` on
  stdout; progress goes to stderr.

ESP is the product of `1 - error` over every gate and measurement: `sx`, `x` and the two-qubit
gate by their `gate_error`, a measurement by its qubit's `readout_error`, `rz` (a frame change)
and anything the properties do not rate as 0; a qubit whose readout or `sx`/`x` error is at least
0.5 or that is marked not operational is broken, and so is a two-qubit gate whose error is at least
0.5 or that is marked not operational (either listed direction of a `cz`); an operation on a broken
element counts as error 1 and as a broken use.

A Braket target (`{"backend", "capabilities"}`: the device capabilities JSON) gets a Qiskit
`Target` built here from the same JSON: its connectivity graph both ways, its native gates (IQM:
`r` and `cz`; Rigetti: `rz`, `sx`, `x` (the `rx` angles it runs) and `cz` or `iswap`), each
with its error (one minus the `RANDOMIZED_BENCHMARKING` fidelity, else
`SIMULTANEOUS_RANDOMIZED_BENCHMARKING`; `READOUT` for measurements; the native two-qubit gate's
fidelity), as Braket's own emulator reads them; qubits the graph does not name are not in it.
Both results are counted by the same rules: `rz` is a frame change (error 0), every other
one-qubit gate has the one-qubit error, and a qubit or coupler with an error of at least 0.5
(Rigetti marks those out of service with a fidelity of 0.5) is broken.

Run from the repository root with the environment of tests/python/ibm (qiskit,
qiskit-qasm3-import, qiskit-ibm-runtime): `tests/python/ibm/run.sh` makes `.venv-ibm-runtime`,
then `.venv-ibm-runtime/bin/python scripts/bench-routing.py`.
"""

import json
import subprocess
import sys
import time

BROKEN = 0.5


def value(parameters, name):
    for parameter in parameters:
        if parameter.get("name") == name:
            v = parameter.get("value")
            return float(v) if isinstance(v, (int, float, bool)) else None
    return None


class Calibration:
    """The error of each operation and the broken elements, by a properties file."""

    def __init__(self, configuration, properties):
        self.n = configuration["n_qubits"]
        names = set(configuration["basis_gates"])
        self.two = "cz" if "cz" in names else "ecr"
        self.readout = [value(q, "readout_error") or 0.0 for q in properties["qubits"]]
        self.gate = {}
        down_qubits = {q for q, params in enumerate(properties["qubits"]) if value(params, "operational") == 0}
        down_gates = set()
        for g in properties["gates"]:
            key = (g["gate"], tuple(g["qubits"]))
            self.gate[key] = value(g["parameters"], "gate_error") or 0.0
            if value(g["parameters"], "operational") == 0:
                down_gates.add(key)
        self.broken_qubits = {
            q for q in range(self.n)
            if q in down_qubits or (q < len(self.readout) and self.readout[q] >= BROKEN)
            or any(self.gate.get((name, (q,)), 0.0) >= BROKEN or (name, (q,)) in down_gates for name in ("sx", "x"))
        }

        def listing_broken(a, b):
            key = (self.two, (a, b))
            return self.gate.get(key, 0.0) >= BROKEN or key in down_gates

        self.listing_broken = listing_broken

    def pair_broken(self, a, b):
        return (a in self.broken_qubits or b in self.broken_qubits or self.listing_broken(a, b)
                or (self.two == "cz" and self.listing_broken(b, a)))

    def error(self, name, qubits):
        """The error of one operation and whether it touches a broken element."""
        if len(qubits) == 2:
            a, b = qubits
            if self.pair_broken(a, b):
                return 1.0, True
            if self.two == "cz":
                known = [self.gate[(self.two, p)] for p in ((a, b), (b, a)) if (self.two, p) in self.gate]
                return (min(known) if known else 0.0), False
            return self.gate.get((self.two, (a, b)), 0.0), False
        if any(q in self.broken_qubits for q in qubits):
            return 1.0, True
        (q,) = qubits
        if name == "measure":
            return self.readout[q], False
        if name in ("sx", "x"):
            return self.gate.get((name, (q,)), 0.0), False
        return 0.0, False


class BraketCalibration:
    """The error of each operation and the broken elements, by Braket device capabilities."""

    def __init__(self, capabilities):
        paradigm = capabilities["paradigm"]
        gates = [g.lower() for g in paradigm["nativeGateSet"]]
        self.prx = "prx" in gates
        self.two = "iswap" if "iswap" in gates else "cz"
        graph = paradigm["connectivity"]["connectivityGraph"]
        self.present = {int(a) for a in graph} | {int(b) for bs in graph.values() for b in bs}
        self.coupled = {frozenset((int(a), int(b))) for a, bs in graph.items() for b in bs}
        self.n = max(self.present) + 1
        standardized = capabilities["standardized"]
        self.one, self.readout, self.pair = {}, {}, {}
        for q, props in standardized["oneQubitProperties"].items():
            names = {f["fidelityType"]["name"]: f["fidelity"] for f in props["oneQubitFidelity"]}
            rb = names.get("RANDOMIZED_BENCHMARKING", names.get("SIMULTANEOUS_RANDOMIZED_BENCHMARKING"))
            self.one[int(q)] = 1 - rb if rb is not None else 0.0
            self.readout[int(q)] = 1 - names["READOUT"] if "READOUT" in names else 0.0
        for pair, props in standardized["twoQubitProperties"].items():
            for f in props["twoQubitGateFidelity"]:
                if f["gateName"].lower() == self.two:
                    self.pair[frozenset(map(int, pair.split("-")))] = 1 - f["fidelity"]
        self.broken_qubits = {q for q in range(self.n) if q not in self.present or self.one.get(q, 0.0) >= BROKEN
                              or self.readout.get(q, 0.0) >= BROKEN}

    def pair_broken(self, a, b):
        pair = frozenset((a, b))
        return (a in self.broken_qubits or b in self.broken_qubits or pair not in self.coupled
                or self.pair.get(pair, 0.0) >= BROKEN)

    def error(self, name, qubits):
        """The error of one operation and whether it touches a broken element."""
        if len(qubits) == 2:
            a, b = qubits
            if self.pair_broken(a, b):
                return 1.0, True
            return self.pair.get(frozenset((a, b)), 0.0), False
        (q,) = qubits
        if q in self.broken_qubits:
            return 1.0, True
        if name == "measure":
            return self.readout.get(q, 0.0), False
        return (0.0 if name == "rz" else self.one.get(q, 0.0)), False

    def target(self):
        """A Qiskit Target of the device's native gates with their errors."""
        from qiskit.circuit import Measure, Parameter
        from qiskit.circuit.library import CZGate, RGate, RZGate, SXGate, XGate, iSwapGate
        from qiskit.transpiler import InstructionProperties, Target

        target = Target(num_qubits=self.n)
        qubits = sorted(self.present)
        one = lambda: {(q,): InstructionProperties(error=self.one.get(q, 0.0)) for q in qubits}  # noqa: E731
        if self.prx:
            target.add_instruction(RGate(Parameter("theta"), Parameter("phi")), one())
        else:
            target.add_instruction(RZGate(Parameter("theta")), {(q,): InstructionProperties(error=0.0) for q in qubits})
            target.add_instruction(SXGate(), one())
            target.add_instruction(XGate(), one())
        pairs = {}
        for pair in self.coupled:
            a, b = sorted(pair)
            for ordered in ((a, b), (b, a)):
                pairs[ordered] = InstructionProperties(error=self.pair.get(pair, 0.0))
        target.add_instruction(iSwapGate() if self.two == "iswap" else CZGate(), pairs)
        target.add_instruction(Measure(), {(q,): InstructionProperties(error=self.readout.get(q, 0.0)) for q in qubits})
        return target


def counted(circuit, calibration) -> dict:
    """Two-qubit gates, depth, ESP and broken uses, as Qiskit reads the circuit."""
    esp, broken = 1.0, 0
    for instruction in circuit.data:
        name = instruction.operation.name
        if name == "barrier":
            continue
        qubits = tuple(circuit.find_bit(q).index for q in instruction.qubits)
        error, on_broken = calibration.error(name, qubits)
        esp *= max(0.0, 1.0 - error)
        broken += on_broken
    return {"two_qubit_gates": sum(1 for i in circuit.data if len(i.qubits) == 2), "depth": circuit.depth(),
            "esp": esp, "broken": broken}


def target_from_files(configuration, properties):
    """A Qiskit Target with the device's gates, couplers and errors (when qiskit-ibm-runtime is
    missing)."""
    from qiskit.circuit import Measure, Parameter
    from qiskit.circuit.library import CZGate, ECRGate, RZGate, SXGate, XGate
    from qiskit.transpiler import InstructionProperties, Target

    n = configuration["n_qubits"]
    errors = {(g["gate"], tuple(g["qubits"])): value(g["parameters"], "gate_error") for g in properties["gates"]}
    readout = [value(q, "readout_error") for q in properties["qubits"]]
    target = Target(num_qubits=n)
    one = lambda name: {(q,): InstructionProperties(error=errors.get((name, (q,)))) for q in range(n)}  # noqa: E731
    target.add_instruction(RZGate(Parameter("theta")), {(q,): InstructionProperties(error=0.0) for q in range(n)})
    target.add_instruction(SXGate(), one("sx"))
    target.add_instruction(XGate(), one("x"))
    two = CZGate() if "cz" in configuration["basis_gates"] else ECRGate()
    pairs = {tuple(p): InstructionProperties(error=errors.get((two.name, tuple(p))))
             for p in configuration["coupling_map"]}
    target.add_instruction(two, pairs)
    target.add_instruction(Measure(), {(q,): InstructionProperties(error=readout[q]) for q in range(n)})
    return target


def device(spec):
    """The backend (or target) keyword of `transpile` for one device, and where it came from."""
    try:
        from qiskit_ibm_runtime import fake_provider

        name = "Fake" + spec["backend"].removeprefix("ibm_").capitalize()
        return {"backend": getattr(fake_provider, name)()}, f"qiskit-ibm-runtime fake backends ({name}, ...)"
    except ImportError:
        target = target_from_files(spec["configuration"], spec["properties"])
        return {"target": target}, "Qiskit targets built from the published files (no qiskit-ibm-runtime)"


def transpile_side() -> int:
    import qiskit
    import qiskit.qasm2
    import qiskit.qasm3
    from qiskit import transpile

    request = json.load(sys.stdin)
    seed = request.get("seed", 0)
    rows = []
    where = "none"
    for target, spec in request["targets"].items():
        if "capabilities" in spec:
            calibration = BraketCalibration(spec["capabilities"])
            keyword = {"target": calibration.target()}
        else:
            calibration = Calibration(spec["configuration"], spec["properties"])
            keyword, where = device(spec)
        for circuit in request["circuits"]:
            if target not in circuit["routed"]:
                continue  # wider than the device: neither side routes it
            logical = qiskit.qasm2.loads(circuit["qasm2"])
            ours = counted(qiskit.qasm3.loads(circuit["routed"][target]), calibration)
            started = time.perf_counter()
            theirs = transpile(logical, optimization_level=3, seed_transpiler=seed, **keyword)
            elapsed = (time.perf_counter() - started) * 1e3
            figures = counted(theirs, calibration) | {"ms": elapsed}
            rows.append({"target": target, "name": circuit["name"], "qiskit": figures, "ours": ours})
            print(f"qiskit {target:12} {circuit['name']:24} {logical.num_qubits:3} qubits | "
                  f"ESP {ours['esp']:.4f} vs {figures['esp']:.4f} | "
                  f"2q {ours['two_qubit_gates']:5} vs {figures['two_qubit_gates']:5} | "
                  f"depth {ours['depth']:5} vs {figures['depth']:5} | broken {ours['broken']} vs {figures['broken']} | "
                  f"{figures['ms']:9.1f} ms", file=sys.stderr)
    json.dump({"qiskit": qiskit.__version__, "backends": where, "rows": rows}, sys.stdout)
    return 0


def main() -> int:
    if sys.argv[1:2] == ["--transpile"]:
        return transpile_side()
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    subprocess.run(["cargo", "build", "--quiet", "--locked", "--release", "-p", "qchess-cli", "--bin", "qchess"],
                   cwd=repo, check=True)
    qchess = repo / "target" / "release" / "qchess"
    command = [str(qchess), "bench", "--workload", "routing", "--qiskit", sys.executable, *sys.argv[1:]]
    return subprocess.run(command, cwd=repo).returncode


if __name__ == "__main__":
    sys.exit(main())
