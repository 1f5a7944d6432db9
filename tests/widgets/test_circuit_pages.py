"""The circuit pages (widgets/pages/circuit_views.py, circuit_pages.py): a page draws exactly its figure's views,
its numbers are compute.circuits' own, and a click on a layer × head map names that head."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app.values import Inputs, Selection, compute_result, preset_config, preset_tokens
from compute import Config, circuits
from widgets.charts import Chart
from widgets.figure import figure_spec
from widgets.pages import page_kind
from widgets.pages import page_views as circuit_page_views
from widgets.pages.circuit_views import clean_of, found_of

CIRCUIT_PAGES = ("knockout", "logit_lens", "score_parts", "head_finder")
CIRCUIT_CLASSES = tuple(page_kind(k).widget for k in CIRCUIT_PAGES)
ROPE = Config(d_model=16, n_heads=4, n_kv_heads=2, d_head=8, n_ctx=32, d_vocab=16, n_layers=2, norm="rmsnorm",
              positions="rope", rope_theta=100.0, mlp="swiglu", attn_bias=False, mlp_bias=False)


@pytest.fixture(scope="module", params=["toy", "rope", "rope-ablated"])
def result(request):
    if request.param == "toy":
        inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), weights="trained")
    else:
        inputs = Inputs(config=ROPE, tokens=tuple(preset_tokens("toy")) * 2, weights="random", preset="custom",
                        ablated=((1, 2),) if request.param == "rope-ablated" else ())
    return compute_result(inputs, request_id=7)


def extra_for(key, result):
    if key == "knockout" and result.inputs.ablated:
        return clean_of(result)
    return found_of(result) if key == "head_finder" else None


@pytest.mark.parametrize("cls", CIRCUIT_CLASSES, ids=lambda c: c.key)
def test_a_circuit_page_draws_exactly_its_figures_views(qtbot, result, cls):
    page = cls()
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.show()
    sel = Selection(query=len(result.labels) - 1, layer=1, head=1, key=2, station=cls.key)
    spec = figure_spec(cls.key, result, sel)
    page.set_extra(extra_for(cls.key, result))
    page.show_result(result, sel)
    shown = page.content(result, sel)
    assert set(shown) == set(spec.data())
    for name, values in shown.items():
        np.testing.assert_array_equal(values, spec.data()[name], err_msg=name)
    for item in page.views.items:
        target = page.widgets[item.view.name]
        if isinstance(item.view, Chart):
            assert target.items or not item.view.series, item.view.name
        else:
            np.testing.assert_array_equal(target.values, item.view.values, err_msg=item.view.name)
    assert page.text.text() and page.header.text() and not page.views.waiting


def test_the_knockout_map_is_the_attribution_and_says_the_change(result):
    sel = Selection(query=len(result.labels) - 1)
    views = circuit_page_views("knockout", result, sel, extra_for("knockout", result), compute_missing=True)
    dla = next(i for i in views.items if i.view.name == "dla")
    clean = clean_of(result).trace if result.inputs.ablated else result.trace
    target = int(np.argmax(clean["logits"][sel.query]))
    att = circuits.logit_attribution(result.trace, target, sel.query, result.weights)
    np.testing.assert_array_equal(dla.view.values, att.heads)
    assert len(dla.boxes) == len(result.inputs.ablated)
    if result.inputs.ablated:
        assert "→" in views.text and "1.2" in views.text
        assert np.all(att.heads[1, 2] == 0.0)


def test_the_lens_ends_at_the_prediction(result):
    sel = Selection(query=3)
    views = circuit_page_views("logit_lens", result, sel)
    lens = next(i for i in views.items if i.view.name == "lens").view
    assert lens.cols[0] == result.token_label(int(np.argmax(result.trace["logits"][3])))
    assert lens.values.shape == (result.inputs.config.n_layers + 1, min(8, result.inputs.config.d_vocab))


@pytest.mark.parametrize("cls", [c for c in CIRCUIT_CLASSES if c.key in ("knockout", "head_finder")],
                         ids=lambda c: c.key)
def test_a_click_on_a_layer_by_head_map_names_the_head(qtbot, result, cls):
    page = cls()
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    page.set_extra(extra_for(cls.key, result))
    page.show_result(result, Selection(station=cls.key))
    mp = page.widgets[page.head_maps()[0]]
    with qtbot.waitSignal(page.headClicked) as got:
        page._on_click(mp, (1, 3), None)
    assert got.args == [1, 3]


def test_every_circuit_page_is_in_the_page_table():
    from compute.stations import INSTRUMENT_PAGES, PAGE

    assert set(CIRCUIT_PAGES) <= set(INSTRUMENT_PAGES)
    assert [cls.key for cls in CIRCUIT_CLASSES] == list(CIRCUIT_PAGES)
    assert all(PAGE[k].kind == "instrument" for k in CIRCUIT_PAGES)


def test_a_head_outside_the_model_is_not_knocked_out():
    inputs = Inputs(config=ROPE, tokens=(1, 2, 3), ablated=((1, 2), (5, 0), (0, 9)))
    assert [(iv.layer, iv.head) for iv in inputs.interventions()] == [(1, 2)]
    assert dataclasses.replace(inputs, ablated=()).interventions() is None


def test_the_head_finder_starts_its_sequence_with_the_tokenizers_own_first_token(result):
    """Gemma's tokenizer starts every text with <bos> (and Gemma without it hardly completes a repeat): the
    finder's random sequence starts with it too; the toy vocabulary adds nothing, so neither does the finder."""
    from compute.loaders.loaded import CheckpointTokenizer
    from compute.loaders.sentencepiece import SentencePieceVocab

    assert result.bos is None and found_of(result).scores.tokens[0] == 1     # toy: the sequence's own first id
    vocab = SentencePieceVocab(["<pad>", "<eos>", "<bos>", "▁a", "a"], [0.0, 0.0, 0.0, -1.0, -2.0], [3, 3, 3, 1, 1],
                               bos_id=2, add_bos=True, add_space_prefix=False)
    assert CheckpointTokenizer(vocab, "test", 32).bos == 2
    without = SentencePieceVocab(["<pad>", "<eos>", "<bos>", "▁a", "a"], [0.0, 0.0, 0.0, -1.0, -2.0], [3, 3, 3, 1, 1],
                                 bos_id=2, add_bos=False, add_space_prefix=False)
    assert CheckpointTokenizer(without, "test", 32).bos is None
    with_bos = dataclasses.replace(result, bos=5)
    assert found_of(with_bos).scores.tokens[0] == 5
