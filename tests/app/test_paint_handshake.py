"""app/early.py's PaintHandshake on its own: every transition of its state diagram."""
from __future__ import annotations

import pytest

from app.early import PaintHandshake, Phase


class FakeRunner:
    def __init__(self):
        self.released = 0

    def partial_shown(self):
        self.released += 1


@pytest.fixture
def hs(qapp):
    runner = FakeRunner()
    h = PaintHandshake(runner, timeout_ms=50)
    h.events = []
    h.rendered.connect(lambda ms, early: h.events.append(early))
    return h


def test_a_full_result_renders_once_when_painted(hs):
    assert hs.full_drawn(1) is True and hs.phase is Phase.FULL_PENDING
    hs.painted()
    hs.painted()                                   # a second paint of the same result: nothing
    assert hs.events == [False] and hs.phase is Phase.IDLE and hs.runner.released == 0


def test_an_early_result_then_its_full_result_renders_once(hs):
    assert hs.accepts_early()
    hs.early_drawn(7)
    assert hs.phase is Phase.EARLY_PENDING and hs.early_on_screen and not hs.accepts_early()
    hs.painted()
    assert hs.events == [True] and hs.runner.released == 1 and hs.phase is Phase.EARLY_SHOWN
    assert hs.full_drawn(7) is False               # the same arrays: no paint to wait for
    assert hs.phase is Phase.IDLE and hs.events == [True] and not hs.early_on_screen


def test_the_full_result_arriving_before_the_early_paint_waits_for_that_paint(hs):
    hs.early_drawn(3)
    assert hs.full_drawn(3) is True and hs.phase is Phase.FULL_PENDING
    hs.painted()
    assert hs.events == [False] and hs.runner.released == 0   # the worker had finished already


def test_another_requests_full_result_forgets_the_early_one(hs):
    hs.early_drawn(3)
    hs.painted()
    assert hs.full_drawn(4) is True and not hs.early_on_screen
    hs.painted()
    assert hs.events == [True, False]


def test_a_pass_that_ends_without_its_full_result_asks_for_a_redraw(hs):
    hs.early_drawn(5)
    hs.painted()
    assert hs.pass_ended(shown_request=4) is True and hs.phase is Phase.IDLE
    assert hs.pass_ended(shown_request=4) is False            # once
    hs.early_drawn(6)
    assert hs.pass_ended(shown_request=6) is False            # its own result is shown: nothing to do


def test_passing_over_an_early_result_releases_the_worker_at_once(hs):
    hs.pass_early()
    assert hs.runner.released == 1 and hs.phase is Phase.IDLE


def test_no_paint_within_the_timeout_counts_as_painted(qtbot, hs):
    hs.early_drawn(9)
    qtbot.waitUntil(lambda: hs.events == [True], timeout=2000)
    assert hs.runner.released == 1
