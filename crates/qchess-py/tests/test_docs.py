"""The package's docstring examples run."""

import doctest

import qchess
from qchess import _board


def test_docstring_examples():
    for module in (qchess, _board):
        failures, tried = doctest.testmod(module)
        assert failures == 0 and tried > 0, module.__name__
