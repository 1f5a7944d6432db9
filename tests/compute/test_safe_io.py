"""The one writer and the safe readers (compute/safe_io.py), under faults: a full disk, special
files, symlinks, long names, truncated output; pipes and devices never block a read."""
from __future__ import annotations

import errno
import io
import json
import os
import stat
import struct
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from compute import safe_io
from compute.safe_io import FileError, read_bytes, sha256_file, write_file

PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20 + PNG_END


def finishes(fn, seconds: float = 10.0):
    """Run fn in a thread; fail (instead of hanging the suite) if it does not return in time."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn} blocked for more than {seconds} s"
    if "error" in out:
        raise out["error"]
    return out.get("value")


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- a full disk ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["write", "fsync"])
def test_a_full_disk_keeps_the_old_file_and_names_the_real_cause(tmp_path, monkeypatch, where):
    target = tmp_path / "fig.pdf"
    target.write_bytes(b"%PDF-1.4 the old figure %%EOF")

    def enospc(*_args):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / ".qkv-dead.tmp"))

    monkeypatch.setattr(os, where, enospc)
    with pytest.raises(FileError) as info:
        write_file(target, b"%PDF-1.7 a new figure\n%%EOF\n")
    monkeypatch.undo()
    message = str(info.value)
    assert "the disk is full:" in message and "free" in message and "fig.pdf" in message
    assert ".qkv" not in message and ".tmp" not in message        # never the hidden temporary name
    assert info.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"%PDF-1.4 the old figure %%EOF"
    assert _listing(tmp_path) == ["fig.pdf"]


def test_a_streamed_writer_on_a_full_disk_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "trace.npz"
    target.write_bytes(b"old")

    def enospc(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", enospc)
    with pytest.raises(FileError, match="the disk is full"):
        write_file(target, lambda fh: np.savez_compressed(fh, a=np.arange(10)))
    monkeypatch.undo()
    assert target.read_bytes() == b"old" and _listing(tmp_path) == ["trace.npz"]


def test_a_short_write_is_caught_by_the_size_check(tmp_path, monkeypatch):
    """A file system that reports success but stores less (what Qt's own writers never noticed)."""
    target = tmp_path / "fig.png"
    target.write_bytes(PNG)
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[: len(data) // 2]) and len(data))
    with pytest.raises(FileError, match="reached the disk"):
        write_file(target, PNG + b"\x00" * 100)
    monkeypatch.undo()
    assert target.read_bytes() == PNG and _listing(tmp_path) == ["fig.png"]


@pytest.mark.parametrize("name, data, problem", [
    ("f.png", PNG[:-12], "IEND"),
    ("f.pdf", b"%PDF-1.7\n1 0 obj", "%%EOF"),
    ("f.svg", b"<svg xmlns='http://www.w3.org/2000/svg'><text>half", "</svg>"),
    ("f.npz", b"PK\x03\x04 half an archive", "end-of-central-directory"),
    ("f.safetensors", struct.pack("<Q", 2) + b"{}" + b"\x00" * 8, "does not match its header"),
    ("f.qkvlab", b'{"format": "qkv-lab-session", ', "JSON"),
    ("f.csv", b"a,b\n1,2", "line break"),
    ("f.bin", b"", "nothing was written"),
])
def test_output_that_does_not_check_out_never_replaces_the_file(tmp_path, name, data, problem):
    target = tmp_path / name
    target.write_bytes(b"old")
    with pytest.raises(FileError, match=problem):
        write_file(target, data)
    assert target.read_bytes() == b"old" and _listing(tmp_path) == [name]


def test_good_output_of_every_format_is_written(tmp_path):
    buf = io.BytesIO()
    np.savez_compressed(buf, a=np.arange(3))
    from safetensors.numpy import save as st_save

    cases = {"f.png": PNG, "f.pdf": b"%PDF-1.7\n%%EOF\n", "f.svg": b"<svg></svg>\n", "f.npz": buf.getvalue(),
             "f.safetensors": st_save({"x": np.ones(3, np.float32)}), "f.qkvlab": b"{}", "f.csv": "a\n"}
    for name, data in cases.items():
        assert write_file(tmp_path / name, data) == tmp_path / name
        assert (tmp_path / name).read_bytes() == (data.encode() if isinstance(data, str) else data)
    with zipfile.ZipFile(tmp_path / "f.npz") as z:
        assert z.namelist() == ["a.npy"]
    assert _listing(tmp_path) == sorted(cases)


def test_permissions_of_the_replaced_file_are_kept(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    write_file(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "new\n"


def test_a_callable_that_fails_leaves_nothing(tmp_path):
    def broken(fh):
        fh.write(b"half")
        raise ValueError("the figure could not be drawn")

    with pytest.raises(ValueError, match="could not be drawn"):
        write_file(tmp_path / "x.csv", broken)
    assert _listing(tmp_path) == []


# -- special targets ----------------------------------------------------------------------------------
def test_a_named_pipe_target_is_refused_and_stays_a_pipe(tmp_path):
    fifo = tmp_path / "fig.pdf"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match="named pipe, not a regular file"):
        finishes(lambda: write_file(fifo, b"%PDF-1.7\n%%EOF\n"))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and _listing(tmp_path) == ["fig.pdf"]


def test_a_device_target_is_refused(tmp_path):
    link = tmp_path / "out.png"
    link.symlink_to("/dev/null")
    with pytest.raises(FileError, match="a device, not a regular file"):
        write_file(link, PNG)
    assert os.path.islink(link) and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(FileError, match="it is a folder"):
        write_file(tmp_path, PNG)


def test_a_symlinked_target_updates_the_real_file_and_stays_a_link(tmp_path):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    real = real_dir / "fig.png"
    real.write_bytes(b"old")
    link = tmp_path / "fig.png"
    link.symlink_to(real)
    write_file(link, PNG)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == PNG
    assert _listing(real_dir) == ["fig.png"] and _listing(tmp_path) == ["fig.png", "real"]


# -- names --------------------------------------------------------------------------------------------------
def test_legal_long_names_are_written_and_too_long_ones_say_so(tmp_path):
    for n in (245, 250, 255):
        name = "a" * (n - 4) + ".csv"
        write_file(tmp_path / name, "x\n")                      # the temporary name is short
        assert (tmp_path / name).read_text() == "x\n"
    with pytest.raises(FileError, match="256 bytes long; this file system takes at most 255"):
        write_file(tmp_path / ("a" * 252 + ".csv"), "x\n")
    with pytest.raises(FileError, match="NUL"):
        write_file(tmp_path / "a\0.csv", "x\n")
    with pytest.raises(FileError, match="does not exist"):
        write_file(tmp_path / "missing" / "x.csv", "x\n")
    assert len(_listing(tmp_path)) == 3


def test_describe_gives_words_for_common_errors(tmp_path):
    assert "disk quota" in safe_io.describe(OSError(errno.EDQUOT, "x"), tmp_path)
    assert "read-only" in safe_io.describe(OSError(errno.EROFS, "x"))
    assert "file size limit" in safe_io.describe(OSError(errno.EFBIG, "x"))
    assert "permission denied" in safe_io.describe(OSError(errno.EACCES, "x"), tmp_path)


# -- reading --------------------------------------------------------------------------------------------
def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "session.qkvlab"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match="named pipe"):
        finishes(lambda: read_bytes(fifo, 1000))
    with pytest.raises(FileError, match="named pipe"):
        finishes(lambda: sha256_file(fifo))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_whatever_their_size_says(device):
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist here")
    with pytest.raises(FileError, match="a device"):
        finishes(lambda: read_bytes(device, 1 << 20))
    with pytest.raises(FileError, match="a device"):
        finishes(lambda: sha256_file(device))


def test_reads_are_bounded_by_the_limit_not_by_st_size(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 1001)
    assert read_bytes(path, 1001) == b"x" * 1001
    with pytest.raises(FileError, match="larger than"):
        read_bytes(path, 1000)


def test_digests_are_remembered_per_file_version(tmp_path):
    import hashlib

    path = tmp_path / "w.bin"
    path.write_bytes(b"one")
    assert safe_io.cached_sha256(path) is None
    assert sha256_file(path) == hashlib.sha256(b"one").hexdigest() == safe_io.cached_sha256(path)
    write_file(path, b"two!")                                  # a new inode: a new version
    assert safe_io.cached_sha256(path) is None
    assert sha256_file(path) == hashlib.sha256(b"two!").hexdigest()


def test_json_written_is_json(tmp_path):
    write_file(tmp_path / "x.json", json.dumps({"a": 1}))
    assert json.loads((tmp_path / "x.json").read_text()) == {"a": 1}
