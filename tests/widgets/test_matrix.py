"""MatrixPlot and its helpers: labels, number formats, masked cells, large matrices."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from widgets.matrix import LabelAxis, MatrixPlot, decimals_for, format_value


def test_number_formats_adapt_to_the_matrix_scale():
    assert decimals_for(np.array([0.5, -2.3])) == 2
    assert decimals_for(np.array([0.06, -0.003])) == 3
    assert decimals_for(np.array([0.006])) == 4
    assert decimals_for(np.array([0.0006])) is None          # would need 5 decimals: scientific
    assert decimals_for(np.array([1e-7])) is None
    assert format_value(-np.inf) == "−∞" and format_value(0.0) == "0"
    assert format_value(0.0123, 3) == "0.012" and format_value(-0.0004, 3) == "0"
    assert format_value(123.4) == "123" and format_value(12.34) == "12.3" and format_value(1e-7, None) == "1.0e-07"


def test_label_axis_thins_to_fit_its_pixels(qapp):
    axis = LabelAxis("bottom")
    axis.set_labels([f"word{i}" for i in range(64)])
    (step, values), = axis.tickValues(-0.5, 63.5, 2000)      # ~31 px per cell: every 2nd or so
    assert step <= 5 and values[0] == 0
    (step_small, _), = axis.tickValues(-0.5, 63.5, 200)
    assert step_small > step
    (step_inv, values_inv), = axis.tickValues(63.5, -0.5, 2000)   # inverted axes give reversed ranges
    assert step_inv == step and values_inv == values


def test_masked_cells_become_transparent_and_say_minus_infinity(canvas):
    mp = MatrixPlot(canvas.ci, 0, 0, "attn_scores")
    scores = np.array([[1.0, -np.inf], [-np.inf, 2.0]])      # not causal: holes over the hatch
    mp.set_data(scores, ["a", "b"], ["a", "b"], masked=np.isneginf(scores))
    img = mp.image.image
    assert np.isnan(img[0, 1]) and np.isnan(img[1, 0]) and img[1, 1] == 2.0
    assert mp.levels == (-2.0, 2.0)                           # symmetric, from the finite values
    assert "−∞ (masked)" in mp.describe(0, 1) and "row 0 (a)" in mp.describe(0, 1)
    assert not mp.hatch.rect().isEmpty() and mp.stairs.path().isEmpty()


@pytest.mark.parametrize("n", [2, 5, 40])
def test_the_causal_mask_is_a_hatched_staircase_over_the_image(canvas, n):
    from PySide6.QtCore import QPointF

    mp = MatrixPlot(canvas.ci, 0, 0, "attn_scores")
    rng = np.random.default_rng(n)
    raw = rng.standard_normal((n, n))
    forbidden = np.triu(np.ones((n, n), bool), 1)
    scores = np.where(forbidden, -np.inf, raw)
    mp.set_data(scores, [str(i) for i in range(n)], [str(i) for i in range(n)], masked=forbidden)
    img = mp.image.image
    assert np.all(np.isfinite(img))                           # no NaN: pyqtgraph's fast path
    np.testing.assert_array_equal(img[~forbidden], raw[~forbidden].astype(np.float32))
    m = float(np.abs(raw[~forbidden]).max())
    assert mp.levels == pytest.approx((-m, m))                # the hidden cells change no level
    for item in (mp.stairs, mp.stairs_hatch):                 # covers exactly the masked cells
        path = item.path()
        inside = np.array([[path.contains(QPointF(j, i)) for j in range(n)] for i in range(n)])
        np.testing.assert_array_equal(inside, forbidden)
        assert item.zValue() > mp.image.zValue() and item.zValue() < mp.text.zValue()
    assert "−∞ (masked)" in mp.describe(0, 1)
    mp.set_data(raw, [str(i) for i in range(n)], [str(i) for i in range(n)])   # no mask: no staircase
    assert mp.stairs.path().isEmpty() and mp.stairs_hatch.path().isEmpty()


def test_huge_matrices_are_decimated_but_keep_their_coordinates(canvas):
    mp = MatrixPlot(canvas.ci, 0, 0, "W_O")
    big = np.arange(5000 * 3, dtype=np.float32).reshape(5000, 3)
    mp.set_data(big, [str(i) for i in range(5000)], ["0", "1", "2"])
    f = mp.decimation[0]
    assert f >= 3 and mp.decimation == (f, 1) and mp.image.image.shape == (-(-5000 // f), 3)
    rect = mp.image.mapRectToParent(mp.image.boundingRect())
    assert rect.height() == pytest.approx(5000) and rect.top() == pytest.approx(-0.5)
    assert f"each {f} × 1 cells" in mp.describe(4000, 1) and "= 12001" in mp.describe(4000, 1)
    np.testing.assert_array_equal(mp.image.image[:-1, 1], big[f - 1::f, 1][:5000 // f])   # each block's largest


def test_a_one_pixel_stripe_survives_the_overview_of_a_4096_map(canvas):
    """4,096 × 4,096 is drawn at no more cells than the panel has pixels: a sink column at an odd key and
    a one-cell induction stripe vanished when every n-th cell was taken; max-pooled, both stay at full
    strength."""
    T = 4096
    mp = MatrixPlot(canvas.ci, 0, 0, "pattern", kind="sequential")
    i = np.arange(T)
    forbidden = i[None, :] > i[:, None]                                  # [T, T] causal
    pattern = np.zeros((T, T), np.float32)
    pattern[:, 1] = 0.5                                                  # the sink: key 1 (odd)
    pattern[i[3:], i[3:] - 3] = 0.9                                      # the stripe: i - 3
    pattern[forbidden] = 0.0
    mp.set_data(pattern, [str(n) for n in range(T)], [str(n) for n in range(T)], masked=forbidden, levels=(0, 1))
    img = mp.image.image
    fr, fc = mp.decimation
    assert min(fr, fc) >= 2 and img.shape == (-(-T // fr), -(-T // fc))   # no more cells than half the pixels
    assert img.shape[0] <= max(128, mp.plot.vb.height()) and img.shape[1] <= max(128, mp.plot.vb.width())
    assert np.all(img[1:, 0] >= 0.5)                                     # the sink column, every row block
    assert np.all(np.nanmax(img[1:], axis=1) == pytest.approx(0.9))      # the stripe, in every row block
    assert not (pattern[::fr, ::fc] == 0.5).any()                         # every n-th cell lost the sink column


def test_highlights_follow_rows_and_columns(canvas):
    mp = MatrixPlot(canvas.ci, 0, 0, "pattern", kind="sequential")
    mp.set_data(np.eye(4), list("abcd"), list("abcd"), levels=(0, 1))
    mp.highlight(row=2, col=1, cell=(2, 1))
    assert mp._bands["row"].isVisible() and mp._bands["row"].rect().y() == 1.5
    assert mp._bands["col"].rect().x() == 0.5 and mp._bands["cell"].isVisible()
    mp.highlight(row=None, col=9)
    assert not mp._bands["row"].isVisible() and not mp._bands["col"].isVisible()


def test_sparse_labels_thin_out_when_they_would_touch(qapp):
    axis = LabelAxis("bottom")
    labels = [f"h{c // 64}" if c % 64 == 0 else "" for c in range(768)]      # 12 heads of 64 columns
    axis.set_labels(labels)
    (_, wide), = axis.tickValues(-0.5, 767.5, 2000)                          # ~167 px per head
    assert wide == list(range(0, 768, 64))
    (_, narrow), = axis.tickValues(-0.5, 767.5, 140)                         # ~12 px per head
    assert len(narrow) < 12 and narrow[0] == 0 and all(v % 64 == 0 for v in narrow)
    gaps = {b - a for a, b in itertools.pairwise(narrow)}
    assert len(gaps) == 1 and gaps.pop() * 140 / 768 >= 18                    # evenly spaced, apart
    assert axis.tickStrings(narrow, 1, 1)[0] == "h0"


def test_up_to_32_cells_every_label_is_drawn_smaller_or_upright(qapp):
    words = [f"w{i}" for i in range(32)]
    left, bottom = LabelAxis("left"), LabelAxis("bottom")
    for axis in (left, bottom):
        axis.set_labels(words)
    tall = left.layout_for(-0.5, 31.5, 32 * 9)                 # 9 px a cell: smaller type, every label
    assert [t for _i, t, _b in tall.items] == words and tall.px < left._base_px()
    turned = bottom.layout_for(-0.5, 31.5, 32 * 12)            # wider than their 12 px cells: upright
    assert turned.turned and [t for _i, t, _b in turned.items] == words
    flat = bottom.layout_for(-0.5, 31.5, 32 * 60)              # room enough: level, full size
    assert not flat.turned and flat.px == bottom._base_px() and flat.step == 1


def test_thinned_labels_always_show_the_emphasised_one_bold(qapp):
    axis = LabelAxis("bottom")
    axis.set_labels([f"word{i}" for i in range(64)])
    axis.set_emphasis(37)
    layout = axis.layout_for(-0.5, 63.5, 640)                   # 10 px a cell: thinned
    positions = [i for i, _t, _b in layout.items]
    assert layout.step > 1 and 37 in positions and positions[0] == 0
    assert [i for i, _t, bold in layout.items if bold] == [37]
    assert dict((i, t) for i, t, _b in layout.items)[37] == "37:word37"
    width = axis._label_widths(layout.px)
    for i in positions:                                         # its neighbours make room for it
        if i != 37:
            gap = abs(i - 37) * 10
            assert gap >= (width[0][i] + width[1][i]) / 2 + (width[0][37] + width[1][37]) / 2


def test_a_dropped_colour_bar_stays_out_of_the_layout_through_a_message(canvas):
    """A message (a name the model lacks) used to show a bar that shared scales had taken out of the
    layout: drawn loose, and the next drop asked Qt to remove what was not there (a warning)."""
    from PySide6.QtCore import qInstallMessageHandler

    warnings = []
    old = qInstallMessageHandler(lambda mode, ctx, msg: warnings.append(msg))
    try:
        mp = MatrixPlot(canvas.ci, 0, 0, "attn_scores")
        mp.show_colorbar(False)
        mp.set_message("pos_embed: this model has RoPE positions")
        mp.set_message(None)
        assert not mp.bar.isVisible()                 # still dropped
        mp.show_colorbar(False)
        mp.show_colorbar(True)
        lay = mp.plot.layout
        assert mp.bar.isVisible() and mp.bar in [lay.itemAt(i) for i in range(lay.count())]
        mp.set_message("not here")
        assert not mp.bar.isVisible()                 # no scale for data that is not there
        mp.show_colorbar(False)
        mp.show_colorbar(True)
        assert not mp.bar.isVisible()                 # placed again, hidden while the message shows
    finally:
        qInstallMessageHandler(old)
    assert not [w for w in warnings if "removeAt" in w], warnings


def test_a_zoom_brings_every_label_of_the_region_back(canvas, qtbot):
    """Above 32 tokens the labels thin out; a zoom into a region (a box dragged, or the wheel)
    draws every label there, and a double-click shows the whole matrix again."""
    from widgets.matrix import reset_zoom, zoomed

    words = [f"w{i}" for i in range(60)]
    mp = MatrixPlot(canvas.ci, 0, 0, "resid_pre")
    mp.set_data(np.random.default_rng(0).normal(size=(60, 60)), words, words)
    canvas.resize(600, 600)
    qtbot.wait(50)
    left = mp.plot.getAxis("left")
    assert mp.plot.vb.state["mouseEnabled"] == [True, True] and mp.plot.vb.state["mouseMode"] == mp.plot.vb.RectMode
    assert len(left.drawn_labels()) < 60                                     # thinned at the whole matrix
    mp.plot.vb.setRange(yRange=(9.5, 21.5), padding=0)                        # the box a drag makes
    qtbot.wait(50)
    assert zoomed(mp)
    assert [t.split(":")[-1].strip() for t in left.drawn_labels()] == [f"w{i}" for i in range(10, 22)]
    assert reset_zoom(mp) and not zoomed(mp) and len(left.drawn_labels()) < 60
    mp.plot.vb.setRange(yRange=(-40, 100), padding=0)                         # never beyond the matrix
    (y0, y1) = mp.plot.vb.viewRange()[1]
    assert y0 >= -0.5 - 1e-6 and y1 <= 59.5 + 1e-6


def _stripe_map(T: int) -> tuple[np.ndarray, np.ndarray]:
    """A causal T×T pattern with a sink at key 1 (an odd key) and a one-cell stripe at i − 3."""
    i = np.arange(T)
    forbidden = i[None, :] > i[:, None]                                  # [T, T] causal
    pattern = np.zeros((T, T), np.float32)
    pattern[:, 1] = 0.5
    pattern[i[3:], i[3:] - 3] = 0.9
    pattern[forbidden] = 0.0
    return pattern, forbidden


def test_a_zoom_into_a_long_map_is_pooled_again_from_every_cell(canvas, qtbot):
    """The overview of 4,096² pools each block to its largest value; a zoom (a box, or the wheel)
    pools the region it shows again from the full-resolution map, so that at enough zoom each
    drawn cell is one query and one key, with its label; zoomed out, the whole overview is back."""
    from compute.instruments.overview import pooled
    from widgets.matrix import reset_zoom

    T = 4096
    pattern, forbidden = _stripe_map(T)
    words = [str(n) for n in range(T)]
    mp = MatrixPlot(canvas.ci, 0, 0, "pattern", kind="sequential")
    mp.set_data(pattern, words, words, masked=forbidden, levels=(0, 1))
    whole = mp.decimation
    assert min(whole) >= 2 and mp.region is None
    mp.plot.vb.setRange(xRange=(999.5, 1023.5), yRange=(1999.5, 2023.5), padding=0)   # 24 × 24 cells
    qtbot.wait(120)                                                      # the re-pool waits for the zoom to settle
    r0, r1, c0, c1 = mp.region
    assert mp.decimation == (1, 1) and (r0, c0) == (2000, 1000) and (r1 - r0, c1 - c0) == (24, 24)
    img = mp.image.image                                                 # one drawn cell per query and key
    rect = mp.image.mapRectToParent(mp.image.boundingRect())
    assert img.shape == (24, 24) and rect.left() == pytest.approx(999.5) and rect.top() == pytest.approx(1999.5)
    np.testing.assert_array_equal(img, pattern[2000:2024, 1000:1024])    # nothing masked in this region
    assert "each" not in mp.describe(2010, 1010)                         # a tooltip of one cell, not a block
    left = mp.plot.getAxis("left")
    assert [t.split(":")[-1] for t in left.drawn_labels()] == words[2000:2024]   # the labels are back
    mp.plot.vb.setRange(xRange=(-0.5, 1499.5), yRange=(-0.5, 1499.5), padding=0)  # a wider zoom: pooled again
    qtbot.wait(120)
    fr, fc = mp.decimation
    assert 1 < fr < whole[0] and np.all(mp.image.image[1:, 0] >= 0.5)     # the sink still in every block row
    assert reset_zoom(mp)
    qtbot.wait(120)
    assert mp.region is None and mp.decimation == mp._whole                # (the panel's size may have moved)
    np.testing.assert_array_equal(mp.image.image, pooled(pattern, mp._whole, forbidden)[0])


def test_an_edit_draws_only_the_rows_and_columns_it_changed(canvas, qtbot):
    """Appending a token to a 4,096² map keeps the overview's other blocks (pooled once) and their
    colours: what is drawn equals drawing the new map from nothing."""
    T = 4096
    pattern, forbidden = _stripe_map(T + 1)
    words = [str(n) for n in range(T + 1)]
    mp = MatrixPlot(canvas.ci, 0, 0, "pattern", kind="sequential")
    mp.set_data(pattern[:T, :T], words[:T], words[:T], masked=forbidden[:T, :T], levels=(0, 1))
    qtbot.wait(20)
    before = mp.overview.cells
    grown = pattern.copy()
    grown[T, :] = 0.0
    grown[T, 7] = 1.0                                                    # the new query reads key 7
    mp.set_data(grown, words, words, masked=forbidden, levels=(0, 1), kept=(T, T))
    canvas.grab()                                                        # paint: the colours are made
    cells, pixels, factors = mp.image.image.copy(), mp.image._pixels.copy(), mp.decimation
    assert mp.overview.cells is before or mp.overview.cells.shape != before.shape
    mp.set_data(grown, words, words, masked=forbidden, levels=(0, 1))   # from nothing
    canvas.grab()
    assert mp.decimation == factors
    np.testing.assert_array_equal(cells, mp.image.image)
    np.testing.assert_array_equal(pixels, mp.image._pixels)


def test_two_edits_before_a_paint_colour_what_either_changed(canvas):
    """A panel not painted between two edits (hidden, or drawn twice in a row) colours the rows and
    columns of both: what it shows equals the last map drawn from nothing."""
    T = 60
    rng = np.random.default_rng(1)
    words = [str(n) for n in range(T)]
    forbidden = np.triu(np.ones((T, T), bool), 1)
    scores = [np.where(forbidden, -np.inf, rng.standard_normal((T, T))).astype(np.float32) for _ in range(3)]
    scores[1][:50, :50] = scores[0][:50, :50]                            # edit 1 changed rows and keys from 50
    scores[2][:40, :40] = scores[1][:40, :40]                            # edit 2 from 40
    mp = MatrixPlot(canvas.ci, 0, 0, "attn_scores")
    mp.set_data(scores[0], words, words, masked=forbidden, levels=(-3, 3))
    canvas.grab()
    mp.set_data(scores[1], words, words, masked=forbidden, levels=(-3, 3), kept=(50, 50))
    mp.set_data(scores[2], words, words, masked=forbidden, levels=(-3, 3), kept=(40, 40))
    canvas.grab()
    pixels = mp.image._pixels.copy()
    mp.set_data(scores[2], words, words, masked=forbidden, levels=(-3, 3))
    canvas.grab()
    np.testing.assert_array_equal(pixels, mp.image._pixels)
