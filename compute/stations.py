"""The pages of the lab, once: the eight stations of a block in the order it computes them, then
the instrument pages that share the central area. Everything that names a station (the window's
bar and menus, the code view's source map, sessions, the CLI, the figures) reads this table.

An instrument page's widgets and views are its row in widgets/pages/, its controller
app/pages/<key>.py (docs/ARCHITECTURE.md, "Pages"). Titles are English source text, marked for
`pyside6-lupdate` (compute/i18n.py: no Qt here); the UI
translates them where it shows them (widgets.i18n.page_title and page_short).
"""
from __future__ import annotations

from dataclasses import dataclass

from .i18n import QT_TRANSLATE_NOOP


@dataclass(frozen=True)
class Page:
    key: str                  # the name in sessions, the CLI (--station) and the code
    title: str                # the station's heading, menus
    short: str                # the station bar's button
    kind: str = "station"     # "station" (a step of the block) | "instrument"
    early: bool = False       # drawn only from one layer's attention half (an early result suffices)
    layer: bool = True        # what it shows depends on the selected layer ...
    head: bool = True         # ... and on the selected head
    numbers: str = ""         # an instrument page: the compute module its numbers come from (the Code tab says it)


PAGE_TABLE: tuple[Page, ...] = (
    Page("embeddings", QT_TRANSLATE_NOOP("Page", "Embeddings"), QT_TRANSLATE_NOOP("PageShort", "Embed"),
         early=True, layer=False, head=False),
    Page("layernorm", QT_TRANSLATE_NOOP("Page", "LayerNorm"), QT_TRANSLATE_NOOP("PageShort", "LayerNorm"),
         early=True, head=False),
    Page("projections", QT_TRANSLATE_NOOP("Page", "Q · K · V"), QT_TRANSLATE_NOOP("PageShort", "Q·K·V"), early=True),
    Page("scores", QT_TRANSLATE_NOOP("Page", "Scores"), QT_TRANSLATE_NOOP("PageShort", "Scores"), early=True),
    Page("softmax", QT_TRANSLATE_NOOP("Page", "Softmax row"), QT_TRANSLATE_NOOP("PageShort", "Softmax"), early=True),
    Page("weighted_sum", QT_TRANSLATE_NOOP("Page", "Weighted V"), QT_TRANSLATE_NOOP("PageShort", "Σ p·v"), early=True),
    Page("heads", QT_TRANSLATE_NOOP("Page", "Heads → W_O"), QT_TRANSLATE_NOOP("PageShort", "Heads·W_O"), early=True),
    Page("mlp", QT_TRANSLATE_NOOP("Page", "MLP & residual"), QT_TRANSLATE_NOOP("PageShort", "MLP"), head=False),
    Page("head_lens", QT_TRANSLATE_NOOP("Page", "Head lens"), QT_TRANSLATE_NOOP("PageShort", "Head lens"),
         kind="instrument", numbers="trace"),
    Page("sqrt_dk", QT_TRANSLATE_NOOP("Page", "√d_k lab"), QT_TRANSLATE_NOOP("PageShort", "√d_k lab"),
         kind="instrument", numbers="instruments/sqrt_dk", layer=False, head=False),
    Page("mask", QT_TRANSLATE_NOOP("Page", "The mask"), QT_TRANSLATE_NOOP("PageShort", "Mask"),
         kind="instrument", numbers="instruments/explain"),
    Page("kv_cache", QT_TRANSLATE_NOOP("Page", "KV cache"), QT_TRANSLATE_NOOP("PageShort", "KV cache"),
         kind="instrument", numbers="instruments/kvcache"),
    Page("rope", QT_TRANSLATE_NOOP("Page", "RoPE lab"), QT_TRANSLATE_NOOP("PageShort", "RoPE"),
         kind="instrument", numbers="instruments/rope_lab"),
    Page("shared_kv", QT_TRANSLATE_NOOP("Page", "Shared K/V heads"), QT_TRANSLATE_NOOP("PageShort", "GQA"),
         kind="instrument", numbers="instruments/shared_kv"),
    Page("windows", QT_TRANSLATE_NOOP("Page", "Windows and sinks"), QT_TRANSLATE_NOOP("PageShort", "Windows"),
         kind="instrument", numbers="instruments/receptive"),
    Page("tiled_softmax", QT_TRANSLATE_NOOP("Page", "The tiled softmax"), QT_TRANSLATE_NOOP("PageShort", "Tiled"),
         kind="instrument", numbers="instruments/tiled_softmax"),
    Page("ab", QT_TRANSLATE_NOOP("Page", "A/B"), QT_TRANSLATE_NOOP("PageShort", "A/B"),
         kind="instrument", numbers="instruments/ab"),
    # circuits (compute/circuits.py; widgets/pages/circuit_views.py)
    Page("knockout", QT_TRANSLATE_NOOP("Page", "Knock heads out"), QT_TRANSLATE_NOOP("PageShort", "Knockout"),
         kind="instrument", numbers="circuits", layer=False, head=False),
    Page("logit_lens", QT_TRANSLATE_NOOP("Page", "Logit lens"), QT_TRANSLATE_NOOP("PageShort", "Lens"),
         kind="instrument", numbers="circuits", layer=False, head=False),
    Page("score_parts", QT_TRANSLATE_NOOP("Page", "Why this key: the score taken apart"),
         QT_TRANSLATE_NOOP("PageShort", "Why this key"), kind="instrument", numbers="circuits"),
    Page("head_finder", QT_TRANSLATE_NOOP("Page", "Head finder"), QT_TRANSLATE_NOOP("PageShort", "Head finder"),
         kind="instrument", numbers="instruments/patching", layer=False, head=False),
    Page("patching", QT_TRANSLATE_NOOP("Page", "Activation patching"), QT_TRANSLATE_NOOP("PageShort", "Patching"),
         kind="instrument", numbers="instruments/patching", layer=False, head=False),
)
PAGE: dict[str, Page] = {p.key: p for p in PAGE_TABLE}
STATIONS: tuple[str, ...] = tuple(p.key for p in PAGE_TABLE if p.kind == "station")
INSTRUMENT_PAGES: tuple[str, ...] = tuple(p.key for p in PAGE_TABLE if p.kind == "instrument")
PAGES: tuple[str, ...] = STATIONS + INSTRUMENT_PAGES
# Stations drawn only from a layer's attention half (compute.names.ATTENTION_NAMES).
EARLY_STATIONS: frozenset[str] = frozenset(p.key for p in PAGE_TABLE if p.early)
