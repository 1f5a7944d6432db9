"""Presentation mode (keys only, big type, no chrome) and the light / dark themes."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDockWidget

from widgets.theme import CONTRAST_LIGHT, DARK

from .conftest import settle, wait_render


def _key(win, key, modifier=Qt.KeyboardModifier.NoModifier):
    QTest.keyClick(win, key, modifier)


def test_presentation_mode_hides_chrome_and_drives_everything_by_keys(qtbot, window):
    win, s = window, window.state
    actions = win.file_actions
    docks = [d for d in win.findChildren(QDockWidget) if d.isVisible()]
    assert docks
    win.activateWindow()
    _key(win, Qt.Key.Key_F11)
    qtbot.waitUntil(lambda: win.isFullScreen(), timeout=5000)
    p = actions.presentation
    assert p.active and actions.present_action.isChecked()
    assert not win.menuBar().isVisible() and not win.statusBar().isVisible()
    assert not any(d.isVisible() for d in docks)
    scores = win.stations["scores"]
    assert scores.palette == CONTRAST_LIGHT
    assert scores.pattern.plot.getAxis("left").style["tickFont"].pointSizeF() == 15
    assert scores.pattern._bands["row"].pen().widthF() == 5.0            # thicker lines
    start = s.selection
    _key(win, Qt.Key.Key_PageDown)
    assert s.selection.station == "softmax"
    _key(win, Qt.Key.Key_PageUp)
    _key(win, Qt.Key.Key_Left)
    assert s.selection.query == start.query - 1
    _key(win, Qt.Key.Key_Home)
    assert s.selection.query == 0
    _key(win, Qt.Key.Key_Down)
    assert s.selection.head == (start.head + 1) % 2
    _key(win, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert s.selection.layer == 1
    _key(win, Qt.Key.Key_3)
    assert s.selection.station == "projections"
    _key(win, Qt.Key.Key_V)
    assert s.selection.show_values is False
    _key(win, Qt.Key.Key_V, Qt.KeyboardModifier.ShiftModifier)          # the sheet's capital "V" (caps lock)
    assert s.selection.show_values is True
    _key(win, Qt.Key.Key_V)
    _key(win, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)   # a menu shortcut, menu bar hidden
    assert s.selection.station == "scores"
    _key(win, Qt.Key.Key_F1)                                           # the cheat sheet
    assert p.sheet.isVisible() and "Page Down" in p.sheet.label.text()
    _key(p.sheet, Qt.Key.Key_A)
    assert not p.sheet.isVisible()
    _key(win, Qt.Key.Key_Escape)                                       # nothing running: leave
    qtbot.waitUntil(lambda: not win.isFullScreen(), timeout=5000)
    assert not p.active and win.menuBar().isVisible() and all(d.isVisible() for d in docks)
    assert scores.pattern.plot.getAxis("left").style["tickFont"].pointSizeF() < 15
    _key(win, Qt.Key.Key_PageDown)                                     # plain keys are free again
    assert s.selection.station == "scores"


def test_dark_theme_restyles_views_and_is_remembered(qtbot, window, settings):
    win, s = window, window.state
    scores = win.stations["scores"]
    win.file_actions.dark_action.trigger()
    assert s.selection.theme == "dark" and s.selection.colormap == "blues"       # its dark variant: 0 is dark
    assert settings.theme == "dark"
    assert scores.palette == DARK and scores.canvas.backgroundBrush().color() == QColor(DARK.background)
    assert QApplication.palette().window().color() == QColor("#1e1f22")
    zero = scores.pattern.cmap.map(np.array([0.0]), mode="byte")[0][:3]
    assert tuple(zero) == (30, 31, 34) and scores.raw.cmap.map(np.array([0.5]), mode="byte")[0][:3].max() < 40
    s.select(diverging="diverging-cb")
    assert scores.raw.cmap.name == "diverging-cb"
    diverging = win.file_actions.colour_groups["diverging"].actions()
    assert all(a.isChecked() == (a.data() == "diverging-cb") for a in diverging)
    win.file_actions.dark_action.trigger()
    assert s.selection.theme == "light" and settings.theme == "light"
    assert QApplication.palette().window().color().lightness() > 200
    assert scores.canvas.backgroundBrush().color() == QColor("#ffffff")


def test_undo_redo_still_name_the_edit(qtbot, window):
    win, s = window, window.state
    wait_render(qtbot, win, lambda: s.set_text("a big dog"))
    assert win.undo_action.text() == "Undo Type “a big dog”"
    wait_render(qtbot, win, lambda: QTest.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier))
    assert win.redo_action.text() == "Redo Type “a big dog”"
    wait_render(qtbot, win, lambda: QTest.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                                                   | Qt.KeyboardModifier.ShiftModifier))
    assert s.labels() == ("a", "big", "dog")


def test_light_after_dark_has_the_type_sizes_of_a_fresh_window(qtbot, window):
    """A restart in dark (or dark and back) once shrank titles and tick labels to the app font."""
    from app.presentation import set_dark

    win, s = window, window.state
    mp = win.stations["scores"].plots[0]

    def sizes():
        return mp.title_size, mp.plot.getAxis("bottom").style["tickFont"].pointSizeF()

    fresh = sizes()
    set_dark(s, True)
    assert sizes() == fresh
    set_dark(s, False)
    assert sizes() == fresh == ("11.0pt", 10.0)


def test_the_chosen_maps_stay_across_themes_in_their_pages_variant(qtbot, window):
    from app.presentation import set_dark

    s, scores = window.state, window.stations["scores"]
    assert s.selection.colormap == "blues"
    white = scores.pattern.cmap.map(np.array([0.0]), mode="byte")[0][:3]
    set_dark(s, True)
    assert s.selection.colormap == "blues"                     # no swap: the same map, dark-centred
    dark = scores.pattern.cmap.map(np.array([0.0]), mode="byte")[0][:3]
    assert tuple(white) == (255, 255, 255) and max(dark) < 40
    s.select(colormap="cividis")
    set_dark(s, False)
    assert s.selection.colormap == "cividis"


def test_presentation_at_1280x800_shows_every_chip_and_keeps_the_slide_clear(qtbot, window):
    win, s = window, window.state
    wait_render(qtbot, win, lambda: s.set_text("the cat sat on a mat the dog ran to a big red hat and it"))
    assert len(s.inputs.tokens) == 16
    win.file_actions.presentation.enter()
    settle(qtbot, win)
    win.setGeometry(0, 0, 1280, 800)
    settle(qtbot, win)
    strip = win.tokens
    room = strip.scroll.viewport().width()
    assert all(chip.geometry().right() <= room for chip in strip.row.chips)          # all 16 in sight
    assert strip.scroll.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert not any(d.isVisible() for d in win.findChildren(QDockWidget))            # docks collapsed
    bar = win.station_bar
    assert bar.instruments.isVisible(), "the instrument pages went into the bar's » overflow"
    assert all(bar.widgetForAction(bar.buttons[k]).isVisible() for k in bar.keys)  # every station too
    assert bar.widgetForAction(bar.play).isVisible(), "Play went into the bar's » overflow"
    from PySide6.QtWidgets import QToolButton
    ext = bar.findChild(QToolButton, "qt_toolbar_ext_button")
    assert ext is None or not ext.isVisible(), "a control went into the » overflow"
    column = win.centralWidget().layout()
    assert column.indexOf(win.messages) == -1 and win.messages.floating            # over the slide, not above it
    top = win.stack.geometry().top()
    s.message.emit("warning", "a warning in the middle of a lecture")
    assert win.messages.isVisible() and win.stack.geometry().top() == top          # nothing moves
    assert win.messages._timer.isActive()                                           # and it steps aside
    QTest.mouseClick(win.messages, Qt.MouseButton.LeftButton)
    assert not win.messages.isVisible()
    win.file_actions.presentation.leave()
    assert column.indexOf(win.messages) == 1 and not win.messages.floating


def test_chips_shrink_to_fit_a_narrow_strip(qtbot):
    from widgets.token_strip import TokenStrip

    strip = TokenStrip()
    qtbot.addWidget(strip)
    strip.resize(560, 60)
    strip.show()
    strip.set_tokens("the cat sat on a mat the cat sat on a mat".split(), [], 16, 5)
    qtbot.waitUntil(lambda: strip.chip_scale < 1.0, timeout=3000)
    assert all(c.geometry().right() <= strip.scroll.viewport().width() for c in strip.row.chips)


def test_opening_trace_or_code_does_not_squeeze_the_station(qtbot, window):
    """At 1280 × 800 the Trace table and the Code used to widen the right dock by up to 330 px:
    titles clipped and Instruments went into the » overflow. The dock keeps one width."""
    win = window
    win.setGeometry(0, 0, 1280, 800)
    settle(qtbot, win)
    station = win.stack.width()
    for tab in (win.trace_panel, win.code_view, win.tabs.widget(0)):
        win.tabs.setCurrentWidget(tab)
        settle(qtbot, win)
        assert abs(win.stack.width() - station) <= 2, (tab, win.stack.width(), station)
    assert win.station_bar.instruments.isVisible()
