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
