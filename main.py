"""QKV Lab: watch attention happen.

    python main.py                 # the lab window
    python main.py --smoke         # start, compute and draw once, quit (CI)
"""
from __future__ import annotations

import argparse
import sys


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="qkv-lab", description="Watch attention happen in a GPT-2 block.")
    ap.add_argument("--smoke", action="store_true", help="draw the first full view, then quit (exit 0)")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

    from compute import PRESETS, Weights, forward, toy_tokenizer

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("QKV Lab")
    cfg = PRESETS["toy"]
    tok = toy_tokenizer()
    ids = tok.encode("the cat sat on the mat")
    trace = forward(cfg, Weights.random(cfg, 0), ids)
    rows = "\n".join(f"{tok.label(t):>4}  " + " ".join(f"{p:4.2f}" for p in row)
                     for t, row in zip(ids, trace["pattern", 0][0]))
    window = QMainWindow()
    window.setWindowTitle("QKV Lab")
    label = QLabel(f"pattern, layer 0, head 0 ({trace.summary()})\n\n{rows}")
    label.setStyleSheet("font-family: monospace; font-size: 16px; padding: 24px;")
    window.setCentralWidget(label)
    window.show()
    if args.smoke:
        QTimer.singleShot(0, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
