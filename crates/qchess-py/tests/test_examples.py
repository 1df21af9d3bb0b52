"""The example records of `examples/`, replayed from Python, end where the CLI's replay ends."""

from __future__ import annotations

from pathlib import Path

import pytest

import qchess
from conftest import REPO, cli_json

EXAMPLES = sorted((REPO / "examples").glob("*.pgn"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_replays_like_the_cli(path: Path):
    game = qchess.Game.from_record(path.read_text())
    cli = cli_json("game", "--record", str(path))
    assert game.result == cli["result"]
    assert game.pieces() == cli["pieces"]
    assert game.probabilities() == pytest.approx(cli["probabilities"], abs=1e-12)
    assert game.fen == cli["fen"]
