"""A soak of the real window: thousands of random user actions, then checks.

Each action is what a user does (move, replace, add or remove a token; a new seed; d_head, the mask
or the scaling; layer, head, query, key, hover, station; undo, redo; dark theme, numbers, colour
lock; the window's own actions by their keys' ids; a burst of edits with no wait; a cancel). After
each the window is left to settle (the result on screen is the one of the inputs, painted). At the
end: the active station shows what a fresh reference compute of the final inputs gives, Traces
that were replaced are gone (weakrefs), and resident memory grew by at most a bound.

    python -m benchmarks.soak --actions 1500 --preset andrea-120m --max-tokens 64 --every 100
    python -m benchmarks.soak --actions 20000 --tracemalloc        # toy size, where memory goes

tests/app/test_soak.py runs the same Soak at toy size (a few thousand actions) in the suite.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def rss_bytes() -> int:
    """Resident memory of this process now (Linux /proc; elsewhere the peak from getrusage)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def rss_parts() -> str:
    """Anonymous (heap, arrays) and file-backed (libraries) resident memory, from /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            fields = dict(line.split(":", 1) for line in fh if line.startswith(("RssAnon", "RssFile")))
        return " ".join(f"{k[3:].lower()} {int(v.split()[0]) / 1e3:.0f}" for k, v in sorted(fields.items()))
    except (OSError, ValueError):
        return ""


def settled(win) -> bool:
    """The views show the inputs' own result, painted, with no redraw waiting."""
    s = win.state
    return (not s.busy and s.result is not None and s.result.inputs == s.inputs and not win.paint.paint_pending
            and not win._strip_timer.isActive() and not win._selection_timer.isActive())


@dataclass
class Soak:
    """Random actions on a window; `wait(predicate, timeout_ms)` lets the event loop run until the
    predicate holds (qtbot.waitUntil in tests, a QEventLoop in the script)."""

    win: object
    rng: np.random.Generator
    wait: Callable[[Callable[[], bool], int], None]
    max_tokens: int = 16
    d_heads: tuple[int, ...] = (2, 4, 6, 8)
    counts: dict[str, int] = field(default_factory=dict)
    traces: list = field(default_factory=list)          # weakrefs to every Trace shown
    timeout_ms: int = 60_000

    def __post_init__(self):
        self.win.state.resultChanged.connect(self._shown)

    def _shown(self, result) -> None:
        if result is not None:
            self.traces.append(weakref.ref(result.trace))

    # -- the actions ---------------------------------------------------------------------------
    def _token(self) -> int:
        return int(self.rng.integers(0, min(self.win.state.inputs.config.d_vocab, 16)))

    def _edits(self) -> list[tuple[str, float, Callable[[], object]]]:
        s, rng = self.win.state, self.rng
        T = len(s.inputs.tokens)
        cfg = s.inputs.config
        limit = min(cfg.n_ctx, self.max_tokens)
        pick = lambda n: int(rng.integers(0, n))  # noqa: E731
        return [
            ("move token", 3, lambda: s.move_token(pick(T), pick(T))),
            ("replace token", 3, lambda: s.replace_token(pick(T), self._token())),
            ("insert token", 2 if T < limit else 0, lambda: s.insert_token(pick(T + 1), self._token())),
            ("remove token", 2 if T > 1 else 0, lambda: s.remove_token(pick(T))),
            ("seed", 1, lambda: s.set_seed(pick(1000))),
            ("d_head", 1, lambda: s.set_config(d_head=int(rng.choice(self.d_heads)))),
            ("mask", 0.5, lambda: s.set_config(causal=not cfg.causal)),
            ("scaling", 0.5, lambda: s.set_config(scale_scores=not cfg.scale_scores)),
            ("undo", 2, lambda: s.undo_stack.undo()),
            ("redo", 1, lambda: s.undo_stack.redo()),
            ("burst", 1, self._burst),
            ("cancel", 0.5, self._edit_then_cancel),
        ]

    def _views(self) -> list[tuple[str, float, Callable[[], object]]]:
        from app.presentation import set_dark
        from compute.stations import INSTRUMENT_PAGES, STATIONS

        s, rng = self.win.state, self.rng
        cfg, T = s.inputs.config, len(s.inputs.tokens)
        pick = lambda n: int(rng.integers(0, n))  # noqa: E731
        keys = ["next_station", "prev_station", "next_query", "prev_query", "next_head", "prev_head",
                "next_layer", "prev_layer"]
        return [
            ("station", 3, lambda: s.select(station=str(rng.choice(STATIONS)))),
            ("instrument", 0.5, lambda: s.select(station=str(rng.choice(INSTRUMENT_PAGES)))),
            ("layer/head", 2, lambda: s.select(layer=pick(cfg.n_layers), head=pick(cfg.n_heads))),
            ("query/key", 2, lambda: s.select(query=pick(T), key=pick(T) if rng.random() < 0.5 else None)),
            ("hover", 2, lambda: s.select(hover=(pick(T), pick(T)) if rng.random() < 0.8 else None)),
            ("key action", 3, lambda: self.win.actions[str(rng.choice(keys))].trigger()),
            ("dark", 0.3, lambda: set_dark(s, s.selection.theme != "dark")),
            ("numbers", 0.5, lambda: s.select(show_values=not s.selection.show_values)),
            ("lock scales", 0.5, lambda: s.select(lock_scales=not s.selection.lock_scales)),
        ]

    def _burst(self) -> None:
        s = self.win.state
        for _ in range(int(self.rng.integers(2, 5))):
            T = len(s.inputs.tokens)
            s.replace_token(int(self.rng.integers(0, T)), self._token())

    def _edit_then_cancel(self) -> None:
        s = self.win.state
        s.replace_token(int(self.rng.integers(0, len(s.inputs.tokens))), self._token())
        s.cancel()

    def visit_every_page(self) -> None:
        """Every station and instrument once (a first visit loads what it needs, e.g. torch for the
        sqrt(d_k) lab: memory measured after this is what the session itself adds)."""
        from app.background import wait_for_background
        from compute.stations import PAGES

        for page in PAGES:
            self.win.state.select(station=page)
            self.wait(lambda: settled(self.win), self.timeout_ms)
        wait_for_background(60.0)                      # their measurements, off the UI thread

    def step(self) -> str:
        options = self._edits() + self._views()
        weights = np.array([w for _, w, _ in options], dtype=float)
        name, _, act = options[int(self.rng.choice(len(options), p=weights / weights.sum()))]
        act()
        self.counts[name] = self.counts.get(name, 0) + 1
        self.wait(lambda: settled(self.win), self.timeout_ms)
        return name

    # -- the checks ----------------------------------------------------------------------------
    def live_traces(self) -> int:
        gc.collect()
        return sum(1 for ref in self.traces if ref() is not None)

    def check_final_view(self) -> None:
        """The active station shows exactly what a fresh compute of the final inputs (same backend,
        weights made again) gives, and that is the float64 reference's up to float32 rounding."""
        import dataclasses

        from app.values import make_weights
        from compute import forward

        s, win = self.win.state, self.win
        key = s.selection.station
        station = win.stations.get(key)
        if station is None:                       # an instrument page: check the Scores station instead
            s.select(station="scores")
            self.wait(lambda: settled(win) and win.stations["scores"].isVisible(), self.timeout_ms)
            key, station = "scores", win.stations["scores"]
        station._refresh()
        shown = station.content(s.result, s.selection)
        weights = make_weights(s.inputs)                  # independently of the runner's cache
        for backend in (s.result.trace.backend, "reference"):
            trace = forward(s.inputs.config, weights, s.inputs.tokens, backend=backend)
            expected = station.content(dataclasses.replace(s.result, trace=trace), s.selection)
            assert shown.keys() == expected.keys(), (key, shown.keys(), expected.keys())
            for name in shown:
                a, b = np.asarray(shown[name], np.float64), np.asarray(expected[name], np.float64)
                assert a.shape == b.shape, (key, name, a.shape, b.shape)
                fin = np.isfinite(b)
                assert np.array_equal(fin, np.isfinite(a)), (key, name)
                worst = float(np.abs(a[fin] - b[fin]).max(initial=0.0))
                scale = float(np.abs(b[fin]).max(initial=0.0))
                limit = 0.0 if backend != "reference" else 1e-4 * max(scale, 1.0)
                assert worst <= limit, (f"{key}/{name}: the view differs from a fresh {backend} compute by "
                                        f"{worst:.3g} (values up to {scale:.3g}); inputs {s.inputs}, "
                                        f"selection {s.selection}")
        for plot in station.plots:
            assert plot.values is not None, key


# -- the script ---------------------------------------------------------------------------------------
def _event_loop_wait(app):
    from PySide6.QtCore import QEventLoop, QTimer

    def wait(predicate: Callable[[], bool], timeout_ms: int) -> None:
        if predicate():
            return
        loop = QEventLoop()
        poll = QTimer(interval=2, timeout=lambda: predicate() and loop.quit())
        give_up = QTimer(singleShot=True, interval=timeout_ms, timeout=loop.quit)
        poll.start()
        give_up.start()
        loop.exec()
        poll.stop()
        give_up.stop()
        if not predicate():
            raise TimeoutError(f"the window did not settle within {timeout_ms} ms")
    return wait


def _top_allocations(snapshot, previous, n: int = 8) -> list[str]:
    stats = snapshot.compare_to(previous, "lineno") if previous is not None else snapshot.statistics("lineno")
    lines = []
    for stat in stats[:n]:
        frame = stat.traceback[-1]
        lines.append(f"    {stat.size_diff / 1e6 if previous else stat.size / 1e6:+8.2f} MB  "
                     f"{frame.filename.rsplit('/', 2)[-2:]}:{frame.lineno}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__.split("\n")[0])
    ap.add_argument("--actions", type=int, default=3000)
    ap.add_argument("--preset", default="toy")
    ap.add_argument("--max-tokens", type=int, default=16, help="tokens at most (the soak adds and removes them)")
    ap.add_argument("--layers", type=int, help="n_layers of the preset (fewer: faster)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=int, default=250, help="report every N actions")
    ap.add_argument("--tracemalloc", action="store_true", help="also report where Python memory grew")
    ap.add_argument("--max-growth-mb", type=float, default=0, help="fail if resident memory grew more (0: report)")
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k", imageAxisOrder="row-major")
    from app.main_window import MainWindow
    from app.settings import Settings
    from app.state import LabState
    from compute.backends import get_backend

    state = LabState()
    win = MainWindow(state, settings=Settings.memory())
    win.resize(1400, 900)
    win.show()
    wait = _event_loop_wait(app)
    state.start()
    wait(lambda: settled(win), 120_000)
    if args.preset != "toy":
        state.load_preset(args.preset)
        wait(lambda: settled(win), 600_000)
    if args.layers:
        state.set_config(n_layers=args.layers)
        wait(lambda: settled(win), 600_000)
    tokens = state.inputs.tokens[: args.max_tokens]
    if tokens != state.inputs.tokens:
        state.set_tokens(tokens)
        wait(lambda: settled(win), 600_000)
    cfg = state.inputs.config
    soak = Soak(win, np.random.default_rng(args.seed), wait, max_tokens=args.max_tokens,
                d_heads=tuple(sorted({max(1, cfg.d_head // 2), cfg.d_head, cfg.d_head + 2})),
                timeout_ms=600_000)
    if args.tracemalloc:
        import tracemalloc

        tracemalloc.start(1)
    soak.visit_every_page()
    gc.collect()
    base, previous, t0 = rss_bytes(), None, time.perf_counter()
    pool = getattr(get_backend("cpu"), "pool", None)
    print(f"soak: {args.actions} actions, preset {args.preset} ({cfg.describe()}), seed {args.seed}; "
          f"RSS at start {base / 1e6:.0f} MB", flush=True)
    for n in range(1, args.actions + 1):
        soak.step()
        if n % args.every == 0 or n == args.actions:
            gc.collect()
            held = f", pool {pool.held_bytes() / 1e6:.0f} MB" if pool is not None else ""
            print(f"  {n:6d} actions  {time.perf_counter() - t0:7.1f} s  RSS {rss_bytes() / 1e6:7.0f} MB"
                  f"  (+{(rss_bytes() - base) / 1e6:.0f}; {rss_parts()}){held}, live Traces {soak.live_traces()}, "
                  f"undo steps {state.undo_stack.count()}", flush=True)
            if args.tracemalloc:
                print(f"    Python-traced memory {tracemalloc.get_traced_memory()[0] / 1e6:.0f} MB")
                snapshot = tracemalloc.take_snapshot()
                print("\n".join(_top_allocations(snapshot, previous)))
                previous = snapshot
    from compute import memory

    growth = rss_bytes() - base
    memory.give_back_freed_memory(force=True)
    print(f"RSS {rss_bytes() / 1e6:.0f} MB ({rss_parts()}) after giving back freed heap pages "
          f"({(rss_bytes() - base) / 1e6:+.0f} MB since the start)")
    soak.check_final_view()
    print(f"actions: {dict(sorted(soak.counts.items()))}")
    print(f"final view equals a fresh reference compute; live Traces {soak.live_traces()}; "
          f"RSS growth {growth / 1e6:.0f} MB")
    state.runner.shutdown()
    if args.max_growth_mb and growth > args.max_growth_mb * 1e6:
        print(f"FAIL: RSS grew {growth / 1e6:.0f} MB > {args.max_growth_mb:.0f} MB")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
