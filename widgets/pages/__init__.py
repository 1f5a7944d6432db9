"""The instrument pages, one row each: what a page shows (its views, in the one vocabulary of panels
and charts: `PageViews`), the widget that shows it on screen (built on first show), and the words
that describe its figure.

compute/stations.py's PAGE_TABLE holds a page's key, title, short name and what it depends on;
this table adds what widgets need; app/pages/ adds each page's controller (what it asks LabState
and compute). The station bar, the menus, `--station`, `qkv-lab export --view`, the export dialog,
sessions and notes read those tables; nothing else names a page.

A page's row lives in its own module, `widgets/pages/<key>.py` (`PAGES = (PageKind(...),)`); the
older pages share a module (`MODULES`). Adding a page: docs/CONTRIBUTING.md, "Adding an
instrument page".
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import import_module

from compute.stations import INSTRUMENT_PAGES


@dataclass(frozen=True)
class PageKind:
    key: str                       # compute.stations.PAGE's key
    widget: Callable               # () -> the page's widget (a ModernPage for new pages), built on first show
    views: Callable                # (result, sel, extra=None, compute_missing=False) -> PageViews: what it shows
    words: str                     # its figure in words (QT_TR_NOOP; English for `qkv-lab export --help`)


# Pages that share a module (the older ones); any other page's module is named after its key.
MODULES: dict[str, str] = {
    "head_lens": "classic", "mask": "classic", "sqrt_dk": "classic", "kv_cache": "classic",
    "rope": "modern", "shared_kv": "modern", "windows": "modern", "tiled_softmax": "modern", "ab": "modern",
    "knockout": "circuit_pages", "score_parts": "circuit_pages", "head_finder": "circuit_pages",
}


@cache
def page_kind(key: str) -> PageKind:
    """The row of instrument page `key` (KeyError for a key that is no instrument page)."""
    if key not in INSTRUMENT_PAGES:
        raise KeyError(key)
    module = import_module(f"{__name__}.{MODULES.get(key, key)}")
    return {p.key: p for p in module.PAGES}[key]


def page_kinds() -> tuple[PageKind, ...]:
    """Every instrument page's row, in the page table's order."""
    return tuple(page_kind(k) for k in INSTRUMENT_PAGES)


def page_views(key: str, result, sel, extra=None, compute_missing: bool = False):
    """The views of instrument page `key` for this result and selection (its figure draws these)."""
    return page_kind(key).views(result, sel, extra, compute_missing)
