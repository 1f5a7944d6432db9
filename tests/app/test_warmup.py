"""app/warmup.py: the first paint never waits for numba's JIT (issue 26)."""
from __future__ import annotations

import sys
import threading

import pytest

from app.warmup import KernelWarmup
from compute import PRESETS, Weights, forward
from compute.backends import get_backend
from compute.forward import NUMPY_FIRST_MACS, _pass_macs, numpy_first


@pytest.fixture
def numpy_first_off(monkeypatch):
    # numpy draws first only while no CUDA stack is loaded (an earlier test in this process may have
    # loaded the cuda backend to ask it something): as at a fresh start
    module = sys.modules[numpy_first.__module__]                 # compute.forward (the name is the function)
    monkeypatch.setattr(module, "loaded_backends", lambda: ())
    monkeypatch.setattr(module, "nvidia_gpu_present", lambda: False)
    yield
    numpy_first(False)


def test_the_first_paint_is_numpy_while_the_kernels_compile_then_the_fast_path(qtbot, window, monkeypatch,
                                                                              numpy_first_off):
    s = window.state
    qtbot.waitUntil(lambda: not s.busy, timeout=60_000)
    compiled = threading.Event()
    cpu = get_backend("cpu")
    monkeypatch.setattr(type(cpu), "warm_up", lambda self: compiled.wait(60))    # a JIT that takes its time
    said = []
    s.message.connect(lambda level, text: said.append(text))
    withdrawn = []
    s.messageWithdrawn.connect(withdrawn.append)
    warmup = KernelWarmup(s, window)
    warmup.start()
    s.set_seed(s.inputs.seed + 1)                              # a pass while the kernels compile
    qtbot.waitUntil(lambda: not s.busy and s.result.inputs.seed == s.inputs.seed, timeout=60_000)
    assert s.result.trace.backend == "reference"                 # drawn from numpy, no wait for the JIT
    qtbot.waitUntil(lambda: any("first start only" in t for t in said), timeout=30_000)   # and it says so
    compiled.set()
    qtbot.waitUntil(lambda: warmup.ready and not s.busy and s.result.trace.backend == "cpu", timeout=60_000)
    assert warmup.said in withdrawn                              # the note goes once they are ready
    s.set_seed(s.inputs.seed + 1)
    qtbot.waitUntil(lambda: not s.busy and s.result.inputs.seed == s.inputs.seed, timeout=60_000)
    assert s.result.trace.backend == "cpu"


def test_numpy_first_takes_small_auto_passes_only(numpy_first_off):
    cfg = PRESETS["toy"]
    w = Weights.random(cfg, 0)
    numpy_first(True)
    assert forward(cfg, w, [1, 2, 3], backend="auto").backend == "reference"
    assert forward(cfg, w, [1, 2, 3], backend="cpu").backend == "cpu"          # an explicit choice stands
    assert _pass_macs(PRESETS["andrea-120m"], 1024) > NUMPY_FIRST_MACS           # waits for the kernels
    numpy_first(False)
    assert forward(cfg, w, [1, 2, 3], backend="auto").backend == "cpu"


def test_the_first_paint_imports_no_numba():
    """numba (and the kernels' module) load in the background, not before the first paint: the
    window, LabState, the runner and the numpy pass need none of it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys\n"
            "from PySide6.QtCore import QTimer\nfrom PySide6.QtWidgets import QApplication\n"
            "app = QApplication([])\n"
            "from app.main_window import MainWindow\nfrom app.state import LabState\n"
            "from compute.forward import numpy_first\n"
            "numpy_first(True)\n"
            "s = LabState(); w = MainWindow(s); w.show()\n"
            "w.rendered.connect(lambda ms: app.quit())\n"
            "s.start(); QTimer.singleShot(60000, app.quit); app.exec()\n"
            "print('numba' in sys.modules, s.result.trace.backend)\n"
            "s.runner.shutdown()\n")
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.stdout.split()[-2:] == ["False", "reference"], run.stdout + run.stderr[-2000:]


def test_the_kernels_start_compiling_after_the_first_paint_not_during_it(qtbot, monkeypatch, numpy_first_off):
    """Importing numba in the background while the first view is built and painted shared the
    interpreter lock with it: main.py starts the warm-up on the first `rendered`."""
    from PySide6.QtCore import QObject, Signal

    class Window(QObject):
        rendered = Signal(float)
        message = Signal(str, str)
        messageWithdrawn = Signal(str)
        result = None

    window = Window()
    started = []
    monkeypatch.setattr(type(get_backend("cpu")), "warm_up", lambda self: started.append(1))
    warmup = KernelWarmup(window, window)
    warmup.start_after_first_paint(window)
    qtbot.wait(50)
    assert not started and not warmup.ready                      # nothing before the first paint
    window.rendered.emit(12.0)
    qtbot.waitUntil(lambda: warmup.ready, timeout=30_000)
    window.rendered.emit(5.0)                                    # later paints start nothing more
    qtbot.wait(50)
    assert started == [1]
