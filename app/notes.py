"""Scanner notes: the texts of assets/station_notes.json filled in with the current sizes.

Translations sit beside it as station_notes.<language>.json (same keys; station_notes.sv.json for
Swedish, station_notes.id.json for Indonesian), in the window's language (app/language.py). A
translation may leave notes out: those fall back to English one by one (tests/app/test_i18n.py
checks that the shipped ones leave none out and keep every {placeholder}).
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from widgets.i18n import num, tr

ASSETS = Path(__file__).resolve().parent.parent / "assets"
NOTES_FILE = ASSETS / "station_notes.json"


def language() -> str:
    """The window's language now: "en", "sv" or "id" (app/language.py installs it)."""
    from widgets.i18n import language as window_language

    return window_language()


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
    group = lambda n: num(n, ",")  # noqa: E731 - the reader's thousands separator
    return {
        "T": group(T), "T_squared": group(T * T), "d_model": group(cfg.d_model), "d_head": group(cfg.d_head),
        "n_heads": group(cfg.n_heads), "d_concat": group(cfg.d_concat), "d_mlp": group(cfg.d_mlp),
        "d_vocab": group(cfg.d_vocab), "n_ctx": group(cfg.n_ctx), "n_layers": group(cfg.n_layers),
        "sqrt_d_head": num(math.sqrt(cfg.d_head), ".3g"), "query": str(selection.query),
        "layer": str(selection.layer), "head": str(selection.head),
        "n_kv_heads": group(cfg.n_kv_heads), "n_groups": group(cfg.n_groups), "norm_eps": f"{cfg.norm_eps:.3g}",
        "rope_theta": num(cfg.rope_theta, ",g") if cfg.components.positions.rotates else "—",
        "rotary_dim": str(cfg.rotary_dim) if cfg.rotary_dim is not None else "—",
        "window": group(cfg.window(min(selection.layer, cfg.n_layers - 1)) or 0),
        "n_experts": group(cfg.n_experts), "experts_per_token": group(cfg.experts_per_token),
        "scale": num(cfg.components.attention.scale, ".3g"),
        "attn_softcap": num(cfg.attn_softcap, "g") if cfg.attn_softcap is not None else "—",
        "final_softcap": num(cfg.final_softcap, "g") if cfg.final_softcap is not None else "—",
    }


def note_for(station: str, inputs, selection) -> dict | None:
    """The station's note for this model: a family's own ("layernorm:rmsnorm", "scores:window"
    when the selected layer has a window, ...) where the notes have one, else the GPT-2 one."""
    from widgets.views import FAMILY

    notes = load(lang=language())
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
    shapes_now, try_it = tr("Shapes now"), tr("Try")          # outside the f-string: lupdate reads tr() there
    return (f"<h3>{note['title']}</h3>{fill(note['body'])}"
            f"<p><b>{shapes_now}</b><br>{fill(note['shapes'])}</p>"
            f"<p><b>{try_it}</b> {fill(note['try'])}</p>")
