"""The model loaders meet files that are not what their names say: a named pipe or a device is
refused at once (never read, so nothing blocks), a file that never ends is read only so far."""
from __future__ import annotations

import json
import os
import threading

import pytest

from compute import CheckpointError, load_checkpoint

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")


def _load_within(path, seconds=20.0, load=load_checkpoint):
    """load(path) on a thread: its exception, or a failure if it is still reading."""
    outcome = {}

    def run():
        try:
            load(path)
            outcome["error"] = None
        except Exception as exc:  # noqa: BLE001 - the test looks at which
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        # Unblock a reader stuck on the pipe so the thread can end, then fail.
        if os.path.exists(path) and not os.path.isdir(path):
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        pytest.fail(f"load_checkpoint({path}) still reading after {seconds:.0f} s: it hangs")
    return outcome["error"]


def test_a_pipe_named_config_json_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "config.json")
    (tmp_path / "model.safetensors").write_bytes(b"")
    error = _load_within(tmp_path)
    assert isinstance(error, CheckpointError) and "not a regular file" in str(error)


def test_a_pipe_named_like_a_gguf_file_is_refused_without_blocking(tmp_path):
    from compute.loaders.gguf_file import scan

    os.mkfifo(tmp_path / "model.gguf")
    assert isinstance(_load_within(tmp_path / "model.gguf"), CheckpointError)          # the public way
    error = _load_within(tmp_path / "model.gguf", load=scan)                         # the reader itself
    assert isinstance(error, CheckpointError) and "not a regular file" in str(error)


def test_a_config_json_that_never_ends_is_read_only_so_far(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    os.symlink("/dev/zero", tmp_path / "config.json")
    json.dumps({})                                       # (the folder needs nothing else to fail)
    error = _load_within(tmp_path)
    assert isinstance(error, CheckpointError) and "regular file" in str(error)
