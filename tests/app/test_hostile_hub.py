"""Model ▸ Download… against a hub that lies (tests/app/hub_server.py's knobs, HF_ENDPOINT pointing at it):
a server never chooses a path (nothing is written outside the cache, whatever its headers, commit or
listing say), a download never runs past its limits (sizes from the listing, the memory budget, a
deadline), Cancel acts within a second whatever the server does, and every failure is the lab's own
DownloadError with a message that names the problem."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QPushButton

from app.download import DownloadError, fetch
from compute.progress import Cancelled
from tests.compute.test_checkpoint import make_checkpoint

from .hub_server import SHA, HubServer

REPO = "tiny/gpt2"


@pytest.fixture
def repo(tmp_path):
    return make_checkpoint(tmp_path / "repo")


@pytest.fixture
def place(tmp_path):
    """The disk around the cache: an `outside` folder with a file a hostile hub would like to replace."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.json").write_text('{"mine": true}')
    return tmp_path


def files_outside_cache(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_relative_to(root / "cache") and not p.is_relative_to(root / "repo")}


@pytest.fixture
def hub(repo, monkeypatch):
    with HubServer({REPO: repo}) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.endpoint)
        yield server


def get(place, report=None, **kwargs) -> Path:
    return fetch(REPO, report, cache_dir=place / "cache", **kwargs)


# -- 1. no path chosen by the server --------------------------------------------------------------------------
@pytest.mark.parametrize("etag", ['"../../../outside/.bashrc"', '"/tmp/qkv-hostile-etag"', "../../outside/x"])
def test_an_etag_that_is_a_path_writes_nothing_outside_the_cache(hub, place, repo, etag):
    before = files_outside_cache(place)
    hub.headers = {"ETag": etag, "X-Linked-Etag": etag, "X-Repo-Commit": "../..", "X-Linked-Size": str(10**15)}
    folder = get(place)
    assert folder == place / "cache" / "models--tiny--gpt2" / "snapshots" / SHA
    assert (folder / "model.safetensors").read_bytes() == (repo / "model.safetensors").read_bytes()
    assert files_outside_cache(place) == before
    assert not Path("/tmp/qkv-hostile-etag").exists()
    assert not any(s.startswith("HEAD") for s in hub.seen)          # headers are never asked for, never used


@pytest.mark.parametrize("sha", ["../../outside/keep", "../../x", "/tmp/x", "0" * 39, "0" * 40 + "/..", None, 7])
def test_a_commit_that_is_not_40_hex_digits_is_refused(hub, place, sha):
    before = files_outside_cache(place)
    hub.sha = sha
    with pytest.raises(DownloadError, match="not a commit id"):
        get(place)
    assert files_outside_cache(place) == before
    assert hub.requested == []


@pytest.mark.parametrize("name", ["../evil.safetensors", "/tmp/evil.safetensors", "a/../../evil.safetensors",
                                  "..\\evil.safetensors", "C:evil.safetensors", "ok\0.safetensors", "", 5])
def test_a_listing_entry_outside_the_repo_is_refused(hub, place, name):
    before = files_outside_cache(place)
    hub.extra_entries = [{"type": "file", "path": name, "size": 4, "oid": "0" * 40}]
    with pytest.raises(DownloadError, match="outside the repo"):
        get(place)
    assert files_outside_cache(place) == before and hub.requested == []


def test_files_in_subfolders_are_skipped(hub, place):
    hub.extra_entries = [{"type": "file", "path": "onnx/model.safetensors", "size": 4, "oid": "0" * 40}]
    folder = get(place)
    assert not (folder / "onnx").exists() and "onnx/model.safetensors" not in hub.requested


def test_a_planted_link_in_the_cache_is_not_followed_out(hub, place):
    snapshots = place / "cache" / "models--tiny--gpt2" / "snapshots"
    snapshots.mkdir(parents=True)
    (snapshots / SHA).symlink_to(place / "outside")
    with pytest.raises(DownloadError, match="outside the download cache"):
        get(place)
    assert sorted(p.name for p in (place / "outside").iterdir()) == ["keep.json"]


# -- 2. limits and Cancel -----------------------------------------------------------------------------------------
def test_a_body_that_never_ends_stops_at_the_listing_size(hub, place):
    before = files_outside_cache(place)
    hub.endless = {"model.safetensors"}
    with pytest.raises(DownloadError, match="sent more than the .* bytes its listing gives for model.safetensors"):
        get(place)
    assert files_outside_cache(place) == before
    leftovers = [p for p in (place / "cache").rglob("*") if p.is_file()]
    assert not any(p.name == "model.safetensors" for p in leftovers)        # nothing half-written in place
    assert not any(p.suffix == ".part" for p in leftovers)


@pytest.mark.parametrize("body, why", [(b"short", "sent 5 of the"), (None, "does not match the hash")])
def test_a_body_that_is_not_the_listed_file_is_not_kept(hub, place, repo, body, why):
    data = (repo / "model.safetensors").read_bytes()
    hub.bodies = {"model.safetensors": body if body is not None else bytes(len(data))}
    with pytest.raises(DownloadError, match=why):
        get(place)
    assert not (place / "cache" / "models--tiny--gpt2" / "snapshots" / SHA / "model.safetensors").exists()


def test_a_file_over_the_memory_budget_is_refused_before_its_body(hub, place, monkeypatch):
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "1")
    hub.sizes = {"model.safetensors": 10**15}
    with pytest.raises(DownloadError, match="model.safetensors is .* on the hub, more than the 1.00 GiB"):
        get(place)
    assert hub.requested == []


def test_a_listing_that_pages_forever_is_refused(hub, place):
    hub.pages_forever = True
    with pytest.raises(DownloadError, match="more than 20 pages"):
        get(place)


def cancel_after(condition, delay: float = 0.0):
    """A report that raises Cancelled once `condition()` holds (plus `delay`); `.asked` is when it did."""
    state = {"asked": None, "calls_after": 0}

    def report(stage, fraction):
        if state["asked"] is None and condition():
            time.sleep(delay)
            state["asked"] = time.monotonic()
        if state["asked"] is not None:
            state["calls_after"] += 1
            raise Cancelled()

    report.state = state
    return report


@pytest.mark.parametrize("kind", ["info", "tree", "file", "trickle"])
def test_cancel_acts_within_a_second_whatever_the_hub_does(hub, place, kind):
    if kind == "trickle":
        hub.trickle = {"model.safetensors"}
        started = lambda: "model.safetensors" in hub.requested                 # noqa: E731
    else:
        hub.stall = {kind}
        started = lambda: any(("/tree/" in s) == (kind == "tree") and ("/api/" in s) == (kind != "file")  # noqa: E731
                              for s in hub.seen)
    report = cancel_after(started, delay=0.3)
    with pytest.raises(Cancelled):
        get(place, report)
    took = time.monotonic() - report.state["asked"]
    assert report.state["calls_after"] == 1 and took < 1.0
    assert not (place / "cache" / "models--tiny--gpt2" / "refs" / "main").exists()


def test_the_deadline_stops_a_download_that_never_answers(hub, place):
    hub.stall = {"file"}
    with pytest.raises(DownloadError, match="took longer than 0.5 s"):
        get(place, deadline=0.5)


# -- 5, 6. the lab's own errors, the right words --------------------------------------------------------------------
@pytest.mark.parametrize("repo_id", ["../../etc", "a/b/c", "", "a--b/c", "x/.", "x/" + "a" * 200, None])
def test_a_repo_id_the_hub_cannot_have_is_refused_before_any_request(hub, place, repo_id):
    with pytest.raises(DownloadError, match="not a repo id"):
        fetch(repo_id, cache_dir=place / "cache")
    assert hub.seen == []


def test_a_revision_that_is_a_path_is_refused(hub, place):
    with pytest.raises(DownloadError, match="not a revision name"):
        get(place, revision="../../x")


def test_a_redirect_to_a_file_url_is_refused(hub, place):
    hub.redirect = {"config.json": "file:///etc/passwd"}
    with pytest.raises(DownloadError, match="not http or https"):
        get(place)


def test_http_500_is_a_server_error_not_offline(hub, place):
    hub.status = 500
    with pytest.raises(DownloadError, match="answered HTTP 500 \\(a server error") as info:
        get(place)
    assert "offline" not in str(info.value)


def test_a_refused_connection_is_offline(place, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(DownloadError, match="offline: http://127.0.0.1:9 cannot be reached .*ConnectError"):
        get(place)


def test_a_server_error_falls_back_to_the_cache(hub, place):
    folder = get(place)
    hub.status = 500
    assert get(place) == folder


# -- in the window ---------------------------------------------------------------------------------------------------
def test_cancel_frees_the_window_at_once_while_the_hub_never_answers(qtbot, window, hub, place):
    actions = window.model_actions
    hub.stall = {"info"}
    assert actions.download(REPO, cache_dir=place / "cache")
    qtbot.waitUntil(lambda: bool(hub.seen), timeout=10_000)
    qtbot.waitUntil(lambda: actions.dialog is not None, timeout=10_000)
    actions.dialog.findChild(QPushButton).click()
    assert not actions.busy and actions.dialog is None                      # free at once
    assert "Downloading tiny/gpt2 cancelled" in window.messages.text
    hub.stall = set()
    assert actions.download(REPO, cache_dir=place / "cache")                # a later download is not refused
    qtbot.waitUntil(lambda: not actions.busy, timeout=30_000)
    assert threading.active_count() < 50


@pytest.mark.parametrize("info", [b"[]", b'{"sha": "%s"' % SHA.encode(), b"[" * 100_000 + b"]" * 100_000, b"\xff\xfe"])
def test_an_answer_that_is_not_the_hub_s_json_is_a_download_error(hub, place, monkeypatch, info):
    real = hub._api

    def api(handler, rest):
        if "/tree/" in rest:
            return real(handler, rest)
        hub._send(handler, 200, info, {"Content-Type": "application/json"})

    monkeypatch.setattr(hub, "_api", api)
    with pytest.raises(DownloadError, match="not JSON|not a commit id"):
        get(place)
