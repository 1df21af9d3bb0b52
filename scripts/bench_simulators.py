#!/usr/bin/env python3
"""Runs the same random circuits through qchess, qsimcirq and qiskit-aer, side by side.

The circuits are the `dense-circuits` workload of `qchess bench`, written as OpenQASM 2 by our
exporter (`--write-qasm`). Each simulator run is a fresh process, timed from the circuit in
memory to the final state vector, with its peak RSS taken from the kernel (wait4). Needs
`qsimcirq`, `cirq-core`, `qiskit` and `qiskit-aer` in the running Python.

    python scripts/bench_simulators.py --qchess target/release/qchess --threads 2 --out results.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
kind, path, threads, precision, fuse = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
text = open(path).read()
if kind == "qsim":
    import qsimcirq
    from cirq.contrib.qasm_import import circuit_from_qasm
    circuit = circuit_from_qasm(text)
    options = qsimcirq.QSimOptions(cpu_threads=threads, max_fused_gate_size=fuse)
    simulator = qsimcirq.QSimSimulator(qsim_options=options)
    started = time.perf_counter()
    state = simulator.simulate(circuit).final_state_vector
else:
    from qiskit import qasm2
    from qiskit_aer import AerSimulator
    circuit = qasm2.loads(text)
    circuit.save_statevector()
    simulator = AerSimulator(method="statevector", precision=precision, max_parallel_threads=threads)
    started = time.perf_counter()
    state = simulator.run(circuit).result().get_statevector()
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "amplitudes": len(state)}))
"""


def run_child(kind, path, threads, precision, fuse=2):
    """Runs one simulation in a fresh process: its seconds, its peak RSS in MB and the load
    average of the last minute when it ended."""
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, path, str(threads), precision, str(fuse)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout = process.stdout.read()
    stderr = process.stderr.read()
    # Reaped here, not by Popen, to read the child's own resource usage.
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{kind} failed on {path}:\n{stderr}")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["peak_rss_mb"] = usage.ru_maxrss / 1024
    result["load"] = os.getloadavg()[0]
    return result


def run_qchess(binary, directory, threads, qubits):
    """The dense-circuits workload of qchess bench: per circuit, per variant, seconds."""
    command = [binary, "bench", "--workload", "dense-circuits", "--write-qasm", directory, "--threads", str(threads), "--json"]
    for size in qubits or []:
        command += ["--circuit-qubits", str(size)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    report = json.loads(output)
    workload = report["workloads"][0]
    return report["machine"], workload


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qchess", default="target/release/qchess")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", help="write the results here as JSON")
    parser.add_argument("--qubits", type=int, action="append", help="only circuits of this size (repeatable; default 20, 24, 26)")
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="qchess-circuits-")
    machine, workload = run_qchess(args.qchess, directory, args.threads, args.qubits)
    rows = []
    for size in workload["details"]["sizes"]:
        qubits, gates = size["qubits"], size["gates"]
        path = os.path.join(directory, f"random_{qubits}.qasm")
        results = {f"qchess {run['variant']}": {"seconds": run["seconds"], "load": run.get("load")} for run in size["runs"]}
        for threads in sorted({1, args.threads}):
            # qsimcirq's default fusion (gates of up to 2 qubits) and its widest useful one (4).
            results[f"qsim single {threads}t"] = run_child("qsim", path, threads, "single")
            results[f"qsim single {threads}t fuse 4"] = run_child("qsim", path, threads, "single", 4)
            for precision in ("double", "single"):
                results[f"aer {precision} {threads}t"] = run_child("aer", path, threads, precision)
        for name, result in results.items():
            result["gates_per_s"] = gates / result["seconds"]
        rows.append({"qubits": qubits, "gates": gates, "results": results})
        print(f"== {qubits} qubits, {gates} gates", file=sys.stderr)
        for name, result in results.items():
            rss = result.get("peak_rss_mb")
            rss_text = f"{rss:8.0f} MB" if rss else "           "
            load = result.get("load")
            load_text = f"load {load:4.2f}" if load is not None else ""
            print(
                f"  {name:28s} {result['seconds']:9.3f} s {result['gates_per_s']:9.1f} gates/s {rss_text} {load_text}",
                file=sys.stderr,
            )
    output = {"machine": machine, "threads": args.threads, "circuits": rows}
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(output, handle, indent=1)
    print(json.dumps(output))


if __name__ == "__main__":
    main()
