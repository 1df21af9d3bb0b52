#!/usr/bin/env python3
"""A move plus all 64 probabilities from Python: the qchess package side by side with Google's
quantum chess board (quantumlib/unitary's `CirqBoard`), on the same typed moves, in one run.

Usage:
    .venv/bin/python scripts/bench-python.py [--google DIR] [--games 5] [--plies 24] [--seed 1]

DIR holds the `unitary` package (a checkout of github.com/quantumlib/unitary) importable in this
interpreter together with its dependencies (cirq-core, cirq-google, pandas, scipy). Without
it, only qchess is timed. The games are seeded: each ply is a random legal move of our engine
that measures nothing (splits, merges, jumps, slides, pawn steps), so both boards take the same
moves; the script checks that Google's sampled probabilities agree with our exact ones.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

import qchess

QUIET_VARIANTS = {"BASIC"}


def game_moves(seed: int, plies: int) -> tuple[int, list[str], list[str]]:
    """A seeded game of moves that measure nothing: (start bitboard, official, typed)."""
    rng = random.Random(seed)
    game = qchess.Game(seed=seed)
    start = qchess.occupancy(list(game.pieces()))
    official, typed = [], []
    for _ in range(plies):
        candidates = sorted(game.moves())
        rng.shuffle(candidates)
        for notation in candidates:
            played = game.move(notation)
            if played.variant in QUIET_VARIANTS and played.outcome is None and played.probability is None:
                official.append(played.notation)
                typed.append(played.typed)
                break
            game.undo()
        else:
            break
    return start, official, typed


def time_qchess_board(start: int, typed: list[str]) -> tuple[list[float], list[float]]:
    board = qchess.Board(start)
    times = []
    probabilities: list[float] = []
    for text in typed:
        t0 = time.perf_counter()
        board.do_move(text)
        probabilities = board.probability_list()
        times.append(time.perf_counter() - t0)
    return times, probabilities


def time_qchess_game(official: list[str]) -> list[float]:
    game = qchess.Game()
    times = []
    for text in official:
        t0 = time.perf_counter()
        game.move(text)
        game.probabilities()
        times.append(time.perf_counter() - t0)
    return times


def time_google(start: int, typed: list[str]) -> tuple[list[float], list[float]]:
    from unitary.quantum_chess.move import Move
    from unitary.quantum_chess.quantum_board import CirqBoard

    board = CirqBoard(start)
    times = []
    probabilities: list[float] = []
    for text in typed:
        t0 = time.perf_counter()
        board.do_move(Move.from_string(text))
        probabilities = list(board.get_probability_distribution())
        times.append(time.perf_counter() - t0)
    return times, probabilities


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--google", help="directory holding quantumlib/unitary's `unitary` package")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--plies", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.google:
        sys.path.insert(0, args.google)
    ours_board, ours_game, google, worst = [], [], [], 0.0
    for game in range(args.games):
        start, official, typed = game_moves(args.seed + game, args.plies)
        board_times, exact = time_qchess_board(start, typed)
        ours_board += board_times
        ours_game += time_qchess_game(official)
        if args.google:
            google_times, sampled = time_google(start, typed)
            google += google_times
            worst = max(worst, max(abs(a - b) for a, b in zip(exact, sampled)))
    result = {
        "moves": len(ours_board),
        "qchess_board_median_us": statistics.median(ours_board) * 1e6,
        "qchess_game_median_us": statistics.median(ours_game) * 1e6,
    }
    if google:
        result["google_median_us"] = statistics.median(google) * 1e6
        result["ratio_board"] = result["google_median_us"] / result["qchess_board_median_us"]
        result["ratio_game"] = result["google_median_us"] / result["qchess_game_median_us"]
        result["max_probability_difference"] = worst
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['moves']} moves ({args.games} seeded games of up to {args.plies} plies), median per move + 64 probabilities:")
        print(f"  qchess.Board.do_move + probability_list: {result['qchess_board_median_us']:10.1f} us")
        print(f"  qchess.Game.move + probabilities:        {result['qchess_game_median_us']:10.1f} us")
        if google:
            print(f"  Google CirqBoard.do_move + distribution: {result['google_median_us']:10.1f} us")
            print(f"  ratio (Google / qchess): board {result['ratio_board']:.0f}x, game {result['ratio_game']:.0f}x")
            print(f"  largest |exact - Google's sampled| probability: {worst:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
