"""Whole move sequences: `qchess compile` exports the accumulated circuit, and qiskit-aer's exact
statevector of it (deferred measurements dropped), post-selected as the sidecar says, must give
the per-square probabilities and the distribution over boards that our own simulator gives
(`qchess board --json` for typed moves, `qchess game --json` for official notation), to 1e-9.
The probability of the post-selected outcomes must be the product of the recorded outcome
probabilities, and the sidecar's setup must list the moves with the outcomes that happened.

Sequences: hand-made phase-sensitive ones on the occupancy board (split/merge round trips, a
split whose half jumps away and back before the merge, merges through superposed paths,
captures and excluded moves with both outcomes, en passant, castles), some with hand-derived
values checked to 1e-12; games in official notation (the example records, the fifty-move rule's
measurement of every square, unpinned outcomes drawn with --seed); seeded random legal games
from `qchess play` (the longest prefix whose circuit aer can hold). Also `--per-move` files of a
game, one by one, and IonQ JSON read back through the QIS gate meanings."""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from board_circuits import (
    SQUARES,
    boards_of,
    compare,
    max_difference,
    outcome_product,
)
from qchess_helpers import Report, qchess_binary, run_qchess

EXACT = 1e-12
# Random game prefixes are cut where the circuit would pass this many qubits.
RANDOM_GAME_QUBITS = 22
RANDOM_GAME_PLIES = 40

KNIGHT_SPLIT = "b1^a3c3:SPLIT_JUMP:BASIC"

# (name, init, typed moves, hand-derived probabilities, formats to export besides qasm2).
BOARD_SEQUENCES = [
    ("split-merge round trip", "b1", f"{KNIGHT_SPLIT} a3c3^b1:MERGE_JUMP:BASIC",
     {"b1": 1.0, "a3": 0.0, "c3": 0.0}, ["qasm3", "ionq-json"]),
    ("split, merge on b5", "b1", f"{KNIGHT_SPLIT} a3c3^b5:MERGE_JUMP:BASIC", {"b5": 1.0, "b1": 0.0}, []),
    # c3 -> e4 -> c3 multiplies that half by i*i = -1: the merge then sends the knight to c3.
    ("split, jump away and back, merge", "b1",
     f"{KNIGHT_SPLIT} c3e4:JUMP:BASIC e4c3:JUMP:BASIC a3c3^b1:MERGE_JUMP:BASIC",
     {"c3": 1.0, "b1": 0.0, "a3": 0.0, "e4": 0.0}, ["qasm3", "ionq-json"]),
    ("split, jump away, merge elsewhere", "b1",
     f"{KNIGHT_SPLIT} c3e4:JUMP:BASIC a3e4^c5:MERGE_JUMP:BASIC", {}, []),
    # Arm 1 (a5 -> a1) passes a3, held by a knight half: blocked there, only the e1 half returns.
    ("split slide, merge slide with a superposed path", "a1,b5",
     "a1^a5e1:SPLIT_SLIDE:BASIC b5^a3d6:SPLIT_JUMP:BASIC a5e1^a1:MERGE_SLIDE:BASIC",
     {"a1": 0.75, "a5": 0.25, "e1": 0.0}, ["ionq-json"]),
    ("merge slide through four superposed path squares", "a1,c3,b6,d2,e2",
     "a1^a5e1:SPLIT_SLIDE:BASIC c3^a2e4:SPLIT_JUMP:BASIC b6^a4d7:SPLIT_JUMP:BASIC d2^b1f3:SPLIT_JUMP:BASIC "
     "e2^c1g3:SPLIT_JUMP:BASIC a5e1^a1:MERGE_SLIDE:BASIC", {}, ["qasm3"]),
    ("split slide through a shared path square, merge back", "a1,c3",
     "c3^a2e4:SPLIT_JUMP:BASIC a1^a3a4:SPLIT_SLIDE:BASIC a3a4^a1:MERGE_SLIDE:BASIC", {}, []),
    ("capture from a superposed source, m1", "b1,f6",
     f"{KNIGHT_SPLIT} f6^d5h5:SPLIT_JUMP:BASIC c3d5.m1:JUMP:CAPTURE",
     {"d5": 1.0, "a3": 0.0, "c3": 0.0, "h5": 0.5}, ["ionq-json"]),
    ("capture from a superposed source, m0", "b1,f6",
     f"{KNIGHT_SPLIT} f6^d5h5:SPLIT_JUMP:BASIC c3d5.m0:JUMP:CAPTURE",
     {"a3": 1.0, "c3": 0.0, "d5": 0.5, "h5": 0.5}, []),
    ("excluded jump, m0", "e1,g1", "g1^e2h3:SPLIT_JUMP:BASIC e1e2.m0:JUMP:EXCLUDED",
     {"e1": 1.0, "e2": 1.0, "h3": 0.0}, []),
    ("excluded jump, m1", "e1,g1", "g1^e2h3:SPLIT_JUMP:BASIC e1e2.m1:JUMP:EXCLUDED",
     {"e1": 0.0, "e2": 1.0, "h3": 1.0}, []),
    ("excluded slide past a superposed square, m1", "a1,b5,c6",
     "b5^a3d6:SPLIT_JUMP:BASIC c6^a5e7:SPLIT_JUMP:BASIC a1a5.m1:SLIDE:EXCLUDED",
     {"a1": 0.5, "a5": 0.5, "e7": 1.0}, []),
    ("capture slide from a superposed source, m0", "a1,a6,b7",
     "a1^a3c1:SPLIT_SLIDE:BASIC b7^a5d6:SPLIT_JUMP:BASIC a3a6.m0:SLIDE:CAPTURE", {"a6": 1.0}, []),
    ("slide through three superposed squares", "a1,c3,b6,b5",
     "c3^a2e4:SPLIT_JUMP:BASIC b6^a4d7:SPLIT_JUMP:BASIC b5^a3d6:SPLIT_JUMP:BASIC a1a5:SLIDE:BASIC",
     {"a5": 0.125, "a1": 0.875}, ["qasm3"]),
    ("pawn takes half a knight, both pawns step on", "e4,f6",
     "f6^d5h5:SPLIT_JUMP:BASIC e4d5:PAWN_CAPTURE:CAPTURE e4e5:PAWN_STEP:BASIC d5d6:PAWN_STEP:BASIC",
     {"e5": 0.5, "d6": 0.5, "h5": 0.5, "d5": 0.0, "e4": 0.0}, []),
    ("en passant by a superposed pawn", "f4,d7,g6",
     "g6^e5h4:SPLIT_JUMP:BASIC f4e5:PAWN_CAPTURE:CAPTURE d7d5:PAWN_TWO_STEP:BASIC e5d6:PAWN_EP:BASIC",
     {"d6": 0.5, "d5": 0.5, "f4": 0.5, "e5": 0.0}, ["ionq-json"]),
    ("excluded en passant, m1", "e5,d7,b5",
     "b5^d6a3:SPLIT_JUMP:BASIC d7d5:PAWN_TWO_STEP:BASIC e5d6.m1:PAWN_EP:EXCLUDED", {}, []),
    ("capture en passant", "e5,d7,b7",
     "b7^d6c5:SPLIT_JUMP:BASIC d7d5:PAWN_TWO_STEP:BASIC e5d6:PAWN_EP:CAPTURE", {}, ["qasm3"]),
    ("king-side castle swapping rooks", "e1,h1,f3",
     "f3^f1f5:SPLIT_SLIDE:BASIC e1g1:KS_CASTLE:BASIC", {"g1": 1.0, "e1": 0.0, "f1": 1.0, "h1": 0.5}, []),
    ("queen-side castle controlled on b1", "e1,a1,d2",
     "d2^b1f3:SPLIT_JUMP:BASIC e1c1:QS_CASTLE:BASIC", {"c1": 0.5, "d1": 0.5, "e1": 0.5}, ["ionq-json"]),
    ("excluded king-side castle on two superposed squares, m0", "e1,h1,e2,e3",
     "e2^g1c3:SPLIT_JUMP:BASIC e3^f1d5:SPLIT_JUMP:BASIC e1g1.m0:KS_CASTLE:EXCLUDED", {"e1": 1.0, "h1": 1.0}, []),
    ("jump onto its own superposed kind, then merge", "b1,g1",
     f"{KNIGHT_SPLIT} g1^e2f3:SPLIT_JUMP:BASIC c3e2:JUMP:BASIC a3e2^c3:MERGE_JUMP:BASIC", {}, []),
]

# Captures whose outcome is drawn with --seed: compile and board must draw the same.
UNPINNED_BOARD = ("unpinned capture", "b1,f6", f"{KNIGHT_SPLIT} f6^d5h5:SPLIT_JUMP:BASIC c3d5:JUMP:CAPTURE")
UNPINNED_SEEDS = [1, 2, 3, 4]

# (name, position, official moves, seed).
GAME_SEQUENCES = [
    ("official split and merge", "startpos", "b1^a3c3 e7e6 a3c3^b5", 0),
    ("superposed capture, m1", "startpos", "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4.m1", 0),
    ("superposed capture, m0", "startpos", "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4.m0", 0),
    ("excluded pawn step", "startpos", "g1^f3h3 a7a6 f2wf3.m0", 0),
    ("castling after split slides", "startpos", "e2e4 e7e5 g1f3 g8f6 f1^c4d3 f8^c5d6 e1g1 e8g8", 0),
    ("en passant", "startpos", "e2e4 a7a6 e4e5 d7d5 e5d6", 0),
    ("kings split", "fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1^e2d1 e8^d8f8", 0),
    ("promotion, then the queen splits", "fen 4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q e8e7 b8^b4f4", 0),
    ("king captured", "startpos", "e2e3 f7f6 d1h5 a7a6 h5xe8", 0),
    ("fifty-move rule, seed 0", "fen 4k3/8/8/8/8/8/8/4K3 w - - 98 60", "e1^d1f1 e8^d8f8", 0),
    ("fifty-move rule, seed 5", "fen 4k3/8/8/8/8/8/8/4K3 w - - 98 60", "e1^d1f1 e8^d8f8", 5),
    ("unpinned capture, seed 1", "startpos", "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4", 1),
    ("unpinned capture, seed 2", "startpos", "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4", 2),
    ("unpinned excluded step, seed 3", "startpos", "g1^f3h3 a7a6 f2wf3", 3),
]

RANDOM_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8]


def compile_circuit(args: list[str], fmt: str) -> tuple[object, dict]:
    """`qchess compile ARGS --format FMT --json`: (the qasm text or IonQ dict, the sidecar)."""
    out = run_qchess("compile", *args, "--format", fmt)
    if out.get("format") != fmt:
        raise AssertionError(f"compile said format {out.get('format')!r}, asked for {fmt}")
    return (out["ionq"] if fmt == "ionq-json" else out["qasm"]), out["sidecar"]


def check_formats(report: Report, name: str, args: list[str], formats: list[str], moves: list[dict],
                  probabilities: dict, boards, product: float | None) -> None:
    """Compiles the sequence in OpenQASM 2 and each of `formats`, checks that the sidecar records
    the moves as they were played, and compares the post-selected circuit with our probabilities."""
    recorded = " ".join(move["move"] for move in moves)
    for fmt in ["qasm2", *formats]:
        label = f"{fmt:<7} {name}"
        try:
            circuit, sidecar = compile_circuit(args, fmt)
        except AssertionError as failure:
            report.check(label, False, str(failure))
            continue
        if sidecar.get("setup", {}).get("moves") != recorded:
            report.check(label, False, f"sidecar setup moves {sidecar.get('setup')} != recorded {recorded!r}")
            continue
        compare(report, label, circuit, fmt, sidecar, probabilities, boards, product)


def board_sequence(report: Report, name: str, init: str, moves: str, expected: dict, formats: list[str],
                   seed: int | None = None) -> None:
    seed_args = ["--seed", str(seed)] if seed is not None else []
    args = ["--init", init, "--moves", moves, *seed_args]
    try:
        board = run_qchess("board", *args)
    except AssertionError as failure:
        report.check(f"board   {name}", False, str(failure))
        return
    probabilities = board["square_probabilities"]
    if expected:
        error = max(abs(probabilities[sq] - p) for sq, p in expected.items())
        report.check(f"derived {name}", error < EXACT, f"qchess board vs hand-derived, max |dp| = {error:.1e}")
    check_formats(report, name, args, formats, board["moves"], probabilities, boards_of(board),
                  outcome_product(board["moves"]))


SQUARE = re.compile(r"[a-h][1-8]")


def typed_move(move: dict) -> str:
    """A played move of `qchess game --json` as the typed move the board ran."""
    text = move["move"].split(".m")[0]
    squares = SQUARE.findall(text)
    if "^" in text:
        caret = text.index("^")
        before = len(SQUARE.findall(text[:caret]))
        squares_text = f"{squares[0]}^{squares[1]}{squares[2]}" if before == 1 else f"{squares[0]}{squares[1]}^{squares[2]}"
    else:
        squares_text = f"{squares[0]}{squares[1]}"
    outcome = "" if move["outcome"] is None else f".m{move['outcome']}"
    return f"{squares_text}{outcome}:{move['type']}:{move['variant']}"


def start_occupancy(position: str) -> int:
    """The occupancy of a start position, from `qchess game` with no moves."""
    game = run_qchess("game", "--position", position)
    return sum(1 << i for i, sq in enumerate(SQUARES) if game["probabilities"][sq] == 1.0)


def game_sequence(report: Report, name: str, position: str, moves: str, seed: int, formats: list[str]) -> dict | None:
    """Checks one game; returns `qchess game --json` for it."""
    args = ["--position", position, "--moves", moves, "--seed", str(seed)]
    try:
        game = run_qchess("game", *args)
    except AssertionError as failure:
        report.check(f"game    {name}", False, str(failure))
        return None
    measured = "measured_board" in game
    boards = None
    product = None
    if measured:
        # Every square was measured: one board is left, and the outcomes include its draw.
        board = sum(1 << SQUARES.index(sq) for sq in game["measured_board"])
        boards = {board: 1.0}
    else:
        product = outcome_product(game["moves"])
        # The same typed moves on the occupancy board give the distribution over boards.
        typed = " ".join(typed_move(move) for move in game["moves"])
        try:
            board = run_qchess("board", "--init", str(start_occupancy(position)), "--moves", typed)
        except AssertionError as failure:
            report.check(f"board   {name}", False, str(failure))
            return None
        boards = boards_of(board)
        error, square = max_difference(board["square_probabilities"], game["probabilities"])
        report.check(f"game=board {name}", error < EXACT, f"typed replay on qchess board, max |dp| = {error:.1e} ({square})")
    check_formats(report, name, args, formats, game["moves"], game["probabilities"], boards, product)
    return game


def random_game(seed: int) -> list[str]:
    """A seeded random legal game of the computer against itself, every outcome recorded."""
    result = subprocess.run(
        [qchess_binary(), "play", "--white", "ai", "--black", "ai", "--max-plies", str(RANDOM_GAME_PLIES),
         "--seed", str(seed), "--json"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )
    if result.returncode != 0:
        raise AssertionError(f"qchess play exited {result.returncode}: {result.stderr.strip()}")
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return [event["move"] for event in events if event.get("event") == "move"]


def declared_qubits(qasm: str) -> int:
    match = re.search(r"^qreg q\[(\d+)\];", qasm, re.MULTILINE)
    return int(match.group(1)) if match else 0


def random_games(report: Report) -> None:
    for seed in RANDOM_SEEDS:
        name = f"random game, seed {seed}"
        try:
            moves = random_game(seed)
            per_move = run_qchess("compile", "--position", "startpos", "--moves", " ".join(moves), "--per-move")
        except AssertionError as failure:
            report.check(name, False, str(failure))
            continue
        fitting = [entry for entry in per_move if declared_qubits(entry["qasm"]) <= RANDOM_GAME_QUBITS]
        plies = max((entry["ply"] for entry in fitting), default=0)
        if plies == 0:
            report.check(name, False, "not even the first move fits")
            continue
        prefix = " ".join(moves[:plies])
        whole = run_qchess("compile", "--position", "startpos", "--moves", prefix)
        entry = next(e for e in per_move if e["ply"] == plies)
        same = whole["qasm"] == entry["qasm"] and whole["sidecar"] == entry["sidecar"]
        report.check(f"per-move {name}", same, f"ply {plies} of --per-move equals compiling the first {plies} plies")
        game_sequence(report, f"{name}, {plies} of {len(moves)} plies", "startpos", prefix, 0,
                      ["ionq-json"] if seed == 1 else [])


def per_move_files(report: Report) -> None:
    """`--per-move --out DIR` of one game: every file pair stands alone."""
    moves = "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4.m0 a6b8 h3^f4g5 d7d6 f4d5 c8^f5e6"
    with tempfile.TemporaryDirectory() as tmp:
        try:
            listing = run_qchess("compile", "--position", "startpos", "--moves", moves, "--per-move", "--out", tmp)
        except AssertionError as failure:
            report.check("per-move files", False, str(failure))
            return
        files = listing["files"]
        report.check("per-move files", len(files) == len(moves.split()), f"{len(files)} circuits for {len(moves.split())} plies")
        for entry in files:
            ply = entry["ply"]
            prefix = " ".join(moves.split()[:ply])
            game = run_qchess("game", "--position", "startpos", "--moves", prefix)
            sidecar = json.loads(Path(entry["sidecar"]).read_text())
            text = Path(entry["circuit"]).read_text()
            label = f"qasm2   per-move file {Path(entry['circuit']).name}"
            compare(report, label, text, "qasm2", sidecar, game["probabilities"], None, outcome_product(game["moves"]))


def main() -> int:
    return run().finish()


def run() -> Report:
    report = Report("check_sequences")
    for name, init, moves, expected, formats in BOARD_SEQUENCES:
        board_sequence(report, name, init, moves, expected, formats)
    name, init, moves = UNPINNED_BOARD
    for seed in UNPINNED_SEEDS:
        board_sequence(report, f"{name}, seed {seed}", init, moves, {}, [], seed)
    for name, position, moves, seed in GAME_SEQUENCES:
        game_sequence(report, name, position, moves, seed, ["qasm3"] if "split and merge" in name else [])
    random_games(report)
    per_move_files(report)
    return report


if __name__ == "__main__":
    sys.exit(main())
