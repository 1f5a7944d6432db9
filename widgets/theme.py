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

from dataclasses import dataclass, replace

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
    # The window's chrome: its Qt style sheet (app/main_window.py, app/presentation.py) and, in the
    # dark theme, its Qt palette. The light window keeps Qt's own palette: the light bright, shadow
    # and disabled are Fusion's, so a palette drawn from LIGHT would look the same.
    chip: str = "#f1f3f4"          # a token chip
    chip_border: str = "#c4c7c5"
    button: str = "#ffffff"        # a station or page button (dark: tooltips, alternate rows too)
    button_text: str = "#5f6368"
    button_border: str = "#dadce0"  # (dark: Qt's bevel light too)
    selected: str = "#1a73e8"      # the checked station button; Qt's highlight and links
    on_selected: str = "#ffffff"   # the ink of a checked station or page button, of a highlight
    bright: str = "#ffffff"        # Qt's bright text
    shadow: str = "#9f9f9f"        # Qt's dark (a bevel's shadow)
    disabled: str = "#bebebe"      # disabled text

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
CORRECT = "#188038"            # green: a prediction that came true (red, WARN: one that did not)
LOSS_CURVE = "#1a73e8"         # the training loss, on its own plot
# Quantities that are neither query nor key (θ_d, the running m and ℓ, bytes, the compared windows)
# take Okabe–Ito colours that no page uses for them; PLAIN is a bar nothing picks out (not the
# chosen one, not read yet), RESCALE the online softmax's rescale factors behind m and ℓ.
OTHER, OTHER2 = "#009e73", "#56b4e9"
PLAIN = "#dadce0"
RESCALE = "#b8bcc0"
# Colours of categories (groups of heads): Okabe–Ito and neighbours, none near the query's orange
# or the key's purple (a K/V group is neither).
CATEGORY = ("#1a73e8", "#009e73", "#cc79a7", "#56b4e9", "#f0e442", "#0072b2", "#44aa99", "#999933")
# Ink on a cell: black on light colours, white on dark ones (text_colour_for).
BLACK, WHITE = "#000000", "#ffffff"
MASKED_INK = "#3c4043"         # a masked cell's text until a palette styles the matrix (then muted)
FIGURE_HATCH = "#aeb2b7"       # a light figure's hatch lines over masked cells (dark: the palette's masked)
# The message bar under the token strip, the same in both themes: (background, ink, border) per level.
LEVEL_COLOURS = {
    "error": ("#fce8e6", "#a50e0e", "#f28b82"),
    "warning": ("#fef7e0", "#7a4f01", "#fdd663"),
    "info": ("#e8f0fe", "#174ea6", "#aecbfa"),
}
# The cheat sheet (F1) over its dark veil, in both themes: white type, a grey note.
SHEET_INK, SHEET_NOTE = WHITE, "#bdc1c6"
# The code view: syntax colours and the highlighted (key) line, per theme (PALETTES' names).
SYNTAX = {
    "light": {"keyword": "#7b1fa2", "builtin": "#1a55a0", "string": "#2e7d32", "comment": "#6a737d",
              "number": "#b35900", "decorator": "#8a6d00"},
    "dark": {"keyword": "#c792ea", "builtin": "#82aaff", "string": "#c3e88d", "comment": "#8b949e",
             "number": "#f78c6c", "decorator": "#ffcb6b"},
}
CODE_LINE = {"light": "#fde293", "dark": "#6b5300"}

LIGHT = Palette()
DARK = Palette(background="#1e1f22", foreground="#e8eaed", muted="#9aa0a6", panel="#2a2b2f",
               query="#fb923c", key="#e879f9", masked="#5f6368", grid="#3c4043",
               chip="#303134", chip_border="#5f6368", button="#303134", button_text="#bdc1c6",
               button_border="#5f6368", selected="#8ab4f8", on_selected="#202124", bright="#ffffff",
               shadow="#17181a", disabled="#80868b")
# Projectors wash out greys: presentation mode uses pure black/white and saturated highlights.
CONTRAST_LIGHT = Palette(background="#ffffff", foreground="#000000", muted="#202124", panel="#ffffff",
                         query="#e65100", key="#7b1fa2", masked="#5f6368", grid="#000000")
# Dark on a projector: the window's own dark grey (pure black made the maps' dark end a hole).
CONTRAST_DARK = replace(DARK, background="#1e1f22", foreground="#ffffff", muted="#e8eaed", panel="#1e1f22",
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
    return QColor(BLACK) if lum > 0.5 else QColor(WHITE)
