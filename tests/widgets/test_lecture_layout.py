"""The stations in a lecture hall, in numbers: offscreen at a 1280 × 800 projector (presentation
type, 15 pt) and at 1600 × 1000, for the toy and the real SmolLM2-135M at 20 and 60 tokens: the
smallest tick label and cell number in pixels, no two labels of an axis overlapping, no title
clipped, and how much of the canvas the lesson's main panel covers."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QFont

from app.values import Selection
from widgets.axes import metrics_for
from widgets.matrix import LabelAxis, _label_line
from widgets.stations import STATION_CLASSES
from widgets.theme import LIGHT

from .test_views import CONFIGS, make_result

# (station size, type size): the station's area in a 1280 × 800 window in presentation mode, and a
# 1600 × 1000 window with its docks.
SIZES = {"present-1280": ((1272, 690), 15.0), "window-1600": ((1180, 800), 10.0)}
STATIONS = ("embeddings", "layernorm", "projections", "scores", "softmax", "weighted_sum", "heads", "mlp")


def _station(qtbot, key, size, font_pt):
    st = next(cls for cls in STATION_CLASSES if cls.key == key)()
    qtbot.addWidget(st)
    st.resize(*size)
    st.apply_style(LIGHT, sequential="blues", diverging="diverging", font_pt=font_pt,
                   line_scale=2.0 if font_pt >= 14 else 1.0)
    st.show()
    qtbot.waitExposed(st)
    return st


def _labels(axis: LabelAxis):
    """(px, [(start, end) along the axis of each drawn label]) as LabelAxis.paint draws them."""
    layout = axis.layout_
    if layout is None or not layout.items:
        return None, []
    r0, r1 = axis.range
    length = axis._along()
    plain = axis._font(layout.px)
    spans = []
    for i, text, bold in layout.items:
        t = (i - r0) / (r1 - r0) * length
        if axis.orientation in ("left", "right") or layout.turned:
            half = _label_line(axis._font(layout.px, bold)) / 2
        else:
            half = metrics_for(axis._font(layout.px, bold)).horizontalAdvance(text) / 2
            t = min(max(t, half), length - half)                   # the end labels are drawn inside the axis
        spans.append((t - half, t + half))
    del plain
    return layout.px, sorted(spans)


def _measure(st):
    """The smallest label px, overlaps, clipped titles and the smallest cell number px drawn."""
    smallest, overlaps, clipped, numbers = 99.0, [], [], []
    for mp in st.plots:
        if mp.values is None or getattr(mp, "_message_text", None):
            continue
        for side in ("left", "bottom"):
            axis = mp.plot.getAxis(side)
            px, spans = _labels(axis)
            if px is None:
                continue
            smallest = min(smallest, px)
            overlaps += [(mp.name, side) for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[1] - 0.5]
        title = getattr(mp, "shown_title", mp.name)
        font = QFont()
        font.setPointSizeF(float(mp._titled[1].rstrip("pt")) if getattr(mp, "_titled", None) else 11.0)
        if metrics_for(font).horizontalAdvance(title) > mp.plot.geometry().width():
            clipped.append(title)
        vb = mp.plot.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        cell = (vb.width() / max(x1 - x0, 1e-9), vb.height() / max(y1 - y0, 1e-9))
        if mp.text._values is not None and mp.text.number_px:
            fit = mp.text.fit_px(*cell, mp.text.decimals_shown)
            if fit:
                numbers.append(min(fit, mp.text.number_px))
    return smallest, overlaps, clipped, min(numbers, default=None)


@pytest.fixture(scope="module")
def toy():
    return make_result(CONFIGS["llama"])


def _results(smol, toy):
    return {"toy": lambda: toy, "smollm2-20": lambda: smol(20), "smollm2-60": lambda: smol(60)}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("model", ["toy", "smollm2-20", "smollm2-60"])
def test_every_station_is_legible(qtbot, smol, toy, model, size):
    result = _results(smol, toy)[model]()
    T = result.trace.T
    (w, h), font_pt = SIZES[size]
    present = font_pt >= 14
    for key in STATIONS:
        st = _station(qtbot, key, (w, h), font_pt)
        st.show_result(result, Selection(layer=3 if model != "toy" else 1, head=0, query=T - 1, station=key))
        st.fit()
        smallest, overlaps, clipped, number = _measure(st)
        assert not overlaps, (key, overlaps)                                   # never two labels on one spot
        assert not clipped, (key, clipped)                                     # no title cut off
        if present:
            assert smallest >= 14, (key, smallest)                             # read from the back row
            assert number is None or number >= 12, (key, number)               # or none: hover shows them
        if key == "mlp":                                                       # the next-token bars
            texts = [item.toPlainText() for item in st.prob_texts]
            assert len(texts) == 8 and all(t.endswith(" %") for t in texts), texts   # probabilities shown
            assert all(label.strip() for label in st.logit_plot.getAxis("left").labels)   # no blank token
            text, pt = st._logit_fitted                                        # its title not clipped
            font = QFont()
            font.setPointSizeF(float(pt.rstrip("pt")))
            assert metrics_for(font).horizontalAdvance(text) <= st.logit_plot.geometry().width(), text
            text, pt, _colour = st._axis_fitted                                # its axis title neither
            font.setPointSizeF(float(pt.rstrip("pt")))
            assert st.logit_plot.getAxis("bottom").labelText == text
            axis = st.logit_plot.getAxis("bottom")                            # centred under the bars
            assert metrics_for(font).horizontalAdvance(text) <= axis.geometry().width() - 4, text
            assert st.logit_plot.mapRectToScene(axis.geometry()).right() <= st.canvas.viewport().width() + 1
            assert float(pt.rstrip("pt")) >= 0.8 * font_pt, pt                 # at the axes' type, or near it
        for a, b in ALIGNED.get(key, ()):
            _assert_rows_line_up(st, a, b)
        if key == "weighted_sum":                                              # z = the terms' column sums:
            ra, rb = (mp.plot.vb.sceneBoundingRect() for mp in (st.terms, st.z))   # column under column
            assert abs(ra.left() - rb.left()) <= 1.0 and abs(ra.right() - rb.right()) <= 1.0, (ra, rb)
            assert not st.z.plot.getAxis("left").drawn_labels() and not st.z.plot.getAxis("bottom").drawn_labels()
        if present and T <= 32 and key in EVERY_TOKEN:
            assert _token_rows_labelled(st, T), key                            # every token, none thinned
        for mp in st.plots:                                                    # what the scale clips, in full
            if mp.caption_text.strip():
                assert mp.caption.isVisible() and not any("…" in line for line in mp.caption_lines), (key, mp.name)
        if key != "softmax":                                                   # (bars: their own test)
            # the cells take the canvas (in the window at 1600 SmolLM2's four 20 × 20 score maps cover 0.28)
            assert _coverage(st) >= (0.3 if present else 0.25), (key, _coverage(st))
        if key == "embeddings" and model != "toy":                             # RoPE: the sentence why, readable
            _assert_message_inside(st.pos)
        st.close()


# Up to 32 tokens these stations label every token row at the projector's size (a T-row panel
# either labels all its rows or shares them with the panel on its left, which does).
EVERY_TOKEN = ("embeddings", "layernorm", "projections", "scores", "weighted_sum", "heads")   # not yet: mlp


def _token_rows_labelled(st, T) -> bool:
    leaders = [mp for mp in st.plots if mp.values is not None and mp.values.shape[0] == T
               and not mp.plot.getAxis("left").bare and mp.plot.isVisible()]
    return bool(leaders) and all(len(mp.plot.getAxis("left").drawn_labels()) == T for mp in leaders)


def _coverage(st) -> float:
    """The fraction of the canvas the panels' cells cover (their matrices or bars, not titles or axes)."""
    canvas = st.canvas.viewport().size()
    boxes = [mp.plot.vb for mp in st.plots if mp.plot.isVisible()]
    boxes += [p.vb for p in (getattr(st, "logit_plot", None),) if p is not None and p.isVisible()]
    return sum(vb.width() * vb.height() for vb in boxes) / (canvas.width() * canvas.height())


def _assert_message_inside(mp):
    """A panel of a name the model lacks says why in its middle, wrapped to it, at the axis type."""
    item = mp._message
    assert item.isVisible()
    box, cells = item.mapRectToScene(item.boundingRect()), mp.plot.vb.sceneBoundingRect()
    assert cells.contains(box), (box, cells)
    assert abs(box.center().y() - cells.center().y()) < 0.2 * cells.height()


# Rows that multiply, side by side: ln1_out's row i and q's (k's, v's) row i; p_j beside v_j and p_j·v_j.
ALIGNED = {"projections": [("x", name) for name in ("q", "k", "v", "rq", "rk")],
           "weighted_sum": [("p", "v"), ("p", "terms")]}


def _assert_rows_line_up(st, a, b):
    """Panel `b`'s cell rows sit on exactly the pixel rows of panel `a`'s (within 1 px), and
    carry no row labels of their own (`a` labels both)."""
    if not hasattr(st, b):                                                     # rot_q: RoPE models only
        return
    pa, pb = getattr(st, a), getattr(st, b)
    ra, rb = (mp.plot.vb.sceneBoundingRect() for mp in (pa, pb))
    assert pa.values.shape[0] == pb.values.shape[0]
    assert abs(ra.top() - rb.top()) <= 1.0 and abs(ra.bottom() - rb.bottom()) <= 1.0, (a, b, ra, rb)
    assert not pb.plot.getAxis("left").drawn_labels(), b


@pytest.mark.parametrize("T", [20, 60])
def test_the_pattern_takes_the_projector(qtbot, smol, T):
    """Scores on a projector: the pattern large (it was four ~150 px maps, 45 % of the canvas
    empty), its labels at full size, the three score maps beside it as thumbnails."""
    st = _station(qtbot, "scores", SIZES["present-1280"][0], 15.0)
    st.show_result(smol(T), Selection(layer=3, head=0, query=T - 1, station="scores"))
    st.fit()
    canvas = st.canvas.viewport().size()
    vb = st.pattern.plot.vb
    covered = vb.width() * vb.height() / (canvas.width() * canvas.height())
    assert covered >= 0.24, covered
    assert min(vb.width(), vb.height()) >= 0.65 * canvas.height()
    px, _spans = _labels(st.pattern.plot.getAxis("left"))
    assert px >= 14
    assert {mp.name for mp in st.thumbnails()} == {st.raw.name, st.scaled.name, st.masked.name}
    assert all(not mp.plot.getAxis("left").drawn_labels() for mp in st.thumbnails())
    assert st.pattern.plot.getAxis("left").emphasis == T - 1                 # the query always labelled
    assert str(T - 1) in " ".join(st.pattern.plot.getAxis("left").drawn_labels()) or T <= 32
    assert np.isfinite(covered)


@pytest.mark.parametrize("size", list(SIZES))
def test_the_head_lens_gives_its_patterns_the_canvas(qtbot, smol, size):
    """Issue 25 item 7: the head lens drew its patterns as the page's smallest panels (130 px a
    side at 1280 × 800 presentation with SmolLM2 at 20 tokens); now they are its largest (~290 px),
    on the same panel vocabulary as its exported figure, with k, v and result as strips under them."""
    from widgets.pages.classic import HeadLens

    (w, h), font_pt = SIZES[size]
    page = HeadLens()
    qtbot.addWidget(page)
    page.resize(w, h)
    page.apply_style(LIGHT, sequential="blues", diverging="diverging", font_pt=font_pt,
                     line_scale=2.0 if font_pt >= 14 else 1.0)
    page.show()
    qtbot.waitExposed(page)
    page.show_result(smol(20), Selection(layer=3, head=0, query=19, station="head_lens"))
    qtbot.wait(50)
    px = {name: (mp.plot.vb.width(), mp.plot.vb.height()) for name, mp in page.widgets.items()}
    side = {name: min(wh) for name, wh in px.items()}
    patterns = [side[f"pattern_{t}"] for t in ("A", "B", "diff")]
    others = [s for name, s in side.items() if not name.startswith("pattern")]
    assert min(patterns) > 1.8 * max(others)                     # the lesson is the largest panel, by far
    assert min(patterns) >= 260, px                              # main: 130 px at 1280 presentation, 206 at 1600
    assert max(patterns) - min(patterns) <= 0.05 * max(patterns)  # A, B and A − B compare at one size
