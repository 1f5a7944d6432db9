"""The central area's pages: each built on its first show (a station, or an instrument page's row
in widgets/pages/), wired to LabState and handed to its controller (app/pages/); the stations'
right-click menu (knock the head shown out, or put it back). MainWindow composes it."""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMenu, QWidget

from compute.stations import PAGE, PAGES, STATIONS
from widgets.i18n import tr
from widgets.pages import page_kind
from widgets.stations import STATION_CLASSES, Station

STATION_CLASS = {cls.key: cls for cls in STATION_CLASSES}


class PageHost(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window, self.state = window, window.state

    def build(self, key: str) -> QWidget:
        """Page `key` built (on its first show): a station, or an instrument page's row
        (widgets/pages/) handed to its controller (app/pages/); it draws the result there is."""
        win, s = self.window, self.state
        widget = STATION_CLASS[key]() if key in STATIONS else page_kind(key).widget()
        win.stack.addWidget(widget)
        if isinstance(widget, Station):
            widget.canvas.painted.connect(win.paint.painted)
            widget.hovered.connect(lambda pair: s.select(hover=pair))
            widget.clicked.connect(win._on_cell_clicked)
            widget.traced.connect(win._on_traced)
            widget.rangeToggled.connect(lambda: s.select(full_range=not s.selection.full_range))
            if PAGE[key].head:                               # right-click: knock the head shown out (or back)
                widget.canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
                widget.canvas.customContextMenuRequested.connect(
                    lambda pos, w=widget: self.pop_head_menu(w.canvas.mapToGlobal(pos)))
        appearance = getattr(getattr(win, "file_actions", None), "appearance", None)
        if appearance is not None:
            appearance.style_page(widget)
        if key in win.controllers:
            win.controllers[key].attach(widget)
        if isinstance(widget, Station) and s.result is not None:
            widget.show_result(s.result, s.selection)
        return widget

    def head_menu(self) -> QMenu:
        """The stations' right-click menu: knock the selected head out, or put it back (undoable)."""
        s = self.state
        layer, head = s.selection.layer, s.selection.head
        menu = QMenu(self.window)
        text = (tr("Put head {layer}.{head} back") if (layer, head) in s.inputs.ablated else
                tr("Knock head {layer}.{head} out"))
        menu.addAction(text.format(layer=layer, head=head)).triggered.connect(lambda: s.toggle_ablation(layer, head))
        if s.inputs.ablated:
            menu.addAction(tr("Put every head back")).triggered.connect(s.clear_ablations)
        menu.addAction(tr("Show every head's share (Knock heads out)")).triggered.connect(
            lambda: s.select(station="knockout"))
        return menu

    def pop_head_menu(self, where) -> None:
        menu = self.head_menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)      # one menu per right-click, gone when closed
        menu.popup(where)


class Pages:
    """The central area's pages by key, each built on first access (`build(key)`); `get`, `values`
    and `items` see only those built so far (a hidden page nobody opened has nothing to update)."""

    def __init__(self, build):
        self._build = build
        self._built: dict[str, QWidget] = {}

    def add(self, key: str, widget: QWidget) -> None:
        self._built[key] = widget

    def __getitem__(self, key: str) -> QWidget:
        if key not in self._built:
            if key not in PAGES:
                raise KeyError(key)
            self._built[key] = self._build(key)
        return self._built[key]

    def __contains__(self, key: object) -> bool:
        return key in PAGES or key in self._built

    def get(self, key: str, default=None):
        return self._built.get(key, default)

    def built(self, key: str) -> bool:
        return key in self._built

    def values(self) -> list[QWidget]:
        return list(self._built.values())

    def items(self) -> list[tuple[str, QWidget]]:
        return list(self._built.items())
