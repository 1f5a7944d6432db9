"""Exports are real files: PNG of the asked size, SVG with text as text, PDF that renders, NPZ/CSV
with the Trace's numbers; failures leave nothing behind; the CLI end to end in a subprocess."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from app.export import ExportError, ExportRequest, build_figure, csv_text, export, headless_result
from app.session import session_dict
from app.state import Inputs, Selection, preset_config, preset_tokens
from widgets.figure import COMPOSED_VIEWS, SINGLE_VIEWS, FigureStyle, figure_spec, natural_size

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["the", "cat", "sat", "on", "the", "mat"]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def result(qapp):
    inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), seed=3, weights="random",
                    backend="reference")
    return headless_result(inputs)


SEL = Selection(layer=1, head=1, query=5)


def _svg_texts(path) -> list[str]:
    return [(e.text or "").strip() for e in ET.parse(path).iter(SVG + "text")]


def test_png_has_the_asked_width_or_dpi(result, tmp_path):
    path = export(result, SEL, ExportRequest(str(tmp_path / "p.png"), view="pattern", width=1000))
    image = QImage(str(path))
    assert image.width() == 1000 and image.height() > 500
    w, h = natural_size(figure_spec("pattern", result, SEL), FigureStyle())
    path = export(result, SEL, ExportRequest(str(tmp_path / "d.png"), view="pattern", dpi=192))
    image = QImage(str(path))
    assert (image.width(), image.height()) == (2 * w, 2 * h)
    assert abs(image.dotsPerMeterX() * 0.0254 - 192) < 1            # slides software sizes it right
    assert image.pixelColor(2, 2).name() == "#ffffff"                 # figure mode: white paper


def test_svg_is_xml_and_keeps_token_labels_and_numbers_as_text(result, tmp_path):
    path = export(result, SEL, ExportRequest(str(tmp_path / "f.svg"), view="pattern"))
    texts = _svg_texts(path)
    assert texts.count("the") >= 4 and all(w in texts for w in WORDS)   # both axes
    assert "pattern = softmax(attn_scores)" in texts and "query i" in texts and "key j" in texts
    assert "1.00" in texts                                            # values in cells
    assert "“the cat sat on the mat”" in texts
    raw = path.read_text(encoding="utf-8")
    assert "sans-serif" in raw and 'font-family="Sans Serif"' not in raw


def test_pdf_is_a_page_of_the_figure_and_renders(result, tmp_path):
    path = export(result, SEL, ExportRequest(str(tmp_path / "f.pdf"), view="scores"))
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    w, h = natural_size(figure_spec("scores", result, SEL), FigureStyle())
    box = data.split(b"/MediaBox [", 1)[1].split(b"]", 1)[0].split()
    assert [float(v) for v in box] == pytest.approx([0, 0, w * 0.75, h * 0.75], abs=1)   # points
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (Debian poppler-utils) is not installed")
    subprocess.run(["pdftoppm", "-png", "-r", "48", str(path), str(tmp_path / "page")], check=True, timeout=60)
    image = QImage(str(tmp_path / "page-1.png"))
    assert abs(image.width() - w * 0.5) <= 2                          # page = figure, no margins
    dark = sum(1 for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)
               if image.pixelColor(x, y).lightness() < 200)
    assert dark > 200, "the rendered page is blank"


def test_every_view_has_a_spec_and_the_composed_ones_draw(result):
    for name in SINGLE_VIEWS:
        spec = figure_spec(name, result, SEL)
        assert len(spec.panels) == 1 and spec.panels[0].values.ndim == 2, name
    t, w = result.trace, result.weights
    np.testing.assert_array_equal(figure_spec("pattern", result, SEL).data()["pattern"], t["pattern", 1][1])
    np.testing.assert_array_equal(figure_spec("W_Q", result, SEL).data()["W_Q"], w["blocks.1.attn.W_Q"][1])
    np.testing.assert_array_equal(figure_spec("ln1", result, SEL).data()["ln1_out"], t["ln1_out", 1])
    np.testing.assert_array_equal(figure_spec("q", result, SEL).data()["q"], t["q", 1][:, 1])
    for name in COMPOSED_VIEWS:
        assert figure_spec(name, result, SEL).panels, name
    block = build_figure(result, SEL, "block", FigureStyle())
    assert len(block.plots) == 15
    np.testing.assert_array_equal(block.plots["z"].values, t["z", 1][:, 1])
    assert block.plots["pattern"].row_labels == WORDS
    block.deleteLater()


def test_npz_holds_every_name_with_config_and_tokens(result, tmp_path):
    path = export(result, SEL, ExportRequest(str(tmp_path / "t.npz")))
    with np.load(path) as npz:
        keys = set(npz.files)
        meta = json.loads(str(npz["meta"]))
        np.testing.assert_array_equal(npz["pattern/1"], result.trace["pattern", 1])
        np.testing.assert_array_equal(npz["tokens"], result.trace["tokens"])
        assert npz["logits"].shape == (6, 16)
    assert {"embed", "pos_embed", "ln_final_out", "logits", "resid_pre/0", "q/1", "attn_scores/0", "z_concat/1",
            "resid_post/1"} <= keys
    assert meta["config"]["d_model"] == 8 and meta["tokens"] == list(preset_tokens("toy"))
    assert meta["labels"] == WORDS and meta["weights"] == {"kind": "random", "seed": 3}


def test_csv_is_one_labelled_matrix(result, tmp_path):
    path = export(result, SEL, ExportRequest(str(tmp_path / "s.csv"), view="attn_scores"))
    rows = [line.split(",") for line in path.read_text().splitlines()]
    assert rows[0] == ["query i \\ key j", *WORDS] and [r[0] for r in rows[1:]] == WORDS
    assert rows[1][2] == "-inf"                                      # masked: exact, not a display value
    np.testing.assert_allclose(float(rows[6][1]), result.trace["attn_scores", 1][1][5, 0])
    with pytest.raises(ExportError, match="one matrix"):
        csv_text(result, SEL, "block")


def test_bad_requests_say_why(result, tmp_path):
    cases = [(ExportRequest(str(tmp_path / "x.svg"), width=800), "PNG files only"),
             (ExportRequest(str(tmp_path / "x.gif")), "end the file name with"),
             (ExportRequest(str(tmp_path / "x.svg"), view="nope"), "no view named 'nope'"),
             (ExportRequest(str(tmp_path / "missing" / "x.svg")), "does not exist"),
             (ExportRequest(str(tmp_path / "x.png"), width=100_000), "too large")]
    (tmp_path / "afile").write_text("")
    cases.append((ExportRequest(str(tmp_path / "afile" / "x.svg")), "is a file, not a folder"))
    for request, text in cases:
        with pytest.raises(ExportError, match=text):
            export(result, SEL, request)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_a_failed_write_leaves_no_partial_file_and_keeps_the_old_one(result, tmp_path, monkeypatch):
    target = tmp_path / "fig.svg"
    target.write_text("the old figure")

    def broken(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(ExportError, match="the disk is full"):
        export(result, SEL, ExportRequest(str(target), view="pattern"))
    assert target.read_text() == "the old figure"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.svg"]


# -- the CLI, end to end -------------------------------------------------------------------------------
def _cli(*args, cwd):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "export", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


def test_cli_writes_an_svg_of_the_asked_view(tmp_path):
    run = _cli("--preset", "toy", "--tokens", "the cat sat on the mat", "--view", "pattern", "--layer", "0",
               "--head", "1", "-o", "fig.svg", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    texts = _svg_texts(tmp_path / "fig.svg")
    assert all(w in texts for w in WORDS) and "pattern · toy · layer 0 · head 1" in texts


def test_cli_exports_a_session_to_pdf(tmp_path):
    inputs = Inputs(config=preset_config("toy"), tokens=(5, 6, 3, 0, 10), seed=2)
    sel = Selection(layer=1, head=0, query=4, station="scores", colormap="cividis")
    (tmp_path / "talk.qkvlab").write_text(json.dumps(session_dict(inputs, sel, ["a", "dog", "on", "the", "red"])))
    run = _cli("--session", "talk.qkvlab", "--view", "attn_scores", "-o", "fig.pdf", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "fig.pdf").read_bytes().startswith(b"%PDF")
    assert "layer 1, head 0, T=5" in run.stdout


def test_cli_bad_arguments_exit_2_with_usage_and_write_nothing(tmp_path):
    run = _cli("--view", "nope", "-o", "fig.svg", cwd=tmp_path)
    assert run.returncode == 2 and "usage: qkv-lab export" in run.stderr and "no view named 'nope'" in run.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_unwritable_path_exits_1_and_leaves_no_file(tmp_path):
    run = _cli("--view", "pattern", "-o", str(tmp_path / "no" / "such" / "fig.pdf"), cwd=tmp_path)
    assert run.returncode == 1 and "cannot write" in run.stderr and "does not exist" in run.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, text", [
    (["--layer", "9", "-o", "f.svg"], "this model has layers 0..1"),
    (["--tokens", "the zebra", "-o", "f.svg"], "zebra"),
    (["-o", "f.txt"], "end the file name with"),
    (["--view", "block", "-o", "f.csv"], "one matrix"),
    (["--width", "300", "-o", "f.pdf"], "for PNG files"),
    (["--preset", "gpt9", "-o", "f.svg"], "invalid choice"),
    (["--size", "big", "-o", "f.svg"], "WIDTHxHEIGHT"),
    (["--view", "pattern"], "-o/--output"),
])
def test_cli_argument_errors_in_process(args, text, capsys, tmp_path, monkeypatch):
    import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main.main(["export", *args])
    assert exit_info.value.code == 2
    assert text in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_cli_help_lists_the_view_names(capsys):
    import main

    with pytest.raises(SystemExit) as exit_info:
        main.main(["export", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for name in ("embed", "ln1", "W_Q", "attn_scores_raw", "attn_scores_scaled", "pattern", "z_concat", "attn_out",
                 "mlp_out", "logits", "block", "all_heads", "scores"):
        assert name in out


def test_the_window_exports_what_is_on_screen_through_the_dialog(qtbot, window, tmp_path, monkeypatch, settings):
    from PySide6.QtWidgets import QDialog, QFileDialog

    from widgets.export_dialog import ExportDialog

    win = window
    win.state.select(station="softmax", head=1)
    chosen = {}

    def fake_exec(dialog):
        chosen["view"] = dialog.view.currentData()                   # the station's own figure
        dialog.format.setCurrentIndex(dialog.format.findData(".png"))
        dialog.width.setValue(900)
        dialog.sequential.setCurrentIndex(dialog.sequential.findData("cividis"))
        assert dialog.preview.plots["pattern"].cmap.name == "cividis"   # the preview follows
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ExportDialog, "exec", fake_exec)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "row"), ""))
    assert win.file_actions.export_dialog()
    assert chosen["view"] == "softmax"
    assert QImage(str(tmp_path / "row.png")).width() == 900
    assert "Exported row.png" in win.messages.text
    assert settings.export_defaults()["sequential"] == "cividis"     # remembered for next time
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "nope" / "x.npz"), ""))
    assert not win.file_actions.export_npz()
    assert "Export failed" in win.messages.text and "does not exist" in win.messages.text


def test_export_with_no_tokens_is_a_usage_error():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--tokens", "", "--view", "softmax",
                          "-o", "/tmp/qkv-empty.svg"], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert run.returncode == 2 and "at least one token" in run.stderr


def test_export_waits_for_the_views_to_show_the_last_change(qtbot, window, tmp_path):
    s = window.state
    s.set_config(n_layers=3)
    s.select(layer=2)
    if s.busy:                                                     # usually: the compute is running
        assert not window.file_actions.export_to(tmp_path / "f.png", "pattern")
        assert "Still computing" in window.messages.text and not (tmp_path / "f.png").exists()
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert window.file_actions.export_to(tmp_path / "f.png", "pattern")


# -- the LLaMA family: its own names in every format ------------------------------------------------------
FAMILY = preset_config("toy").replace(norm="rmsnorm", positions="rope", n_kv_heads=1, mlp="swiglu",
                                      tied_embeddings=False, attn_bias=False, mlp_bias=False, windows=(None, 3))


@pytest.fixture(scope="module")
def family(qapp):
    return headless_result(Inputs(config=FAMILY, tokens=preset_tokens("toy"), seed=5, backend="reference"))


def test_npz_of_a_family_model_holds_its_own_names(family, tmp_path):
    path = export(family, SEL, ExportRequest(str(tmp_path / "llama.npz")))
    t = family.trace
    with np.load(path) as npz:
        keys = set(npz.files) - {"meta"}
        for layer in range(FAMILY.n_layers):
            for name in ("ln1_scale", "rot_q", "rot_k", "mlp_pre_linear", "k"):
                np.testing.assert_array_equal(npz[f"{name}/{layer}"], t[name, layer])
        meta = json.loads(str(npz["meta"]))
    expected = set(t.global_names) | {f"{n}/{layer}" for layer in range(FAMILY.n_layers) for n in t.layer_names}
    assert keys == expected and "pos_embed" not in keys and "ln1_mean/0" not in keys
    assert meta["config"]["norm"] == "rmsnorm" and meta["config"]["windows"] == [None, 3]


def test_csv_of_a_family_name_and_of_a_name_it_lacks(family, tmp_path):
    path = export(family, SEL, ExportRequest(str(tmp_path / "rot.csv"), view="rot_q"))
    rows = [line.split(",") for line in path.read_text().splitlines()]
    np.testing.assert_allclose([float(x) for x in rows[3][1:]], family.trace["rot_q", 1][2, 1])
    with pytest.raises(ExportError, match="RMSNorm"):
        export(family, SEL, ExportRequest(str(tmp_path / "mean.csv"), view="ln1_mean"))
    assert not (tmp_path / "mean.csv").exists()


@pytest.mark.parametrize("view", ["embeddings", "layernorm", "projections", "scores", "mlp", "pos_embed"])
def test_figures_of_a_family_model_say_what_it_lacks(family, tmp_path, view):
    path = export(family, SEL, ExportRequest(str(tmp_path / f"{view}.svg"), view=view))
    texts = " ".join(_svg_texts(path))
    if view in ("embeddings", "pos_embed"):
        assert "no learned position" in texts                       # the reason, where W_pos would be
    if view == "projections":
        assert "rot_q[:, 1] = RoPE(q)" in texts and "k[:, 0]" in texts   # head 1 reads K/V head 0
    if view == "mlp":
        assert "SiLU(gate) ⊙ up" in texts and "W_out" in texts and "mlp_pre (gate)" in texts


def test_the_app_and_the_export_start_from_the_same_colour_maps():
    from app.values import Selection
    from main import export_parser
    from widgets.figure import FigureStyle
    from widgets.theme import DEFAULT_DIVERGING, DEFAULT_SEQUENTIAL, colormap

    args = export_parser().parse_args(["-o", "x.png"])
    assert (Selection().colormap, Selection().diverging) == (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING)
    assert (FigureStyle().sequential, FigureStyle().diverging) == (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING)
    assert (args.cmap, args.diverging) == (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING)
    for name in (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING):      # a true white / dark at zero
        zero = 0.0 if name == DEFAULT_SEQUENTIAL else 0.5
        assert tuple(colormap(name).map(np.array([zero]), mode="byte")[0][:3]) == (255, 255, 255)
        assert max(colormap(name, dark=True).map(np.array([zero]), mode="byte")[0][:3]) < 40


def test_query_key_and_selection_colours_are_in_no_colour_map():
    from widgets.theme import COLORMAPS, CONTRAST_DARK, CONTRAST_LIGHT, DARK, LIGHT, colormap

    def rgb(hex_colour):
        return np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)], float)

    for pal in (LIGHT, DARK, CONTRAST_LIGHT, CONTRAST_DARK):
        assert pal.query != pal.key
        for name in COLORMAPS:
            for dark in (False, True):
                lut = colormap(name, dark).getLookupTable(nPts=256, alpha=False).astype(float)   # [256, 3]
                for colour in (pal.query, pal.key):
                    assert np.abs(lut - rgb(colour)).sum(axis=1).min() > 60, (name, dark, colour)


def test_the_dialog_starts_from_the_windows_maps_and_the_typed_suffix_chooses_the_format(
        qtbot, window, tmp_path, monkeypatch):
    """The dialog offered viridis and blue-white-gold (the window and the CLI: blues, red-blue), and
    'fig.svg' typed with PNG chosen failed: "width and DPI apply to PNG files only"."""
    from PySide6.QtWidgets import QDialog, QFileDialog

    from widgets.export_dialog import ExportDialog
    from widgets.theme import DEFAULT_DIVERGING, DEFAULT_SEQUENTIAL

    win = window
    seen = {}

    def fake_exec(dialog):
        seen["maps"] = (dialog.sequential.currentData(), dialog.diverging.currentData())
        dialog.format.setCurrentIndex(dialog.format.findData(".png"))
        dialog.width.setValue(900)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ExportDialog, "exec", fake_exec)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "fig.svg"), ""))
    assert win.file_actions.export_dialog(), win.messages.text
    assert seen["maps"] == (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING) == (win.state.selection.colormap,
                                                                      win.state.selection.diverging)
    assert (tmp_path / "fig.svg").read_bytes().lstrip().startswith((b"<?xml", b"<svg"))
    assert "Exported fig.svg" in win.messages.text and not (tmp_path / "fig.svg.png").exists()
    win.state.select(colormap="cividis")                               # the window's maps now
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "fig.pdf"), ""))
    assert win.file_actions.export_dialog()
    assert seen["maps"][0] == "cividis" and (tmp_path / "fig.pdf").read_bytes().startswith(b"%PDF")


# -- a mixture of experts: the MLP station shows the router ----------------------------------------------
MOE = FAMILY.replace(n_experts=4, experts_per_token=2)


def test_a_mixture_of_experts_shows_its_router_in_the_mlp_station_and_figure(qapp, tmp_path):
    from widgets.views import panel, station_view

    result = headless_result(Inputs(config=MOE, tokens=preset_tokens("toy"), seed=5, backend="reference"))
    slots = [s.view for s in station_view("mlp", MOE).slots]
    assert slots[:4] == ["ln2_out", "router_probs", "expert_weights", "expert_out"] and "mlp_pre" not in slots
    weights = panel("expert_weights", result, SEL)
    assert weights.values.shape == (len(preset_tokens("toy")), 4) and weights.cols == ("e0", "e1", "e2", "e3")
    assert ((weights.values > 0).sum(axis=1) == 2).all()                # each token: its top 2
    np.testing.assert_allclose(weights.values.sum(axis=1), 1.0, rtol=1e-12)
    path = export(result, SEL, ExportRequest(str(tmp_path / "mlp.svg"), view="mlp"))
    texts = " ".join(_svg_texts(path))
    assert "router_probs = softmax(router_logits)" in texts and "expert_weights: the top 2" in texts
    with pytest.raises(ExportError, match="mixture of 4 experts"):
        export(result, SEL, ExportRequest(str(tmp_path / "pre.csv"), view="mlp_pre"))
