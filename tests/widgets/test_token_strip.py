"""The token strip: long sequences get their chips over a few turns of the event loop."""
from __future__ import annotations

from widgets.token_strip import CHIP_BATCH, MAX_CHIPS, TokenStrip


def test_long_strips_grow_in_batches_and_reuse_chips(qtbot):
    strip = TokenStrip()
    qtbot.addWidget(strip)
    words = [f"w{i}" for i in range(MAX_CHIPS + 40)]
    strip.set_tokens(words[:10], [], 1024, 3)
    first = list(strip.row.chips)
    strip.set_tokens(words, [], 1024, 3)
    assert len(strip.row.chips) == min(10 + CHIP_BATCH, MAX_CHIPS)      # one batch now, the rest later
    assert strip.row.chips[:10] == first                                # existing chips are kept
    qtbot.waitUntil(lambda: len(strip.row.chips) == MAX_CHIPS, timeout=30_000)   # batches on a timer: slow under load
    assert [c.text() for c in strip.row.chips] == words[:MAX_CHIPS]
    assert [c.isChecked() for c in strip.row.chips].count(True) == 1 and strip.row.chips[3].isChecked()
    texts = [strip.row.layout_.itemAt(i).widget().text() for i in range(strip.row.layout_.count())
             if strip.row.layout_.itemAt(i).widget() is not None
             and strip.row.layout_.itemAt(i).widget() not in strip.row.chips]
    assert texts == ["… +40 more"]
    strip.set_tokens(["a", "b"], ["a", "b"], 16, 0)                     # shrinking keeps chips 0 and 1
    assert [c.text() for c in strip.row.chips] == ["a", "b"] and strip.row.chips[:2] == first[:2]
    layout = strip.row.layout_
    assert layout.count() == 3 and layout.itemAt(2).spacerItem() is not None   # the chips stay packed left
    assert strip.add_button.isVisibleTo(strip)                          # a listable vocabulary: + menu
    assert [a.text() for a in strip.add_menu.actions()] == ["a", "b"]


def test_a_4096_token_text_is_navigable_by_minimap_and_jump(qtbot):
    """Past MAX_CHIPS chips the rest of the text was reachable only by typing: a minimap of every
    position and a jump box move the query anywhere, and follow it when it moves."""
    strip = TokenStrip()
    qtbot.addWidget(strip)
    strip.set_tokens(["a", "b"], [], 8192, 0)
    assert not strip.minimap.isVisibleTo(strip) and not strip.jump.isVisibleTo(strip)   # short: chips suffice
    words = [f"w{i}" for i in range(4096)]
    strip.set_tokens(words, [], 8192, 7)
    assert strip.minimap.isVisibleTo(strip) and strip.jump.isVisibleTo(strip)
    assert strip.minimap.maximum() == strip.jump.maximum() == 4095 and strip.minimap.value() == 7
    asked = []
    strip.selected.connect(asked.append)
    strip.jump.setValue(4000)                                           # typed 4000, Enter
    strip.minimap.setValue(2048)                                        # dragged to the middle
    assert asked == [4000, 2048]
    strip.set_selected(3000)                                            # the query moved elsewhere: they follow
    assert strip.minimap.value() == strip.jump.value() == 3000 and asked == [4000, 2048]   # and ask nothing
    assert "w3000" in strip.minimap.toolTip()


def test_the_search_box_asks_for_a_tokens_next_occurrence(qtbot):
    """A long text has a search box (beside the minimap): Enter asks app/ for the next occurrence of its
    text (the widget finds nothing itself); an empty box asks nothing."""
    strip = TokenStrip()
    qtbot.addWidget(strip)
    strip.set_tokens(["a", "b"], [], 8192, 0)
    assert not strip.search.isVisibleTo(strip)
    strip.set_tokens([f"w{i}" for i in range(4096)], [], 8192, 0)
    assert strip.search.isVisibleTo(strip)
    asked = []
    strip.searchRequested.connect(asked.append)
    strip.search.setText("w40")
    strip.search.returnPressed.emit()
    strip.search.returnPressed.emit()                                   # Enter again: the next one
    strip.search.setText("  ")
    strip.search.returnPressed.emit()
    assert asked == ["w40", "w40"]
