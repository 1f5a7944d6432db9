"""QKV Lab: watch attention happen.

    python main.py                 # the lab window (also: qkv-lab); reopens the last session
    python main.py --clean         # start clean (the toy preset), without the last session
    python main.py --present --theme dark     # the lecture hall: full screen, big type, keys only
    python main.py --session talk.qkvlab
    python main.py --smoke         # start, compute and draw once, quit (CI)
    python main.py export --preset toy --tokens "the cat sat on the mat" --view pattern -o fig.svg
"""
from __future__ import annotations

import argparse
import gc
import os
import sys

EXPORT_EXAMPLES = """\
examples:
  qkv-lab export --preset toy --tokens "the cat sat on the mat" --view pattern --layer 0 --head 1 -o fig.svg
  qkv-lab export --session talk.qkvlab --view attn_scores -o fig.pdf
  qkv-lab export --preset toy --view block --width 3000 -o block.png
  qkv-lab export --preset toy -o trace.npz          (every intermediate, keys like 'pattern/0')
  qkv-lab export --preset toy --view pattern --head 1 -o pattern.csv

The format comes from the suffix: .png .svg .pdf (figures), .npz (all intermediates), .csv (one matrix).
Exit status: 0 written; 1 a file could not be read or written (nothing partial is left); 2 bad arguments.
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="qkv-lab", description="Watch attention happen in a GPT-2 block.",
                                 epilog="qkv-lab export --help: figures and data without a window.")
    ap.add_argument("--smoke", action="store_true", help="draw the first full view, then quit (exit 0)")
    ap.add_argument("--preset", default=None, help="preset to start with (toy, andrea-120m, gpt2-small, gpt3-175b)")
    ap.add_argument("--tokens", help="text to start with (toy vocabulary words)")
    ap.add_argument("--station", default=None, help="station to show first")
    ap.add_argument("--layer", type=int, default=None, help="layer to show first")
    ap.add_argument("--head", type=int, default=None, help="head to show first")
    ap.add_argument("--session", metavar="FILE", help="open this .qkvlab session")
    ap.add_argument("--clean", action="store_true", help="start clean: do not reopen the last session")
    ap.add_argument("--theme", choices=("light", "dark"), help="light or dark (default: as last time)")
    ap.add_argument("--present", action="store_true", help="start in presentation mode (F11 leaves)")
    return ap.parse_args(argv)


def export_parser():
    from compute import BACKEND_NAMES, PRESETS
    from widgets.figure import views_help
    from widgets.theme import DEFAULT_DIVERGING, DEFAULT_SEQUENTIAL, DIVERGING_MAPS, SEQUENTIAL_MAPS

    ap = argparse.ArgumentParser(
        prog="qkv-lab export", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write a figure (PNG, SVG, PDF) or the data (NPZ, CSV) of one view, without a window.",
        epilog=f"{views_help()}\n\n{EXPORT_EXAMPLES}")
    source = ap.add_mutually_exclusive_group()
    source.add_argument("--preset", choices=list(PRESETS), help="model preset (default toy)")
    source.add_argument("--session", metavar="FILE", help="a .qkvlab session: tokens, config, weights, selection")
    ap.add_argument("--tokens", metavar="TEXT", help="the sentence (toy vocabulary words)")
    ap.add_argument("--weights", metavar="SOURCE", help="random | trained | a .safetensors file | a checkpoint folder")
    ap.add_argument("--seed", type=int, help="random weights from this seed")
    ap.add_argument("--backend", choices=list(BACKEND_NAMES), help="compute backend (default auto)")
    ap.add_argument("--view", metavar="NAME", help="what to draw (default pattern, or the session's station)")
    ap.add_argument("--layer", type=int, help="layer (default 0, or the session's)")
    ap.add_argument("--head", type=int, help="head (default 0, or the session's)")
    ap.add_argument("--query", type=int, help="query position for the softmax / weighted_sum figures")
    ap.add_argument("-o", "--output", required=True, metavar="PATH", help="file to write; the suffix sets the format")
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--width", type=int, metavar="PX", help="PNG width in pixels")
    size.add_argument("--dpi", type=float, help="PNG resolution (the figure is sized at 96 px per inch)")
    ap.add_argument("--size", metavar="WxH", help="figure size in px at 96 dpi (default: suits the view)")
    ap.add_argument("--font-size", type=float, default=10.0, metavar="PT", help="font size (default 10)")
    ap.add_argument("--cmap", choices=SEQUENTIAL_MAPS, default=DEFAULT_SEQUENTIAL,
                    help=f"colour map for 0…1 values such as pattern (default {DEFAULT_SEQUENTIAL}, as the app)")
    ap.add_argument("--diverging", choices=DIVERGING_MAPS, default=DEFAULT_DIVERGING,
                    help=f"colour map for signed values (default {DEFAULT_DIVERGING}, as the app; "
                         "diverging-cb: colour-blind safe)")
    ap.add_argument("--theme", choices=("light", "dark"), default="light", help="white paper or dark slides")
    ap.add_argument("--values", action=argparse.BooleanOptionalAction, default=True,
                    help="numbers in the cells where they fit (default on)")
    ap.add_argument("--title", action=argparse.BooleanOptionalAction, default=True,
                    help="a title with the view, preset, layer, head and tokens (default on)")
    ap.add_argument("--lock-scales", action="store_true", help="scores figure: one colour scale for raw and scaled")
    return ap


def export_main(argv: list[str]) -> int:
    """`qkv-lab export`: build the state headlessly, compute synchronously, write one file."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"       # before Qt loads: no window, no display needed
    ap = export_parser()
    args = ap.parse_args(argv)                         # bad arguments: usage + exit 2

    import dataclasses

    from app.export import ExportError, ExportRequest, check_view, export, format_of, headless_result
    from app.session import SessionError, load_session
    from app.state import STATIONS, Inputs, Selection, preset_config, preset_tokens, preset_weights
    from compute import ConfigError, VocabularyError, toy_tokenizer
    from widgets.figure import FigureStyle, is_single

    def fail(code: int, text: str) -> int:
        print(f"qkv-lab export: {text}", file=sys.stderr)
        return code

    try:
        suffix = format_of(args.output)
        view = check_view(args.view) if args.view else None
    except ExportError as exc:
        ap.error(str(exc))
    if (args.width is not None or args.dpi is not None) and suffix != ".png":
        ap.error("--width and --dpi are for PNG files; SVG and PDF are vector (use --size)")
    size = None
    if args.size:
        try:
            w, h = (int(v) for v in args.size.lower().split("x"))
            size = (w, h)
        except ValueError:
            ap.error(f"--size {args.size!r}: write it as WIDTHxHEIGHT, e.g. 800x600")
    try:
        style = FigureStyle(theme=args.theme, font_pt=args.font_size, sequential=args.cmap,
                            diverging=args.diverging, show_values=args.values, title=args.title)
    except ValueError as exc:
        ap.error(str(exc))

    folder = os.path.dirname(os.path.abspath(os.path.expanduser(args.output)))
    if not os.path.isdir(folder):                       # before any computing: say it at once
        return fail(1, f"cannot write {args.output!r}: the folder {folder!r} does not exist"
                    if not os.path.exists(folder) else f"cannot write {args.output!r}: {folder!r} is not a folder")

    # -- inputs and selection ----------------------------------------------------------------------
    selection = Selection()
    if args.session:
        try:
            data = load_session(args.session)
        except SessionError as exc:
            return fail(1, str(exc))
        for text in data.warnings:
            print(f"qkv-lab export: warning: {text}", file=sys.stderr)
        inputs = data.inputs
        selection = dataclasses.replace(selection, **{k: v for k, v in data.selection.items()
                                                      if k in {f.name for f in dataclasses.fields(Selection)}})
        if view is None:
            view = selection.station if selection.station in STATIONS else "pattern"
    else:
        preset = args.preset or "toy"
        inputs = Inputs(config=preset_config(preset), tokens=preset_tokens(preset), preset=preset,
                        weights=preset_weights(preset))
    view = check_view(view or "pattern")
    changes = {}
    if args.tokens is not None:
        try:
            changes["tokens"] = tuple(toy_tokenizer().encode(args.tokens))
        except VocabularyError as exc:
            ap.error(f"--tokens: {exc}")
    if args.seed is not None:
        changes.update(seed=args.seed, weights="random")
    if args.weights is not None:
        changes["weights"] = args.weights
    if args.backend is not None:
        changes["backend"] = args.backend
    inputs = dataclasses.replace(inputs, **changes)
    if not inputs.tokens:
        ap.error("--tokens: no words: a figure needs at least one token")
    try:
        inputs.config.validate_tokens(inputs.tokens)
    except ConfigError as exc:
        ap.error(f"--tokens: {exc}")
    cfg, T = inputs.config, len(inputs.tokens)
    for name, value, limit in (("layer", args.layer, cfg.n_layers), ("head", args.head, cfg.n_heads),
                               ("query", args.query, T)):
        if value is not None and not 0 <= value < limit:
            plural = {"layer": "layers", "head": "heads", "query": "query positions"}.get(name, name + "s")
            ap.error(f"--{name} {value}: this model has {plural} 0..{limit - 1}" if limit else f"--{name}: no tokens")
    selection = dataclasses.replace(
        selection, layer=args.layer if args.layer is not None else min(selection.layer, cfg.n_layers - 1),
        head=args.head if args.head is not None else min(selection.head, cfg.n_heads - 1),
        query=args.query if args.query is not None else (T - 1 if not args.session else min(selection.query, T - 1)),
        lock_scales=args.lock_scales or selection.lock_scales)
    if suffix == ".csv" and not is_single(view):
        ap.error(f"a CSV file holds one matrix; {view!r} is a composed figure. Choose a single view "
                 "such as pattern, attn_scores or q")

    # -- compute and write ------------------------------------------------------------------------------
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])   # figures are Qt widgets (offscreen)
    app.setApplicationName("QKV Lab")
    pg.setConfigOptions(antialias=True, imageAxisOrder="row-major")
    try:
        result = headless_result(inputs)
    except Exception as exc:  # noqa: BLE001 - a weights file or backend problem is the user's to fix
        return fail(1, f"could not compute: {exc}")
    if result.notice:
        print(f"qkv-lab export: note: {result.notice}", file=sys.stderr)
    request = ExportRequest(args.output, view=view, style=style, width=args.width, dpi=args.dpi, size=size)
    try:
        written = export(result, selection, request)
    except ExportError as exc:
        return fail(1, str(exc))
    what = "every intermediate" if suffix == ".npz" else view
    print(f"wrote {written} ({what}; {inputs.preset}, layer {selection.layer}, head {selection.head}, T={T})")
    return 0


def install_translator(app) -> None:
    """Qt's translation system: assets/i18n/qkv_lab_<language>.qm, if there is one for the
    language of QKV_LAB_LANGUAGE or the system (texts marked with tr() in widgets/i18n.py)."""
    from PySide6.QtCore import QTranslator

    from app.notes import language

    translator = QTranslator(app)
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "i18n")
    if translator.load(f"qkv_lab_{language()}", folder):
        app.installTranslator(translator)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["export"]:
        return export_main(argv[1:])
    args = parse_args(argv)
    import pyqtgraph as pg
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    install_translator(app)
    app.setApplicationName("QKV Lab")
    app.setOrganizationName("QKV Lab")
    pg.setConfigOptions(antialias=True, background="w", foreground="k", imageAxisOrder="row-major")

    from app.file_actions import restore_last_session
    from app.main_window import MainWindow
    from app.settings import Settings
    from app.state import PAGES, LabState
    from compute import PRESETS

    # The smoke run (CI) keeps its preferences in memory: it never reads or writes the user's.
    settings = Settings.memory() if args.smoke else Settings.user()
    state = LabState()
    state.select(theme=settings.theme)
    if args.preset is not None and args.preset != "toy":
        if args.preset not in PRESETS:
            print(f"qkv-lab: unknown preset {args.preset!r}; choose from {', '.join(PRESETS)}", file=sys.stderr)
            return 2
        state.load_preset(args.preset)
        state.undo_stack.clear()
    if args.tokens:
        if not state.set_text(args.tokens):
            print("qkv-lab: " + "the tokens could not be used (see the message in the window)", file=sys.stderr)
        state.undo_stack.clear()
    if args.station is not None and args.station not in PAGES:
        print(f"qkv-lab: unknown station {args.station!r}; choose from {', '.join(PAGES)}", file=sys.stderr)
        return 2
    window = MainWindow(state, settings=settings)
    if args.session:
        window.file_actions.open_session(args.session)   # a problem is a message in the window
        state.undo_stack.clear()
    elif not (args.clean or args.smoke or args.preset or args.tokens) and settings.restore_last:
        restore_last_session(window, settings)
    state.select(station=args.station or state.selection.station)
    for name in ("layer", "head"):
        value = getattr(args, name)
        if value is not None:
            limit = getattr(state.inputs.config, "n_layers" if name == "layer" else "n_heads")
            if not 0 <= value < limit:
                print(f"qkv-lab: --{name} {value} is outside 0..{limit - 1}", file=sys.stderr)
                return 2
            state.select(**{name: value})
    if args.theme:                                     # after the session: the command line wins
        from app.presentation import set_dark
        set_dark(state, args.theme == "dark")
    window.show()
    # Everything made so far lives as long as the app: keep it out of the garbage collector's
    # full passes, which otherwise stall the UI thread for ~80 ms once torch is loaded.
    gc.collect()
    gc.freeze()
    if args.present:
        window.file_actions.presentation.enter()
    if args.smoke:
        def done(_ms):
            if window.state.busy:                      # an early result: quit once the full one is in
                state.resultChanged.connect(lambda _result: done(_ms))
                return
            print(f"smoke: rendered {window.state.result.trace.summary()}, render {_ms:.1f} ms")
            app.quit()
        window.rendered.connect(done)
        state.message.connect(lambda level, text: (print(f"smoke: {level}: {text}"), app.exit(1))
                              if level == "error" else None)
        QTimer.singleShot(60_000, lambda: (print("smoke: no render within 60 s"), app.exit(1)))
    state.start()
    code = app.exec()
    # Tear down while QApplication still exists: left to Python's exit, the order in which the
    # window, its views and the app are destroyed is arbitrary and can crash (seen as SIGSEGV).
    window.close()                                     # closeEvent: stop the worker, keep the session
    state.runner.shutdown()
    from app.instruments import wait_for_background

    # torch still running in a thread while Python shuts down aborts the process (core dump):
    # let training stop and background measurements end first, or leave without Python's teardown.
    done = window.model_actions.trainer.shutdown(30.0) and wait_for_background(30.0)
    import shiboken6

    shiboken6.delete(window)
    if not done:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
