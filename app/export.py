"""Export: a view or composed figure to PNG / SVG / PDF, the Trace to NPZ, one matrix to CSV.

Used by the window's File ▸ Export menu and by `qkv-lab export` (headless). Everything is written
to a temporary file next to the target and renamed into place, so a failure never leaves a
partial file and never clobbers an existing one. Problems raise `ExportError` with a message
meant for the user.

NPZ layout (`numpy.load(path)`): per-layer Trace names as "name/layer" ("pattern/0" is
[n_heads, T, T] of layer 0), whole-model names as they are ("tokens", "embed", "logits"), and
"meta" (a JSON string: format, config, tokens, labels, weights reference, backend, dtype,
selection, names). CSV: one matrix with the token (or index) labels as the first row and column.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import numbers
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import shiboken6
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF, Qt
from PySide6.QtGui import QFontInfo, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator

from compute import safe_io
from widgets.figure import FigureStyle, FigureWidget, canonical, figure_spec, is_single, natural_size, view_names
from widgets.i18n import source_text

FIGURE_FORMATS = (".png", ".svg", ".pdf")
DATA_FORMATS = (".npz", ".csv")
FORMATS = FIGURE_FORMATS + DATA_FORMATS
NPZ_FORMAT = "qkv-lab-trace"
NPZ_VERSION = 1
# logits are [T, d_vocab]: at T=1024 with a real vocabulary that is 200 MB and 79 GFLOP.
MAX_LOGITS_ELEMENTS = 1 << 25
MAX_PNG_PIXELS = 20_000                     # longest side
SCREEN_DPI = 96                             # logical px per inch of a figure


class ExportError(Exception):
    """A problem the user can fix (bad path, unknown view, wrong format); the message says which."""


# -- names -------------------------------------------------------------------------------------------
def format_of(path: str | os.PathLike) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise ExportError(f"the file name must be text, not {type(path).__name__}")
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(f"cannot tell the format of {str(path)!r}: end the file name with one of "
                          f"{', '.join(FORMATS)}")
    return suffix


def check_view(view: str) -> str:
    if not isinstance(view, str):
        raise ExportError(f"the view must be a name such as 'pattern', not {type(view).__name__}")
    name = canonical(view)
    if name not in view_names():
        raise ExportError(f"no view named {view!r}; choose one of {', '.join(view_names())}")
    return name


def npz_key(name: str, layer: int | None = None) -> str:
    """The NPZ key of a Trace name: "pattern/0" for a layer, "logits" for a whole-model name."""
    return name if layer is None else f"{name}/{layer}"


# -- files ---------------------------------------------------------------------------------------------
def write_file(path: str | os.PathLike, data, check: str | None = None) -> Path:
    """The project's one writer (compute.safe_io.write_file): temporary file, fsync, format check,
    rename; a problem becomes ExportError with the real cause and the old file stays as it was."""
    try:
        return safe_io.write_file(path, data, check=check)
    except safe_io.FileError as exc:
        raise ExportError(str(exc)) from None


# -- figures ----------------------------------------------------------------------------------------
def build_figure(result, sel, view: str, style: FigureStyle, size: tuple[int, int] | None = None) -> FigureWidget:
    """A laid-out, never-shown FigureWidget of the view, ready to render."""
    from PySide6.QtWidgets import QApplication

    spec = figure_spec(check_view(view), result, sel)
    widget = FigureWidget()
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    widget.show_figure(spec, style)
    w, h = size or natural_size(spec, style)
    widget.resize(int(w), int(h))
    widget.show()
    # Axes size themselves from the text they drew last: paint once, let the layout settle.
    for _ in range(2):
        QApplication.processEvents()
        widget.grab()
    QApplication.processEvents()
    return widget


def _render(widget, painter: QPainter) -> None:
    widget.render(painter)


class _Buffer:
    """A QBuffer to render into; `bytes()` is what Qt wrote (Qt's own file writers ignore write
    errors, so figures are made in memory and written by the one checked writer)."""

    def __init__(self):
        self.array = QByteArray()
        self.device = QBuffer(self.array)
        self.device.open(QIODevice.OpenModeFlag.WriteOnly)

    def bytes(self) -> bytes:
        self.device.close()
        return bytes(self.array.data())


def png_bytes(widget, width: int | None = None, dpi: float | None = None) -> bytes:
    w, h = widget.width(), widget.height()
    if width is not None and dpi is not None:
        raise ExportError("give either a width or a DPI for a PNG, not both")
    scale = (width / w) if width else ((dpi / SCREEN_DPI) if dpi else 2.0)
    px_w, px_h = max(1, round(w * scale)), max(1, round(h * scale))
    if max(px_w, px_h) > MAX_PNG_PIXELS:
        raise ExportError(f"a {px_w}×{px_h} PNG is too large (at most {MAX_PNG_PIXELS} px a side); "
                          "choose a smaller width or DPI")
    image = QImage(px_w, px_h, QImage.Format.Format_ARGB32)
    image.fill(widget.backgroundBrush().color())
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    # The scene, not the widget: QWidget.render clips a scaled painter to the logical size.
    source = widget.mapToScene(widget.viewport().rect()).boundingRect()
    with widget.rendering_at(px_w / w):
        widget.scene().render(painter, QRectF(0, 0, px_w, px_h), source)
    painter.end()
    effective_dpi = dpi if dpi else SCREEN_DPI * px_w / w
    dots_per_metre = round(effective_dpi / 0.0254)
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    buffer = _Buffer()
    if not image.save(buffer.device, "PNG"):
        raise ExportError("Qt could not encode the PNG")
    return buffer.bytes()


def svg_bytes(widget, title: str = "") -> bytes:
    # pyqtgraph's SVGExporter fails on Qt >= 6.11; this recipe keeps text as text (docs/ARCHITECTURE.md section 9).
    buffer = _Buffer()
    gen = QSvgGenerator()
    gen.setOutputDevice(buffer.device)
    gen.setResolution(int(widget.logicalDpiX()))
    gen.setSize(widget.size())
    gen.setViewBox(widget.rect())
    gen.setTitle(title)
    gen.setDescription("QKV Lab figure")
    painter = QPainter()
    if not painter.begin(gen):
        raise ExportError("Qt could not start the SVG")
    _render(widget, painter)
    painter.end()
    # Qt writes its generic family name ("Sans Serif"), which no browser knows: name the font
    # actually used, then common fallbacks, so the text keeps its look (and stays text).
    text = buffer.bytes().decode("utf-8")
    family = QFontInfo(widget.font()).family()
    fallbacks = f"'{family}', 'DejaVu Sans', Helvetica, Arial, sans-serif"
    text = re.sub(r'font-family="([^"]*)"', lambda m: f'font-family="{fallbacks}"', text)
    return text.encode("utf-8")


def pdf_bytes(widget, title: str = "") -> bytes:
    # Vector PDF: resolution 96 so one logical px is one device unit; page = figure, no margins.
    buffer = _Buffer()
    writer = QPdfWriter(buffer.device)
    writer.setResolution(SCREEN_DPI)
    writer.setTitle(title)
    writer.setCreator("QKV Lab")
    points = QSizeF(widget.width() * 72.0 / SCREEN_DPI, widget.height() * 72.0 / SCREEN_DPI)
    page = QPageSize(points, QPageSize.Unit.Point, "figure", QPageSize.SizeMatchPolicy.ExactMatch)
    writer.setPageLayout(QPageLayout(page,
                                     QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    painter = QPainter()
    if not painter.begin(writer):
        raise ExportError("Qt could not start the PDF")
    _render(widget, painter)
    painter.end()
    del painter, writer                         # the writer finishes the file when it goes
    return buffer.bytes()


# -- data -----------------------------------------------------------------------------------------
def weights_reference(inputs) -> dict:
    """How to get the weights again: {"kind": "random", "seed": 0}, or a file with its sha256."""
    from .session import weights_reference as ref

    return ref(inputs)


def npz_arrays(result, sel=None, include_logits: bool | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """Every Trace name as an NPZ key, and the metadata dict."""
    trace, inputs = result.trace, result.inputs
    cfg = inputs.config
    arrays: dict[str, np.ndarray] = {}
    notes = []
    for name in trace.global_names:              # the names this model has (no pos_embed with RoPE)
        if name == "logits":
            big = trace.T * cfg.d_vocab > MAX_LOGITS_ELEMENTS
            if include_logits is False or (include_logits is None and big):
                notes.append(f"logits omitted ([{trace.T}, {cfg.d_vocab}] is too large); "
                             f"recompute them as ln_final_out @ {'W_E.T' if cfg.tied_embeddings else 'W_U'}")
                continue
        arrays[npz_key(name)] = np.asarray(trace[name])
    for layer in range(cfg.n_layers):
        for name in trace.layer_names:           # e.g. ln1_scale, rot_q, mlp_pre_linear for LLaMA
            arrays[npz_key(name, layer)] = np.asarray(trace[name, layer])
    meta = {
        "format": NPZ_FORMAT, "version": NPZ_VERSION,
        "key_format": "per-layer names are 'name/layer' (e.g. 'pattern/0'); whole-model names have no layer",
        "config": cfg.to_dict(), "preset": inputs.preset,
        "tokens": [int(t) for t in inputs.tokens], "labels": list(result.labels),
        "weights": weights_reference(inputs), "backend": trace.backend_label, "dtype": str(trace.dtype),
        "names": sorted(arrays), "notes": notes,
    }
    if sel is not None:
        meta["selection"] = {"layer": sel.layer, "head": sel.head, "query": sel.query}
    return arrays, meta


def npz_writer(result, sel) -> Callable[[BinaryIO], None]:
    """Writes the NPZ to a file object (the writer's temporary file: numpy streams it)."""
    arrays, meta = npz_arrays(result, sel)
    arrays = {**arrays, "meta": np.array(json.dumps(meta))}
    return lambda fh: np.savez_compressed(fh, **arrays)


def csv_text(result, sel, view: str) -> str:
    view = check_view(view)
    if not is_single(view):
        raise ExportError(f"a CSV file holds one matrix; {view!r} is a composed figure. "
                          f"Choose a single view such as pattern, attn_scores or q")
    with source_text():                          # data for programs: the English axis names, whatever the language
        panel = figure_spec(view, result, sel).panels[0]
    if panel.missing:
        raise ExportError(panel.missing)        # a name this model lacks: why, not an empty file
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    corner = f"{panel.row_axis or 'row'} \\ {panel.col_axis or 'column'}"
    out.writerow([corner, *panel.cols])
    # str() of a numpy scalar is the shortest text that reads back to the same float32/float64.
    for label, row in zip(panel.rows, np.asarray(panel.values), strict=True):
        out.writerow([label, *(str(x) if np.isfinite(x) else ("-inf" if x < 0 else "inf" if x > 0 else "nan")
                               for x in row)])
    return buf.getvalue()


# -- one entry point ---------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ExportRequest:
    path: str
    view: str = "pattern"
    style: FigureStyle = FigureStyle()
    width: int | None = None                # PNG: pixel width
    dpi: float | None = None                # PNG: dots per inch (figure size at 96 px per inch)
    size: tuple[int, int] | None = None     # figure size in logical px (default: suits the view)


def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_request(request: ExportRequest) -> str:
    """Every argument of a request checked, whatever its type (the CLI calls this to exit 2 before
    computing; the API raises the same ExportError). Returns the format's suffix."""
    if not isinstance(request.path, (str, os.PathLike)):
        raise ExportError(f"the file name must be text, not {type(request.path).__name__}")
    suffix = format_of(request.path)
    if not isinstance(request.view, str):
        raise ExportError(f"the view must be a name such as 'pattern', not {type(request.view).__name__}")
    if not isinstance(request.style, FigureStyle):
        raise ExportError("the style must be a FigureStyle")
    width, dpi, size = request.width, request.dpi, request.size
    if width is not None and not _whole(width):
        raise ExportError(f"width {width!r}: give the PNG width as a whole number of pixels")
    if width is not None and width < 16:
        raise ExportError(f"width {width} px is too small (at least 16)")
    if width is not None and width > MAX_PNG_PIXELS:
        raise ExportError(f"a {width} px wide PNG is too large (at most {MAX_PNG_PIXELS} px a side)")
    if dpi is not None and not (isinstance(dpi, numbers.Real) and not isinstance(dpi, bool)
                                and math.isfinite(dpi) and 10 <= dpi <= 2400):
        raise ExportError(f"{dpi!r} DPI is out of range (a number from 10 to 2400)")
    if size is not None and not (isinstance(size, (tuple, list)) and len(size) == 2 and all(map(_whole, size))
                                 and all(50 <= v <= 10_000 for v in size)):
        shown = "×".join(map(str, size)) if isinstance(size, (tuple, list)) else repr(size)
        raise ExportError(f"figure size {shown} px is out of range (two whole numbers from 50 to 10000)")
    if (width is not None or dpi is not None) and suffix != ".png":
        raise ExportError("width and DPI apply to PNG files only; SVG and PDF are vector (use the figure size)")
    if width is not None and dpi is not None:
        raise ExportError("give either a width or a DPI for a PNG, not both")
    return suffix


def export(result, sel, request: ExportRequest) -> Path:
    """Write one export; the format comes from the file's suffix. Raises ExportError."""
    if result is None:
        raise ExportError("nothing to export yet: the first computation has not finished")
    if result.trace.T == 0:
        raise ExportError("there are no tokens to draw: add at least one")
    suffix = check_request(request)
    try:
        safe_io.check_target(request.path)           # before any drawing: say it at once
    except safe_io.FileError as exc:
        raise ExportError(str(exc)) from None
    if suffix == ".npz":
        return write_file(request.path, npz_writer(result, sel))
    if suffix == ".csv":
        return write_file(request.path, csv_text(result, sel, request.view))
    view = check_view(request.view)
    widget = build_figure(result, sel, view, request.style, request.size)
    try:
        title = widget.spec.title
        if suffix == ".png":
            data = png_bytes(widget, request.width, request.dpi)
        elif suffix == ".svg":
            data = svg_bytes(widget, title)
        else:
            data = pdf_bytes(widget, title)
    finally:
        widget.hide()
        shiboken6.delete(widget)        # now, not at interpreter exit (the CLI has no event loop)
    return write_file(request.path, data)


# -- headless results (the CLI) -------------------------------------------------------------------------
def headless_result(inputs, registry: dict | None = None):
    """Compute a LabResult synchronously, without LabState or a window (qkv-lab export); weights
    already in memory (`registry`, e.g. a model opened by --model) are used as they are."""
    from .values import compute_result

    return compute_result(inputs, registry)


__all__ = ["DATA_FORMATS", "ExportError", "ExportRequest", "FIGURE_FORMATS", "FORMATS", "build_figure", "csv_text",
           "check_request", "export", "format_of", "headless_result", "npz_arrays", "npz_key", "npz_writer",
           "pdf_bytes", "png_bytes", "svg_bytes", "write_file"]
