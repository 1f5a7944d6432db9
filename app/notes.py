"""Scanner notes: the texts of assets/station_notes.json filled in with the current sizes."""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

NOTES_FILE = Path(__file__).resolve().parent.parent / "assets" / "station_notes.json"


@lru_cache(maxsize=4)
def load(path: str = str(NOTES_FILE)) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def sizes(inputs, selection) -> dict[str, str]:
    cfg = inputs.config
    T = len(inputs.tokens)
    return {
        "T": f"{T:,}", "T_squared": f"{T * T:,}", "d_model": f"{cfg.d_model:,}", "d_head": f"{cfg.d_head:,}",
        "n_heads": f"{cfg.n_heads:,}", "d_concat": f"{cfg.d_concat:,}", "d_mlp": f"{cfg.d_mlp:,}",
        "d_vocab": f"{cfg.d_vocab:,}", "n_ctx": f"{cfg.n_ctx:,}", "n_layers": f"{cfg.n_layers:,}",
        "sqrt_d_head": f"{math.sqrt(cfg.d_head):.3g}", "query": str(selection.query),
        "layer": str(selection.layer), "head": str(selection.head),
    }


def render(station: str, inputs, selection) -> str:
    note = load().get(station)
    if not note:
        return ""
    values = sizes(inputs, selection)
    fill = lambda text: text.format(**values)  # noqa: E731
    return (f"<h3>{note['title']}</h3>{fill(note['body'])}"
            f"<p><b>Shapes now</b><br>{fill(note['shapes'])}</p>"
            f"<p><b>Try</b> {fill(note['try'])}</p>")
