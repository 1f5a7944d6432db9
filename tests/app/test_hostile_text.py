"""Start-up and typed text never crash (issue 23, item 4): a model name too long for the file system
is a message, and a tokenizer that panics on a text (a catastrophic pre-tokenizer regex: pyo3's
PanicException is a BaseException) is a message too, with the previous tokens kept."""
from __future__ import annotations

import io
import json

import main
from app.settings import Settings
from tests.compute.test_checkpoint import make_checkpoint

from .conftest import wait_render

CATASTROPHIC = "(a|aa)+$"
TEXT = "a" * 60 + "!"


def catastrophic_folder(tmp_path):
    """A GPT-2 folder whose tokenizer.json splits with a regex that gives up on a long run of 'a'."""
    folder = make_checkpoint(tmp_path / "regex")
    spec = json.loads((folder / "tokenizer.json").read_text())
    spec["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": CATASTROPHIC}, "behavior": "Isolated",
                             "invert": False}
    (folder / "tokenizer.json").write_text(json.dumps(spec))
    return folder


def build(qtbot, *argv: str):
    err = io.StringIO()
    window = main.build_window(main.parse_args(["--clean", *argv]), Settings.memory(), err=err)
    assert not isinstance(window, int), err.getvalue()
    qtbot.addWidget(window)
    return window, err.getvalue()


def test_a_model_name_too_long_for_the_file_system_is_a_message(qtbot):
    window, said = build(qtbot, "--smoke", "--model", "m" * 300)
    assert "too long for the file system" in said and "Traceback" not in said
    assert window.state.inputs.weights != "m" * 300


def test_a_tokenizer_that_panics_is_a_message_and_the_tokens_stay(qtbot, tmp_path):
    folder = catastrophic_folder(tmp_path)
    window, said = build(qtbot, "--model", str(folder), "--tokens", TEXT)
    assert "fails on this text" in said and "retry-limit" in said
    s = window.state
    assert s.inputs.weights == str(folder.resolve())               # the model opened; its start tokens stay
    before = s.inputs.tokens
    assert not s.set_text("b" + TEXT)                               # typed in the window: the same code
    assert s.inputs.tokens == before
    assert "not tokenized" in window.messages.label.text()
    wait_render(qtbot, window, lambda: s.set_text("a"))              # a text that works still does
    assert s.inputs.tokens != before
