"""Square names and occupancy bitboards (a1 = bit 0, h8 = bit 63)."""

from __future__ import annotations

from collections.abc import Iterable

SQUARES = [file + rank for rank in "12345678" for file in "abcdefgh"]


def occupancy(squares: int | str | Iterable[str]) -> int:
    """An occupancy bitboard from an int, comma-separated square names or an iterable of them.

    >>> occupancy("a1,b1") == 0b11
    True
    >>> occupancy(["h8"]) == 1 << 63
    True
    """
    if isinstance(squares, int):
        if not 0 <= squares < 1 << 64:
            raise _parse_error(f"occupancy {squares} is not a u64 bitboard")
        return squares
    names = squares.split(",") if isinstance(squares, str) else list(squares)
    board = 0
    for name in names:
        square = name.strip().lower()
        if square not in SQUARES:
            raise _parse_error(f"`{name.strip()[:60]}` is not a square (a1 ... h8)")
        bit = 1 << SQUARES.index(square)
        if board & bit:
            raise _parse_error(f"{square} is listed twice")
        board |= bit
    return board


def _parse_error(message: str) -> Exception:
    from ._qchess import ParseError

    return ParseError(f"init: {message}")
