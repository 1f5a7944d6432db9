"""The UI thread while a large compute runs: a 16 ms heartbeat's gaps, against the same heartbeat idle.

    python -m benchmarks.responsiveness                    # andrea-120m, 12 layers, T=512
    python -m benchmarks.responsiveness --repeat 3 --json out.json

Runs offscreen in a real window. A QTimer set to 16 ms records when it fires while the lab is busy
computing andrea-120m at T = 512 (12 blocks, seconds of work off the UI thread); the peer, in the
same run and process, is the same timer with the window idle for as long. Reported per repeat: the
number of beats, the largest and the median gap, and the ratio busy / idle of the largest gap. A UI
thread that computed would show one gap as long as the whole pass. (This was a unit test with a
100 ms bound; on a loaded 2-core machine the largest gap reached 241 ms, so it is measured here.)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--T", type=int, default=512)
    ap.add_argument("--json")
    args = ap.parse_args(argv)

    import pyqtgraph as pg
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    from app.main_window import MainWindow
    from app.state import LabState

    state = LabState()
    win = MainWindow(state)
    win.resize(1440, 900)
    win.show()

    def settle():
        loop = QEventLoop()
        conn = state.busyChanged.connect(lambda busy: loop.quit() if not busy else None)
        QTimer.singleShot(300_000, loop.quit)
        if state.busy:
            loop.exec()
        state.busyChanged.disconnect(conn)

    def heartbeat(action, seconds=None) -> list[float]:
        """Gaps (ms) of a 16 ms timer while `action`'s compute runs (or for `seconds`, idle)."""
        beats: list[float] = []
        timer = QTimer()
        timer.setInterval(16)
        timer.timeout.connect(lambda: beats.append(time.perf_counter()))
        timer.start()
        if action is not None:
            action()
            settle()
        else:
            loop = QEventLoop()
            QTimer.singleShot(int(seconds * 1e3), loop.quit)
            loop.exec()
        timer.stop()
        return [(b - a) * 1e3 for a, b in zip(beats, beats[1:], strict=False)]

    state.start()
    settle()
    state.load_preset("andrea-120m")
    settle()
    base = list(state.inputs.tokens)
    rows = []
    for k in range(args.repeat):
        tokens = ((base[k:] + base[:k]) * (args.T // len(base) + 1))[:args.T]
        t0 = time.perf_counter()
        busy = heartbeat(lambda tokens=tokens: state.set_tokens(tokens))          # [beats - 1] ms
        seconds = time.perf_counter() - t0
        idle = heartbeat(None, seconds)                                           # the peer, as long
        row = {"T": args.T, "compute_s": round(seconds, 2), "beats": len(busy) + 1,
               "busy_max_ms": round(max(busy), 1), "busy_median_ms": round(statistics.median(busy), 1),
               "idle_max_ms": round(max(idle), 1), "idle_median_ms": round(statistics.median(idle), 1)}
        row["ratio_max"] = round(row["busy_max_ms"] / row["idle_max_ms"], 2)
        rows.append(row)
        print(row, flush=True)
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        command = "python -m benchmarks.responsiveness " + " ".join(sys.argv[1:] if argv is None else argv)
        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "command": command, "rows": rows}, indent=1))
    win.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
