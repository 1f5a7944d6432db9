"""Ready for translation: notes per language (falling back to English), Qt's tr() for window text."""
from __future__ import annotations

import json

from app import notes


def test_notes_overlay_a_translation_and_fall_back_to_english(tmp_path, monkeypatch):
    english = json.loads(notes.NOTES_FILE.read_text(encoding="utf-8"))
    base = tmp_path / "station_notes.json"
    base.write_text(json.dumps(english), encoding="utf-8")
    swedish = {"scores": {"title": "Poäng", "body": "q·k för varje par", "shapes": "[{T}, {T}]", "try": "Prova"}}
    (tmp_path / "station_notes.sv.json").write_text(json.dumps(swedish), encoding="utf-8")
    loaded = notes.load(str(base), "sv")
    assert loaded["scores"]["title"] == "Poäng"
    assert loaded["mask"] == english["mask"]                      # not translated: English
    (tmp_path / "station_notes.de.json").write_text("{broken", encoding="utf-8")
    assert notes.load(str(base), "de")["scores"] == english["scores"]
    monkeypatch.setenv("QKV_LAB_LANGUAGE", "sv_SE")
    assert notes.language() == "sv"


def test_every_note_fills_its_placeholders():
    from app.state import PAGES, Inputs, Selection, preset_config, preset_tokens

    inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"))
    for page in PAGES:
        html = notes.render(page, inputs, Selection())
        assert html and "{" not in html, page


def test_tr_returns_the_text_without_a_translator(qapp):
    from widgets.i18n import tr

    assert tr("Train") == "Train"


def test_a_family_model_gets_its_own_notes_filled_in():
    from app.state import Inputs, Selection, preset_config, preset_tokens

    cfg = preset_config("toy").replace(norm="rmsnorm", positions="rope", n_heads=4, d_head=2, n_kv_heads=2,
                                       mlp="swiglu", windows=(None, 3))
    inputs = Inputs(config=cfg, tokens=preset_tokens("toy"))
    texts = {page: notes.render(page, inputs, Selection(layer=1)) for page in ("embeddings", "layernorm",
                                                                               "projections", "scores", "mlp")}
    assert all("{" not in t for t in texts.values())
    assert "no position table" in texts["embeddings"] and "No mean is subtracted" in texts["layernorm"]
    assert "4 query heads share 2 K/V heads" in texts["projections"] and "SiLU" in texts["mlp"]
    assert "sliding window of W = 3" in texts["scores"]
    assert "sliding window" not in notes.render("scores", inputs, Selection(layer=0))     # layer 0 is dense
    gpt2 = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"))
    assert "W_pos" in notes.render("embeddings", gpt2, Selection()) and "ln1_var" in notes.render(
        "layernorm", gpt2, Selection())
