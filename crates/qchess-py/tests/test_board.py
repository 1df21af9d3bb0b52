"""Board: typed moves on an occupancy board, as Google's quantum chess board takes them."""

from __future__ import annotations

import pytest

import qchess


def test_typed_split_and_capture():
    board = qchess.Board("b1,d5", seed=1)
    assert board.do_move("b1^a3c3:SPLIT_JUMP:BASIC") == 1
    assert board.probabilities()["a3"] == pytest.approx(0.5, abs=1e-12)
    assert dict(board.distribution()) == pytest.approx({1 << 16 | 1 << 35: 0.5, 1 << 18 | 1 << 35: 0.5})
    # Forced outcome m1: the knight was on c3 and captures on d5.
    assert board.do_move("c3d5.m1:JUMP:CAPTURE") == 1
    assert board.probabilities()["d5"] == pytest.approx(1.0, abs=1e-12)
    assert board.state_size == 1 and len(board.history) == 2
    board.undo()
    assert board.probabilities()["c3"] == pytest.approx(0.5, abs=1e-12)


def test_init_forms_agree():
    for init in (0b10, "b1", ["b1"]):
        assert qchess.Board(init).probabilities()["b1"] == 1.0
    assert qchess.occupancy("a1,h8") == 1 | 1 << 63


def test_sampling_is_seeded_and_unbiased():
    board = qchess.Board("b1", seed=7)
    board.do_move("b1^a3c3:SPLIT_JUMP:BASIC")
    shots = board.sample(4000)
    again = qchess.Board("b1", seed=7)
    again.do_move("b1^a3c3:SPLIT_JUMP:BASIC")
    assert again.sample(4000) == shots  # same seed, same draws
    on_a3 = sum(1 for b in shots if b & (1 << 16))
    # Binomial(4000, 1/2): |k - 2000| <= 5 sigma (sigma = 31.6) fails with p < 6e-7.
    assert abs(on_a3 - 2000) <= 158, on_a3


def test_bad_typed_moves():
    board = qchess.Board("b1")
    with pytest.raises(qchess.ParseError, match="move `b1\\^a3c3:SPLIT:BASIC`"):
        board.do_move("b1^a3c3:SPLIT:BASIC")
    with pytest.raises(qchess.ParseError, match="not a square"):
        qchess.Board("b1,z9")
    with pytest.raises(qchess.ParseError, match="listed twice"):
        qchess.Board("b1,b1")
    with pytest.raises(qchess.IllegalMoveError):
        board.do_move("b1c3.m0:JUMP:BASIC")
    assert board.history == []


def test_board_circuit_and_svg():
    board = qchess.Board("b1")
    board.do_move("b1^a3c3:SPLIT_JUMP:BASIC")
    assert "sqrt_iswap" in board.circuit("qasm3")
    assert board.sidecar()["squares"] == {"a3": 1, "c3": 2}
    assert board._repr_svg_().count("<path") == 2
