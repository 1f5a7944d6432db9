"""`qkv-lab export` (`python main.py export ...`): a figure (PNG, SVG, PDF) or the data (NPZ, CSV)
of one view, without a window, for any model the window opens (`--model PATH|NAME`); and the
command-line helpers main.py's window shares with it (the layer message, the language).

Only argparse, os and sys load at import: the rest comes when a command runs, so `main.py`'s
start-up pays nothing for it.
"""
from __future__ import annotations

import argparse
import os
import sys

LANGUAGE_CODES = ("en", "sv", "id")     # app/language.py: LANGUAGES (checked by tests/app/test_i18n.py)


def install_language(choice: str | None, settings=None, prefix: str = "qkv-lab", err=None) -> str:
    """Install the window's language (app/language.py): `--lang`, else the preference, else the
    system's. A translation that cannot be loaded is said on stderr (the lab stays English)."""
    from app import language

    code = language.install(language.resolve(choice or (settings.language if settings is not None else "")))
    for problem in language.problems():
        print(f"{prefix}: {problem}", file=err or sys.stderr)
    return code


def layer_problem(option: str, value: int, inputs) -> str:
    """The message for a layer number outside the model; for a preset computed one block at a time
    (gpt3-175b) it says what is computed and what the one layer number means."""
    from compute import PRESETS

    n = inputs.config.n_layers
    full = PRESETS.get(inputs.preset)
    if full is not None and full.n_layers != n:
        return (f"{option} {value}: {inputs.preset} is computed one block at a time: the lab builds 1 block "
                f"with its shapes (of its {full.n_layers}), with random weights, shown as layer 0 and standing "
                f"for any of its layers. Use {option} 0.")
    return f"{option} {value}: this model has layers 0..{n - 1}"

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
    source.add_argument("--model", metavar="PATH|NAME", help="open a Hugging Face folder or a .gguf file, or "
                                                          "smollm2-135m or gemma3-270m (the packaged real models), "
                                                          "as the window's --model; --tokens go through its own "
                                                          "tokenizer")
    ap.add_argument("--tokens", metavar="TEXT", help="the sentence, through the model's own tokenizer (a preset's: "
                                                     "the toy vocabulary's words)")
    ap.add_argument("--weights", metavar="SOURCE", help="random | trained | a .safetensors file | a checkpoint folder "
                                                        "(a .gguf file or a Hugging Face folder opens as --model)")
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
    ap.add_argument("--lang", choices=LANGUAGE_CODES, help="language of the figure's titles and axis names, and of "
                                                            "these messages: en, sv, id (default: the system's). "
                                                            "Data (NPZ, CSV) is the same in every language")
    return ap


def export_main(argv: list[str]) -> int:
    """`qkv-lab export`: build the state headlessly, compute synchronously, write one file."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"       # before Qt loads: no window, no display needed
    ap = export_parser()
    args = ap.parse_args(argv)                         # bad arguments: usage + exit 2

    import dataclasses

    from app.export import ExportError, ExportRequest, check_request, check_view, export, format_of, headless_result
    from app.session import SessionError, load_session, run_checks
    from app.state import Inputs, Selection, preset_config, preset_tokens, preset_weights
    from compute import ConfigError, VocabularyError, safe_io, toy_tokenizer
    from compute.stations import PAGES
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
    # Every option's range is a usage error (exit 2), checked by the same code the API uses.
    try:
        check_request(ExportRequest(args.output, view=view or "pattern", style=style, width=args.width,
                                    dpi=args.dpi, size=size))
    except ExportError as exc:
        ap.error(str(exc))
    try:                                                # before any computing: say it at once
        safe_io.check_target(args.output)
    except safe_io.FileError as exc:
        return fail(1, str(exc))

    # -- inputs and selection ----------------------------------------------------------------------
    selection = Selection()
    registry = None
    if args.session:
        try:
            data = load_session(args.session)
        except SessionError as exc:
            return fail(1, str(exc))
        for text in (*data.warnings, *run_checks(data)):    # no window to keep responsive: check now
            print(f"qkv-lab export: warning: {text}", file=sys.stderr)
        inputs = data.inputs
        selection = dataclasses.replace(selection, **{k: v for k, v in data.selection.items()
                                                      if k in {f.name for f in dataclasses.fields(Selection)}})
        if view is None:
            view = selection.station if selection.station in PAGES else "pattern"
    elif args.model or (args.weights is not None and args.preset is None and is_model_path(args.weights)):
        if args.model is None:                         # a model file named as --weights: opened as --model
            args.model, args.weights = args.weights, None
        if args.weights is not None or args.seed is not None:
            ap.error("--model brings its own weights: leave out --weights and --seed")
        try:
            inputs, registry, tokenizer = open_model(args.model)
        except Exception as exc:  # noqa: BLE001 - a missing or broken model file is the user's to fix
            from widgets.i18n import error_text

            return fail(1, f"--model {args.model}: {error_text(exc)}")
    else:
        preset = args.preset or "toy"
        inputs = Inputs(config=preset_config(preset), tokens=preset_tokens(preset), preset=preset,
                        weights=preset_weights(preset))
    view = check_view(view or "pattern")
    changes = {}
    if args.tokens is not None:
        try:
            changes["tokens"] = tuple((tokenizer if args.model else toy_tokenizer()).encode(args.tokens))
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
            if name == "layer":
                ap.error(layer_problem("--layer", value, inputs))
            plural = {"head": "heads", "query": "query positions"}[name]
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
    install_language(args.lang, prefix="qkv-lab export")
    from widgets.i18n import error_text, tr

    try:
        result = headless_result(inputs, registry)
    except Exception as exc:  # noqa: BLE001 - a weights file or backend problem is the user's to fix
        return fail(1, tr("could not compute: {why}").format(why=error_text(exc)))
    if result.notice:
        notice = tr("note: {text}").format(text=result.notice)
        print(f"qkv-lab export: {notice}", file=sys.stderr)
    request = ExportRequest(args.output, view=view, style=style, width=args.width, dpi=args.dpi, size=size)
    try:
        written = export(result, selection, request)
    except ExportError as exc:
        return fail(1, str(exc))
    what = tr("every intermediate") if suffix == ".npz" else view
    print(tr("wrote {path} ({what}; {preset}, layer {layer}, head {head}, T={T})").format(
        path=written, what=what, preset=inputs.preset, layer=selection.layer, head=selection.head, T=T))
    return 0


def is_model_path(source: str) -> bool:
    """A .gguf file or a Hugging Face folder (one with config.json): what --model opens."""
    from pathlib import Path

    path = Path(source).expanduser()
    return (path.suffix.lower() == ".gguf" and path.is_file()) or (path / "config.json").is_file()


def open_model(source: str):
    """(Inputs, registry, tokenizer) for `qkv-lab export --model`: a real model's name
    (compute.loaders.real_models) or a Hugging Face folder / .gguf file, opened as the window opens it,
    on the model's own example text until --tokens says otherwise."""
    from pathlib import Path

    from app.values import Inputs, WeightsEntry
    from compute import load_checkpoint, real_models

    if source in real_models.MODELS:
        real = real_models.MODELS[source]
        cfg, weights, tokenizer = real_models.load(source)
        name, label = (str(real.path.resolve()) if real.path is not None else f"real:{source}"), real.title
    else:
        path = Path(source).expanduser()
        cfg, weights, tokenizer = load_checkpoint(path)
        name, label = str(path.resolve()), path.name
    tokens = tuple(tokenizer.encode("The cat sat on the mat. The cat sat on the mat."))
    inputs = Inputs(config=cfg, tokens=tokens, preset="custom", weights=name)
    return inputs, {name: WeightsEntry(weights, tokenizer, label)}, tokenizer


