"""The one panel vocabulary (widgets/views.py): a station on screen and its exported figure show the
same panels — names, titles, values, labels, colour scales — and the station draws exactly them,
for GPT-2 and for the LLaMA family (RMSNorm, RoPE, grouped K/V heads, SwiGLU, untied unembedding,
sliding windows), whose stations show their own names and say which names the model lacks."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app.values import Inputs, LabResult, Selection, make_weights, preset_config
from compute import PRESETS, Weights, forward, toy_tokenizer
from compute.names import missing_reason
from compute.stations import STATIONS
from widgets.figure import FigureStyle, FigureWidget, figure_spec
from widgets.stations import STATION_CLASSES
from widgets.views import STATION_VIEWS, panel, station_panels, station_shapes, station_view

TEXT = "the cat sat on the mat the cat"
# A tiny model of each family: every LLaMA-family feature at once (MQA: one K/V head for both
# query heads; a window of 3 keys in layer 1 shorter than the 8 tokens), and two half-way ones.
FAMILY = PRESETS["toy"].replace(norm="rmsnorm", positions="rope", n_kv_heads=1, mlp="swiglu",
                                tied_embeddings=False, attn_bias=False, mlp_bias=False, windows=(None, 3))
CONFIGS = {
    "gpt2": preset_config("toy"),
    "llama": FAMILY,
    "gqa4": PRESETS["toy"].replace(n_heads=4, d_head=2, n_kv_heads=2, positions="rope", mlp="swiglu"),
    "rms-learned": PRESETS["toy"].replace(norm="rmsnorm", windows=2),
}


def make_result(cfg, seed=3):
    tok = toy_tokenizer()
    inputs = Inputs(config=cfg, tokens=tuple(tok.encode(TEXT)), seed=seed)
    weights = make_weights(inputs) if cfg == preset_config("toy") else Weights.random(cfg, seed)
    trace = forward(inputs.config, weights, inputs.tokens, backend="cpu")
    return LabResult(request_id=1, inputs=inputs, trace=trace, weights=weights,
                     labels=tuple(tok.labels(inputs.tokens)), compute_ms=0.0, token_label=tok.label)


@pytest.fixture(scope="module", params=list(CONFIGS))
def result(request):
    return make_result(CONFIGS[request.param])


@pytest.fixture(scope="module")
def family():
    return make_result(FAMILY)


SELECTIONS = [Selection(layer=1, head=1, query=5), Selection(layer=0, head=1, query=2, lock_scales=True)]


def _same(a, b):
    assert (a.name, a.title, a.rows, a.cols, a.row_axis, a.col_axis, a.kind, a.masked_text, a.levels,
            a.row_ticks, a.col_ticks, a.missing) == (b.name, b.title, b.rows, b.cols, b.row_axis, b.col_axis, b.kind,
                                                    b.masked_text, b.levels, b.row_ticks, b.col_ticks, b.missing)
    np.testing.assert_array_equal(a.values, b.values)
    assert (a.masked is None) == (b.masked is None)
    if a.masked is not None:
        np.testing.assert_array_equal(a.masked, b.masked)


def station_of(key):
    return next(cls for cls in STATION_CLASSES if cls.key == key)()


def test_every_station_has_a_view_and_a_class():
    assert tuple(STATION_VIEWS) == STATIONS
    assert [cls.key for cls in STATION_CLASSES] == list(STATIONS)


@pytest.mark.parametrize("sel", SELECTIONS)
@pytest.mark.parametrize("key", STATIONS)
def test_each_stations_panels_are_its_exported_figures_panels(qapp, result, key, sel):
    station = station_of(key)
    shown = station.panels(result, sel)
    spec = figure_spec(key, result, sel)
    assert len(shown) == len(spec.panels)
    for a, b in zip(shown, spec.panels, strict=True):
        _same(a, b)
    view = station_view(key, result.inputs.config)
    assert spec.grid == tuple((s.row, s.col, s.rowspan, s.colspan) for s in view.slots)   # the same places
    station.deleteLater()


@pytest.mark.parametrize("key", [k for k in STATIONS if k != "softmax"])
def test_a_station_draws_exactly_its_panels(qtbot, result, key):
    station = station_of(key)
    qtbot.addWidget(station)
    station.resize(1000, 700)
    station.show()
    sel = SELECTIONS[0]
    station.show_result(result, sel)
    panels = station_panels(key, result, sel)
    assert len(station.slot_plots) == len(panels)
    for mp, p in zip(station.slot_plots, panels, strict=True):
        np.testing.assert_array_equal(mp.values, np.atleast_2d(p.values))
        assert mp.name == p.title and mp.levels == (p.levels or mp.levels)
        assert list(mp.row_labels) == list(p.rows) and list(mp.col_labels) == list(p.cols)


@pytest.mark.parametrize(("key", "group"), [
    ("scores", ("attn_scores_raw", "attn_scores_scaled", "attn_scores")),     # ÷√d_head shows as paler
    ("weighted_sum", ("v", "terms", "z")),                                     # v → p·v → z
    ("embeddings", ("embed", "pos_embed", "resid_pre")),
    ("heads", ("result", "attn_out")),                                         # a head's share of the sum
    ("heads", ("resid_pre", "resid_mid")),                                     # the stream before and after
])
def test_the_panels_a_lesson_compares_share_one_scale_by_default(result, key, group):
    for sel in SELECTIONS:
        levels = {p.name: p.levels for p in station_panels(key, result, sel) if not p.missing}
        shown = [name for name in group if name in levels]          # a model may lack one (RoPE: no pos_embed)
        assert len(shown) >= 2 and len({levels[name] for name in shown}) == 1 and levels[shown[0]] is not None
    figure = {p.name: p.levels for p in figure_spec(key, result, SELECTIONS[0]).panels if not p.missing}
    assert len({figure[name] for name in group if name in figure}) == 1       # the figure too


def test_raw_scores_are_brighter_than_the_scaled_ones_by_sqrt_d_head(result):
    sel = SELECTIONS[0]
    panels = {p.name: p for p in station_panels("scores", result, sel)}
    raw, scaled = panels["attn_scores_raw"], panels["attn_scores_scaled"]
    top = float(np.abs(raw.values).max())
    assert raw.levels == (-top, top)                                            # the raw ones span it
    d_head = result.inputs.config.d_head
    assert float(np.abs(scaled.values).max()) == pytest.approx(top / np.sqrt(d_head), rel=1e-5)


def test_locking_the_scales_adds_a_stations_wider_groups(result):
    sel = SELECTIONS[0]
    free = {p.name: p.levels for p in station_panels("projections", result, sel)}
    lock = dataclasses.replace(sel, lock_scales=True)
    locked = {p.name: p.levels for p in station_panels("projections", result, lock)}
    assert free["ln1_out"] != free["q"] == free["k"] == free["v"]
    assert locked["ln1_out"] == locked["q"] == locked["k"] == locked["v"]


def test_masked_keys_are_marked_in_softmax_weighted_sum_and_the_head_lens(qtbot, result):
    from widgets.pages.classic import HeadLens

    sel = SELECTIONS[1]                                        # query 2 of 8: keys 3..7 are masked
    forbidden = np.isneginf(result.trace["attn_scores", sel.layer][sel.head, sel.query])   # causal (and a window)
    assert forbidden.sum() >= result.trace.T - sel.query - 1
    softmax = next(cls for cls in STATION_CLASSES if cls.key == "softmax")()
    qtbot.addWidget(softmax)
    softmax.resize(900, 600)
    softmax.show()
    softmax.show_result(result, sel)
    for band in softmax.mask_bands.values():                   # a hatched column per masked key, in both plots
        np.testing.assert_array_equal(band.opts["x"], np.flatnonzero(forbidden))
        assert (np.asarray(band.opts["height"]) > 0).all()
    assert len(softmax.labels_items) == (~forbidden).sum()    # numbers only over the keys it can see
    for p in station_panels("weighted_sum", result, sel):     # Σ p·v: p, v and p·v hatch those rows
        if p.name in ("pattern", "v", "terms"):
            np.testing.assert_array_equal(p.masked.all(axis=1), forbidden)
            assert p.masked_text == ""
    lens = HeadLens()
    qtbot.addWidget(lens)
    lens.resize(900, 700)
    lens.show()
    lens.show_result(result, dataclasses.replace(sel, lens=((0, 0), (1, 1))))
    a, b, diff = lens.rows["pattern"]
    mask_a = np.isneginf(result.trace["attn_scores", 0][0])               # each head's own (causal, window)
    mask_b = np.isneginf(result.trace["attn_scores", 1][1])
    for mp, want in ((a, mask_a), (b, mask_b), (diff, mask_a | mask_b)):   # A, B and A − B
        np.testing.assert_array_equal(mp.masked, want)
        assert mp.masked_text == ""                            # hatched cells carry no text


def test_hatched_cells_carry_no_text(result):
    sel = SELECTIONS[0]
    for key in STATIONS:
        for p in station_panels(key, result, sel):
            if p.masked is not None:
                assert p.masked_text == "", (key, p.name)


# -- each family faithfully ------------------------------------------------------------------------------
def names_of(key, res, sel=SELECTIONS[0]):
    return [p.name for p in station_panels(key, res, sel)]


def test_gpt2_stations_keep_their_panels():
    res = make_result(CONFIGS["gpt2"])
    assert names_of("embeddings", res) == ["embed", "pos_embed", "resid_pre"]
    assert names_of("layernorm", res) == ["resid_pre", "ln1_mean", "ln1_var", "ln1_out"]
    assert names_of("projections", res) == ["ln1_out", "W_Q", "W_K", "W_V", "q", "k", "v"]
    assert names_of("mlp", res) == ["ln2_out", "mlp_pre", "mlp_post", "mlp_out", "resid_post"]


def test_rmsnorm_shows_its_scale_and_says_no_mean_is_subtracted(family):
    sel = SELECTIONS[0]
    panels = {p.name: p for p in station_panels("layernorm", family, sel)}
    assert list(panels) == ["resid_pre", "ln1_scale", "ln1_out"]
    np.testing.assert_array_equal(panels["ln1_scale"].values[:, 0], family.trace["ln1_scale", 1])
    view = station_view("layernorm", family.inputs.config)
    assert "no mean subtracted" in view.formula and "ln1_scale" in view.formula
    assert "ε = 1e-05" in station_shapes("layernorm", family, sel)


def test_rope_embeddings_have_no_w_pos_and_say_where_positions_enter(family):
    panels = station_panels("embeddings", family, SELECTIONS[0])
    pos = panels[1]
    assert pos.name == "pos_embed" and pos.values.size == 0
    assert pos.missing == missing_reason("pos_embed", family.inputs.config)      # the reason, not zeros
    np.testing.assert_array_equal(panels[2].values, family.trace["embed"])       # resid_pre = embed
    assert "rotations of q and k" in station_view("embeddings", family.inputs.config).formula


def test_qkv_shows_q_k_before_and_after_rope_with_the_kv_head_a_query_head_reads():
    res = make_result(CONFIGS["gqa4"])                      # 4 query heads, 2 K/V heads
    t, w = res.trace, res.weights
    for h, g in ((0, 0), (1, 0), (2, 1), (3, 1)):
        sel = Selection(layer=1, head=h, query=5)
        p = {q.name: q for q in station_panels("projections", res, sel)}
        assert list(p) == ["ln1_out", "W_Q", "W_K", "W_V", "q", "k", "v", "rot_q", "rot_k"]
        np.testing.assert_array_equal(p["q"].values, t["q", 1][:, h])
        np.testing.assert_array_equal(p["k"].values, t["k", 1][:, g])
        np.testing.assert_array_equal(p["v"].values, t["v", 1][:, g])
        np.testing.assert_array_equal(p["rot_q"].values, t["rot_q", 1][:, h])
        np.testing.assert_array_equal(p["rot_k"].values, t["rot_k", 1][:, g])
        np.testing.assert_array_equal(p["W_K"].values, w["blocks.1.attn.W_K"][g])
        assert p["k"].title.startswith(f"k[:, {g}]") and p["W_V"].title == f"W_V[{g}]"
        assert not np.array_equal(p["rot_q"].values[1:], p["q"].values[1:])    # rotated beyond position 0


def test_a_qkv_station_names_the_kv_head_in_its_header(qtbot):
    res = make_result(CONFIGS["gqa4"])
    station = station_of("projections")
    qtbot.addWidget(station)
    station.show()
    station.show_result(res, Selection(layer=0, head=3, query=2))
    assert "K/V head 1, shared by query heads 2–3" in station.header.text()
    station.show_result(make_result(CONFIGS["gpt2"]), Selection(layer=0, head=1, query=2))
    assert "K/V head" not in station.header.text()


def test_scores_mask_the_window_band_and_say_which_keys_are_outside(family):
    sel = Selection(layer=1, head=0, query=6)
    p = {q.name: q for q in station_panels("scores", family, sel)}
    T = family.trace.T
    i, j = np.indices((T, T))
    band = (j > i) | (j <= i - 3)                                           # causal and window 3
    np.testing.assert_array_equal(p["attn_scores"].masked, band)
    np.testing.assert_array_equal(p["pattern"].masked, band)
    assert "window 3" in p["attn_scores"].title
    assert p["attn_scores_raw"].title == "attn_scores_raw = rot_q·rot_kᵀ"
    assert "keys 0–3 are outside the window" in station_shapes("scores", family, sel)
    dense = Selection(layer=0, head=0, query=6)                             # layer 0 is dense
    assert "window" not in station_shapes("scores", family, dense)


def test_a_window_band_hatches_on_screen_like_the_causal_triangle(qtbot, family):
    station = station_of("scores")
    qtbot.addWidget(station)
    station.resize(900, 700)
    station.show()
    station.show_result(family, Selection(layer=1, head=0, query=6))
    T = family.trace.T
    i, j = np.indices((T, T))
    for mp in (station.masked, station.pattern):
        image = mp.image.image
        hidden = ~np.isfinite(image) if mp.stairs.path().isEmpty() else None
        assert hidden is not None, "a band is not the causal staircase: its cells are holes over the hatch"
        np.testing.assert_array_equal(hidden, (j > i) | (j <= i - 3))
        assert not mp.hatch.rect().isEmpty()
    station.show_result(family, Selection(layer=0, head=0, query=6))       # dense: the staircase
    assert not station.masked.stairs.path().isEmpty()


def test_swiglu_mlp_shows_gate_up_product_and_w_out(family):
    t = family.trace
    p = {q.name: q for q in station_panels("mlp", family, SELECTIONS[0])}
    assert list(p) == ["ln2_out", "mlp_pre", "mlp_pre_linear", "mlp_post", "W_out", "mlp_out", "resid_post"]
    np.testing.assert_array_equal(p["mlp_pre_linear"].values, t["mlp_pre_linear", 1])
    np.testing.assert_array_equal(p["W_out"].values, family.weights["blocks.1.mlp.W_out"])
    assert p["mlp_pre"].title == "mlp_pre (gate)" and p["mlp_post"].title == "mlp_post = SiLU(gate) ⊙ up"
    assert "SiLU(mlp_pre) ⊙ mlp_pre_linear" in panel("mlp_post", family, SELECTIONS[0]).title   # the single view
    assert p["mlp_pre"].levels == p["mlp_pre_linear"].levels != p["mlp_post"].levels
    assert "unembed.W_U (untied)" in station_shapes("mlp", family, SELECTIONS[0])


def test_untied_unembedding_is_a_view(family):
    p = panel("W_U", family, SELECTIONS[0])
    np.testing.assert_array_equal(p.values, family.weights["unembed.W_U"])
    assert panel("logits", family, SELECTIONS[0]).title == "logits = ln_final_out · W_U"
    tied = panel("W_U", make_result(CONFIGS["gpt2"]), SELECTIONS[0])
    assert tied.values.size == 0 and "tied to W_E" in tied.missing


@pytest.mark.parametrize("name", ["ln1_mean", "ln2_var", "pos_embed", "W_pos"])
def test_a_name_the_model_lacks_is_a_reason_never_data(family, name):
    p = panel(name, family, SELECTIONS[0])
    assert p.values.size == 0 and p.missing
    assert p.missing.startswith(name if name != "W_pos" else "pos_embed.W_pos")


@pytest.mark.parametrize("name", ["rot_q", "ln1_scale", "mlp_pre_linear", "W_gate"])
def test_gpt2_lacks_the_family_names_and_says_why(name):
    p = panel(name, make_result(CONFIGS["gpt2"]), SELECTIONS[0])
    assert p.values.size == 0 and p.missing and name in p.missing


def test_a_missing_panel_says_why_on_screen_and_in_the_figure(qtbot, family):
    station = station_of("embeddings")
    qtbot.addWidget(station)
    station.resize(1000, 600)
    station.show()
    station.show_result(family, SELECTIONS[0])
    reason = missing_reason("pos_embed", family.inputs.config)
    message = station.pos._message
    assert message.isVisible() and message.textItem.toPlainText() == reason
    assert station.pos.values.size == 0 and not station.pos.bar.isVisible()     # no scale of nothing
    station.show_result(make_result(CONFIGS["gpt2"]), SELECTIONS[0])            # back to GPT-2: data again
    assert not station.pos._message.isVisible() and station.pos.values.size > 0
    figure = FigureWidget()
    qtbot.addWidget(figure)
    figure.show_figure(figure_spec("embeddings", family, SELECTIONS[0]), FigureStyle())
    assert figure.plots["pos_embed"]._message.textItem.toPlainText() == reason


def test_a_station_rebuilds_its_plots_for_another_family_and_back(qtbot):
    gpt2, llama = make_result(CONFIGS["gpt2"]), make_result(FAMILY)
    station = station_of("mlp")
    qtbot.addWidget(station)
    station.resize(1200, 700)
    station.show()
    sel = SELECTIONS[0]
    for res, n in ((gpt2, 5), (llama, 7), (gpt2, 5)):
        station.show_result(res, sel)
        assert len(station.slot_plots) == n == len(station_panels("mlp", res, sel))
        assert station.plots == station.slot_plots                  # the old plots are gone
        items = [i for i in station.canvas.ci.items if i is station.logit_plot]
        assert items, "the next-token bars come back with the rebuilt plots"
    assert not hasattr(station, "lin")                             # SwiGLU's attribute left with its plot


def test_the_head_lens_shows_the_kv_head_each_query_head_reads(qtbot):
    from widgets.pages.classic import HeadLens

    res = make_result(CONFIGS["gqa4"])                      # 4 query heads, 2 K/V heads
    lens = HeadLens()
    qtbot.addWidget(lens)
    lens.show()
    sel = Selection(lens=((1, 3), (0, 1)))
    lens.show_result(res, sel)
    data = lens.content(res, sel)
    np.testing.assert_array_equal(data["k_A"], res.trace["k", 1][:, 1])     # query head 3 reads K/V head 1
    np.testing.assert_array_equal(data["v_B"], res.trace["v", 0][:, 0])
    assert lens.rows["k"][0].name == "k · A (K/V 1)"                      # a strip under A's pattern
    assert lens.rows["pattern"][0].name == "pattern · layer 1 head 3"


def test_whitespace_tokens_are_labelled_visibly():
    from widgets.views import visible_token

    assert visible_token(" ") == "␣" and visible_token("\n\n") == "\\n\\n" and visible_token("") == "∅"
    assert visible_token(" cat") == " cat"


def test_a_layer_says_its_kind_where_the_models_layers_differ():
    """Gemma 3's five local layers to one global, each with its RoPE base; a model whose layers are alike
    says nothing (the header stays short)."""
    from compute import PRESETS
    from widgets.views import layer_kind_words

    gemma = PRESETS["gemma3-270m"]
    assert layer_kind_words(gemma, 0) == "local (window 512) · RoPE base 10,000"
    assert layer_kind_words(gemma, 5) == "global · RoPE base 1,000,000"
    assert layer_kind_words(PRESETS["gpt3-175b-banded"], 1) == "local (window 256)"
    assert layer_kind_words(PRESETS["smollm2-135m"], 3) == layer_kind_words(PRESETS["mistral-7b"], 0) == ""


def test_gemma_and_olmo2_stations_show_the_norms_after_attention_and_the_mlp():
    """Heads·W_O and MLP show attn_out_normed and mlp_out_normed (what the residual adds with post
    norms); Gemma's MLP is SwiGLU's chain with a GELU gate; OLMo 2's missing ln2_out says why."""
    from widgets.views import station_panels, station_view

    gemma = FAMILY.replace(mlp="geglu", post_norms=True, qk_norm=True, rope_theta_local=10.0, scale_embed=True,
                           query_pre_attn_scalar=3.0)
    res = make_result(gemma)
    sel = SELECTIONS[0]
    heads = {p.name: p for p in station_panels("heads", res, sel)}
    np.testing.assert_array_equal(heads["attn_out_normed"].values, res.trace["attn_out_normed", sel.layer])
    assert "RMSNorm(attn_out)" in station_view("heads", gemma).formula
    assert heads["resid_mid"].title == "resid_mid = resid_pre + attn_out_normed"
    mlp = {p.name: p for p in station_panels("mlp", res, sel)}
    assert {"mlp_pre_linear", "mlp_out_normed"} <= set(mlp) and "GELU(gate)" in mlp["mlp_post"].title
    assert "GELU(ln2_out · W_gate)" in station_view("mlp", gemma).formula
    assert [(s.view, s.row, s.col) for s in station_view("mlp", gemma).slots][-3:] == [
        ("mlp_out", 1, 0), ("mlp_out_normed", 1, 1), ("resid_post", 1, 2)]      # the bars keep column 3
    olmo = FAMILY.replace(pre_norms=False, post_norms=True, qk_norm=True, qk_norm_scope="all")
    panels = {p.name: p for p in station_panels("heads", make_result(olmo), sel)}
    assert not panels["attn_out_normed"].missing
    panels = {p.name: p for p in station_panels("mlp", make_result(olmo), sel)}
    assert "no norm before attention" in panels["ln2_out"].missing
    assert "attn_out_normed" not in [s.view for s in station_view("heads", FAMILY).slots]   # a LLaMA: no such panel


@pytest.mark.parametrize("family", [
    dict(pre_norms=False, post_norms=True, qk_norm=True, qk_norm_scope="all"),            # OLMo 2: SwiGLU
    dict(mlp="geglu", post_norms=True),                                                  # Gemma: GeGLU
    dict(mlp="gelu", post_norms=True),                                                   # a GELU MLP
    dict(mlp="gelu_erf", post_norms=True, norm="layernorm")], ids=["olmo2", "gemma", "gelu", "gelu_erf"])
def test_every_model_with_post_norms_shows_mlp_out_normed_in_the_mlp_station(family):
    """What the residual adds after the MLP, RMSNorm(mlp_out), is a panel of the MLP station for every
    model with norms after it (as attn_out_normed is of Heads·W_O), with the formula saying so; the
    next-token bars keep the second row's last column."""
    from widgets.views import station_panels, station_view

    cfg = FAMILY.replace(**family)
    res = make_result(cfg)
    sel = SELECTIONS[0]
    panels = {p.name: p for p in station_panels("mlp", res, sel)}
    assert not panels["mlp_out_normed"].missing
    np.testing.assert_array_equal(panels["mlp_out_normed"].values, res.trace["mlp_out_normed", sel.layer])
    view = station_view("mlp", cfg)
    assert "RMSNorm(mlp_out)" in view.formula
    row2 = [(s.view, s.col) for s in view.slots if s.row == 1]
    assert row2 == [("mlp_out", 0), ("mlp_out_normed", 1), ("resid_post", 2)] and view.columns == 4
    heads = {p.name for p in station_panels("heads", res, sel)}
    assert "attn_out_normed" in heads
    assert "mlp_out_normed" not in [s.view for s in station_view("mlp", cfg.replace(post_norms=False)).slots]


def test_a_qk_norm_model_shows_q_normed_and_k_normed_between_q_and_rot_q():
    """Q·K·V of a QK-norm model (Qwen3, Gemma 3, OLMo 2): q → q_normed → rot_q, k → k_normed → rot_k,
    each the Trace's own numbers; RoPE's titles name what it turns."""
    from widgets.views import station_panels, station_view

    cfg = FAMILY.replace(qk_norm=True)
    res = make_result(cfg)
    sel = SELECTIONS[0]
    order = [s.view for s in station_view("projections", cfg).slots]
    assert order.index("q") < order.index("q_normed") < order.index("rot_q")
    panels = {p.name: p for p in station_panels("projections", res, sel)}
    np.testing.assert_array_equal(panels["q_normed"].values, res.trace["q_normed", sel.layer][:, sel.head])
    g = sel.head // cfg.n_groups
    np.testing.assert_array_equal(panels["k_normed"].values, res.trace["k_normed", sel.layer][:, g])
    from widgets.views import panel

    assert panel("rot_q", res, sel).title.endswith("RoPE(q_normed)")
    assert "q_normed" not in [s.view for s in station_view("projections", FAMILY).slots]


def test_gemma2s_scores_station_shows_the_soft_capped_stage_between_scaled_and_masked(qtbot):
    """Soft-capping (Gemma 2) is a stage of the score chain on screen: attn_scores_capped beside raw and
    scaled, on their colour scale, titled with its cap, the header saying cap·tanh(s / cap); the masked
    scores are the capped ones where allowed. A model without a cap has no such panel."""
    cfg = FAMILY.replace(mlp="geglu", post_norms=True, scale_embed=True, query_pre_attn_scalar=3.0,
                         attn_softcap=0.5, final_softcap=4.0)
    res = make_result(cfg)
    sel = Selection(layer=1, head=1, query=6)
    view = station_view("scores", cfg)
    order = [s.view for s in view.slots]
    assert order == ["attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern"]
    assert "cap·tanh(s / cap)" in view.formula
    panels = {p.name: p for p in station_panels("scores", res, sel)}
    capped = panels["attn_scores_capped"]
    assert capped.title == "attn_scores_capped = 0.5·tanh(s/0.5)"
    assert panels["attn_scores_scaled"].title == "attn_scores_scaled = raw ÷ √3"   # query_pre_attn_scalar, not d_head
    np.testing.assert_array_equal(capped.values, res.trace["attn_scores_capped", 1][1])
    allowed = ~panels["attn_scores"].masked
    np.testing.assert_array_equal(panels["attn_scores"].values[allowed], capped.values[allowed])
    assert capped.levels == panels["attn_scores_scaled"].levels == panels["attn_scores"].levels   # one scale
    assert np.abs(capped.values).max() <= 0.5 < np.abs(panels["attn_scores_scaled"].values).max()
    station = station_of("scores")
    qtbot.addWidget(station)
    station.resize(1200, 700)
    station.show()
    station.show_result(res, sel)
    assert [mp.name for mp in station.slot_plots][2] == capped.title
    assert "cap·tanh(s / cap)" in station.header.text()
    assert "attn_scores_capped" not in [s.view for s in station_view("scores", FAMILY).slots]
    assert "only Gemma 2" in panel("attn_scores_capped", make_result(FAMILY), sel).missing
