"""Colours, colour maps and fonts shared by every view."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont


@dataclass(frozen=True)
class Palette:
    background: str = "#ffffff"
    foreground: str = "#202124"
    muted: str = "#5f6368"
    panel: str = "#f5f6f8"
    accent: str = "#e8710a"        # selection: query row, chosen chip
    accent2: str = "#1a73e8"       # hover: key column
    masked: str = "#9aa0a6"        # hatch of forbidden (-inf) cells
    grid: str = "#dadce0"


LIGHT = Palette()
DARK = Palette(background="#1e1f22", foreground="#e8eaed", muted="#9aa0a6", panel="#2a2b2f",
               accent="#fbbc04", accent2="#8ab4f8", masked="#5f6368", grid="#3c4043")
# Projectors wash out greys: presentation mode uses pure black/white and saturated highlights.
CONTRAST_LIGHT = Palette(background="#ffffff", foreground="#000000", muted="#202124", panel="#ffffff",
                         accent="#d93025", accent2="#1a0dab", masked="#5f6368", grid="#000000")
CONTRAST_DARK = Palette(background="#000000", foreground="#ffffff", muted="#e8eaed", panel="#000000",
                        accent="#ffd600", accent2="#00e5ff", masked="#9aa0a6", grid="#ffffff")
# Publication figures: white paper, black ink.
FIGURE = Palette(background="#ffffff", foreground="#000000", muted="#303134", panel="#ffffff",
                 accent="#d93025", accent2="#1a73e8", masked="#80868b", grid="#5f6368")
PALETTES = {"light": LIGHT, "dark": DARK}


def _blues() -> pg.ColorMap:
    """White -> deep blue: 0 reads as 'nothing', dark as 'all the weight' (single hue, CB-safe)."""
    stops = np.array([0.0, 0.25, 0.6, 1.0])
    colours = np.array([[255, 255, 255], [198, 219, 239], [66, 146, 198], [8, 48, 107]], np.ubyte)
    return pg.ColorMap(stops, colours, name="blues")


# Diverging maps are used with symmetric levels (-m, m) so white is exactly zero.
COLORMAPS = {
    "diverging": lambda: pg.colormap.get("CET-D1A"),
    "diverging-cb": lambda: pg.colormap.get("CET-CBD1"),
    "sequential": _blues,
    "blues": _blues,
    "viridis": lambda: pg.colormap.get("viridis"),
    "cividis": lambda: pg.colormap.get("cividis"),
}


# The choices offered for each kind of matrix (names are COLORMAPS keys).
SEQUENTIAL_MAPS = ("blues", "viridis", "cividis")
DIVERGING_MAPS = ("diverging", "diverging-cb")
COLORMAP_TITLES = {"blues": "Blues (white = 0)", "viridis": "viridis", "cividis": "cividis",
                   "diverging": "blue–white–red", "diverging-cb": "blue–white–yellow (colour-blind safe)"}


def colormap(kind: str) -> pg.ColorMap:
    return COLORMAPS.get(kind, COLORMAPS["diverging"])()


def ui_font(point_size: float = 10.0, bold: bool = False) -> QFont:
    font = QFont()
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


def text_colour_for(rgb: tuple[int, int, int]) -> QColor:
    """Black or white, whichever reads better on this cell colour (relative luminance)."""
    r, g, b = (c / 255.0 for c in rgb)
    lum = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return QColor("#000000") if lum > 0.5 else QColor("#ffffff")
