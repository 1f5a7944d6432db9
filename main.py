"""QKV Lab: watch attention happen.

    python main.py                 # the lab window (also: qkv-lab)
    python main.py --smoke         # start, compute and draw once, quit (CI)
"""
from __future__ import annotations

import argparse
import gc
import sys


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="qkv-lab", description="Watch attention happen in a GPT-2 block.")
    ap.add_argument("--smoke", action="store_true", help="draw the first full view, then quit (exit 0)")
    ap.add_argument("--preset", default="toy", help="preset to start with (toy, andrea-120m, gpt2-small, gpt3-175b)")
    ap.add_argument("--tokens", help="text to start with (toy vocabulary words)")
    ap.add_argument("--station", default="scores", help="station to show first")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import pyqtgraph as pg
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("QKV Lab")
    app.setOrganizationName("QKV Lab")
    pg.setConfigOptions(antialias=True, background="w", foreground="k", imageAxisOrder="row-major")

    from app.main_window import MainWindow
    from app.state import STATIONS, LabState
    from compute import PRESETS

    state = LabState()
    if args.preset != "toy":
        if args.preset not in PRESETS:
            print(f"qkv-lab: unknown preset {args.preset!r}; choose from {', '.join(PRESETS)}", file=sys.stderr)
            return 2
        state.load_preset(args.preset)
        state.undo_stack.clear()
    if args.tokens:
        if not state.set_text(args.tokens):
            print("qkv-lab: " + "the tokens could not be used (see the message in the window)", file=sys.stderr)
        state.undo_stack.clear()
    if args.station not in STATIONS:
        print(f"qkv-lab: unknown station {args.station!r}; choose from {', '.join(STATIONS)}", file=sys.stderr)
        return 2
    window = MainWindow(state)
    state.select(station=args.station)
    window.show()
    # Everything made so far lives as long as the app: keep it out of the garbage collector's
    # full passes, which otherwise stall the UI thread for ~80 ms once torch is loaded.
    gc.collect()
    gc.freeze()
    if args.smoke:
        def done(_ms):
            print(f"smoke: rendered {window.state.result.trace.summary()}, render {_ms:.1f} ms")
            app.quit()
        window.rendered.connect(done)
        state.message.connect(lambda level, text: (print(f"smoke: {level}: {text}"), app.exit(1))
                              if level == "error" else None)
        QTimer.singleShot(60_000, lambda: (print("smoke: no render within 60 s"), app.exit(1)))
    state.start()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
