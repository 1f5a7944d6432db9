"""QKV Lab: watch attention happen.

    python main.py                 # the lab window (also: qkv-lab); reopens the last session
    python main.py --clean         # start clean (the toy preset), without the last session
    python main.py --present --theme dark     # the lecture hall: full screen, big type, keys only
    python main.py --session talk.qkvlab
    python main.py --smoke         # start, compute and draw once, quit (CI)
    python main.py --lang sv       # svenska (also: id, en; default: View ▸ Language, else the system's)
    python main.py export --preset toy --tokens "the cat sat on the mat" --view pattern -o fig.svg
"""
from __future__ import annotations

import sys

if sys.version_info < (3, 11):  # noqa: UP036 - before anything else fails on an older Python
    sys.exit(f"QKV Lab needs Python 3.11 or newer; this is Python {sys.version.split()[0]} ({sys.executable}). "
             "See the README's quick start: make the virtual environment with python3.11 or newer.")

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib.util  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402

from app.cli import LANGUAGE_CODES, export_main, export_parser, install_language, layer_problem  # noqa: E402, F401

# Imported by the app (and its first window): the launch set of requirements.txt.
LAUNCH_MODULES = ("numpy", "PySide6", "pyqtgraph", "numba", "safetensors", "threadpoolctl", "tokenizers", "torch")


def setup_command() -> str:
    """The README's launch set-up, for this operating system."""
    if os.name == "nt":
        return "py -m venv .venv\n    .venv\\Scripts\\python -m pip install -r requirements.txt -e ."
    return "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt -e ."


def setup_problem() -> str | None:
    """What is missing for the app in this Python (typically: started outside the venv), or None."""
    missing = [name for name in LAUNCH_MODULES if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    venv_python = os.path.join(here, ".venv", "Scripts" if os.name == "nt" else "bin",
                               "python.exe" if os.name == "nt" else "python")
    if os.path.exists(venv_python) and os.path.abspath(sys.executable) != os.path.abspath(venv_python):
        script = "main.py" if os.path.abspath(os.getcwd()) == here else os.path.join(here, "main.py")
        start = f"It is set up in {os.path.dirname(venv_python)}: start it with\n    {venv_python} {script}"
    else:
        start = (f"Set it up once, from {here}:\n    {setup_command()}\nthen start it with "
                 + (".venv\\Scripts\\qkv-lab" if os.name == "nt" else ".venv/bin/qkv-lab"))
    return (f"qkv-lab: this Python ({sys.executable}) does not have {', '.join(missing)}: "
            f"QKV Lab runs in its own virtual environment.\n{start}")


# The X11 platform plugin's system libraries and the package of each (Debian/Ubuntu, Fedora, Arch).
XCB_PACKAGES = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util", "xcb-util"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon", "libxkbcommon"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl", "libglvnd"),
    "libGL.so.1": ("libgl1", "libglvnd-glx", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig", "fontconfig"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs", "dbus"),
}


def missing_xcb_libraries() -> list[str]:
    """The system libraries Qt's X11 plugin needs that this machine lacks (`ldd` of the plugin,
    without importing Qt); [] when they are all there or nothing can tell."""
    import importlib.util
    import subprocess

    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = os.path.join(list(spec.submodule_search_locations)[0], "Qt")
    missing: list[str] = []
    for lib in (os.path.join(qt, "plugins", "platforms", "libqxcb.so"), os.path.join(qt, "lib", "libQt6XcbQpa.so.6")):
        if not os.path.exists(lib):
            continue
        try:
            out = subprocess.run(["ldd", lib], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        for line in out.splitlines():
            name, _, where = line.strip().partition(" => ")
            if where.strip() == "not found" and name not in missing and not name.startswith("libQt6"):
                missing.append(name)
    return missing


def xcb_problem(environ=os.environ, platform: str = sys.platform, missing=missing_xcb_libraries) -> str | None:
    """Why Qt's X11 plugin cannot start here (libraries missing, as on minimal, WSL and container
    installs), naming the packages to install, or None. Qt would abort with a core dump and a
    misleading "xcb-cursor0 ... is needed" instead."""
    if not platform.startswith("linux"):
        return None
    qpa = environ.get("QT_QPA_PLATFORM", "")
    wayland_first = environ.get("WAYLAND_DISPLAY") and not qpa
    if (qpa and not qpa.startswith("xcb")) or not environ.get("DISPLAY") or wayland_first:
        return None
    libs = missing()
    if not libs:
        return None
    packages = [XCB_PACKAGES.get(lib, (lib, lib, lib)) for lib in libs]

    def names(i: int) -> str:
        return " ".join(dict.fromkeys(p[i] for p in packages))

    return (f"qkv-lab: the window cannot open: Qt's X11 plugin needs {', '.join(libs)}, which this system lacks.\n"
            f"  Debian, Ubuntu, WSL:  sudo apt install {names(0)}\n"
            f"  Fedora:               sudo dnf install {names(1)}\n"
            f"  Arch:                 sudo pacman -S {names(2)}\n"
            "  without a window:     qkv-lab export --help  ·  qkv-lab --smoke (offscreen)")


def display_problem(environ=os.environ, platform: str = sys.platform) -> str | None:
    """Why a window cannot open here (Linux/BSD with no display and no QT_QPA_PLATFORM), or None.
    Qt would abort with a core dump and a hint about xcb libraries instead."""
    if platform in ("win32", "darwin") or environ.get("QT_QPA_PLATFORM"):
        return None
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    return ("qkv-lab: no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set, e.g. over "
            "ssh without -X, or in a container).\n"
            "  figures and data without a window:  qkv-lab export --help\n"
            "  a check that the lab starts and draws:  qkv-lab --smoke  (runs offscreen)")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    from compute.config import PRESETS

    ap = argparse.ArgumentParser(prog="qkv-lab", description="Watch attention happen in a transformer block "
                                 "(GPT-2, the LLaMA family, Gemma, Qwen, OLMo, Pythia, Phi-3, "
                                 "mixtures of experts), every intermediate live.",
                                 epilog="qkv-lab export --help: figures and data without a window.")
    ap.add_argument("--smoke", action="store_true", help="draw the first full view, then quit (exit 0)")
    ap.add_argument("--preset", default=None, help="preset to start with: " + ", ".join(PRESETS)
                    + " (random weights of that shape; smollm2-135m and gemma3-270m open the real model when it "
                    "is installed)")
    ap.add_argument("--tokens", help="text to start with (toy vocabulary words, or the --model's tokenizer)")
    ap.add_argument("--model", metavar="PATH", help="open a Hugging Face folder or a .gguf file (or smollm2-135m, "
                                                    "gemma3-270m: the packaged real models)")
    ap.add_argument("--station", default=None, help="station to show first")
    ap.add_argument("--layer", type=int, default=None, help="layer to show first")
    ap.add_argument("--head", type=int, default=None, help="head to show first")
    ap.add_argument("--ablate", metavar="L.H,...", default=None, help="knock these heads out (z = 0), e.g. 16.0,18.6")
    ap.add_argument("--query", type=int, default=None, help="query position to show first (default: the last)")
    ap.add_argument("--session", metavar="FILE", help="open this .qkvlab session")
    ap.add_argument("--clean", action="store_true", help="start clean: do not reopen the last session")
    ap.add_argument("--theme", choices=("light", "dark"), help="light or dark (default: as last time)")
    ap.add_argument("--present", action="store_true", help="start in presentation mode (F11 leaves)")
    ap.add_argument("--lang", choices=LANGUAGE_CODES, help="the window's language: en, sv (svenska), id (Bahasa "
                                                            "Indonesia); default: as chosen in View ▸ Language, else "
                                                            "the system's")
    return ap.parse_args(argv)


def build_window(args: argparse.Namespace, settings, err=None):
    """The lab window for the command line's options (not shown yet), or an exit status.

    The window exists before any option is applied, so what they start (a preset's compute with
    its progress and Cancel) and what they say (a word not in the vocabulary) reaches it; what they
    say is printed too. Call with a QApplication and pyqtgraph configured.
    """
    from app.file_actions import restore_last_session
    from app.main_window import MainWindow
    from app.presentation import set_dark
    from app.state import PAGES, LabState
    from compute import PRESETS

    err = err or sys.stderr
    if args.preset is not None and args.preset not in PRESETS:
        print(f"qkv-lab: unknown preset {args.preset!r}; choose from {', '.join(PRESETS)}", file=err)
        return 2
    if args.station is not None and args.station not in PAGES:
        print(f"qkv-lab: unknown station {args.station!r}; choose from {', '.join(PAGES)}", file=err)
        return 2
    state = LabState()
    set_dark(state, settings.theme == "dark")           # with its colour maps, as the menu does
    window = MainWindow(state, settings=settings)
    for text in settings.problems:                     # e.g. a value ignored in the preferences file
        state.message.emit("warning", f"Preferences: {text}")
    from app import language

    for text in language.problems():                   # a translation that could not be loaded
        state.message.emit("warning", text)

    def fail(code: int, text: str) -> int:
        print(f"qkv-lab: {text}", file=err)
        state.runner.shutdown()                        # not close(): that would keep this as the last session
        import shiboken6

        shiboken6.delete(window)
        return code

    said: list[tuple[str, str]] = []                   # the window shows these; the terminal too

    def say(level: str, text: str) -> None:
        said.append((level, text))

    state.message.connect(say)
    from compute import real_models

    real = real_models.MODELS.get(args.preset or "")
    if real is not None and args.model is None and real.available:
        args.model, args.preset = args.preset, None    # one name, one model: the real weights
    for option, value, apply in (("--preset", args.preset if args.preset != "toy" else None, state.load_preset),
                                 ("--model", args.model or None, window.model_actions.open_now),
                                 ("--tokens", args.tokens or None, state.set_text)):
        if value is not None:
            del said[:]
            try:
                apply(value)
            except Exception as exc:  # noqa: BLE001 - a bad option is a message, never a crash (issue 23)
                state.message.emit("error", f"{type(exc).__name__}: {exc}")
            state.undo_stack.clear()
            for level, text in said:                   # refused, or done with a note (punctuation left out)
                print(f"qkv-lab: {option}: {text}" if level == "error" else f"qkv-lab: {option}: {level}: {text}",
                      file=err)
    state.message.disconnect(say)
    if args.session:
        window.file_actions.open_session(args.session)   # a problem is a message in the window
        state.undo_stack.clear()
    elif not (args.clean or args.smoke or args.preset or args.tokens or args.model) and settings.restore_last:
        restore_last_session(window, settings)
    state.select(station=args.station or state.selection.station)
    for name in ("layer", "head"):
        value = getattr(args, name)
        if value is not None:
            cfg = state.inputs.config
            limit = cfg.n_layers if name == "layer" else cfg.n_heads
            if not 0 <= value < limit:
                return fail(2, layer_problem("--layer", value, state.inputs) if name == "layer"
                            else f"--head {value}: this model has heads 0..{limit - 1}")
            state.select(**{name: value})
    if args.ablate:
        for pair in args.ablate.split(","):
            layer, _, head = pair.strip().partition(".")
            if not (layer.isdigit() and head.isdigit()) or not state.toggle_ablation(int(layer), int(head)):
                return fail(2, f"--ablate {pair.strip()!r}: give heads as layer.head (e.g. 16.0) inside the model")
    if args.query is not None:
        T = len(state.inputs.tokens)
        if not 0 <= args.query < T:
            return fail(2, f"--query {args.query}: the sequence has positions 0..{T - 1}")
        state.select(query=args.query)
    elif args.model:
        state.select(query=len(state.inputs.tokens) - 1)   # the last token sees them all
    if args.theme:                                     # after the session: the command line wins
        set_dark(state, args.theme == "dark")
    return window


# What Qt's offscreen platform says about every window, which means nothing there (--smoke, CI).
OFFSCREEN_NOISE = ("This plugin does not support propagateSizeHints()",
                   "QBackingStore::flush() called")   # for a non-exposed window, or one with no handle yet


def quiet_offscreen_noise() -> None:
    """Drop the offscreen platform's harmless chatter; every other Qt message is printed as before."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(_mode, _context, text: str) -> None:
        if not text.startswith(OFFSCREEN_NOISE):
            print(text, file=sys.stderr)

    qInstallMessageHandler(handler)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    problem = setup_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    if argv[:1] == ["export"]:
        return export_main(argv[1:])
    args = parse_args(argv)
    if display_problem() is not None:
        if not args.smoke:
            print(display_problem(), file=sys.stderr)
            return 2
        os.environ["QT_QPA_PLATFORM"] = "offscreen"     # the smoke run needs no screen
    elif not args.smoke:
        problem = xcb_problem()                          # before Qt aborts with a core dump
        if problem is not None:
            print(problem, file=sys.stderr)
            return 2
    import pyqtgraph as pg
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    if os.environ.get("QT_QPA_PLATFORM", "").startswith("offscreen"):
        quiet_offscreen_noise()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("QKV Lab")
    app.setOrganizationName("QKV Lab")
    pg.setConfigOptions(antialias=True, background="w", foreground="k", imageAxisOrder="row-major")

    from app.settings import Settings

    # The smoke run (CI) keeps its preferences in memory: it never reads or writes the user's.
    settings = Settings.memory() if args.smoke else Settings.user()
    install_language(args.lang, settings)
    from compute.forward import numpy_first

    numpy_first(True)                                  # the first passes need no JIT (app/warmup.py)
    window = build_window(args, settings)
    if isinstance(window, int):
        return window
    state = window.state
    from app.warmup import KernelWarmup

    KernelWarmup(state, window).start_after_first_paint(window)   # then the numba kernels compile, numpy draws
    window.show()
    # Everything made so far lives as long as the app: keep it out of the garbage collector's
    # full passes, which otherwise stall the UI thread for ~80 ms once torch is loaded.
    gc.collect()
    gc.freeze()
    from app.gc_guard import MainThreadGC

    window.gc_guard = MainThreadGC(window)   # collections on the GUI thread only (app/gc_guard.py)
    if args.present:
        window.file_actions.presentation.enter()
    if args.smoke:
        def done(_ms):
            if window.state.busy:                      # an early result: quit once the full one is in
                state.resultChanged.connect(lambda _result: done(_ms))
                return
            print(f"smoke: rendered {window.state.result.trace.summary()}, render {_ms:.1f} ms")
            print(f"smoke: first paint at {time.time():.3f}")   # unix time: benchmarks/startup.py reads it
            app.quit()
        window.rendered.connect(done)
        state.message.connect(lambda level, text: (print(f"smoke: {level}: {text}"), app.exit(1))
                              if level == "error" else None)
        QTimer.singleShot(60_000, lambda: (print("smoke: no render within 60 s"), app.exit(1)))
    if not state.busy:                                 # a preset or session from the options computes already
        state.start()
    code = app.exec()
    # Tear down while QApplication still exists: left to Python's exit, the order in which the
    # window, its views and the app are destroyed is arbitrary and can crash (seen as SIGSEGV).
    window.close()                                     # closeEvent: stop the worker, keep the session
    state.runner.shutdown()
    from app.background import wait_for_background

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
