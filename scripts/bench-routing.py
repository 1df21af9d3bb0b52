#!/usr/bin/env python3
"""Routing benchmark: qchess's router against Qiskit's transpiler at optimisation level 3.

The benchmark is the `routing` workload of `qchess bench` (crates/qchess-bench/src/routing.rs):
it builds the whole-game circuits (the example games and seeded random games), routes them onto
ibm-heron and ibm-eagle, and with `--qiskit PYTHON` runs this file with that interpreter to
transpile the same circuits with Qiskit. This file has two roles:

* `scripts/bench-routing.py [FLAGS]`: builds qchess (release) and runs
  `qchess bench --workload routing --qiskit <this interpreter> [FLAGS]` (for example `--json`
  or `--quick`), so that one command gives the side-by-side figures.
* `--transpile` (how the workload runs it): reads JSON on stdin,
  `{"targets": {NAME: {"coupling_map", "basis_gates"}}, "circuits": [{"name", "qasm2",
  "routed": {NAME: QASM3}}], "seed"}`, transpiles each logical circuit onto each target with
  `transpile(optimization_level=3, seed_transpiler=seed)` (timed once), counts both its result
  and our routed circuit (loaded with `qasm3.loads`) in the same way (two-qubit gates, `depth()`),
  and writes `{"qiskit": VERSION, "rows": [{"target", "name", "qiskit": {"two_qubit_gates",
  "depth", "ms"}, "ours": {"two_qubit_gates", "depth"}}]}` on stdout; progress goes to stderr.

Run from the repository root with the Python environment of tests/python (qiskit,
qiskit-qasm3-import): `scripts/python-env.sh`, then `.venv/bin/python scripts/bench-routing.py`.
"""

import json
import subprocess
import sys
import time


def counted(circuit) -> dict:
    """Two-qubit gates and depth, as Qiskit counts them."""
    return {"two_qubit_gates": sum(1 for i in circuit.data if len(i.qubits) == 2), "depth": circuit.depth()}


def transpile_side() -> int:
    import qiskit
    import qiskit.qasm2
    import qiskit.qasm3
    from qiskit import transpile
    from qiskit.transpiler import CouplingMap

    request = json.load(sys.stdin)
    seed = request.get("seed", 0)
    rows = []
    for target, device in request["targets"].items():
        coupling = CouplingMap(device["coupling_map"])
        for circuit in request["circuits"]:
            logical = qiskit.qasm2.loads(circuit["qasm2"])
            ours = counted(qiskit.qasm3.loads(circuit["routed"][target]))
            started = time.perf_counter()
            theirs = transpile(logical, basis_gates=device["basis_gates"], coupling_map=coupling,
                               optimization_level=3, seed_transpiler=seed)
            figures = counted(theirs) | {"ms": (time.perf_counter() - started) * 1e3}
            rows.append({"target": target, "name": circuit["name"], "qiskit": figures, "ours": ours})
            print(f"qiskit {target:9} {circuit['name']:24} {logical.num_qubits:3} qubits | "
                  f"2q {ours['two_qubit_gates']:5} vs {figures['two_qubit_gates']:5} | "
                  f"depth {ours['depth']:5} vs {figures['depth']:5} | {figures['ms']:9.1f} ms", file=sys.stderr)
    json.dump({"qiskit": qiskit.__version__, "rows": rows}, sys.stdout)
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
