"""Game: moves, probabilities, undo, records, analysis and errors, checked against values
derived by hand and against the CLI."""

from __future__ import annotations

import pytest

import qchess
from conftest import cli_json, run_cli


def test_split_gives_half_on_each_target():
    game = qchess.Game()
    split = game.move("b1^a3c3")
    assert (split.type, split.variant, split.outcome, split.probability) == ("SPLIT_JUMP", "BASIC", None, None)
    assert split.notation == "b1^a3c3" and split.proceeded and split.code == "SUCCESS"
    assert split.typed == "b1^a3c3:SPLIT_JUMP:BASIC"
    probabilities = game.probabilities()
    assert probabilities["a3"] == pytest.approx(0.5, abs=1e-12)
    assert probabilities["c3"] == pytest.approx(0.5, abs=1e-12)
    assert probabilities["b1"] == 0.0
    assert sum(probabilities.values()) == pytest.approx(32.0, abs=1e-9)
    assert game.pieces()["a3"] == "N" and game.turn == "black" and game.state_size == 2


def test_merge_undoes_the_split():
    game = qchess.Game()
    game.play("b1^a3c3 e7e6 a3c3^b5")
    assert game.probabilities()["b5"] == pytest.approx(1.0, abs=1e-12)
    assert game.state_size == 1
    undone = game.undo()
    assert undone.notation == "a3c3^b5"
    assert game.probabilities()["a3"] == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("outcome", [0, 1])
def test_forced_outcomes_report_their_probability(outcome):
    # The black knight is on c6 or a6 with probability 1/2; the white knight captures on c6.
    game = qchess.Game(position="startpos moves g1^f3h3 b8^c6a6 e2e3 c6d4")
    capture = game.move(f"f3xd4.m{outcome}")
    assert capture.outcome == outcome
    assert capture.probability == pytest.approx(0.5, abs=1e-12)
    assert capture.variant == "CAPTURE"
    cli = cli_json("game", "--position", "startpos", "--moves", f"g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4.m{outcome}")
    assert game.probabilities() == pytest.approx(cli["probabilities"], abs=1e-12)
    assert game.pieces() == cli["pieces"]


def test_legal_moves_match_the_cli():
    game = qchess.Game(position="startpos moves b1^a3c3")
    cli = run_cli("moves", "--position", "startpos moves b1^a3c3", "--json")
    assert cli.returncode == 0, cli.stderr
    import json

    assert sorted(game.moves()) == sorted(m["move"] for m in json.loads(cli.stdout))


def test_record_round_trip_and_fen():
    game = qchess.Game(seed=3)
    game.play("g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4")
    text = game.record(event="round trip", white="Ada", black="Max")
    assert '[White "Ada"]' in text and '[Seed "3"]' in text
    again = qchess.Game.from_record(text)
    assert again.probabilities() == pytest.approx(game.probabilities(), abs=1e-12)
    assert again.fen == game.fen and again.result == game.result
    assert [m.notation for m in again.history] == [m.notation for m in game.history]


def test_fen_positions_and_king_capture_ends_the_game():
    game = qchess.Game(position="4k3/8/8/8/8/8/8/4R1K1 w - - 0 1")
    assert game.result == "*" and game.reason is None
    capture = game.move("e1e8")
    assert capture.notation == "e1xe8" and capture.code == "WHITE_WIN"
    assert game.result == "1-0" and game.reason is not None
    assert game.fen == "4R3/8/8/8/8/8/8/6K1 b - - 0 1"
    with pytest.raises(qchess.IllegalMoveError, match="over"):
        game.move("g1g2")


def test_analysis_of_a_split_pair():
    game = qchess.Game(position="startpos moves b1^a3c3")
    analysis = game.analyse("a3", "c3")
    assert analysis["square"] == "a3" and analysis["probability"] == pytest.approx(0.5, abs=1e-12)
    # One knight in an equal superposition of two squares: a maximally entangled pair.
    assert analysis["entanglement"] == pytest.approx({"c3": 1.0}, abs=1e-9)
    bell = analysis["bell"]
    assert max(bell.values()) == pytest.approx(1.0, abs=1e-9)
    assert sum(bell.values()) == pytest.approx(2.0, abs=1e-9)  # two orthonormal Bell bases
    assert bell["Phi+"] == pytest.approx(0.0, abs=1e-12)


def test_numpy_array_of_probabilities():
    np = pytest.importorskip("numpy")
    game = qchess.Game(position="startpos moves b1^a3c3")
    array = qchess.probability_array(game)
    assert array.shape == (64,) and array[16] == pytest.approx(0.5) and array[1] == 0.0
    assert np.isclose(array.sum(), 32.0)


@pytest.mark.parametrize(
    ("moves", "error"),
    [("e2e9", qchess.ParseError), ("e2e5", qchess.IllegalMoveError), ("b1^a3a3", qchess.ParseError)],
)
def test_errors_read_as_the_cli_says_them(moves, error):
    game = qchess.Game()
    with pytest.raises(error) as raised:
        game.move(moves)
    cli = run_cli("game", "--moves", moves)
    assert cli.returncode == 2
    assert str(raised.value) in cli.stderr, (str(raised.value), cli.stderr)
    assert game.history == [] and game.probabilities()["e2"] == 1.0


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(qchess.ParseError, match="rules: `atomic` is not a rule set"):
        qchess.Game(rules="atomic")
    with pytest.raises(qchess.ParseError, match="position"):
        qchess.Game(position="8/8/8 w")
    with pytest.raises(qchess.ParseError, match="is not a backend"):
        qchess.Game(backend="quantum-cloud")
    with pytest.raises(qchess.ParseError, match="square `z9`"):
        qchess.Game().analyse("z9")
    with pytest.raises(qchess.ParseError, match="record"):
        qchess.Game.from_record("[Event \"x\"\n1. e2e4 *")
    with pytest.raises(qchess.IllegalMoveError, match="no move to undo"):
        qchess.Game().undo()
    with pytest.raises(qchess.ParseError, match="format"):
        qchess.Game().circuit("qasm4")
    assert issubclass(qchess.ParseError, qchess.QchessError)


def test_svg_board_has_rings_and_titles():
    game = qchess.Game(position="startpos moves b1^a3c3")
    svg = game._repr_svg_()
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("data-square=") == 64
    assert "<title>a3: 50.0%</title>" in svg and "<path" in svg


def test_classical_rules_refuse_quantum_moves_and_mate():
    game = qchess.Game(rules="classical")
    assert game.rules == "classical"
    with pytest.raises((qchess.IllegalMoveError, qchess.ParseError), match="b1\\^a3c3"):
        game.move("b1^a3c3")
    game.play("f2f3 e7e5 g2g4 d8h4")
    assert game.result == "0-1"
    assert qchess.Game.from_record(game.record()).rules == "classical"


def test_best_move_finds_the_king_capture():
    game = qchess.Game(position="4k3/8/8/8/8/8/8/4R1K1 w - - 0 1")
    assert game.best_move(level=2, movetime=1.0) == "e1xe8"
    assert game.history == []  # only looked, did not play
    with pytest.raises(qchess.ParseError, match="level"):
        game.best_move(level=0)
    with pytest.raises(qchess.ParseError, match="movetime"):
        game.best_move(movetime=-1)
    game.move("e1e8")
    with pytest.raises(qchess.IllegalMoveError, match="no legal move"):
        game.best_move()


def test_best_move_under_the_observer_rules_can_be_a_pair():
    # White's king stands on e1 and e3, and a knight's half on g4 attacks e3: only pairs of
    # moves, one for each half of the king, get it out of the quantum check.
    game = qchess.Game(rules="observer")
    game.play(
        "g1^f3h3 g8h6 g2g3 b8^a6c6 d2d4 a8b8 e2e4 h6g4 e1e2 g7g5 "
        "d1^d2d3 g4h6 b2b3 b8a8 e2^e1e3 e7e5 c1b2 h6^g4g8"
    )
    best = game.best_move(level=2, movetime=1.0)
    assert best in {"e1d1|e3e2", "e1e2|e3e2"}
    game.play(best)


def test_checkmate_rules_switch_quantum_mode():
    game = qchess.Game(rules="checkmate")
    assert game.quantum_mode
    game.play("e2e4 mode:classical e7e5")
    assert not game.quantum_mode
    with pytest.raises(qchess.IllegalMoveError, match="quantum mode is off"):
        game.move("g1^f3h3")
    game.set_quantum_mode(True)
    assert game.move("g1^f3h3").type == "SPLIT_JUMP"
    assert "mode:classical" in game.record()
    with pytest.raises(qchess.IllegalMoveError):
        qchess.Game().set_quantum_mode(False)  # official rules have no quantum mode
    with pytest.raises(qchess.ParseError, match="mode"):
        qchess.Game(rules="checkmate").play("mode:both")
