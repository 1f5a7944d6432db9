"""Every command of the window, once: its menu, its text, its keys and its line in the cheat sheet.

`ACTIONS` is the table; `ActionSet` makes one QAction per row (added to the window itself, so its
keys work with the menu bar hidden, in presentation mode, and wherever the focus is), the owners
connect their handlers by id (`actions.connect("export", ...)`), and `build_menus` lays the menus
out from the table. The cheat sheet and Help ▸ Keyboard shortcuts are written from the same rows,
so a key is never spelled twice. Presentation mode's own keys (`PRESENT_KEYS`) live here too.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QMenu
from shiboken6 import isValid

from compute.stations import INSTRUMENT_PAGES, PAGE, STATIONS

MENUS: tuple[tuple[str, str], ...] = (("file", "&File"), ("edit", "&Edit"), ("view", "&View"), ("model", "&Model"),
                                      ("help", "&Help"))


@dataclass(frozen=True)
class Act:
    id: str
    menu: str                          # a MENUS key; "" = no menu (a key of the window only)
    text: str
    keys: tuple[str, ...] = ()         # "Ctrl+E" (Cmd on a Mac), or "std:Undo": the platform's own too
    group: str = ""                    # a separator goes between groups of one menu
    checkable: bool = False
    submenu: bool = False              # a place in the menu for a QMenu its owner fills


def _pages() -> tuple[Act, ...]:
    stations = tuple(Act(f"station:{key}", "view", f"{n}  {PAGE[key].title.replace('&', '&&')}", (f"Ctrl+{n}",),
                         group="stations") for n, key in enumerate(STATIONS, start=1))
    pages = tuple(Act(f"station:{key}", "view", PAGE[key].title, group="pages") for key in INSTRUMENT_PAGES)
    return stations + pages


ACTIONS: tuple[Act, ...] = (
    Act("new", "file", "&New session", ("Ctrl+N",), "session"),
    Act("open", "file", "&Open session…", ("Ctrl+O",), "session"),
    Act("recent", "file", "Open &recent", group="session", submenu=True),
    Act("save", "file", "&Save session", ("Ctrl+S",), "session"),
    Act("save_as", "file", "Save session &as…", ("Ctrl+Shift+S",), "session"),
    Act("restore_last", "file", "Start with the last session", group="session", checkable=True),
    Act("export", "file", "&Export figure or data…", ("Ctrl+E",), "export"),
    Act("export_npz", "file", "Export all intermediates (NPZ)…", ("Ctrl+Shift+E",), "export"),
    Act("quit", "file", "&Quit", ("Ctrl+Q",), "quit"),
    Act("undo", "edit", "Undo", ("Ctrl+Z", "std:Undo"), "history"),
    Act("redo", "edit", "Redo", ("Ctrl+Shift+Z", "Ctrl+Y"), "history"),
    Act("type", "edit", "Type a sentence…", ("Ctrl+L",), "tokens"),
    Act("block_map", "view", "Block &map: the stations as one picture", ("Ctrl+0",), "map", checkable=True),
    *_pages(),
    Act("next_station", "view", "Next station", ("Ctrl+Right",), "move"),
    Act("prev_station", "view", "Previous station", ("Ctrl+Left",), "move"),
    Act("next_query", "view", "Next query position", ("Alt+Right",), "move"),
    Act("prev_query", "view", "Previous query position", ("Alt+Left",), "move"),
    Act("next_head", "view", "Next head", ("Alt+Down",), "move"),
    Act("prev_head", "view", "Previous head", ("Alt+Up",), "move"),
    Act("next_layer", "view", "Next layer", ("Ctrl+Down",), "move"),
    Act("prev_layer", "view", "Previous layer", ("Ctrl+Up",), "move"),
    Act("escape", "view", "Cancel computation / stop playing", ("Esc",), "move"),
    Act("play", "view", "Play / pause the stations", ("F5",), "move"),
    Act("dock:controls", "view", "Controls", group="docks", checkable=True),
    Act("dock:notes", "view", "Instruments", group="docks", checkable=True),
    Act("present", "view", "&Presentation mode", ("F11",), "look", checkable=True),
    Act("sheet", "view", "Shortcut cheat sheet", ("F1", "?"), "look"),
    Act("dark", "view", "&Dark theme", ("Ctrl+Shift+D",), "look", checkable=True),
    Act("colormap", "view", "Colour map (0…1: pattern, variance)", group="look", submenu=True),
    Act("diverging", "view", "Colour map (signed values)", group="look", submenu=True),
    Act("use_trained", "model", "Use the &trained toy weights", group="weights"),
    Act("use_random", "model", "Use &random weights", group="weights"),
    Act("open_weights", "model", "Open &weights file (.safetensors)…", group="files"),
    Act("open_checkpoint", "model", "Open &model folder or GGUF file…", group="files"),
    Act("download", "model", "&Download…", group="files"),
    Act("save_weights", "model", "&Save weights…", group="files"),
    Act("train", "model", "T&rain the toy model…", group="train"),
    Act("shortcuts", "help", "Keyboard shortcuts", group="help"),
    Act("about", "help", "About QKV Lab", group="help"),
)
ACTION: dict[str, Act] = {a.id: a for a in ACTIONS}

# The cheat sheet's rows, "Everywhere": the actions of a row and what they do. The keys are read
# from the actions (first key of each; a long run shows as "first … last").
SHEET: tuple[tuple[tuple[str, ...], str], ...] = (
    (("undo", "redo"), "undo / redo the last edit"),
    (tuple(f"station:{k}" for k in STATIONS), "go to a station"),
    (("block_map",), "the block map: every station as one picture"),
    (("prev_station", "next_station"), "previous / next station"),
    (("prev_query", "next_query"), "move the query position"),
    (("prev_head", "next_head"), "previous / next head"),
    (("prev_layer", "next_layer"), "previous / next layer"),
    (("type",), "type a sentence"),
    (("play",), "play / pause: step through the stations"),
    (("escape",), "stop playing; cancel a long computation"),
    (("new", "open"), "new session / open a session"),
    (("save", "save_as"), "save the session / save as"),
    (("export", "export_npz"), "export a figure or data / all intermediates (NPZ)"),
    (("dark",), "dark theme on / off"),
    (("present",), "presentation mode (its own keys: F1 there)"),
    (("sheet",), "shortcut cheat sheet"),
    (("quit",), "quit"),
)

# Presentation mode's keys (a clicker sends Page Up/Down): (keys, what they do, handler id). They
# are enabled only while presenting; the window's own keys keep working there too.
PRESENT_KEYS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("PgDown", "PgUp"), "next / previous station (a clicker)", "station"),
    (tuple(str(n) for n in range(1, len(STATIONS) + 1)), "go to station n", "goto"),
    (("Right", "Left"), "next / previous token (the query row)", "token"),
    (("Home", "End"), "first / last token", "token_end"),
    (("Down", "Up"), "next / previous head", "head"),
    (("Shift+Down", "Shift+Up"), "next / previous layer", "layer"),
    (("M",), "the block map on / off", "map"),
    (("V",), "numbers in the cells on / off", "values"),
    (("L",), "lock the colour scales on / off", "lock"),
    (("D",), "dark / light", "dark"),
    (("+", "-"), "larger / smaller text", "zoom"),
)
# Lines of the presentation section that are the window's actions, shown first.
PRESENT_SHEET_HEAD: tuple[tuple[tuple[str, ...], str], ...] = (
    (("present",), "presentation mode on / off"),
    (("sheet",), "this cheat sheet"),
    (("escape",), "leave (a first Esc stops Play or a computation)"),
)

# Keys a text field keeps while it has the focus: editing its own text (undo the typing, move by
# words, copy, paste, select). Every other key of an action reaches the action (Ctrl+E exports
# while the sentence box has the focus, though a line edit would read it as "end of line").
TEXT_EDITING_KEYS: frozenset[str] = frozenset({
    "Ctrl+Z", "Ctrl+Shift+Z", "Ctrl+Y", "Ctrl+X", "Ctrl+C", "Ctrl+V", "Ctrl+A", "Ctrl+Left", "Ctrl+Right",
    "Ctrl+Shift+Left", "Ctrl+Shift+Right", "Ctrl+Backspace", "Ctrl+Del", "Home", "End", "Left", "Right",
})


def key_sequences(act: Act) -> list[QKeySequence]:
    out: list[QKeySequence] = []
    for key in act.keys:
        found = (QKeySequence.keyBindings(getattr(QKeySequence.StandardKey, key[4:])) if key.startswith("std:")
                 else [QKeySequence(key)])
        out.extend(seq for seq in found if seq not in out)
    return out


# Names a person reads on a key cap, where Qt's own text is terse.
_CAPS = {"PgDown": "Page Down", "PgUp": "Page Up"}


def _text(seq: QKeySequence) -> str:
    text = seq.toString(QKeySequence.SequenceFormat.NativeText)
    return _CAPS.get(text, text)


def key_text(act_id: str) -> str:
    """The first key of an action as a person reads it ("Ctrl+E"); "" when it has none."""
    seqs = key_sequences(ACTION[act_id])
    return _text(seqs[0]) if seqs else ""


def row_keys(ids: Sequence[str]) -> str:
    texts = [t for t in (" or ".join(_all_keys(i)) if len(ids) == 1 else key_text(i) for i in ids) if t]
    if len(texts) > 2:
        return f"{texts[0]} … {texts[-1]}"
    return " / ".join(texts)


def _all_keys(act_id: str) -> list[str]:
    return [_text(s) for s in key_sequences(ACTION[act_id])]


def sheet_rows() -> list[tuple[str, str]]:
    """(keys, what they do) for the cheat sheet's "Everywhere" section and Help ▸ Keyboard shortcuts."""
    return [(row_keys(ids), words) for ids, words in SHEET]


def present_rows() -> list[tuple[str, str]]:
    """(keys, what they do) for the cheat sheet's presentation-mode section."""
    head = [(row_keys(ids), words) for ids, words in PRESENT_SHEET_HEAD]
    return head + [(_join_present(keys), words) for keys, words, _ in PRESENT_KEYS]


def _join_present(keys: tuple[str, ...]) -> str:
    if len(keys) > 2:
        return f"{keys[0]} … {keys[-1]}"
    return " / ".join(_text(QKeySequence(k)) for k in keys)


class ActionSet(QObject):
    """The window's QActions, one per row of ACTIONS, by id."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.actions: dict[str, QAction] = {}
        for act in ACTIONS:
            if not act.submenu:
                self._install(act, QAction(act.text, window))
        self._keys = {s.toString(QKeySequence.SequenceFormat.PortableText)
                      for a in self.actions.values() for s in a.shortcuts()}

    def _install(self, act: Act, action: QAction) -> QAction:
        action.setShortcuts(key_sequences(act))
        action.setCheckable(act.checkable or action.isCheckable())
        action.setObjectName(f"action:{act.id}")
        old = self.actions.get(act.id)
        if old is not None and old is not action:
            self.window.removeAction(old)
        self.window.addAction(action)            # its keys work with the menu bar hidden
        self.actions[act.id] = action
        return action

    def __getitem__(self, act_id: str) -> QAction:
        return self.actions[act_id]

    def connect(self, act_id: str, slot: Callable) -> QAction:
        action = self.actions[act_id]
        signal = action.toggled if action.isCheckable() else action.triggered
        signal.connect(slot)
        return action

    def adopt(self, act_id: str, action: QAction) -> QAction:
        """Use a QAction made elsewhere (the undo stack's, a dock's toggle) for this row: it gets
        the row's keys (its text stays its own: "Undo Move “cat” to position 3")."""
        return self._install(ACTION[act_id], action)

    def build_menus(self, menubar, submenus: dict[str, QMenu]) -> dict[str, QMenu]:
        """The menus, in the table's order, with a separator between groups."""
        menus: dict[str, QMenu] = {}
        for key, title in MENUS:
            menu = menus[key] = menubar.addMenu(title)
            group = None
            for act in (a for a in ACTIONS if a.menu == key):
                if group is not None and act.group != group:
                    menu.addSeparator()
                group = act.group
                if act.submenu:
                    sub = submenus[act.id]
                    sub.setTitle(act.text)
                    menu.addMenu(sub)
                else:
                    menu.addAction(self.actions[act.id])
        return menus

    def guard_text_fields(self) -> None:
        """Let the actions' keys through every text field of the window that takes the focus,
        including fields made later (see TEXT_EDITING_KEYS)."""
        QApplication.instance().focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old, new) -> None:
        if (isinstance(new, (QLineEdit, QAbstractSpinBox)) and isValid(self.window)
                and new.window() is self.window):
            new.installEventFilter(self)        # once per field is enough; again is harmless

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.ShortcutOverride:
            combo = QKeySequence(event.keyCombination()).toString(QKeySequence.SequenceFormat.PortableText)
            if combo in self._keys and combo not in TEXT_EDITING_KEYS and event.modifiers() & ~(
                    Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier):
                event.ignore()                   # not the field's: the window's action takes it
                return True
        return False
