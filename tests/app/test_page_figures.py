"""Every instrument page in the page table (widgets/pages/) exports as a figure in PNG, SVG and PDF,
drawn from the page's own views with what the page waits for on screen computed for the figure.
Each page's figure is built once and written in all three formats (building it is most of the
time); the one entry point (`export`, the dialog's and the CLI's), which adds only page-independent
checks and the writer, runs end to end for the first pages, one format each."""
from __future__ import annotations

import pytest
import shiboken6

from app.export import ExportRequest, build_figure, export, pdf_bytes, png_bytes, svg_bytes
from app.values import Inputs, Selection, compute_result, preset_config, preset_tokens
from compute.stations import INSTRUMENT_PAGES
from widgets.figure import FigureStyle, view_names
from widgets.pages import page_kind

FORMATS = (".png", ".svg", ".pdf")
MAGIC = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}
WRITERS = {".png": lambda w: png_bytes(w), ".svg": lambda w: svg_bytes(w, w.spec.title),
           ".pdf": lambda w: pdf_bytes(w, w.spec.title)}


@pytest.fixture(scope="module")
def result():
    inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), weights="trained")
    return compute_result(inputs, request_id=3)


@pytest.mark.parametrize("i, key", list(enumerate(INSTRUMENT_PAGES)), ids=lambda v: str(v))
def test_every_instrument_page_exports_as_a_figure(qapp, tmp_path, result, i, key):
    sel = Selection(station=key, layer=1, head=1, query=len(result.labels) - 1, d_k=64, lens=((1, 0), (0, 1)))
    assert key in view_names()                                 # `qkv-lab export --view <key>`, the dialog
    views = page_kind(key).views(result, sel, None, True)
    widget = build_figure(result, sel, key, FigureStyle())     # what `export` draws
    try:
        assert widget.spec.panels and set(widget.spec.data()) == set(views.data()), key   # all the page's views
        for suffix in FORMATS:
            data = WRITERS[suffix](widget)
            assert data[:5].startswith(MAGIC[suffix]) and len(data) > 3_000, (key, suffix)
    finally:
        widget.hide()
        shiboken6.delete(widget)
    if i >= len(FORMATS):
        return
    suffix = FORMATS[i]
    path = export(result, sel, ExportRequest(str(tmp_path / f"{key}{suffix}"), view=key))
    assert path.read_bytes()[:5].startswith(MAGIC[suffix]) and path.stat().st_size > 3_000
