"""Render every station and instrument page of the lab offscreen to PNGs (a quick look while
developing; the real-window check is tools/screenshot.sh).

    python tools/station_shots.py OUTDIR [--preset P] [--size WxH] [--tokens TEXT] [--theme dark]
                                          [--stations scores,sqrt_dk,...] [--tab code] [--present]
                                          [--layer L] [--head H] [--name {key}-{size}-{theme}.png]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _png(pixmap) -> bytes:
    """A QPixmap as PNG bytes (written by compute.safe_io, the project's one writer)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pixmap.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--preset", default="toy")
    ap.add_argument("--model", help="smollm2-135m (the packaged real model), a Hugging Face folder or a .gguf file")
    ap.add_argument("--size", default="1440x900")
    ap.add_argument("--tokens")
    ap.add_argument("--stations", default="")
    ap.add_argument("--theme", choices=("light", "dark"), default="light")
    ap.add_argument("--tab", choices=("notes", "trace", "code", "predict", "train"), default="notes")
    ap.add_argument("--present", action="store_true", help="presentation mode, at --size")
    ap.add_argument("--layer", type=int, default=0)
    ap.add_argument("--head", type=int, default=0)
    ap.add_argument("--name", default="{preset}-{theme}-{key}.png",
                    help="file name: {preset}, {theme}, {key}, {size}, {mode} (present / window)")
    args = ap.parse_args()
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    from app.main_window import MainWindow
    from app.presentation import set_dark
    from app.state import PAGES, LabState
    from compute import safe_io

    state = LabState()
    if args.model:                                     # opened as app/model_actions.py opens a checkpoint
        from compute import load_checkpoint, real_models
        cfg, weights, tokenizer = (real_models.load(args.model) if args.model in real_models.MODELS
                                   else load_checkpoint(args.model))
        name = state.register_weights(weights, tokenizer, args.model, name=f"real:{args.model}")
        ids = tokenizer.encode(args.tokens or "The cat sat on the mat. The cat sat on the mat.")
        state.edit("Open model", config=cfg, tokens=tuple(ids), weights=name, preset="custom")
        args.preset = Path(args.model).name
    else:
        if args.preset != "toy":
            state.load_preset(args.preset)
        if args.tokens:
            state.set_text(args.tokens)
    w, h = (int(x) for x in args.size.split("x"))
    win = MainWindow(state)                            # preferences in memory: never the user's
    win.resize(w, h)
    win.show()
    if args.theme == "dark":
        set_dark(state, True)

    def settle(cond=lambda: True, seconds=120.0):
        end = time.time() + seconds
        while time.time() < end and not (cond() and not state.busy):
            app.processEvents()
            time.sleep(0.02)
        for _ in range(10):
            app.processEvents()

    def pause(seconds):
        end = time.time() + seconds
        while time.time() < end:
            app.processEvents()
            time.sleep(0.02)

    state.start()
    settle(lambda: state.result is not None)
    state.select(layer=args.layer, head=args.head)
    if args.present:
        win.file_actions.presentation.enter()
        pause(0.5)                                     # offscreen, "full screen" is the virtual screen:
        win.setGeometry(0, 0, w, h)                    # then the size asked for
        settle()
        win.messages.hide()                            # the entry hint fades in use: not in a figure of the station
    tabs = {"notes": win.notes, "trace": win.trace_panel, "code": win.code_view, "predict": win.calibrator}
    if args.tab == "train":
        win.tabs.setCurrentWidget(win.model_actions.panel)
    else:
        win.tabs.setCurrentWidget(tabs[args.tab])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for key in (args.stations.split(",") if args.stations else PAGES):
        if key == "block_map":                         # a view over the stations, not a page
            win.show_block_map(True)
        else:
            win.show_block_map(False)
            state.select(station=key)
        if key == "sqrt_dk":
            settle(lambda: win.pages["sqrt_dk"].numbers is not None)
        elif key == "kv_cache":                        # the page opens empty: prefill, decode a token
            win.pages["kv_cache"].prefill.click()
            cache = win.controllers["kv_cache"]             # app/pages/kv_cache.py holds the generation
            settle(lambda cache=cache: cache.generation is not None, 30)
            win.pages["kv_cache"].step.click()
            settle(lambda cache=cache: cache.generation is not None and cache.generation.steps, 30)
        elif key == "mask":
            settle(lambda: win.stations["mask"].unmasked is not None, 30)
        elif key in ("ab", "windows"):                 # their second pass (side B, the run without token 0)
            page = win.pages[key]
            settle(lambda page=page: getattr(page, "views", None) is not None and not page.views.waiting, 60)
        settle()
        path = out / args.name.format(preset=args.preset, theme=args.theme, key=key, size=args.size,
                                      mode="present" if args.present else "window")
        safe_io.write_file(path, _png(win.grab()))
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
