"""Quantum Chess with exact probabilities, the official rules and hardware export.

>>> import qchess
>>> game = qchess.Game()
>>> split = game.move("b1^a3c3")
>>> split.type, split.variant
('SPLIT_JUMP', 'BASIC')
>>> round(game.probabilities()["a3"], 3)
0.5

The compiled core (`qchess._qchess`) does the work; this package adds conversions to Qiskit
and Cirq (`Game.to_qiskit`, `Game.to_cirq`, `board_probabilities`), numpy arrays and the SVG
board Jupyter shows.
"""

from ._qchess import (
    BackendError,
    Board,
    Game,
    IllegalMoveError,
    Move,
    ParseError,
    QchessError,
    __version__,
)
from ._interop import board_probabilities, probability_array
from ._board import occupancy

__all__ = [
    "BackendError",
    "Board",
    "Game",
    "IllegalMoveError",
    "Move",
    "ParseError",
    "QchessError",
    "__version__",
    "board_probabilities",
    "occupancy",
    "probability_array",
]
