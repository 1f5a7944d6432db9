"""Model ▸ Download… against a hub on the loopback interface (tests/app/hub_server.py), never the real
one: only safetensors, config and tokenizer files are fetched, into the hub's cache layout; progress
and Cancel; offline says so; the downloaded folder opens in the window."""
from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtWidgets import QPushButton

from app.download import REPOS, DownloadError, fetch
from app.model_actions import OPEN_TEXT
from compute.progress import Cancelled
from tests.compute.test_checkpoint import make_checkpoint

from .conftest import wait_render
from .hub_server import SHA, HubServer


@pytest.fixture
def repo(tmp_path):
    """A tiny GPT-2 repo as the hub holds it, with a pickle the lab must never fetch."""
    folder = make_checkpoint(tmp_path / "repo")
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04 a pickle")
    (folder / "README.md").write_text("# tiny")
    return folder


@pytest.fixture
def slow_repo(tmp_path):
    """A repo with 4 MB of weights, served slowly enough to cancel in the middle."""
    folder = make_checkpoint(tmp_path / "slow")
    (folder / "model-00002.safetensors").write_bytes(bytes(4 << 20))
    return folder


@pytest.fixture
def small_chunks(monkeypatch):
    import app.download

    monkeypatch.setattr(app.download, "CHUNK", 1 << 14)


def workers_end(timeout: float = 10.0) -> None:
    """Wait until the download worker threads (abandoned after Cancel) have ended."""
    end = time.monotonic() + timeout
    while any(t.name == "qkv-download" for t in threading.enumerate()) and time.monotonic() < end:
        time.sleep(0.02)


def test_the_menu_offers_gpt2_and_the_smollm2_repos():
    assert {"gpt2", "HuggingFaceTB/SmolLM2-135M", "HuggingFaceTB/SmolLM2-360M",
            "HuggingFaceTB/SmolLM2-135M-Instruct"} <= set(REPOS)


def test_fetch_gets_only_safetensors_config_and_tokenizer_into_the_cache(repo, tmp_path):
    cache = tmp_path / "cache"
    seen = []
    with HubServer({"tiny/gpt2": repo}) as hub:
        folder = fetch("tiny/gpt2", lambda stage, f: seen.append((stage, f)), endpoint=hub.endpoint, cache_dir=cache)
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    assert sorted(hub.requested) == ["config.json", "model.safetensors", "tokenizer.json"]   # no pickle asked for
    assert folder == cache / "models--tiny--gpt2" / "snapshots" / SHA                      # the hub's own layout
    assert (folder / "model.safetensors").read_bytes() == (repo / "model.safetensors").read_bytes()
    assert seen[0][1] == 0.0 and seen[-1][1] == 1.0 and "downloading tiny/gpt2" in seen[-1][0]
    # a second fetch, offline, finds it in the cache
    again = fetch("tiny/gpt2", endpoint="http://127.0.0.1:9", cache_dir=cache)
    assert again == folder


def test_offline_says_so(tmp_path):
    with pytest.raises(DownloadError, match="offline: http://127.0.0.1:9 cannot be reached"):
        fetch("HuggingFaceTB/SmolLM2-135M", endpoint="http://127.0.0.1:9", cache_dir=tmp_path / "cache")


def test_a_repo_the_hub_does_not_have(repo, tmp_path):
    with HubServer({"tiny/gpt2": repo}) as hub, pytest.raises(DownloadError, match="no such model"):
        fetch("nobody/nothing", endpoint=hub.endpoint, cache_dir=tmp_path / "cache")


def test_cancel_stops_a_download_in_the_middle_and_a_later_fetch_completes(slow_repo, tmp_path, small_chunks):
    cache = tmp_path / "cache"
    fractions = []

    def report(stage, fraction):
        fractions.append(fraction)
        if 0.0 < fraction < 1.0 and "model-00002.safetensors" in hub.requested:
            raise Cancelled()

    with HubServer({"tiny/slow": slow_repo}, delay=0.002) as hub:
        with pytest.raises(Cancelled):
            fetch("tiny/slow", report, endpoint=hub.endpoint, cache_dir=cache)
        snapshot = cache / "models--tiny--slow" / "snapshots" / SHA
        assert not (snapshot / "model-00002.safetensors").exists()            # nothing half-written in place
        assert 0.0 < fractions[-1] < 1.0
        workers_end()                                   # on a busy machine it may take more than Cancel's 0.3 s
        folder = fetch("tiny/slow", endpoint=hub.endpoint, cache_dir=cache)
    assert (folder / "model-00002.safetensors").read_bytes() == (slow_repo / "model-00002.safetensors").read_bytes()
    assert [name for name, start in hub.ranges if start > 0] == ["model-00002.safetensors"]   # resumed, not again
    assert not list((cache / "models--tiny--slow" / ".incomplete").iterdir())


# -- through the window ----------------------------------------------------------------------------------------
def test_download_then_open_in_the_window(qtbot, window, repo, tmp_path):
    win, s = window, window.state
    with HubServer({"tiny/gpt2": repo}) as hub:
        wait_render(qtbot, win, lambda: win.model_actions.download("tiny/gpt2", endpoint=hub.endpoint,
                                                                  cache_dir=tmp_path / "cache"), timeout=60_000)
    folder = tmp_path / "cache" / "models--tiny--gpt2" / "snapshots" / SHA
    assert s.inputs.weights == str(folder.resolve()) and s.inputs.config.d_vocab == 24
    tokenizer = s.registry[s.inputs.weights].tokenizer
    assert list(s.inputs.tokens) == tokenizer.encode(OPEN_TEXT)[:12]         # its own tokenizer, n_ctx 12
    assert "tiny/gpt2" in win.controls.weights.currentText()
    wait_render(qtbot, win, lambda: s.set_text("a big red dog ran"))
    assert list(s.inputs.tokens) == [6, 10, 11, 7, 8]


def test_cancel_a_download_in_the_window(qtbot, window, slow_repo, tmp_path, small_chunks):
    win, s, actions = window, window.state, window.model_actions
    before = s.inputs
    with HubServer({"tiny/slow": slow_repo}, delay=0.01) as hub:
        assert actions.download("tiny/slow", endpoint=hub.endpoint, cache_dir=tmp_path / "cache")
        qtbot.waitUntil(lambda: actions.dialog is not None and 0 < actions.dialog.value() < 1000, timeout=30_000)
        assert "downloading tiny/slow" in actions.dialog.labelText()
        actions.dialog.findChild(QPushButton).click()
        qtbot.waitUntil(lambda: not actions.busy, timeout=30_000)
    assert "Downloading tiny/slow cancelled" in win.messages.text and s.inputs == before


def test_download_offline_in_the_window_says_so(qtbot, window, tmp_path):
    win = window
    before = win.state.inputs
    win.model_actions.download("HuggingFaceTB/SmolLM2-135M", endpoint="http://127.0.0.1:9",
                               cache_dir=tmp_path / "cache")
    qtbot.waitUntil(lambda: not win.model_actions.busy, timeout=30_000)
    assert "offline" in win.messages.text and win.state.inputs == before
