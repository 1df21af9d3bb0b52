"""The package's docstring examples run, and so does the example on the crate's front page."""

import doctest
import re
from pathlib import Path

import qchess
from qchess import _board

CRATE_DOCS = Path(__file__).resolve().parents[1] / "src" / "lib.rs"


def test_docstring_examples():
    for module in (qchess, _board):
        failures, tried = doctest.testmod(module)
        assert failures == 0 and tried > 0, module.__name__


def test_the_crate_front_page_example():
    lines = [
        line[4:] if line.startswith("//! ") else line[3:]
        for line in CRATE_DOCS.read_text().splitlines()
        if line.startswith("//!")
    ]
    blocks = re.findall(r"```python\n(.*?)```", "\n".join(lines), re.S)
    assert blocks, f"no ```python example in {CRATE_DOCS}"
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, {}, "crate docs", str(CRATE_DOCS), 0)
        runner = doctest.DocTestRunner()
        runner.run(test)
        assert test.examples and runner.failures == 0, block
