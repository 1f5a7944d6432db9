"""The lab in Swedish and Indonesian: the .ts sources complete and current (pyside6-lupdate over the
code), every visible text of the window and of every page translated, the language switched live
and remembered, plural forms, the notes in three languages, and data files that stay the same in
every language and locale."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QAbstractButton, QComboBox, QDockWidget, QGroupBox, QLabel, QLineEdit, QTabBar, QWidget

from app import language, notes

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import i18n as ts_tool  # noqa: E402 - tools/i18n.py, the project's lupdate wrapper

from app.state import PAGES as STATION_KEYS  # noqa: E402
from widgets import i18n  # noqa: E402
from widgets.figure import view_names  # noqa: E402

# -- what may read the same in every language (docs/glossary.md) -------------------------------------------
# The API (names of intermediates and weights, sizes, backends, formats, presets), the names of
# operations and models, and the glossary's kept terms. A visible text equal to its English source
# fails unless every word in it is one of these.
KEPT = {
    # glossary: kept terms
    "attention", "query", "queries", "key", "keys", "value", "values", "head", "heads", "token", "tokens",
    "softmax", "layernorm", "rmsnorm", "mask", "causal", "cache", "prefill", "decode", "multi", "embedding",
    "pattern", "instrument", "station", "session", "export",
    # operations, models, formats, units, names
    "rope", "gqa", "mqa", "moe", "qknorm", "postnorm", "geglu", "prenorm", "parallel", "mlp", "swiglu", "gelu",
    "softcap", "silu", "flashattention", "qkv", "lab", "gpt", "smollm",
    "mistral", "llama", "qwen", "andrea", "toy", "tiny", "real", "instruct", "weights", "safetensors", "gguf",
    "json", "npz", "csv", "svg", "pdf", "png", "cpu", "cuda", "reference", "auto", "numba", "blas", "cublas",
    "torch", "float", "nats", "mib", "gib", "kib", "fp16", "cpus", "cos", "exp", "max", "min", "mean", "var",
    "esc", "ctrl", "shift", "alt", "page", "tab", "enter", "home", "end", "del", "space", "backspace", "dark",
    "light", "viridis", "magma", "inferno", "plasma", "cividis", "blues", "greys", "diverging", "coolwarm",
    "rdbu", "seismic", "bwr", "piyg", "puor", "spectral", "the", "cat", "sat", "mat", "dog", "big", "red",
    "ran", "hat", "saw", "and", "is", "it",
    # names of the Trace without an underscore (in equations: embed = W_E[tokens], raw ÷ √d_head, result · A)
    "embed", "result", "raw", "logits", "backend", "gate",          # gate, up: the SwiGLU branches' HF names
    # each language's name in itself (View ▸ Language), key names
    "english", "svenska", "bahasa", "indonesia", "down", "up", "left", "right",
}
# Words spelled the same in the other language (Swedish "position i", Indonesian "model", "preset").
# Qt's own buttons (Cancel, OK) stay English in Indonesian: Qt ships no Indonesian translation.
SAME_WORD = {"sv": {"position", "experiment", "format"},
             "id": {"model", "preset", "format", "seed", "loss", "cancel", "ok", "global"}}
NAMED = re.compile(r"[\w.]*\d[\w.]*(?:-[\w.]+)+")     # gpt2-small, gpt3-175b-banded, SmolLM2-135M: presets
VIEW_NAMES = set(view_names()) | set(STATION_KEYS)      # the CLI's --view names ("scores — station: …")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*(?:\[[^\]]*\])?")
WORD = re.compile(r"[^\W\d_]{3,}")


def untranslated_words(text: str, lang: str = "") -> list[str]:
    """The words of a text that should have been translated (not API names, not kept terms)."""
    kept = KEPT | SAME_WORD.get(lang, set())
    text = re.sub(r"<[^>]+>", " ", text).replace("&nbsp;", " ").replace("&amp;", "&").replace("&", "")
    text = NAMED.sub(" ", text)
    text = re.sub(r"^(\w+) — ", lambda m: "" if m.group(1) in VIEW_NAMES else m.group(0), text)
    words = []
    for token in IDENTIFIER.findall(text):
        if "_" in token or "." in token or "[" in token or any(c.isdigit() for c in token):
            continue                                     # attn_scores, W_Q, ln1_out, blocks.0.attn: the API
        if token.isupper() and len(token) <= 6:
            continue                                     # T, K/V, MLP, GQA: symbols and acronyms
        words += [w for w in WORD.findall(token) if w.lower() not in kept]
    return words


def test_the_check_itself_tells_words_from_names():
    assert untranslated_words("attn_scores[0] · W_Q · d_head = 4 · softmax") == []
    assert untranslated_words("Scores, scaling, mask") == ["Scores", "scaling"]
    assert untranslated_words("&Open session…") == ["Open"]


# -- the .ts files: lupdate over the sources, nothing unfinished ----------------------------------------------
def test_the_translations_are_complete_and_match_the_code():
    found = ts_tool.problems()
    assert not found, "\n".join(found[:40])


def test_the_ts_check_fails_on_an_unfinished_a_stale_or_a_broken_translation(tmp_path):
    for lang in ts_tool.LANGUAGES:
        shutil.copy(ts_tool.ts_path(lang), tmp_path)
    assert ts_tool.problems(tmp_path) == []
    sv = ts_tool.ts_path("sv", tmp_path)
    text = sv.read_text(encoding="utf-8")
    # a translation marked unfinished, one that loses its placeholder, one string the code no longer has
    text = text.replace("<translation>Ångra</translation>", '<translation type="unfinished">Ångra</translation>', 1)
    text = re.sub(r"(<source>Undo \{what\}</source>\s*<translation>)[^<]*", r"\1Ångra", text, count=1)
    text = text.replace("</TS>", "<context><name></name><message><source>gone from the code</source>"
                                 "<translation>borta</translation></message></context></TS>")
    sv.write_text(text, encoding="utf-8")
    found = "\n".join(ts_tool.problems(tmp_path))
    assert "out of date" in found and "'Undo' is unfinished" in found
    assert "'Undo {what}': the translation 'Ångra' does not keep the placeholders ['{what}']" in found
    ts_tool.ts_path("id", tmp_path).unlink()
    assert any("qkv_lab_id.ts is missing" in p for p in ts_tool.problems(tmp_path))


def test_plural_forms_two_in_swedish_one_in_indonesian(qapp, english_after):
    numerus = {lang: [m for m in ts_tool.messages(ts_tool.ts_path(lang)) if m["numerus"]] for lang in ("sv", "id")}
    assert numerus["sv"] and all(len(m["forms"]) == 2 for m in numerus["sv"])
    assert all(len(m["forms"]) == 1 for m in numerus["id"])
    source = "%n token(s); the model accepts up to n_ctx = {n_ctx}"          # the token strip's T = … tooltip
    assert i18n.tr(source, "", 1).startswith("1 token;") and i18n.tr(source, "", 3).startswith("3 tokens;")
    forms = {lang: next(m["forms"] for m in numerus[lang] if m["source"] == source) for lang in ("sv", "id")}
    assert forms["sv"][0] != forms["sv"][1]                                   # token / tokens
    assert language.install("sv") == "sv"
    assert i18n.tr(source, "", 1) == forms["sv"][0].replace("%n", "1")
    assert i18n.tr(source, "", 5) == forms["sv"][1].replace("%n", "5")
    assert i18n.tr("%n head(s)", "", 1) == "1 head" and i18n.tr("%n head(s)", "", 8) == "8 headar"
    assert language.install("id") == "id"
    assert i18n.tr(source, "", 1) == forms["id"][0].replace("%n", "1")
    assert i18n.tr(source, "", 5) == forms["id"][0].replace("%n", "5")
    assert i18n.tr("%n head(s)", "", 8) == "8 head"                           # no plural form in Indonesian


@pytest.fixture
def english_after():
    """Whatever a test installs, the next one starts in English with the C locale's numbers."""
    yield
    language.install("en")


# -- the language: choice, system locale, --lang ---------------------------------------------------------------
def test_the_language_follows_the_system_unless_chosen(monkeypatch):
    monkeypatch.delenv(language.ENV_VAR, raising=False)
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale("sv_SE")))
    assert language.resolve("") == "sv" and language.resolve("system") == "sv"
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale("id_ID")))
    assert language.resolve("") == "id" and language.resolve("en") == "en"
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale("de_DE")))
    assert language.resolve("") == "en"                    # a language the lab does not have: English
    monkeypatch.setenv(language.ENV_VAR, "sv_SE.UTF-8")
    assert language.resolve("") == "sv" and language.resolve("id") == "id"


def test_lang_on_the_command_line_for_the_app_and_for_export(qapp, tmp_path, english_after):
    import main

    assert main.LANGUAGE_CODES == language.LANGUAGES
    out = tmp_path / "scores.svg"
    assert main.main(["export", "--lang", "sv", "--view", "attn_scores", "--layer", "0", "--head", "0",
                      "-o", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    assert i18n.language() == "sv"
    assert "lager 0" in svg and "layer 0" not in svg               # the figure's title in Swedish
    assert "attn_scores" in svg                                     # the API name as it is
    with pytest.raises(SystemExit):
        main.main(["export", "--lang", "de", "-o", str(tmp_path / "x.svg")])


# -- the notes in three languages ---------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["sv", "id"])
def test_every_note_is_translated_and_keeps_its_placeholders(lang):
    english = json.loads(notes.NOTES_FILE.read_text(encoding="utf-8"))
    translated = json.loads((notes.ASSETS / f"station_notes.{lang}.json").read_text(encoding="utf-8"))
    assert set(translated) == set(english)
    for key, note in english.items():
        if key.startswith("_"):
            continue
        for field in ("title", "body", "shapes", "try"):
            en, tx = note[field], translated[key][field]
            assert set(re.findall(r"\{\w+\}", tx)) == set(re.findall(r"\{\w+\}", en)), (key, field)
            assert sorted(re.findall(r"<code>(.*?)</code>", tx)) == sorted(re.findall(r"<code>(.*?)</code>", en))
            if field != "shapes" and untranslated_words(en):
                assert tx != en, (lang, key, field)


def test_notes_overlay_a_translation_and_fall_back_to_english(tmp_path):
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


def test_every_note_fills_its_placeholders():
    from app.state import PAGES, Inputs, Selection, preset_config, preset_tokens

    inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"))
    try:
        for lang in ("en", "sv", "id"):
            i18n.set_language(lang)                           # what the Notes tab reads (no translator needed)
            for page in PAGES:
                html = notes.render(page, inputs, Selection())
                assert html and "{" not in html, (lang, page)
                assert notes.load(lang=lang)[page]["title"] in html
                if lang != "en":
                    assert notes.load(lang="en")[page]["title"] not in html or page in ("ab", "kv_cache")
    finally:
        i18n.set_language("en")


def test_tr_returns_the_text_without_a_translator(qapp):
    assert i18n.tr("Train") == "Train"


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


# -- the window: every visible text, live switching -------------------------------------------------------------
def _menu_texts(menu, where: str, out: dict) -> None:
    for n, act in enumerate(menu.actions()):
        if act.isSeparator():
            continue
        out[(id(act), "text")] = (f"{where} › {n}", act.text())
        if act.toolTip() and act.toolTip() != act.text().replace("&", ""):
            out[(id(act), "tip")] = (f"{where} › {n} (tip)", act.toolTip())
        if act.menu() is not None:
            _menu_texts(act.menu(), f"{where} › {act.text()}", out)


def visible_texts(win) -> dict:
    """Every text a person can read in the window now: (object, what) -> (where, text). Widgets that
    are shown, their tooltips, combo items, tab titles, the menus, and the plots' titles and axes."""
    out: dict = {}
    _menu_texts(win.menuBar(), "menu", out)
    for w in [win, *win.findChildren(QWidget)]:
        if not w.isVisible():
            continue
        name = f"{type(w).__name__}:{w.objectName()}"
        if w.toolTip():
            out[(id(w), "tip")] = (f"{name} (tip)", w.toolTip())
        if isinstance(w, QLabel):
            out[(id(w), "text")] = (name, w.text())
        elif isinstance(w, QAbstractButton):
            out[(id(w), "text")] = (name, w.text())
        elif isinstance(w, QGroupBox):
            out[(id(w), "text")] = (name, w.title())
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                out[(id(w), i)] = (f"{name}[{i}]", w.itemText(i))
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                out[(id(w), i)] = (f"{name}[{i}]", w.tabText(i))
        elif isinstance(w, QDockWidget):
            out[(id(w), "text")] = (name, w.windowTitle())
        elif isinstance(w, QLineEdit) and w.placeholderText():
            out[(id(w), "text")] = (name, w.placeholderText())
        elif isinstance(w, pg.GraphicsView):
            for item in w.scene().items():
                if not item.isVisible():
                    continue
                if isinstance(item, pg.LabelItem):
                    out[(id(item), "text")] = (f"{name} plot label", item.text)
                elif isinstance(item, pg.AxisItem) and item.labelText:
                    out[(id(item), "text")] = (f"{name} axis", item.labelText)
    return out


def _switch(qtbot, win, choice: str) -> None:
    """View ▸ Language ▸ <choice>, as a person does it; waits for the window's texts to change."""
    before = win.menus["view"].title() if hasattr(win, "menus") and "view" in win.menus else None
    act = next(a for a in win.file_actions.language_group.actions() if a.data() == choice)
    act.trigger()
    if before is not None and language.current() != "en":
        qtbot.waitUntil(lambda: win.menus["view"].title() != before, timeout=10_000)
    qtbot.wait(50)                         # the LanguageChange events of every widget are delivered


def _show_page(qtbot, win, key: str) -> None:
    win.state.select(station=key)
    qtbot.waitUntil(lambda: win.pages[key].isVisible(), timeout=10_000)
    qtbot.wait(150)                        # a page's own background numbers (√d_k lab, A/B) arrive


def _sheet_texts(qtbot, win) -> dict:
    """The cheat sheet (F1), open over the window: its text, then closed again."""
    win.file_actions.presentation.show_sheet()
    sheet = win.file_actions.presentation.sheet
    qtbot.waitUntil(sheet.isVisible, timeout=5_000)
    cells = [c for c in re.split(r"<t[dhr][^>]*>|</t[dhr]>|<br>|<p[^>]*>|</p>|<h\d[^>]*>|</h\d>", sheet.label.text())
             if re.sub(r"<[^>]+>", "", c).strip()]
    texts = {(id(sheet.label), i): (f"cheat sheet [{i}]", cell) for i, cell in enumerate(cells)}
    sheet.close_sheet()
    return texts


def _extras(qtbot, win) -> dict:
    """What else a person reads: every tab of the instruments dock (Trace, Code, Predict, Train),
    the export dialog, and presentation mode."""
    texts: dict = {}
    win.state.select(station="scores")
    for i in range(win.tabs.count()):
        win.tabs.setCurrentIndex(i)
        qtbot.wait(30)
        texts.update(visible_texts(win))
    win.tabs.setCurrentIndex(0)
    from widgets.export_dialog import ExportDialog

    dialog = ExportDialog(win.state.result, win.state.selection, "scores", {}, win)
    dialog.show()
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    texts.update({k: v for k, v in visible_texts(win).items() if k not in texts})
    dialog.close()
    dialog.deleteLater()
    presentation = win.file_actions.presentation
    presentation.enter()
    qtbot.wait(100)
    texts.update({k: v for k, v in visible_texts(win).items() if k not in texts})
    presentation.leave()
    qtbot.wait(50)
    return texts


def _offenders(english: dict, now: dict, lang: str) -> list[str]:
    """Texts shown now that read as an English one did (the same object, or one drawn anew)."""
    bad = []
    seen = {text for _, text in english.values()}
    for where, text in now.values():
        if text in seen and untranslated_words(text, lang):
            bad.append(f"{where}: {text[:100]!r} ({', '.join(untranslated_words(text, lang)[:4])})")
    return bad


@pytest.mark.parametrize("lang", ["sv", "id"])
def test_every_visible_text_of_every_page_is_translated_and_switching_needs_no_restart(qtbot, window, settings,
                                                                                        lang, english_after):
    from app.state import PAGES

    win = window
    win.resize(1280, 800)
    english, translated, back = {}, {}, {}
    for key in PAGES:                       # every station and instrument page, in English
        _show_page(qtbot, win, key)
        last_page = visible_texts(win)      # the station bar names the page shown: compared on that page
        english.update(last_page)
    english.update(_sheet_texts(qtbot, win))
    english.update(_extras(qtbot, win))
    _switch(qtbot, win, lang)               # live: the same window, the same widgets
    assert language.current() == lang and settings.language == lang
    bad = []
    for key in PAGES:
        _show_page(qtbot, win, key)
        now = visible_texts(win)
        translated.update(now)
        bad += _offenders(english, now, lang)
    bad += _offenders(english, _sheet_texts(qtbot, win), lang)
    bad += _offenders(english, _extras(qtbot, win), lang)
    assert not bad, f"{len(bad)} texts still English in {lang}:\n" + "\n".join(sorted(set(bad))[:60])
    assert len({t for _, t in english.values() if untranslated_words(t)}) > 200     # the walk read the window
    _switch(qtbot, win, "en")               # and back: the English texts again, every one of them
    assert language.current() == "en"
    _show_page(qtbot, win, PAGES[-1])
    back = visible_texts(win)
    english.update(last_page)
    differ = [f"{english[k][0]}: {english[k][1]!r} → {back[k][1]!r}" for k in back
              if k in english and k in translated and translated[k][1] != english[k][1] and back[k][1] != english[k][1]
              and "(tip)" not in english[k][0]]
    assert not differ[:5], "\n".join(differ[:20])


def test_the_choice_is_remembered_and_the_menu_says_which(qtbot, window, settings, english_after):
    win = window
    _switch(qtbot, win, "id")
    assert settings.language == "id"
    checked = [a.data() for a in win.file_actions.language_group.actions() if a.isChecked()]
    assert checked == ["id"]
    names = [a.text() for a in win.file_actions.language_group.actions()]
    assert "Svenska" in names and "Bahasa Indonesia" in names and "English" in names
    # the notes tab speaks the language too
    note = notes.load(lang="id")[win.state.selection.station]["title"]
    assert note in win.notes.toHtml()
    _switch(qtbot, win, "")                 # follow the system (C locale here: English)
    assert settings.language == "" and language.current() == language.system_language()


def test_numbers_on_screen_may_use_the_decimal_comma(qapp, english_after):
    assert i18n.num(0.25, ".2f") == "0.25"
    language.install("sv")
    assert i18n.num(0.25, ".2f") == "0,25" and i18n.num(1234567, ",") == "1\u00a0234\u00a0567"
    language.install("id")
    assert i18n.num(1234.5, ",.1f") == "1.234,5"


# -- data stays locale-neutral ---------------------------------------------------------------------------------
@pytest.mark.parametrize("locale_name", ["sv_SE", "id_ID"])
def test_exports_and_sessions_round_trip_the_same_in_every_locale(qapp, tmp_path, locale_name, english_after):
    import locale as pylocale

    from app.export import ExportRequest, csv_text, export, headless_result
    from app.session import parse_session, session_dict
    from app.state import Inputs, Selection, preset_config, preset_tokens

    inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), seed=3, weights="random",
                    backend="reference")
    sel = Selection(layer=1, head=1, query=5)
    result = headless_result(inputs)
    english_csv = csv_text(result, sel, "attn_scores")
    def session_text() -> str:                              # the session file's JSON, its time stamp aside
        return json.dumps({**session_dict(inputs, sel, result.labels), "saved_at": "-"}, indent=2)

    english_session = session_text()

    language.install(language.code_of(locale_name))          # the window's language and QLocale's default
    assert QLocale().decimalPoint() == ","
    try:                                                      # and the C library's, where the system has it
        pylocale.setlocale(pylocale.LC_NUMERIC, f"{locale_name}.UTF-8")
    except pylocale.Error:
        pass
    try:
        assert i18n.num(0.5, ".1f") == "0,5"                  # the screen would say 0,5 ...
        text = csv_text(result, sel, "attn_scores")
        assert text == english_csv                            # ... the CSV is byte for byte the English one
        rows = list(csv.reader(io.StringIO(text)))
        values = np.array([[float(x) for x in row[1:]] for row in rows[1:]])
        np.testing.assert_array_equal(values, result.trace["attn_scores", 1][1].astype(values.dtype))
        path = export(result, sel, ExportRequest(str(tmp_path / "t.npz")))
        with np.load(path) as npz:
            meta = json.loads(str(npz["meta"]))
            np.testing.assert_array_equal(npz["pattern/1"], result.trace["pattern", 1])
        assert meta["config"] == inputs.config.to_dict() and meta["labels"] == list(result.labels)
        session = session_text()
        assert session == english_session
        back = parse_session(session)
        assert back.inputs == inputs and back.selection["layer"] == 1
    finally:
        pylocale.setlocale(pylocale.LC_NUMERIC, "C")


@pytest.mark.parametrize("choice", ["en", "sv", "id"])
def test_the_controls_fit_their_dock_in_every_language(qtbot, window, settings, choice, english_after):
    """A form wider than its scroll area is cut off at the right with no scroll bar (the preset box
    with "SmolLM2-135M (real weights)", a Swedish check box): the dock widens to the widest row."""
    win = window
    win.resize(1600, 1000)
    qtbot.wait(50)
    if choice != "en":
        _switch(qtbot, win, choice)
    scroll = win.controls_scroll

    def fits() -> bool:
        return win.controls.minimumSizeHint().width() <= scroll.viewport().width()

    qtbot.waitUntil(fits, timeout=5_000)
    assert win.controls.width() <= scroll.viewport().width()
    assert win.docks["controls"].width() < 400                    # room for the station all the same


def test_a_session_file_s_faults_are_said_in_the_window_s_language(qapp, english_after):
    """What is wrong inside a session (a layer the model lacks, a key past the tokens, a wrong
    type) in Swedish and Indonesian too; the field names are the file's own, in every language."""
    import json

    from app.session import SessionError, dumps, parse_session
    from app.state import LabState

    good = json.loads(dumps(LabState()))
    bad_layer = {**good, "selection": {**good["selection"], "layer": 5}}
    bad_key = {**good, "selection": {**good["selection"], "key": 99}}
    bad_type = {**good, "inputs": {**good["inputs"], "backend": 3}}
    said = {}
    for lang in ("en", "sv", "id"):
        language.install(lang)
        for name, data in (("layer", bad_layer), ("key", bad_key), ("type", bad_type)):
            with pytest.raises(SessionError) as err:
                parse_session(json.dumps(data))
            said[lang, name] = str(err.value)
    assert said["en", "layer"] == "session: selection.layer = 5: this model has layers 0..1"
    assert said["sv", "layer"] == "session: selection.layer = 5: den här modellen har lager 0..1"
    assert said["id", "layer"] == "session: selection.layer = 5: model ini punya lapisan 0..1"
    assert said["en", "key"].endswith("there are 6 tokens") and said["sv", "key"].endswith("det finns 6 tokens")
    assert said["id", "key"].endswith("ada 6 token")
    assert "inputs.backend = 3" in said["sv", "type"] and "måste vara text" in said["sv", "type"]
    assert "harus berupa teks" in said["id", "type"]


@pytest.mark.parametrize("choice", ["sv", "id"])
def test_no_visible_text_is_cut_in_any_language(qtbot, window, settings, choice, english_after):
    """A box sized for its English text cuts the translation ("2 dtk" showed as "2 d▾"): every
    visible combo box's field holds its text, every button and one-line label gets its width."""
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QStyle, QStyleOptionComboBox

    win = window
    win.resize(1280, 800)
    _switch(qtbot, win, choice)
    qtbot.wait(100)
    cut = []
    for combo in win.findChildren(QComboBox):
        if combo.isVisible():
            opt = QStyleOptionComboBox()
            combo.initStyleOption(opt)
            field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                                 QStyle.SubControl.SC_ComboBoxEditField, combo)
            if field.width() < QFontMetrics(combo.font()).horizontalAdvance(combo.currentText()):
                cut.append(combo.currentText())
    for widget in [*win.findChildren(QAbstractButton), *win.findChildren(QLabel)]:
        if isinstance(widget, QLabel) and (widget.wordWrap() or not widget.text()):
            continue
        if widget.isVisible() and widget.width() < widget.sizeHint().width() - 2:
            cut.append(widget.text())
    assert not cut, cut
