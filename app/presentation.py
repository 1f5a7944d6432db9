"""Appearance (light/dark theme, colour maps) and presentation mode for the lecture hall.

`Appearance` turns the view state (Selection.theme / colormap / diverging) and presentation mode
into looks: the Qt palette and style sheet of the window, and each view's palette, colour maps,
fonts and line widths (widgets' `apply_style`). Nothing here recomputes anything.

`Presentation` is the lecture mode: full screen, chrome hidden (menus, docks, status bar), large
fonts, thick lines, high contrast, and keys for everything (SHORTCUTS; F1 shows the sheet).
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import QApplication, QDockWidget, QWidget

from compute.stations import STATIONS
from widgets.i18n import tr
from widgets.matrix import MatrixPlot
from widgets.overlay import CheatSheet
from widgets.theme import BLACK, CONTRAST_DARK, CONTRAST_LIGHT, DARK, LIGHT, WHITE, Palette, text_colour_for

from .actions import PRESENT_KEYS, present_rows, sheet_rows

# Type size of the views outside presentation mode: plot titles at 1.1x (11 pt), tick labels at it.
VIEW_FONT_PT = 10.0
PRESENTATION_FONT_PT = 15.0
PRESENTATION_LINES = 2.0

# The window's light style sheet (MainWindow's), and the dark one over it: both drawn from their palette.
STYLE = f"""
QMainWindow, QWidget {{ font-size: 10pt; }}
QLabel#note {{ color: {LIGHT.muted}; font-size: 9pt; }}
QLabel#stationHeader {{ padding: 2px 4px; }}
QLabel#stripTitle, QLabel#tokenCount {{ color: {LIGHT.muted}; }}
QToolButton#tokenChip {{ border: 1px solid {LIGHT.chip_border}; border-radius: 10px; padding: 3px 10px;
    background: {LIGHT.chip}; font-size: 11pt; }}
QToolBar#stationBar {{ border: none; spacing: 2px; }}
QTabWidget#instrumentTabs > QTabBar {{ font-size: 9pt; }}
QToolButton#stationButton, QToolButton#pageButton {{ padding: 3px 4px; border: 1px solid {LIGHT.button_border};
    border-radius: 4px; background: {LIGHT.button}; color: {LIGHT.button_text}; }}
QToolButton#stationButton:checked {{ background: {LIGHT.selected}; color: {LIGHT.on_selected};
    border-color: {LIGHT.selected}; font-weight: bold; }}
QToolButton#pageButton:checked {{ background: {LIGHT.query}; color: {LIGHT.on_selected}; border-color: {LIGHT.query};
    font-weight: bold; }}
QToolButton#pageButton::menu-indicator {{ image: none; width: 0px; }}
QGroupBox {{ font-weight: bold; margin-top: 10px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 6px; padding: 0 2px; }}
"""

DARK_QSS = f"""
QLabel#note, QLabel#stripTitle, QLabel#tokenCount {{ color: {DARK.muted}; }}
QToolButton#tokenChip {{ background: {DARK.chip}; color: {DARK.foreground}; border-color: {DARK.chip_border}; }}
QToolButton#stationButton, QToolButton#pageButton {{ background: {DARK.button}; color: {DARK.button_text};
    border-color: {DARK.button_border}; }}
QToolButton#stationButton:checked {{ background: {DARK.selected}; color: {DARK.on_selected};
    border-color: {DARK.selected}; }}
QToolButton#pageButton:checked {{ background: {DARK.query}; color: {DARK.on_selected}; border-color: {DARK.query}; }}
"""

PRESENT_QSS = """
QMainWindow, QWidget {{ font-size: {ui:.0f}pt; }}
QToolButton#tokenChip {{ font-size: {chip:.0f}pt; padding: 4px 14px; border-width: 2px; border-radius: 16px; }}
QToolButton#stationButton, QToolButton#pageButton {{ font-size: {ui:.0f}pt; padding: 6px 7px; border-width: 2px; }}
"""
# On a projector the chips are ink on paper: black on white, white on black.
PRESENT_CONTRAST_QSS = {
    "light": f"QToolButton#tokenChip {{ background: {WHITE}; color: {BLACK}; border-color: {BLACK}; }}\n",
    "dark": f"QToolButton#tokenChip {{ background: {BLACK}; color: {WHITE}; border-color: {WHITE}; }}\n",
}

def chip_colours(pal: Palette) -> str:
    """The query's chip in the query colour, a hovered chip's border in the key colour: the
    views' colour grammar (widgets/theme.py) in the token strip too."""
    r, g, b, _a = QColor(pal.query).getRgb()
    ink = text_colour_for((r, g, b)).name()
    return (f"QToolButton#tokenChip:checked {{ background: {pal.query}; color: {ink}; border-color: {pal.query}; }}\n"
            f"QToolButton#tokenChip:hover {{ border-color: {pal.key}; }}\n")


def dark_qpalette(pal: Palette = DARK) -> QPalette:
    """The dark window's Qt palette (docks, dialogs and menus follow it), drawn from `pal`."""
    p = QPalette()
    colours = {
        QPalette.ColorRole.Window: pal.background, QPalette.ColorRole.WindowText: pal.foreground,
        QPalette.ColorRole.Base: pal.panel, QPalette.ColorRole.AlternateBase: pal.button,
        QPalette.ColorRole.Text: pal.foreground, QPalette.ColorRole.Button: pal.button,
        QPalette.ColorRole.ButtonText: pal.foreground, QPalette.ColorRole.BrightText: pal.bright,
        QPalette.ColorRole.Highlight: pal.selected, QPalette.ColorRole.HighlightedText: pal.on_selected,
        QPalette.ColorRole.ToolTipBase: pal.button, QPalette.ColorRole.ToolTipText: pal.foreground,
        QPalette.ColorRole.PlaceholderText: pal.muted, QPalette.ColorRole.Link: pal.selected,
        QPalette.ColorRole.Mid: pal.grid, QPalette.ColorRole.Dark: pal.shadow,
        QPalette.ColorRole.Light: pal.button_border,
    }
    for role, colour in colours.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(pal.disabled))
    return p


def set_dark(state, on: bool) -> None:
    """Dark or light theme (view state). The colour maps stay as chosen: each is drawn in the
    variant of the page (0 is white on a light page, the page's dark on a dark one)."""
    state.select(theme="dark" if on else "light")


class Appearance(QObject):
    """Applies theme, colour maps and presentation looks to the window and every view."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.base_style = window.styleSheet()
        self.presenting = False
        self.font_pt = PRESENTATION_FONT_PT
        self._applied: tuple | None = None
        window.state.selectionChanged.connect(self._on_selection)    # a method: disconnected with us
        self.apply()

    def _on_selection(self, _sel) -> None:
        self.apply()

    def palette(self) -> Palette:
        dark = self.window.state.selection.theme == "dark"
        if self.presenting:
            return CONTRAST_DARK if dark else CONTRAST_LIGHT
        return DARK if dark else LIGHT

    def key(self) -> tuple:
        sel = self.window.state.selection
        return (sel.theme, sel.colormap, sel.diverging, self.presenting, self.font_pt if self.presenting else None)

    def pages(self) -> list[QWidget]:
        w = self.window
        pages = getattr(w, "pages", None) or getattr(w, "stations", {})
        return list(dict.fromkeys(pages.values()))

    def apply(self, force: bool = False) -> None:
        key = self.key()
        if key == self._applied and not force:
            return
        self._applied = key
        sel = self.window.state.selection
        self._style_window(sel.theme)
        pal = self.palette()
        # Every look, the first included, comes from here: a light window after a dark one (or a
        # restart in dark) has the same type sizes as a fresh one.
        for page in self.pages():
            self.style_page(page, pal)

    def style_page(self, page: QWidget, palette: Palette | None = None) -> None:
        """One page in the look now (a page built on first show gets it then)."""
        sel = self.window.state.selection
        font_pt = self.font_pt if self.presenting else VIEW_FONT_PT
        lines = PRESENTATION_LINES if self.presenting else 1.0
        restyle(page, palette or self.palette(), sel.colormap, sel.diverging, font_pt, lines)

    def _style_window(self, theme: str) -> None:
        w = self.window
        style = self.base_style
        # App-wide, so docks, dialogs and menus follow too.
        if theme == "dark":
            QApplication.setPalette(dark_qpalette())
            style += DARK_QSS
        else:
            QApplication.setPalette(QApplication.style().standardPalette())
        if self.presenting:
            style += PRESENT_QSS.format(ui=self.font_pt, chip=self.font_pt * 1.15)
            style += PRESENT_CONTRAST_QSS[theme]
        w.setStyleSheet(style + chip_colours(self.palette()))


def restyle(page: QWidget, palette: Palette, sequential: str, diverging: str, font_pt: float, lines: float) -> None:
    """A view's look: its own apply_style if it has one, else every MatrixPlot it holds."""
    if hasattr(page, "apply_style"):
        page.apply_style(palette, sequential=sequential, diverging=diverging, font_pt=font_pt, line_scale=lines)
        return
    if isinstance(getattr(page, "palette", None), Palette):
        page.palette = palette
    for value in list(vars(page).values()):
        if isinstance(value, MatrixPlot):
            value.apply_style(palette, cmap=sequential if value.kind == "sequential" else diverging,
                              font_pt=font_pt, line_scale=lines)
    canvas = getattr(page, "canvas", None)
    if canvas is not None and hasattr(canvas, "setBackground"):
        canvas.setBackground(palette.background)


class Presentation(QObject):
    """Full screen, no chrome, big type, high contrast, keys for everything."""

    toggled = Signal(bool)

    def __init__(self, window, appearance: Appearance):
        super().__init__(window)
        self.window = window
        self.appearance = appearance
        self.active = False
        self._saved = None
        self._play_just_stopped = False
        self.sheet = CheatSheet(window)
        self.keys: list[QShortcut] = []        # enabled only while presenting
        s = window.state
        cfg = lambda: s.inputs.config  # noqa: E731
        handlers = {                       # PRESENT_KEYS' handler ids: one function per key there
            "station": (lambda: self._station(+1), lambda: self._station(-1)),
            "goto": tuple(lambda k=key: self._goto(k) for key in STATIONS),
            "token": (lambda: self._token(+1), lambda: self._token(-1)),
            "token_end": (lambda: self._token_at(0), lambda: self._token_at(-1)),
            "head": (lambda: self._cycle("head", +1, cfg().n_heads), lambda: self._cycle("head", -1, cfg().n_heads)),
            "layer": (lambda: self._cycle("layer", +1, cfg().n_layers),
                      lambda: self._cycle("layer", -1, cfg().n_layers)),
            "map": (lambda: window.actions["block_map"].trigger(),),
            "values": (lambda: s.select(show_values=not s.selection.show_values),),
            "lock": (lambda: s.select(lock_scales=not s.selection.lock_scales),),
            "dark": (lambda: set_dark(s, s.selection.theme != "dark"),),
            "zoom": (lambda: self.zoom(+1), lambda: self.zoom(-1)),
        }
        for keys, _words, handler in PRESENT_KEYS:
            for key, fn in zip(keys, handlers[handler], strict=True):
                self.keys.append(self._shortcut(key, fn, enabled=False))
                if len(key) == 1 and key.isalpha():   # the sheet says "D": Shift+D (caps lock) works too
                    self.keys.append(self._shortcut(f"Shift+{key}", fn, enabled=False))
        self.keys.append(self._shortcut("=", lambda: self.zoom(+1), enabled=False))   # "+" without Shift
        # Esc already cancels a computation / stops Play (the window's action); when neither is
        # happening, it also leaves presentation mode.
        window.actions["escape"].triggered.connect(self._escape)
        play = getattr(getattr(window, "station_bar", None), "play", None)
        if play is not None:
            play.toggled.connect(self._play_toggled)

    def _shortcut(self, keys: str, fn, enabled: bool = True) -> QShortcut:
        sc = QShortcut(QKeySequence(keys), self.window)
        sc.setContext(Qt.ShortcutContext.WindowShortcut)
        sc.activated.connect(fn)
        sc.setEnabled(enabled)
        return sc

    # -- the mode -----------------------------------------------------------------------------------
    def toggle(self) -> None:
        self.leave() if self.active else self.enter()

    def enter(self) -> None:
        if self.active:
            return
        w = self.window
        self._saved = {"state": w.saveState(), "geometry": w.saveGeometry(), "menubar": w.menuBar().isVisible(),
                       "statusbar": w.statusBar().isVisible(), "maximized": w.isMaximized()}
        for dock in w.findChildren(QDockWidget):
            dock.hide()
        if hasattr(w, "set_presenting"):
            w.set_presenting(True)               # messages float over the slide and fade
        w.menuBar().hide()                       # the actions are the window's own: their keys still work
        w.statusBar().hide()
        self.active = True
        for sc in self.keys:
            sc.setEnabled(True)
        self.appearance.presenting = True
        self.appearance.apply()
        w.showFullScreen()
        QTimer.singleShot(300, self, self._cover_screen)
        w.state.message.emit("info", tr("Presentation mode — F1 or ? lists the keys; Esc or F11 leaves."))
        self.toggled.emit(True)

    def leave(self) -> None:
        if not self.active:
            return
        w = self.window
        self.active = False
        for sc in self.keys:
            sc.setEnabled(False)
        self.sheet.close_sheet()
        self.appearance.presenting = False
        self.appearance.apply()
        if hasattr(w, "set_presenting"):
            w.set_presenting(False)
        saved = self._saved or {}
        w.showNormal()
        if saved.get("geometry") is not None:
            w.restoreGeometry(saved["geometry"])
        if saved.get("maximized"):
            w.showMaximized()
        w.menuBar().setVisible(saved.get("menubar", True))
        w.statusBar().setVisible(saved.get("statusbar", True))
        if saved.get("state") is not None:
            w.restoreState(saved["state"])       # the docks as they were
        self.toggled.emit(False)

    def _cover_screen(self) -> None:
        """Without a window manager (a kiosk, Xvfb) full screen is only a flag: size it by hand."""
        w, screen = self.window, self.window.screen()
        if self.active and screen is not None and w.geometry() != screen.geometry():
            w.setGeometry(screen.geometry())

    def zoom(self, step: int) -> None:
        self.appearance.font_pt = min(32.0, max(10.0, self.appearance.font_pt + 2 * step))
        self.appearance.apply()

    def show_sheet(self) -> None:
        if self.sheet.isVisible():
            self.sheet.close_sheet()
            return
        size = self.appearance.font_pt if self.active else 12.0
        self.sheet.set_sections(self.sheet_sections, size)
        self.sheet.open()

    @staticmethod
    def sheet_sections() -> list:
        return [(tr("Presentation mode"), present_rows()), (tr("Everywhere"), sheet_rows())]

    # -- keys ---------------------------------------------------------------------------------------------
    def _escape(self) -> None:
        if self.sheet.isVisible():
            self.sheet.close_sheet()
        elif self.active and not self.window.state.busy and not self._play_just_stopped:
            self.leave()

    def _play_toggled(self, on: bool) -> None:
        if not on:                               # this same Esc stopped Play: stay in the mode
            self._play_just_stopped = True
            QTimer.singleShot(0, lambda: setattr(self, "_play_just_stopped", False))

    def _station(self, delta: int) -> None:
        bar = getattr(self.window, "station_bar", None)
        if bar is not None:
            bar.step(delta)

    def _goto(self, station: str) -> None:
        go = getattr(self.window, "_go_to", None)            # the window also closes its block map
        go(station) if go is not None else self.window.state.select(station=station)

    def _token(self, delta: int) -> None:
        s = self.window.state
        T = len(s.inputs.tokens)
        if T:
            s.select(query=(s.selection.query + delta) % T, key=None, hover=None)

    def _token_at(self, index: int) -> None:
        s = self.window.state
        T = len(s.inputs.tokens)
        if T:
            s.select(query=index % T, key=None, hover=None)

    def _cycle(self, field: str, delta: int, count: int) -> None:
        s = self.window.state
        s.select(**{field: (getattr(s.selection, field) + delta) % max(count, 1)})


