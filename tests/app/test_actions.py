"""The one action table (app/actions.py): menus, keys and the cheat sheet all come from it."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

from app.actions import ACTIONS, SHEET, key_sequences, sheet_rows


def _menu_actions(menu):
    for action in menu.actions():
        if action.menu() is not None:
            yield action.menu()
        elif not action.isSeparator():
            yield action


def test_every_row_is_in_its_menu_in_the_table_order(window):
    for key, menu in window.menus.items():
        rows = [a for a in ACTIONS if a.menu == key]
        shown = list(_menu_actions(menu))
        assert len(shown) == len(rows), key
        for act, item in zip(rows, shown, strict=True):
            if act.submenu:
                assert item is window.file_actions.submenus[act.id]
            else:
                assert item is window.actions[act.id]
                assert item.shortcuts() == key_sequences(act)      # the keys the table gives


def test_the_cheat_sheet_spells_the_keys_the_actions_have(window):
    rows = dict((words, keys) for keys, words in sheet_rows())
    for ids, words in SHEET:
        for act_id in ids:
            seqs = window.actions[act_id].shortcuts()
            assert seqs, act_id
            text = seqs[0].toString(QKeySequence.SequenceFormat.NativeText)
            assert text.split("+")[-1] in rows[words] or "…" in rows[words], (act_id, rows[words])
    assert rows["export a figure or data / all intermediates (NPZ)"] == "Ctrl+E / Ctrl+Shift+E"


class _X11LineEdit(QLineEdit):
    """A line edit as on X11 desktops, where Ctrl+E is 'end of line' (QKeySequence::MoveToEndOfLine)
    and the field claims the key before any shortcut; Qt's offscreen platform binds End only."""

    def event(self, event):
        if (event.type() == QEvent.Type.ShortcutOverride and event.key() == Qt.Key.Key_E
                and event.modifiers() == Qt.KeyboardModifier.ControlModifier):
            event.accept()
            return True
        return super().event(event)


def test_window_keys_reach_their_actions_from_a_text_field(qtbot, window):
    """Ctrl+E exports while a text field has the focus, even one that claims Ctrl+E for itself;
    the field keeps its own editing keys and typed characters."""
    fired = []
    window.actions["export"].triggered.disconnect()
    window.actions["export"].triggered.connect(lambda: fired.append("export"))
    window.actions["next_layer"].triggered.connect(lambda: fired.append("layer"))
    window.actions["type"].trigger()                            # Ctrl+L: the sentence box takes the focus
    qtbot.waitUntil(window.tokens.edit.hasFocus)
    edit = _X11LineEdit(window.tokens)
    edit.show()
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    QTest.keyClick(edit, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(edit, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    assert fired == ["export", "layer"]
    QTest.keyClicks(edit, "the cat?")                           # printable keys stay text ('?' = cheat sheet)
    assert edit.text().endswith("the cat?") and not window.file_actions.presentation.sheet.isVisible()
    QTest.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)     # editing keys stay the box's
    assert edit.selectedText().endswith("the cat?")


def test_quit_is_found_by_its_id_not_its_text(window):
    quit_action = window.actions["quit"]
    assert quit_action in window.menus["file"].actions()
    assert window.menus["file"].actions()[-1] is quit_action   # last in File, whatever its words
