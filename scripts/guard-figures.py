#!/usr/bin/env python3
"""Regression guards for the figures the README and the guide (docs/src) state about speed,
memory and bounds.

Each guard names the line it protects (an exact excerpt, which must still be in the README or a
chapter of the guide: a changed figure means a changed guard), runs the command that reproduces the figure on
the release binary, and fails only far beyond the figure: a run taking more than FACTOR times the
stated time (at least MIN_SECONDS), more than MEMORY_FACTOR times the stated peak memory, or a
different outcome (an answer where a refusal is stated, or the other way round). The routing
table's quality figures (ESP, two-qubit gates, depth, no gate on a broken element) do not depend
on the machine and are held within a tenth. These are hang and blow-up checks, not timings: the figures themselves are measured with the commands named in
the README on an idle machine.

Usage: scripts/guard-figures.py [--qchess target/release/qchess] [--only NAME] [--measure RUNS]
"""

import argparse
import json
import os
import resource
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FACTOR = 10.0
MEMORY_FACTOR = 5.0
MIN_SECONDS = 2.0
MIN_MB = 40.0


@dataclass
class Guard:
    """One README figure: the command reproducing it and what it must show."""

    name: str
    readme: str  # an exact excerpt of the README line it protects
    args: list  # qchess arguments; `{name}` is replaced by a prepared file or port
    seconds: float  # the stated time
    mb: float | None = None  # the stated peak memory (MiB), if any
    exit: int = 0  # the stated outcome
    stderr: str | None = None  # a phrase the error must contain, for stated refusals
    figures: list = field(default_factory=list)  # the numbers as the excerpt writes them
    factor: float = FACTOR  # how many times the stated time a run may take


def layered(qubits, rounds):
    """`rounds` rounds of H on every qubit, then a measurement of every qubit."""
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";', f"qreg q[{qubits}];", f"creg c[{qubits}];"]
    for _ in range(rounds):
        lines += [f"h q[{i}];" for i in range(qubits)]
        lines += [f"measure q[{i}] -> c[{i}];" for i in range(qubits)]
    return "\n".join(lines) + "\n"


def interleaved(qubits, rounds):
    """`rounds` rounds of `h q[i]; measure q[i]` over every qubit."""
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";', f"qreg q[{qubits}];", f"creg c[{qubits}];"]
    for _ in range(rounds):
        for i in range(qubits):
            lines += [f"h q[{i}];", f"measure q[{i}] -> c[{i}];"]
    return "\n".join(lines) + "\n"


def entangled(qubits, rounds):
    """Rounds of H on every qubit, a ring of CZs, then a measurement of every qubit: the
    measured branches stay distinct, so exact probabilities must refuse at the memory budget."""
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";', f"qreg q[{qubits}];", f"creg c[{qubits}];"]
    for _ in range(rounds):
        lines += [f"h q[{i}];" for i in range(qubits)]
        lines += [f"cz q[{i}],q[{(i + 1) % qubits}];" for i in range(qubits)]
        lines += [f"measure q[{i}] -> c[{i}];" for i in range(qubits)]
    return "\n".join(lines) + "\n"


CIRCUITS = {
    "interleaved_20x50": interleaved(20, 50),
    "interleaved_16x4": interleaved(16, 4),
    "layered_16x4": layered(16, 4),
    "entangled_16x4": entangled(16, 4),
}

GUARDS = [
    Guard(
        name="mid-circuit measurements, shots",
        readme="20 qubits x 50 rounds of `h q[i]; measure q[i]`, `--shots 100`: 0.01 s, 9 MiB peak RSS",
        args=["sim", "{interleaved_20x50}", "--shots", "100", "--seed", "1", "--json"],
        seconds=0.01,
        mb=9,
        figures=["0.01 s", "9 MiB"],
    ),
    Guard(
        name="mid-circuit measurements, exact, measured as they come",
        readme="16 qubits x 4 rounds of the same `--exact`: 1.2 s, 38 MiB",
        args=["sim", "{interleaved_16x4}", "--exact", "--json"],
        seconds=1.2,
        mb=38,
        figures=["1.2 s", "38 MiB"],
    ),
    Guard(
        name="mid-circuit measurements, exact, measured after a whole round",
        readme="16 qubits x 4 rounds of `h` on every qubit, then `measure` on every qubit, `--exact`: 1.2 s, 38 MiB",
        args=["sim", "{layered_16x4}", "--exact", "--json"],
        seconds=1.2,
        mb=38,
        figures=["1.2 s", "38 MiB"],
    ),
    Guard(
        name="mid-circuit measurements, exact, refused at the branch limit",
        readme="20 x 50 `--exact` refuses at the branch limit after 0.3 s, 144 MiB",
        args=["sim", "{interleaved_20x50}", "--exact", "--json"],
        seconds=0.3,
        mb=144,
        exit=1,
        stderr="measurement branches (the branch limit)",
        figures=["0.3 s", "144 MiB"],
    ),
    Guard(
        name="mid-circuit measurements, exact, refused at the memory budget",
        readme="with a ring of CZs before each round's measurements, `--exact` refuses at the 1 GiB branch budget after 0.7 s, 1036 MiB",
        args=["sim", "{entangled_16x4}", "--exact", "--json"],
        seconds=0.7,
        mb=1036,
        exit=1,
        stderr="over the budget of 1 GiB",
        figures=["0.7 s", "1036 MiB"],
    ),
    Guard(
        name="--timeout against a provider that refuses connections",
        readme="`--timeout 2` against a port that refuses connections: exit 1 after 1.6 s",
        args=["game", "--moves", "g1^f3h3", "--timeout", "2", "--backend", "ionq", "--api-key", "k",
              "--provider-url", "http://127.0.0.1:{refusing_port}/v0.4"],
        seconds=1.6,
        exit=1,
        stderr="Connection refused",
        figures=["1.6 s"],
        factor=5,
    ),
    Guard(
        name="--timeout against a provider that never answers",
        readme="against one that accepts connections and never answers: exit 1 after 2.0 s",
        args=["game", "--moves", "g1^f3h3", "--timeout", "2", "--backend", "ionq", "--api-key", "k",
              "--provider-url", "http://127.0.0.1:{silent_port}/v0.4"],
        seconds=2.0,
        exit=1,
        stderr="did not finish within the --timeout of 2.0 s",
        figures=["2.0 s"],
        factor=5,
    ),
]

# `qchess bench` workloads whose table row the README states: (workload, excerpt of the row,
# median microseconds per move, games per second or None, peak RSS MiB).
BENCH_ROWS = [
    ("fixed", "fixed                2800       0.76      2.10", 0.76, 83265, 8.3),
    ("random-default", "random-default      57659       3.29      7.59", 3.29, 4602, 15.6),
    ("random-split-heavy", "random-split-heavy  59398       5.89     74.08", 5.89, 1722, 15.8),
    ("random-no-merge", "random-no-merge     57349       2.90      6.63", 2.90, 5287, 15.8),
    ("growth", "growth                 30     252.46  40012.01", 252.46, None, 123.2),
]

# The routing table's rows over all 24 circuits of a device (Routing onto devices, "One run"):
# (device, excerpt of the row, median ESP, median two-qubit gates, median depth, median compile
# ms). ESP, gate counts and depth do not depend on the machine, so they are held closely (a
# tenth); the compile time only within FACTOR.
ROUTING_ROWS = [
    ("ibm-torino", "| ibm-torino, all | 24 (3-41) | 0.212 vs 0.158", 0.212, 184.5, 241, 8.69),
    ("ibm-fez", "| ibm-fez, all | 24 (3-41) | 0.323 vs 0.321", 0.323, 209.5, 262.5, 7.29),
    ("ibm-brisbane", "| ibm-brisbane, all | 24 (3-41) | 0.131 vs 0.075", 0.131, 198.5, 291, 9.31),
]
ROUTING_SLACK = 1.1


def excerpt_check(readme, excerpt, figures=()):
    if excerpt not in readme:
        return f"neither the README nor the guide has the line this guard protects: {excerpt!r} (update the guard with the figure)"
    missing = [f for f in figures if f not in excerpt]
    if missing:
        return f"the guard's figures {missing} are not in its README excerpt"
    return None


def run_measured(command, limit):
    """Runs `command`, killing it after `limit` seconds; returns (exit code or None if killed,
    seconds, peak RSS MiB, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # Linux starts a child's peak RSS at that of the process it was spawned from, so a peak
        # below this script's own (about 17 MiB) reads as that: the memory bounds are never
        # below MIN_MB.
        actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
        start = time.monotonic()
        pid = os.posix_spawn(command[0], command, os.environ, file_actions=actions, setsid=True)
        killer = threading.Timer(limit, lambda: os.killpg(pid, signal.SIGKILL))
        killer.start()
        try:
            _, status, usage = os.wait4(pid, 0)
        finally:
            killer.cancel()
        took = time.monotonic() - start
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        return (code if code >= 0 else None), took, usage.ru_maxrss / 1024, stdout, stderr


def silent_listener():
    """A port that accepts connections and never answers, for as long as the script runs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held = []

    def accept():
        while True:
            connection, _ = listener.accept()
            held.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]


def refusing_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def check_guard(guard, qchess, places, readme):
    problem = excerpt_check(readme, guard.readme, guard.figures)
    if problem:
        return problem
    time_bound = max(guard.factor * guard.seconds, MIN_SECONDS)
    args = [a.format(**places) for a in guard.args]
    code, took, mb, _, stderr = run_measured([qchess, *args], 2 * time_bound)
    line = f"{took:.2f} s (bound {time_bound:.1f} s), {mb:.0f} MiB"
    if guard.mb is not None:
        memory_bound = max(MEMORY_FACTOR * guard.mb, MIN_MB)
        line += f" (bound {memory_bound:.0f} MiB)"
    print(f"  {guard.name}: {line}")
    if code is None:
        return f"killed after {took:.1f} s without an answer: {stderr[-300:]}"
    if code != guard.exit:
        return f"exit {code}, the README states {guard.exit}: {stderr[-300:]}"
    if guard.stderr and guard.stderr not in stderr:
        return f"the error does not say `{guard.stderr}`: {stderr[-300:]}"
    if took > time_bound:
        return f"{took:.1f} s is over {guard.factor:g}x the stated {guard.seconds} s"
    if guard.mb is not None and mb > max(MEMORY_FACTOR * guard.mb, MIN_MB):
        return f"{mb:.0f} MiB is over {MEMORY_FACTOR:g}x the stated {guard.mb} MB"
    return None


def measure(guards, qchess, places, runs):
    """Runs each guard's command `runs` times and prints the medians: how the stated figures
    are measured (no bound is checked)."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown CPU")
    print(f"{model}, {os.cpu_count()} logical CPUs; load average at start {os.getloadavg()[0]:.1f}")
    for guard in guards:
        args = [a.format(**places) for a in guard.args]
        taken = [run_measured([qchess, *args], 600) for _ in range(runs)]
        codes = sorted({code for code, *_ in taken}, key=str)
        seconds = statistics.median(took for _, took, *_ in taken)
        mb = statistics.median(mb for _, _, mb, *_ in taken)
        print(f"  {guard.name}: median {seconds:.2f} s, {mb:.0f} MiB peak RSS over {runs} runs (exit {codes})")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"load average at end {os.getloadavg()[0]:.1f}; a peak RSS at or below this script's own "
          f"({own:.0f} MiB) may be less: measure it with /usr/bin/time -f %M")


def check_bench(qchess, readme):
    problems = []
    for _, excerpt, *_ in BENCH_ROWS:
        problem = excerpt_check(readme, excerpt)
        if problem:
            problems.append(f"bench: {problem}")
    if problems:
        return problems
    command = [qchess, "bench", "--json"]
    for workload, *_ in BENCH_ROWS:
        command += ["--workload", workload]
    code, took, _, stdout, stderr = run_measured(command, 300)
    if code != 0:
        return [f"bench: exit {code}: {stderr[-300:]}"]
    results = {w["name"]: w for w in json.loads(stdout)["workloads"]}
    print(f"  bench ({took:.1f} s):")
    for workload, _, median, games, rss in BENCH_ROWS:
        got = results[workload]
        print(f"    {workload}: median {got['median_move_us']} us (stated {median}), "
              f"games/s {got['games_per_s']} (stated {games}), {got['peak_rss_mb']:.1f} MiB (stated {rss})")
        if got["median_move_us"] > FACTOR * median:
            problems.append(f"bench {workload}: median move {got['median_move_us']} us is over {FACTOR:g}x the stated {median}")
        if games is not None and got["games_per_s"] < games / FACTOR:
            problems.append(f"bench {workload}: {got['games_per_s']:.0f} games/s is under a {FACTOR:g}th of the stated {games}")
        if got["peak_rss_mb"] > max(MEMORY_FACTOR * rss, MIN_MB):
            problems.append(f"bench {workload}: {got['peak_rss_mb']:.0f} MiB is over {MEMORY_FACTOR:g}x the stated {rss}")
    return problems


def check_routing(qchess, readme):
    problems = [f"routing: {p}" for _, excerpt, *_ in ROUTING_ROWS if (p := excerpt_check(readme, excerpt))]
    if problems:
        return problems
    code, took, _, stdout, stderr = run_measured([qchess, "bench", "--json", "--workload", "routing"], 300)
    if code != 0:
        return [f"routing: exit {code}: {stderr[-300:]}"]
    details = json.loads(stdout)["workloads"][0]["details"]
    print(f"  routing ({took:.1f} s), {details['broken_uses']} gates on broken elements:")
    if details["broken_uses"] != 0:
        problems.append(f"routing: {details['broken_uses']} gates on broken elements (stated 0)")
    for device, _, esp, two_qubit, depth, ms in ROUTING_ROWS:
        got = details["medians"][device]["all"]
        print(f"    {device}: ESP {got['median_esp']:.3f} (stated {esp}), {got['median_two_qubit_gates']} two-qubit "
              f"gates (stated {two_qubit}), depth {got['median_depth']} (stated {depth}), "
              f"{got['median_compile_ms']:.2f} ms (stated {ms})")
        if got["median_esp"] < esp / ROUTING_SLACK:
            problems.append(f"routing {device}: median ESP {got['median_esp']:.3f} is under the stated {esp}")
        if got["median_two_qubit_gates"] > two_qubit * ROUTING_SLACK:
            problems.append(f"routing {device}: {got['median_two_qubit_gates']} two-qubit gates, over the stated {two_qubit}")
        if got["median_depth"] > depth * ROUTING_SLACK:
            problems.append(f"routing {device}: depth {got['median_depth']}, over the stated {depth}")
        if got["median_compile_ms"] > FACTOR * ms:
            problems.append(f"routing {device}: {got['median_compile_ms']:.2f} ms is over {FACTOR:g}x the stated {ms}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qchess", default=str(ROOT / "target" / "release" / "qchess"))
    parser.add_argument("--only", help="run only the guards whose name contains this")
    parser.add_argument("--measure", type=int, metavar="RUNS",
                        help="measure the guarded commands instead: medians of RUNS runs each")
    options = parser.parse_args()
    pages = [ROOT / "README.md", *sorted((ROOT / "docs" / "src").glob("*.md"))]
    readme = "\n".join(page.read_text() for page in pages if page.exists())
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        places = {"silent_port": silent_listener(), "refusing_port": refusing_port()}
        for name, text in CIRCUITS.items():
            path = Path(scratch) / f"{name}.qasm"
            path.write_text(text)
            places[name] = str(path)
        if options.measure:
            chosen = [g for g in GUARDS if not options.only or options.only in g.name]
            measure(chosen, options.qchess, places, options.measure)
            return 0
        for guard in GUARDS:
            if options.only and options.only not in guard.name:
                continue
            problem = check_guard(guard, options.qchess, places, readme)
            if problem:
                failures.append(f"{guard.name}: {problem}\n    README: {guard.readme}")
        if not options.only or options.only in "bench":
            failures += check_bench(options.qchess, readme)
        if not options.only or options.only in "routing":
            failures += check_routing(options.qchess, readme)
    if failures:
        print("\nDocumented figures that no longer hold:", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        return 1
    print("every guarded figure holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
