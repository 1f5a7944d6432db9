"""Render every station of the lab offscreen to PNGs (a quick look while developing; the real-window
check is ../shared/tools/screenshot.sh).  python tools/station_shots.py OUTDIR [--preset P] [--size WxH]"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--preset", default="toy")
    ap.add_argument("--size", default="1440x900")
    ap.add_argument("--tokens")
    ap.add_argument("--stations", default="")
    args = ap.parse_args()
    import pyqtgraph as pg
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    from app.main_window import MainWindow
    from app.state import STATIONS, LabState

    state = LabState()
    if args.preset != "toy":
        state.load_preset(args.preset)
    if args.tokens:
        state.set_text(args.tokens)
    w, h = (int(x) for x in args.size.split("x"))
    win = MainWindow(state)
    win.resize(w, h)
    win.show()
    loop = QEventLoop()
    win.rendered.connect(lambda _: loop.quit())
    state.start()
    QTimer.singleShot(120_000, loop.quit)
    loop.exec()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for key in (args.stations.split(",") if args.stations else STATIONS):
        state.select(station=key)
        app.processEvents()
        path = out / f"{args.preset}-{key}.png"
        win.grab().save(str(path))
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
