"""Every instrument page in the page table (widgets/pages/) exports as a figure: PNG, SVG and PDF
(each page in one of the three, in turn, so the suite stays quick), drawn from the page's own
views with what the page waits for on screen computed for the figure."""
from __future__ import annotations

import pytest

from app.export import ExportRequest, export
from app.values import Inputs, Selection, compute_result, preset_config, preset_tokens
from compute.stations import INSTRUMENT_PAGES
from widgets.figure import figure_spec, view_names
from widgets.pages import page_kind

FORMATS = (".png", ".svg", ".pdf")
MAGIC = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}


@pytest.fixture(scope="module")
def result():
    inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), weights="trained")
    return compute_result(inputs, request_id=3)


@pytest.mark.parametrize("i, key", list(enumerate(INSTRUMENT_PAGES)), ids=lambda v: str(v))
def test_every_instrument_page_exports_as_a_figure(qapp, tmp_path, result, i, key):
    suffix = FORMATS[i % len(FORMATS)]
    sel = Selection(station=key, layer=1, head=1, query=len(result.labels) - 1, d_k=64, lens=((1, 0), (0, 1)))
    assert key in view_names()                                 # `qkv-lab export --view <key>`, the dialog
    spec = figure_spec(key, result, sel)
    views = page_kind(key).views(result, sel, None, True)
    assert spec.panels and set(spec.data()) == set(views.data()), key     # the page's views, all of them
    path = export(result, sel, ExportRequest(str(tmp_path / f"{key}{suffix}"), view=key))
    assert path.read_bytes()[:5].startswith(MAGIC[suffix]) and path.stat().st_size > 3_000
