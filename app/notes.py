"""Scanner notes: the texts of assets/station_notes.json filled in with the current sizes.

Translations sit beside it as station_notes.<language>.json (same keys; e.g. station_notes.sv.json
for Swedish); the language comes from QKV_LAB_LANGUAGE or the system locale, English otherwise.
A translation may leave notes out: those fall back to English one by one.
"""
from __future__ import annotations

import json
import locale
import math
import os
from functools import lru_cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
NOTES_FILE = ASSETS / "station_notes.json"


def language() -> str:
    """Two-letter language code: QKV_LAB_LANGUAGE, else the system locale, else "en"."""
    code = os.environ.get("QKV_LAB_LANGUAGE") or (locale.getlocale()[0] or "en")
    return code.replace("-", "_").split("_")[0].lower() or "en"


@lru_cache(maxsize=8)
def load(path: str = str(NOTES_FILE), lang: str | None = None) -> dict:
    """The notes: English, overlaid by the translation for `lang` where one exists."""
    notes = json.loads(Path(path).read_text(encoding="utf-8"))
    lang = language() if lang is None else lang
    translated = Path(path).with_name(f"{Path(path).stem}.{lang}.json")
    if lang != "en" and translated.is_file():
        try:
            notes.update({k: v for k, v in json.loads(translated.read_text(encoding="utf-8")).items()
                          if isinstance(v, dict) and {"title", "body", "shapes", "try"} <= v.keys()})
        except (OSError, ValueError):
            pass                                      # a broken translation: English stays
    return notes


def sizes(inputs, selection) -> dict[str, str]:
    cfg = inputs.config
    T = len(inputs.tokens)
    return {
        "T": f"{T:,}", "T_squared": f"{T * T:,}", "d_model": f"{cfg.d_model:,}", "d_head": f"{cfg.d_head:,}",
        "n_heads": f"{cfg.n_heads:,}", "d_concat": f"{cfg.d_concat:,}", "d_mlp": f"{cfg.d_mlp:,}",
        "d_vocab": f"{cfg.d_vocab:,}", "n_ctx": f"{cfg.n_ctx:,}", "n_layers": f"{cfg.n_layers:,}",
        "sqrt_d_head": f"{math.sqrt(cfg.d_head):.3g}", "query": str(selection.query),
        "layer": str(selection.layer), "head": str(selection.head),
        "n_kv_heads": f"{cfg.n_kv_heads:,}", "n_groups": f"{cfg.n_groups:,}", "norm_eps": f"{cfg.norm_eps:.3g}",
        "rope_theta": f"{cfg.rope_theta:,g}" if cfg.positions == "rope" else "—",
        "rotary_dim": str(cfg.rotary_dim) if cfg.rotary_dim is not None else "—",
        "window": f"{cfg.window(min(selection.layer, cfg.n_layers - 1)) or 0:,}",
    }


def note_for(station: str, inputs, selection) -> dict | None:
    """The station's note for this model: a family's own ("layernorm:rmsnorm", "scores:window"
    when the selected layer has a window, ...) where the notes have one, else the GPT-2 one."""
    from widgets.views import FAMILY

    notes = load()
    cfg = inputs.config
    layer = min(selection.layer, cfg.n_layers - 1)
    holds = {**FAMILY, "window": lambda c: c.window(layer) is not None}
    for key, note in notes.items():
        base, _, cond = key.partition(":")
        if base == station and cond in holds and holds[cond](cfg):
            return note
    return notes.get(station)


def render(station: str, inputs, selection) -> str:
    note = note_for(station, inputs, selection)
    if not note:
        return ""
    values = sizes(inputs, selection)
    fill = lambda text: text.format(**values)  # noqa: E731
    return (f"<h3>{note['title']}</h3>{fill(note['body'])}"
            f"<p><b>Shapes now</b><br>{fill(note['shapes'])}</p>"
            f"<p><b>Try</b> {fill(note['try'])}</p>")
