"""The pages of the lab, once: the eight stations of a block in the order it computes them, then
the instrument pages that share the central area. Everything that names a station (the window's
bar and menus, the code view's source map, sessions, the CLI, the figures) reads this table.

Titles are English source text; the UI translates them where it shows them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    key: str                  # the name in sessions, the CLI (--station) and the code
    title: str                # the station's heading, menus
    short: str                # the station bar's button
    kind: str = "station"     # "station" (a step of the block) | "instrument"
    early: bool = False       # drawn only from one layer's attention half (an early result suffices)
    layer: bool = True        # what it shows depends on the selected layer ...
    head: bool = True         # ... and on the selected head


PAGE_TABLE: tuple[Page, ...] = (
    Page("embeddings", "Embeddings", "Embed", early=True, layer=False, head=False),
    Page("layernorm", "LayerNorm", "LayerNorm", early=True, head=False),
    Page("projections", "Q · K · V", "Q·K·V", early=True),
    Page("scores", "Scores", "Scores", early=True),
    Page("softmax", "Softmax row", "Softmax", early=True),
    Page("weighted_sum", "Weighted V", "Σ p·v", early=True),
    Page("heads", "Heads → W_O", "Heads·W_O", early=True),
    Page("mlp", "MLP & residual", "MLP", head=False),
    Page("head_lens", "Head lens", "Head lens", kind="instrument"),
    Page("sqrt_dk", "√d_k lab", "√d_k lab", kind="instrument", layer=False, head=False),
    Page("mask", "The mask", "Mask", kind="instrument"),
    Page("kv_cache", "KV cache", "KV cache", kind="instrument"),
    Page("rope", "RoPE lab", "RoPE", kind="instrument"),
    Page("shared_kv", "Shared K/V heads", "GQA", kind="instrument"),
    Page("windows", "Windows and sinks", "Windows", kind="instrument"),
    Page("tiled_softmax", "The tiled softmax", "Tiled", kind="instrument"),
    Page("ab", "A/B", "A/B", kind="instrument"),
)
PAGE: dict[str, Page] = {p.key: p for p in PAGE_TABLE}
STATIONS: tuple[str, ...] = tuple(p.key for p in PAGE_TABLE if p.kind == "station")
INSTRUMENT_PAGES: tuple[str, ...] = tuple(p.key for p in PAGE_TABLE if p.kind == "instrument")
PAGES: tuple[str, ...] = STATIONS + INSTRUMENT_PAGES
# Stations drawn only from a layer's attention half (compute.names.ATTENTION_NAMES).
EARLY_STATIONS: frozenset[str] = frozenset(p.key for p in PAGE_TABLE if p.early)
