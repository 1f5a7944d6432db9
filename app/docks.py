"""The window's two docks: the controls (left) and the instruments (right: Notes, Trace, Code,
Predict, Train), built once and sized for the window (below NARROW px they share one dock, as
tabs, so the station keeps three quarters of the width); the instruments' pop-out window.
MainWindow composes it."""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QScrollArea, QTabWidget
from shiboken6 import isValid

from compute import BACKEND_NAMES, PRESETS
from widgets.calibrator import CalibratorPanel
from widgets.controls import Controls
from widgets.instruments import CodeView, TracePanel
from widgets.panels import NotesPanel

NARROW = 1500            # px: below this the two docks share one (tabs), leaving the station room
DOCK_WIDTH = 290         # px: the instruments dock (Notes, Predict)
CONTROLS_WIDTH = 250     # px: the controls dock, or what its widest row needs
# One width whatever its tab: opening Trace or Code never squeezes the station (their pop-out
# window gives them room).
POP_OUT_SIZE = (820, 680)


class Docks(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.controls = Controls(list(PRESETS), [b for b in BACKEND_NAMES if b != "reference"])
        scroll = self.scroll = QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        left = QDockWidget(window)
        left.setObjectName("controlsDock")
        left.setWidget(scroll)
        features = QDockWidget.DockWidgetFeature
        left.setFeatures(features.DockWidgetMovable | features.DockWidgetClosable)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, left)
        self.notes = NotesPanel()
        self.trace_panel = TracePanel()
        self.code_view = CodeView()
        self.calibrator = CalibratorPanel()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("instrumentTabs")           # STYLE: titles a little smaller, five fit the dock
        for widget in (self.notes, self.trace_panel, self.code_view, self.calibrator):
            self.tabs.addTab(widget, "")
        right = QDockWidget(window)
        right.setObjectName("notesDock")
        right.setWidget(self.tabs)
        right.setMinimumWidth(210)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, right)
        self.docks = {"controls": left, "notes": right}
        self.sized = False

    def shown(self) -> None:
        """The window's first show: size the docks once it is laid out."""
        if not self.sized:
            self.sized = True
            QTimer.singleShot(0, self.size_docks)

    def retranslate(self) -> None:
        if self.sized:
            self.fit_to_tab()                                 # the tab titles' new widths
            QTimer.singleShot(0, self, self.fit_controls)     # after the controls have their new texts

    def size_docks(self) -> None:
        """Qt sizes docks from their contents; give the views the room once the window is laid
        out. Below NARROW px (a laptop, a projector at 1280) the controls and the instruments share
        one dock on the right, as tabs, so the station keeps three quarters of the width."""
        win = self.window
        controls, notes = self.docks["controls"], self.docks["notes"]
        self.fit_controls()
        if win.width() < NARROW:
            win.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, controls)
            win.tabifyDockWidget(notes, controls)
            notes.raise_()
            win.resizeDocks([notes], [self.tabs_width()], Qt.Orientation.Horizontal)
        else:
            win.resizeDocks([controls, notes], [self.fit_controls(), self.tabs_width()], Qt.Orientation.Horizontal)

    def fit_controls(self) -> int:
        """The controls' dock at least as wide as its widest row needs (a preset note, a Swedish
        check box): a form wider than its scroll area is cut at the right, with no scroll bar."""
        scroll = self.scroll
        if not (isValid(scroll) and isValid(self.controls)):
            return CONTROLS_WIDTH
        bar = scroll.verticalScrollBar().sizeHint().width()
        need = self.controls.minimumSizeHint().width() + bar + 2 * scroll.frameWidth()
        scroll.setMinimumWidth(max(CONTROLS_WIDTH, need))
        return scroll.minimumWidth()

    def tabs_width(self) -> int:
        """DOCK_WIDTH, or wider where the tab titles need it (Swedish and Indonesian run longer):
        every tab's title shown whole, none behind the tab bar's scroll arrows."""
        return max(DOCK_WIDTH, self.tabs.tabBar().sizeHint().width() + 6)

    def fit_to_tab(self) -> None:
        """The instruments dock as wide as its tab titles need, the same for every tab (the
        station keeps its place when Trace or Code opens); a window of its own holds more."""
        dock = self.docks["notes"]
        if not dock.isVisible() or dock.isFloating():
            return
        want = self.tabs_width()
        if abs(dock.width() - want) > 4:
            self.window.resizeDocks([dock], [want], Qt.Orientation.Horizontal)

    def pop_out(self) -> None:
        """The instruments in a window of their own (room for the code and the trace table), or
        back into the dock."""
        dock = self.docks["notes"]
        if dock.isFloating():
            dock.setFloating(False)
            self.fit_to_tab()
            return
        dock.setFloating(True)
        dock.resize(*POP_OUT_SIZE)
        dock.show()
        dock.raise_()
