"""The board as SVG: each piece drawn with a ring whose arc is its square's probability."""

from __future__ import annotations

import math
from html import escape

from ._board import SQUARES

CELL = 48
GLYPHS = {
    "K": "\u2654", "Q": "\u2655", "R": "\u2656", "B": "\u2657", "N": "\u2658", "P": "\u2659",
    "k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f",
}


def _ring(cx: float, cy: float, radius: float, probability: float) -> str:
    """An arc from 12 o'clock, clockwise, covering `probability` of the circle."""
    if probability >= 1 - 1e-9:
        return f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="none" stroke="#2a7de1" stroke-width="4"/>'
    angle = 2 * math.pi * probability
    x = cx + radius * math.sin(angle)
    y = cy - radius * math.cos(angle)
    large = 1 if probability > 0.5 else 0
    return (
        f'<path d="M {cx} {cy - radius} A {radius} {radius} 0 {large} 1 {x:.2f} {y:.2f}" '
        'fill="none" stroke="#2a7de1" stroke-width="4"/>'
    )


def board_svg(probabilities: dict[str, float], pieces: dict[str, str]) -> str:
    """An 8x8 board, white at the bottom; squares without a piece letter but with a nonzero
    probability (a typed `Board`) get a dot in the ring instead of a glyph."""
    size = 8 * CELL
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" font-family="sans-serif">'
    ]
    for index, name in enumerate(SQUARES):
        file, rank = index % 8, index // 8
        x, y = file * CELL, (7 - rank) * CELL
        shade = "#f0d9b5" if (file + rank) % 2 else "#b58863"
        probability = float(probabilities.get(name, 0.0))
        title = f"{name}: {probability:.1%}"
        parts.append(f'<g data-square="{name}"><title>{escape(title)}</title>')
        parts.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{shade}"/>')
        if probability > 1e-9:
            cx, cy = x + CELL / 2, y + CELL / 2
            piece = pieces.get(name)
            if piece:
                parts.append(
                    f'<text x="{cx}" y="{cy + 12}" font-size="34" text-anchor="middle" '
                    f'fill-opacity="{0.35 + 0.65 * probability:.2f}">{GLYPHS.get(piece, escape(piece))}</text>'
                )
            else:
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="8" fill="#333" fill-opacity="{probability:.2f}"/>')
            parts.append(_ring(cx, cy, CELL / 2 - 4, probability))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
