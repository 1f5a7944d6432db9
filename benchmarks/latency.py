"""Update latency: from an edit (a token moved) to every visible view repainted, in the real window.

    python -m benchmarks.latency                 # toy, andrea-120m T=256, andrea-120m T=1024
    python -m benchmarks.latency --repeat 11 --json out.json

Runs offscreen. Each edit moves one token (the weights stay, as when a lecturer drags a chip);
the time runs from the call into LabState to the window's `rendered` signal, which fires after
the active station has been repainted. Median of the repeats, per station shown (scores, mlp).
Stations drawn from a layer's attention half repaint from an early result, before the MLP is
done (then "compute ms" is the time until that early result); each edit starts from a settled
window (the previous edit's full result is in).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZES = [("toy", "toy", None, None), ("andrea-120m T=256, 1 block", "andrea-120m", 256, 1),
         ("andrea-120m T=1024, 1 block", "andrea-120m", 1024, 1),
         ("andrea-120m T=1024, 12 blocks", "andrea-120m", 1024, None)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--stations", default="scores,mlp")
    ap.add_argument("--sizes", default=",".join(s[0] for s in SIZES),
                    help="comma-separated subset of: " + "; ".join(s[0] for s in SIZES) + " (e.g. --sizes toy)")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    wanted = {w.strip() for w in args.sizes.split(",")}

    import pyqtgraph as pg
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    from app.main_window import MainWindow
    from app.state import LabState

    def wait(win, action):
        loop = QEventLoop()
        done = []
        conn = win.rendered.connect(lambda ms: (done.append(ms), loop.quit()))
        t0 = time.perf_counter()
        action()
        QTimer.singleShot(300_000, loop.quit)
        if not done:
            loop.exec()
        win.rendered.disconnect(conn)
        elapsed = (time.perf_counter() - t0) * 1e3
        early = win.state.busy                            # painted before the pass was done
        if early:                                         # an early result: let the pass finish
            settle = QEventLoop()
            conn = win.state.busyChanged.connect(lambda busy: settle.quit() if not busy else None)
            QTimer.singleShot(300_000, settle.quit)
            if win.state.busy:
                settle.exec()
            win.state.busyChanged.disconnect(conn)
        return elapsed, done[-1] if done else float("nan"), early

    rows = []
    print(f"{'size':<32}{'station':>10}{'edit→repaint ms':>17}{'compute ms':>12}{'render ms':>11}")
    for label, preset, T, layers in SIZES:
        if label not in wanted and label.split(",")[0] not in wanted:
            continue
        state = LabState()
        win = MainWindow(state)
        win.resize(1440, 900)
        win.show()
        wait(win, state.start)
        if preset != "toy":
            wait(win, lambda state=state, preset=preset: state.load_preset(preset))
            if layers is not None:
                wait(win, lambda state=state, layers=layers: state.set_config(n_layers=layers))
            if T is not None:
                base = list(state.inputs.tokens)
                wait(win, lambda state=state, base=base, T=T: state.set_tokens((base * (T // len(base) + 1))[:T]))
        for station in args.stations.split(","):
            state.select(station=station)
            app.processEvents()
            totals, renders, computes, early = [], [], [], []
            conn = state.partialResult.connect(lambda r, early=early: early.append(r.compute_ms))
            for k in range(max(args.repeat, 1) + 1):
                T_now = len(state.inputs.tokens)
                n_early = len(early)
                total, render, painted_early = wait(
                    win, lambda state=state, k=k, T_now=T_now: state.move_token(k % T_now, (k + 3) % T_now))
                if k == 0:
                    continue                                  # warm-up
                totals.append(total)
                renders.append(render)
                # Compute until what was painted: the early result's, if one was painted.
                computes.append(early[-1] if painted_early and len(early) > n_early
                                else state.result.trace.timing_ms["forward"])
            state.partialResult.disconnect(conn)
            row = {"size": label, "station": station, "T": len(state.inputs.tokens),
                   "n_layers": state.inputs.config.n_layers, "edit_to_repaint_ms": statistics.median(totals),
                   "compute_ms": statistics.median(computes), "render_ms": statistics.median(renders)}
            rows.append(row)
            print(f"{label:<32}{station:>10}{row['edit_to_repaint_ms']:>17.1f}{row['compute_ms']:>12.1f}"
                  f"{row['render_ms']:>11.1f}")
        win.close()
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
