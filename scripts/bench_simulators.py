#!/usr/bin/env python3
"""Runs the same random circuits through qchess, qsimcirq and qiskit-aer, side by side.

The circuits are the `dense-circuits` workload of `qchess bench` (`h` on every qubit, then 200
random `u3` and `cx`), written as OpenQASM 2 by our exporter (`--write-qasm`); the workload's own
run in the same call gives each circuit's passes over the state and the in-place memory floor.
Then, per circuit, best of `--repeat`:

* qchess: the whole `qchess sim FILE --shots 1000 --precision P --threads T --json` process,
  start to exit (parsing, planning, allocation, simulation, sampling and printing), with the
  phases it reports (`timings`);
* qsim: `QSimSimulator.simulate` alone (the final state vector, single precision), in one child
  process, for each fusion setting of `--qsim-fuse`, the best kept;
* qiskit-aer: `AerSimulator(method="statevector").run` alone, double and single precision.

With `--pairs N`, qchess's double precision is also timed against its single precision pair by
pair (N pairs a circuit), each timed process after an untimed one of the same precision, and
the system time of every qchess process is recorded.

One process at a time: a 28-qubit state is 2 GiB in single precision, 4 GiB in double. The
load average of the last minute is recorded after every run. Needs `qsimcirq`, `cirq-core`,
`qiskit` and `qiskit-aer` in the running Python (`scripts/bench_simulators.requirements.txt`).

    python scripts/bench_simulators.py --qchess target/release/qchess --threads 2 --qubits 20 --qubits 24
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
kind, path, threads, precision, fuse, repeat = sys.argv[1:7]
threads, fuse, repeat = int(threads), int(fuse), int(repeat)
text = open(path).read()
if kind == "qsim":
    import qsimcirq
    from cirq.contrib.qasm_import import circuit_from_qasm
    circuit = circuit_from_qasm(text)
    options = qsimcirq.QSimOptions(cpu_threads=threads, max_fused_gate_size=fuse)
    simulator = qsimcirq.QSimSimulator(qsim_options=options)
    run = lambda: simulator.simulate(circuit).final_state_vector
else:
    from qiskit import qasm2
    from qiskit_aer import AerSimulator
    circuit = qasm2.loads(text)
    circuit.save_statevector()
    simulator = AerSimulator(method="statevector", precision=precision, max_parallel_threads=threads)
    run = lambda: simulator.run(circuit).result().get_statevector()
seconds = []
for _ in range(repeat):
    started = time.perf_counter()
    state = run()
    seconds.append(time.perf_counter() - started)
    del state
print(json.dumps({"seconds": min(seconds), "all": seconds}))
"""


def load():
    return os.getloadavg()[0]


def run_child(kind, path, threads, precision, fuse, repeat):
    """One simulator in a fresh process: its best call, every call, and its peak RSS in MB."""
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, path, str(threads), precision, str(fuse), str(repeat)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout, stderr = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"{kind} failed on {path}:\n{stderr}")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["load"] = load()
    return result


def run_qchess_once(binary, path, threads, precision):
    """One whole `qchess sim` process: its wall time, its system time and its JSON report."""
    command = [binary, "sim", path, "--shots", "1000", "--seed", "1", "--precision", precision,
               "--threads", str(threads), "--json"]
    system_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime
    started = time.perf_counter()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - started
    system = resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime - system_before
    return wall, system, json.loads(output)


def run_qchess_sim(binary, path, threads, precision, repeat):
    """The whole `qchess sim` process, best of `repeat`, with the phases of its best run."""
    best = None
    walls, systems = [], []
    for _ in range(repeat):
        wall, system, report = run_qchess_once(binary, path, threads, precision)
        walls.append(wall)
        systems.append(system)
        if best is None or wall < best["seconds"]:
            best = {"seconds": wall, "timings": report["timings"], "dense": report["dense"]}
    best["all"] = walls
    best["system"] = systems
    best["load"] = load()
    return best


def run_pairs(binary, path, threads, pairs):
    """Double over single precision, pair by pair. Each timed process follows an untimed one of
    the same precision, so that both find memory the previous process has just freed: on a
    virtual machine that hands free memory back to its host, memory touched for the first time
    in a while costs the host's work too (the guide's performance chapter)."""
    ratios = []
    runs = {"single": [], "double": []}
    for _ in range(pairs):
        pair = {}
        for precision in ("double", "single"):
            run_qchess_once(binary, path, threads, precision)
            wall, system, _ = run_qchess_once(binary, path, threads, precision)
            runs[precision].append({"seconds": wall, "system": system})
            pair[precision] = wall
        ratios.append(pair["double"] / pair["single"])
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    return {"median": statistics.median(ratios), "quartiles": [quartiles[0], quartiles[2]], "ratios": ratios,
            "runs": runs, "load": load()}


def run_workload(binary, directory, threads, qubits):
    """The dense-circuits workload of qchess bench for one size: floors, passes, in-process times."""
    command = [binary, "bench", "--workload", "dense-circuits", "--write-qasm", directory, "--threads", str(threads),
               "--circuit-qubits", str(qubits), "--json"]
    report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    return report["machine"], report["workloads"][0]["details"]["sizes"][0]


def summarise(size, results, threads):
    """The row of the guide's table for one circuit: seconds, ratios, passes, floors."""
    runs = {run["variant"]: run for run in size["runs"]}
    row = {"qubits": size["qubits"], "gates": size["gates"]}
    qsim = min((r for name, r in results.items() if name.startswith("qsim")), key=lambda r: r["seconds"])
    row["qsim"] = qsim["seconds"]
    row["qsim_setting"] = qsim["setting"]
    for precision in ("single", "double"):
        sim = results[f"qchess {precision}"]
        run = runs.get(f"fused {precision} {threads}t", {})
        row[precision] = sim["seconds"]
        row[f"{precision}_timings"] = sim["timings"]
        row[f"{precision}_passes"] = sim["dense"]["passes"] if sim["dense"] else None
        simulate = sim["timings"]["simulate"]
        floor = run.get("in_place_floor_seconds")
        passes = row[f"{precision}_passes"]
        row[f"{precision}_per_pass"] = simulate / passes if passes else None
        row[f"{precision}_floor"] = floor
        row[f"{precision}_pass_to_floor"] = simulate / passes / floor if passes and floor else None
        row[f"aer_{precision}"] = results[f"aer {precision}"]["seconds"]
    row["single_to_qsim"] = row["single"] / row["qsim"]
    row["double_to_single"] = row["double"] / row["single"]
    row["double_to_aer_double"] = row["double"] / row["aer_double"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qchess", default="target/release/qchess")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--qubits", type=int, action="append", help="circuit sizes (repeatable; default 20, 24, 26, 28)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs of qchess and qsim")
    parser.add_argument("--aer-repeat", type=int, default=3, help="best of this many aer runs up to 24 qubits (one above)")
    parser.add_argument("--qsim-fuse", type=int, action="append", help="qsim's max_fused_gate_size settings (default 2 and 4)")
    parser.add_argument("--pairs", type=int, default=0,
                        help="also time double against single precision pair by pair, this many pairs a circuit")
    parser.add_argument("--out", help="write the results here as JSON")
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="qchess-circuits-")
    rows = []
    machine = None
    for qubits in args.qubits or [20, 24, 26, 28]:
        machine, size = run_workload(args.qchess, directory, args.threads, qubits)
        path = os.path.join(directory, f"random_{qubits}.qasm")
        results = {}
        for precision in ("single", "double"):
            results[f"qchess {precision}"] = run_qchess_sim(args.qchess, path, args.threads, precision, args.repeat)
        for fuse in args.qsim_fuse or [2, 4]:
            result = run_child("qsim", path, args.threads, "single", fuse, args.repeat)
            result["setting"] = f"max_fused_gate_size={fuse}"
            results[f"qsim fuse {fuse}"] = result
        aer_repeat = args.aer_repeat if qubits <= 24 else 1
        for precision in ("double", "single"):
            results[f"aer {precision}"] = run_child("aer", path, args.threads, precision, 0, aer_repeat)
        row = summarise(size, results, args.threads)
        if args.pairs:
            row["pairs"] = run_pairs(args.qchess, path, args.threads, args.pairs)
        row["workload"] = size
        row["results"] = results
        rows.append(row)
        print(f"== {qubits} qubits, {size['gates']} gates, {args.threads} threads, load {load():.2f}", file=sys.stderr)
        for name, result in results.items():
            print(f"  {name:24s} {result['seconds']:9.3f} s  (runs {', '.join(f'{s:.3f}' for s in result['all'])})",
                  file=sys.stderr)
        for precision in ("single", "double"):
            per_pass, floor = row[f"{precision}_per_pass"], row[f"{precision}_floor"]
            if per_pass and floor:
                print(f"  {precision}: {row[f'{precision}_passes']} passes, {per_pass * 1e3:.2f} ms a pass, "
                      f"floor {floor * 1e3:.2f} ms ({row[f'{precision}_pass_to_floor']:.2f}x)", file=sys.stderr)
        print(f"  single / qsim {row['single_to_qsim']:.2f}x, double / single {row['double_to_single']:.2f}x, "
              f"double / aer double {row['double_to_aer_double']:.2f}x", file=sys.stderr)
        if args.pairs:
            pairs = row["pairs"]
            medians = {p: statistics.median(r["seconds"] for r in pairs["runs"][p]) for p in ("single", "double")}
            systems = {p: statistics.median(r["system"] for r in pairs["runs"][p]) for p in ("single", "double")}
            print(f"  pairs: double / single median {pairs['median']:.2f}x (quartiles {pairs['quartiles'][0]:.2f}x-"
                  f"{pairs['quartiles'][1]:.2f}x, {args.pairs} pairs); medians single {medians['single']:.3f} s, "
                  f"double {medians['double']:.3f} s; system time {systems['single']:.3f} s, "
                  f"{systems['double']:.3f} s", file=sys.stderr)
    output = {"machine": machine, "threads": args.threads, "circuits": rows}
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(output, handle, indent=1)
    print(json.dumps(output))


if __name__ == "__main__":
    main()
