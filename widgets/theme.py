"""Colours, colour maps and fonts shared by every view: one colour grammar for the app and its figures.

- **query** (orange) marks the query: its row, its chip, its bar. **key** (purple) marks a key: its
  column, or its row where rows are keys (k, v). Neither hue is used by any colour map offered, so a
  highlight never looks like data.
- **Colour maps** are chosen by name (sessions keep the name) and drawn in the variant of the page:
  on a light page 0 is white, on a dark page 0 is the page's dark. Diverging maps are used with
  symmetric levels (-m, m), so the centre is exactly zero.
- The app and `qkv-lab export` start from the same maps (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont

from .i18n import QT_TR_NOOP, tr


@dataclass(frozen=True)
class Palette:
    background: str = "#ffffff"
    foreground: str = "#202124"
    muted: str = "#5f6368"
    panel: str = "#f5f6f8"
    query: str = "#e8710a"         # the query: its row, its chip
    key: str = "#8e24aa"           # a key: its column (its row in k and v)
    masked: str = "#9aa0a6"        # hatch of forbidden (-inf) cells
    grid: str = "#dadce0"

    @property
    def dark(self) -> bool:
        """A dark page: colour maps take their dark-centred variant."""
        return QColor(self.background).lightnessF() < 0.5

    # The names before the colour grammar had roles (kept for scripts that read them).
    @property
    def accent(self) -> str:
        return self.query

    @property
    def accent2(self) -> str:
        return self.key

    def role_colour(self, role: str | None) -> str:
        """The highlight colour of a row or column that is a query, a key, or neither (ink)."""
        return {"query": self.query, "key": self.key}.get(role or "", self.foreground)


# Named colours of the instruments, not roles: red marks what goes wrong (the unscaled spread, the
# answer the mask would leak), blue its remedy (the scaled spread), steel a softmax row's plain bars.
WARN = "#d93025"
REMEDY = "#1a73e8"
BARS = "#4292c6"

LIGHT = Palette()
DARK = Palette(background="#1e1f22", foreground="#e8eaed", muted="#9aa0a6", panel="#2a2b2f",
               query="#fb923c", key="#e879f9", masked="#5f6368", grid="#3c4043")
# Projectors wash out greys: presentation mode uses pure black/white and saturated highlights.
CONTRAST_LIGHT = Palette(background="#ffffff", foreground="#000000", muted="#202124", panel="#ffffff",
                         query="#e65100", key="#7b1fa2", masked="#5f6368", grid="#000000")
# Dark on a projector: the window's own dark grey (pure black made the maps' dark end a hole).
CONTRAST_DARK = Palette(background="#1e1f22", foreground="#ffffff", muted="#e8eaed", panel="#1e1f22",
                        query="#ff9100", key="#ea80fc", masked="#9aa0a6", grid="#ffffff")
# Publication figures: white paper, black ink.
FIGURE = Palette(background="#ffffff", foreground="#000000", muted="#303134", panel="#ffffff",
                 query="#e8710a", key="#8e24aa", masked="#80868b", grid="#5f6368")
PALETTES = {"light": LIGHT, "dark": DARK}


def _map(name: str, stops, colours) -> pg.ColorMap:
    return pg.ColorMap(np.array(stops, float), np.array(colours, np.ubyte), name=name)


# Light variants: 0 is white. Dark variants: 0 is the dark page, large magnitudes glow. Each side
# lists its colours from the strongest to the faintest (next to zero).
_WHITE, _DARK0 = (255, 255, 255), (30, 31, 34)
_SIDES = {
    "diverging": {False: ([(8, 48, 107), (33, 113, 181), (107, 174, 214), (209, 229, 240)],
                          [(103, 0, 31), (178, 24, 43), (214, 96, 77), (253, 219, 199)]),
                  True: ([(215, 235, 255), (110, 180, 250), (55, 125, 215), (35, 70, 130)],
                         [(255, 215, 195), (250, 125, 100), (210, 60, 60), (120, 35, 40)])},
    "diverging-cb": {False: ([(22, 70, 170), (58, 144, 254), (130, 175, 250), (205, 220, 250)],
                             [(110, 90, 0), (168, 144, 8), (209, 189, 132), (240, 232, 205)]),
                     True: ([(190, 215, 255), (90, 160, 254), (40, 100, 200), (25, 50, 100)],
                            [(250, 235, 170), (220, 190, 60), (150, 125, 20), (70, 60, 15)])},
}
_STOPS = [0.0, 0.15, 0.32, 0.45, 0.5, 0.55, 0.68, 0.85, 1.0]


def _diverging(name: str, dark: bool) -> pg.ColorMap:
    neg, pos = _SIDES[name][dark]
    return _map(name, _STOPS, [*neg, _DARK0 if dark else _WHITE, *reversed(pos)])


def _blues(dark: bool) -> pg.ColorMap:
    """0 reads as 'nothing' (the page), strong as 'all the weight' (single hue, CB-safe)."""
    if dark:      # the page at 0, then a quick rise: 0.1 already reads on a projector, 1 is near white
        return _map("blues", [0.0, 0.1, 0.3, 0.6, 1.0],
                    [_DARK0, (30, 78, 140), (45, 130, 215), (125, 190, 255), (235, 245, 255)])
    return _map("blues", [0.0, 0.25, 0.6, 1.0], [_WHITE, (198, 219, 239), (66, 146, 198), (8, 48, 107)])


COLORMAPS = {
    "diverging": lambda dark: _diverging("diverging", dark),
    "diverging-cb": lambda dark: _diverging("diverging-cb", dark),
    "blues": _blues,
    "viridis": lambda dark: pg.colormap.get("viridis"),
    "cividis": lambda dark: pg.colormap.get("cividis"),
}
COLORMAPS["sequential"] = COLORMAPS["blues"]        # a view's kind names its default map


# The choices offered for each kind of matrix (names are COLORMAPS keys), and where both the app
# and `qkv-lab export` start.
SEQUENTIAL_MAPS = ("blues", "viridis", "cividis")
DIVERGING_MAPS = ("diverging", "diverging-cb")
DEFAULT_SEQUENTIAL = "blues"
DEFAULT_DIVERGING = "diverging"
COLORMAP_TITLES = {"blues": QT_TR_NOOP("Blues (0 = the page)"), "viridis": "viridis", "cividis": "cividis",
                   "diverging": QT_TR_NOOP("blue–white–red (0 = the page)"),
                   "diverging-cb": QT_TR_NOOP("blue–white–gold (colour-blind safe)")}


def colormap_title(name: str) -> str:
    """A colour map's name in menus and dialogs, in the window's language (viridis, cividis: names)."""
    return tr(COLORMAP_TITLES.get(name, name))

_CACHE: dict[tuple[str, bool], pg.ColorMap] = {}


def colormap(kind: str, dark: bool = False) -> pg.ColorMap:
    """The colour map `kind` (a COLORMAPS name) in the variant for a light or a dark page."""
    name = kind if kind in COLORMAPS else "diverging"
    key = (name, dark)
    if key not in _CACHE:
        _CACHE[key] = COLORMAPS[name](dark)
    return _CACHE[key]


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
