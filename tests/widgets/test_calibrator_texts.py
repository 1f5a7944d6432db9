"""Issue 25 item 9: the Predict tab's choices are never cut off: in a narrow dock each box has the
dock's width (labels above), and a choice longer than its box is written out whole under it."""
from __future__ import annotations

import pytest

from widgets.calibrator import CalibratorPanel


@pytest.mark.parametrize("width", [250, 420])
def test_every_choice_is_readable_whole(qtbot, width):
    panel = CalibratorPanel()
    qtbot.addWidget(panel)
    panel.resize(width, 600)
    panel.show()
    qtbot.wait(20)
    for combo in (panel.change, panel.question):
        for i in range(combo.count()):
            combo.setCurrentIndex(i)
            whole = panel.whole[combo]
            if panel.cut(combo):
                assert whole.isVisible() and whole.text() == combo.currentText()
                assert whole.width() <= panel.width()
            else:
                assert not whole.isVisible()
        assert combo.width() >= panel.box.width() - 40          # labels above: the box is the dock's width
    panel.question.setCurrentIndex(1)
    assert panel.cut(panel.question) == (width == 250)          # the long question: cut only in the narrow dock
