"""Small panels: the message bar, the station bar, the notes panel."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QButtonGroup, QFrame, QHBoxLayout, QLabel, QPushButton, QTextBrowser,
                               QToolButton, QWidget)

LEVEL_STYLE = {
    "error": "background:#fce8e6; color:#a50e0e; border:1px solid #f28b82;",
    "warning": "background:#fef7e0; color:#7a4f01; border:1px solid #fdd663;",
    "info": "background:#e8f0fe; color:#174ea6; border:1px solid #aecbfa;",
}


class MessageBar(QFrame):
    """One line of feedback under the token strip; errors stay until closed, info fades."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("dismiss")
        close.clicked.connect(self.hide)
        layout.addWidget(close)
        self.level = ""
        self._timer = QTimer(self, singleShot=True, timeout=self.hide)
        self.hide()

    def show_message(self, level: str, text: str) -> None:
        self.level = level
        self.label.setText(text)
        self.setStyleSheet(f"MessageBar {{ {LEVEL_STYLE.get(level, LEVEL_STYLE['info'])} border-radius:4px; }}"
                           f"QLabel {{ {LEVEL_STYLE.get(level, '')} border:none; background:transparent; }}")
        self.show()
        self._timer.stop()
        if level == "info":
            self._timer.start(6000)

    @property
    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""


class StationBar(QWidget):
    """◀ [Embeddings] [LayerNorm] … [MLP] ▶ — the time line of a block."""

    chosen = Signal(str)

    def __init__(self, keys: Sequence[str], titles: dict[str, str], parent: QWidget | None = None,
                 short: dict[str, str] | None = None):
        super().__init__(parent)
        short = short or titles
        self.keys = list(keys)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(3)
        self.prev = QToolButton()
        self.prev.setText("◀")
        self.prev.setToolTip("previous station (Ctrl+Left)")
        self.prev.clicked.connect(lambda: self.step(-1))
        layout.addWidget(self.prev)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: dict[str, QPushButton] = {}
        for n, key in enumerate(self.keys, start=1):
            button = QPushButton(short[key].replace("&", "&&"))
            button.setCheckable(True)
            button.setObjectName("stationButton")
            button.setToolTip(f"{titles[key]} (Ctrl+{n})")
            button.clicked.connect(lambda _=False, k=key: self.chosen.emit(k))
            self.group.addButton(button)
            self.buttons[key] = button
            layout.addWidget(button)
        self.next = QToolButton()
        self.next.setText("▶")
        self.next.setToolTip("next station (Ctrl+Right)")
        self.next.clicked.connect(lambda: self.step(+1))
        layout.addWidget(self.next)
        layout.addStretch(1)
        self.current = self.keys[0]

    def set_current(self, key: str) -> None:
        self.current = key
        self.buttons[key].setChecked(True)

    def step(self, delta: int) -> None:
        i = (self.keys.index(self.current) + delta) % len(self.keys)
        self.chosen.emit(self.keys[i])


class NotesPanel(QTextBrowser):
    """Plain-words notes for the active station, with its formula and shapes at current sizes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setObjectName("notes")

    def show_note(self, html: str) -> None:
        self.setHtml(html)
