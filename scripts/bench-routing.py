#!/usr/bin/env python3
"""Routing benchmark: qchess's router against Qiskit's transpiler at optimisation level 3.

The same whole-game circuits (the example games in examples/ and seeded random games of the
computer against itself) are
* routed by qchess (`qchess compile --target T --json`, release build: its `compile_ms` covers
  lowering, layout, routing, translation and the ISA check, not the simulation that
  re-verifies the result; median of --repeats runs), and
* exported by `qchess compile --format qasm2` and transpiled by Qiskit
  (`transpile(optimization_level=3, seed_transpiler=0)` onto the same device's coupling map and
  basis gates), timed once.
Both results are counted by Qiskit in the same way (two-qubit gates, `depth()`), after loading
our output with `qasm3.loads`. Prints one line per circuit and the medians, and writes the
figures as JSON with --out.

Usage: scripts/bench-routing.py [--targets ibm-heron,ibm-eagle] [--seeds 1-8] [--plies 30]
                                [--repeats 5] [--out FILE]
Run from the repository root with the Python environment of tests/python (qiskit).
"""

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import qiskit.qasm2
import qiskit.qasm3
from qiskit import transpile
from qiskit.transpiler import CouplingMap

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "crates" / "qchess-route" / "data"
DEVICES = {"ibm-heron": ("fez", ["cz", "rz", "sx", "x"]), "ibm-eagle": ("brisbane", ["ecr", "rz", "sx", "x"])}


def run(*args: str, cwd: Path = REPO) -> str:
    result = subprocess.run(args, capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def example_games(qchess: str) -> list[tuple[str, str, str]]:
    """(name, position, moves with recorded outcomes) of every example record."""
    games = []
    for record in sorted((REPO / "examples").glob("*.pgn")):
        text = record.read_text()
        fen = re.search(r'^\[FEN "([^"]+)"\]', text, re.MULTILINE)
        position = f"fen {fen.group(1)}" if fen else "startpos"
        game = json.loads(run(qchess, "game", "--record", str(record), "--json"))
        moves = [m["move"] if m.get("outcome") is None or ".m" in m["move"] else f"{m['move']}.m{int(m['outcome'])}"
                 for m in game["moves"]]
        games.append((record.stem, position, " ".join(moves)))
    return games


def random_game(qchess: str, seed: int, plies: int) -> tuple[str, str, str]:
    out = run(qchess, "play", "--white", "ai", "--black", "ai", "--max-plies", str(plies), "--seed", str(seed), "--json")
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    moves = [event["move"] for event in events if event.get("event") == "move"]
    return (f"random-{seed}", "startpos", " ".join(moves))


def counted(qc) -> tuple[int, int]:
    """(two-qubit gates, depth) as Qiskit counts them."""
    return sum(1 for i in qc.data if len(i.qubits) == 2), qc.depth()


def parse_range(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="ibm-heron,ibm-eagle")
    parser.add_argument("--seeds", default="1-8")
    parser.add_argument("--plies", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()

    run("cargo", "build", "--quiet", "--locked", "-p", "qchess-cli", "--bin", "qchess")
    run("cargo", "build", "--quiet", "--locked", "--release", "-p", "qchess-cli", "--bin", "qchess")
    qchess = str(REPO / "target" / "debug" / "qchess")
    release = str(REPO / "target" / "release" / "qchess")

    games = example_games(qchess) + [random_game(qchess, seed, args.plies) for seed in parse_range(args.seeds)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, position, moves in games:
            out = Path(tmp) / name
            run(qchess, "compile", "--position", position, "--moves", moves, "--format", "qasm2", "--out", str(out))
            logical = qiskit.qasm2.loads((out / "game.qasm").read_text())
            if counted(logical)[0] == 0:
                print(f"skip  {name}: no two-qubit gate (a classical board)")
                continue
            files[name] = (position, moves, logical)
        for target in args.targets.split(","):
            device, basis = DEVICES[target]
            conf = json.loads((DATA / f"conf_{device}.json").read_text())
            coupling = CouplingMap(conf["coupling_map"])
            for name, (position, moves, logical) in files.items():
                runs = [json.loads(run(release, "compile", "--position", position, "--moves", moves, "--target", target,
                                       "--format", "qasm3", "--json")) for _ in range(args.repeats)]
                ours = runs[0]
                our_ms = statistics.median(r["compile_ms"] for r in runs)
                routed = qiskit.qasm3.loads(ours["qasm"])
                our_two, our_depth = counted(routed)
                if (our_two, our_depth) != (ours["two_qubit_gates"], ours["depth"]):
                    raise SystemExit(f"{name}: our printed figures differ from Qiskit's count of our circuit")
                started = time.perf_counter()
                theirs = transpile(logical, basis_gates=basis, coupling_map=coupling, optimization_level=3,
                                   seed_transpiler=0)
                their_ms = (time.perf_counter() - started) * 1e3
                their_two, their_depth = counted(theirs)
                row = {
                    "target": target, "game": name, "qubits": logical.num_qubits, "verified": ours["verified"],
                    "ours": {"two_qubit_gates": our_two, "depth": our_depth, "ms": our_ms},
                    "qiskit": {"two_qubit_gates": their_two, "depth": their_depth, "ms": their_ms},
                }
                rows.append(row)
                print(f"{target:9} {name:28} {logical.num_qubits:3} qubits | 2q {our_two:5} vs {their_two:5} | "
                      f"depth {our_depth:5} vs {their_depth:5} | {our_ms:8.2f} ms vs {their_ms:9.1f} ms")
                sys.stdout.flush()
    summary = {}
    for target in args.targets.split(","):
        mine = [r for r in rows if r["target"] == target]
        if not mine:
            continue
        median = lambda key, who: statistics.median(r[who][key] for r in mine)  # noqa: E731
        ratio = lambda key: statistics.median(r["ours"][key] / max(r["qiskit"][key], 1e-9) for r in mine)  # noqa: E731
        summary[target] = {
            "circuits": len(mine),
            "median_two_qubit_gates": {"ours": median("two_qubit_gates", "ours"), "qiskit": median("two_qubit_gates", "qiskit")},
            "median_depth": {"ours": median("depth", "ours"), "qiskit": median("depth", "qiskit")},
            "median_ms": {"ours": median("ms", "ours"), "qiskit": median("ms", "qiskit")},
            "median_ratio_ours_over_qiskit": {"two_qubit_gates": ratio("two_qubit_gates"), "depth": ratio("depth")},
            "median_speedup": statistics.median(r["qiskit"]["ms"] / max(r["ours"]["ms"], 1e-9) for r in mine),
        }
        s = summary[target]
        print(f"{target}: {s['circuits']} circuits; median 2q {s['median_two_qubit_gates']['ours']} vs "
              f"{s['median_two_qubit_gates']['qiskit']} (ratio {s['median_ratio_ours_over_qiskit']['two_qubit_gates']:.3f}); "
              f"median depth {s['median_depth']['ours']} vs {s['median_depth']['qiskit']} "
              f"(ratio {s['median_ratio_ours_over_qiskit']['depth']:.3f}); median time {s['median_ms']['ours']:.2f} ms vs "
              f"{s['median_ms']['qiskit']:.0f} ms (speed-up {s['median_speedup']:.0f}x)")
    if args.out:
        Path(args.out).write_text(json.dumps({"rows": rows, "summary": summary}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
