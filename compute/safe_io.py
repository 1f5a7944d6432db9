"""Every file QKV Lab writes or reads, through one place (no Qt here: compute saves weights too).

Writing (`write_file`): the bytes go to a short-named temporary file beside the real target
(symlinks followed, so a link keeps pointing at the updated file), are flushed and fsync'ed, read
back and checked (size, and the format's own end marker: PNG IEND, PDF %%EOF, SVG </svg>, the
zip end-of-central-directory of NPZ, a safetensors header that accounts for every byte, JSON
that parses), and only then renamed over the target. On any failure the temporary file is
removed, the old file is untouched, and `FileError` says what went wrong in words, naming the
file the user chose, never the temporary one ("the disk is full: 12 KiB free"). Only regular
files are ever replaced: a device, a named pipe or a folder of that name is refused.

Reading (`open_regular`, `read_bytes`, `read_text`, `sha256_file`): only regular files are
opened (O_NONBLOCK for the open itself, so a named pipe without a writer cannot block, then
fstat), and reads are bounded by what was asked for, not by st_size (which is 0 for /dev/zero).
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import stat
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

# The longest file name most file systems take (ext4, XFS, btrfs, APFS, NTFS: 255 bytes).
NAME_MAX = 255
_CHUNK = 1 << 20


class FileError(OSError):
    """A file that cannot be read or written. str() is a sentence for the user naming the file and
    the real cause; `reason` is the cause alone, `path` the file as the user named it."""

    def __init__(self, message: str, reason: str = "", path: str = "", code: int | None = None):
        super().__init__(message)
        self.reason = reason or message
        self.path = path
        self.errno = code
        self.strerror = self.reason    # as OSError's: the cause, for callers that add the file name

    def __str__(self) -> str:
        return self.args[0]


# -- words ----------------------------------------------------------------------------------------
def fmt_size(n: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}".replace(".0 ", " ")
    return f"{int(n)} B"


def _free_space(folder: Path) -> str:
    try:
        st = os.statvfs(folder)
        return f": {fmt_size(st.f_bavail * st.f_frsize)} free"
    except (OSError, AttributeError):
        return ""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def describe(exc: OSError, folder: Path | None = None) -> str:
    """The cause of an OS error in words, without its file name (which may be a temporary one)."""
    code = exc.errno
    if isinstance(exc, FileError):
        return exc.reason
    if code == errno.ENOSPC:
        return "the disk is full" + (_free_space(folder) if folder is not None else "")
    if code == getattr(errno, "EDQUOT", -1):
        return "the disk quota is used up" + (_free_space(folder) if folder is not None else "")
    if code == errno.EFBIG:
        return "the file would be larger than this system allows (a file size limit)"
    if code == errno.EROFS:
        return "the disk is read-only"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied" + (f" (cannot write in {str(folder)!r})" if folder is not None else "")
    if code == errno.ENAMETOOLONG:
        return f"the name is too long (a file system takes at most {NAME_MAX} bytes per name)"
    if code == errno.ENOENT:
        return "no such file or folder"
    if code == errno.ENOTDIR:
        return "a part of the path is a file, not a folder"
    if code == errno.EISDIR:
        return "it is a folder"
    if code == errno.ELOOP:
        return "too many symbolic links"
    if code == errno.EIO:
        return "the disk reported an input/output error"
    if code == errno.ENXIO:
        return "it is a device or pipe with nothing on the other end"
    return exc.strerror or type(exc).__name__


# -- checks of what was written ---------------------------------------------------------------------
def _pread(fd: int, n: int, offset: int) -> bytes:
    """n bytes at offset (os.pread is not on Windows)."""
    os.lseek(fd, offset, os.SEEK_SET)
    parts, left = [], n
    while left > 0:
        block = os.read(fd, min(left, 64 << 20))
        if not block:
            break
        parts.append(block)
        left -= len(block)
    return b"".join(parts)


def _tail(fd: int, size: int, n: int) -> bytes:
    return _pread(fd, min(n, size), max(0, size - n))


def _check_png(fd: int, size: int) -> str | None:
    if _pread(fd, 8, 0) != b"\x89PNG\r\n\x1a\n":
        return "it does not start like a PNG"
    if _tail(fd, size, 12) != b"\x00\x00\x00\x00IEND\xaeB`\x82":
        return "the PNG has no end marker (IEND)"
    return None


def _check_pdf(fd: int, size: int) -> str | None:
    if _pread(fd, 5, 0) != b"%PDF-":
        return "it does not start like a PDF"
    if b"%%EOF" not in _tail(fd, size, 1024):
        return "the PDF has no end marker (%%EOF)"
    return None


def _check_svg(fd: int, size: int) -> str | None:
    if not _tail(fd, size, 256).rstrip().endswith(b"</svg>"):
        return "the SVG is not closed (no </svg>)"
    return None


def _check_zip(fd: int, size: int) -> str | None:
    tail = _tail(fd, size, 22 + 0xFFFF)                 # the end record plus the longest comment
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return "the archive has no end-of-central-directory record"
    cd_size, cd_offset = struct.unpack("<II", tail[at + 12:at + 20])
    end_record = size - (len(tail) - at)
    if cd_offset != 0xFFFFFFFF and cd_offset + cd_size > end_record:  # zip64 keeps its own record
        return "the archive's central directory is cut short"
    return None


def _check_safetensors(fd: int, size: int) -> str | None:
    if size < 8:
        return "too short for a safetensors file"
    (n,) = struct.unpack("<Q", _pread(fd, 8, 0))
    if n > size - 8:
        return "the safetensors header runs past the end"
    try:
        header = json.loads(_pread(fd, n, 8))
        ends = [v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"]
    except (ValueError, KeyError, TypeError, IndexError):
        return "the safetensors header does not read back"
    if max(ends, default=0) != size - 8 - n:
        return "the safetensors data does not match its header"
    return None


def _check_json(fd: int, size: int) -> str | None:
    try:
        json.loads(_pread(fd, size, 0).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return "the JSON does not read back"
    return None


def _check_text(fd: int, size: int) -> str | None:
    return None if _tail(fd, size, 1) == b"\n" else "the text does not end with a line break"


CHECKS: dict[str, Callable[[int, int], str | None]] = {
    "png": _check_png, "pdf": _check_pdf, "svg": _check_svg, "zip": _check_zip,
    "safetensors": _check_safetensors, "json": _check_json, "text": _check_text,
}
_BY_SUFFIX = {".png": "png", ".pdf": "pdf", ".svg": "svg", ".npz": "zip", ".zip": "zip",
              ".safetensors": "safetensors", ".json": "json", ".qkvlab": "json", ".csv": "text"}


# -- writing ---------------------------------------------------------------------------------------------
Data = bytes | bytearray | memoryview | str | Callable[[BinaryIO], None]


def write_file(path: str | os.PathLike, data: Data, *, check: str | None = None) -> Path:
    """Write `data` to `path` so that either the whole, checked file is there or the old one is.

    `data` is bytes, text (UTF-8), or a callable that writes to the binary file object it is given
    (for large outputs such as NPZ). `check` names the format check ("png", "pdf", "svg", "zip",
    "safetensors", "json", "text"); by default it follows the suffix, and any other suffix is only
    checked to be non-empty. Returns the path as given (user-expanded). Raises FileError; an
    exception raised by the callable passes through, after the temporary file is removed."""
    target = Path(os.fspath(path)).expanduser()
    shown = str(target)

    def fail(reason: str, code: int | None = None):
        raise FileError(f"cannot write {shown!r}: {reason}", reason, shown, code)

    checker = CHECKS[check] if check else CHECKS.get(_BY_SUFFIX.get(target.suffix.lower(), ""))
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder, tmp, fd = target.parent, None, None
    try:
        real, old = _target(target, fail)
        folder = real.parent
        # A short temporary name: any legal target name leaves a legal temporary one.
        for _ in range(100):
            candidate = folder / f".qkv-{secrets.token_hex(4)}.tmp"
            try:
                fd = os.open(candidate, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            except FileExistsError:
                continue
            tmp = candidate
            break
        else:
            fail("no free temporary name in its folder")
        if old is not None:                                # replacing a file: keep its permissions
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
        if callable(data):
            with os.fdopen(os.dup(fd), "wb") as fh:
                data(fh)
                fh.flush()
            expected = None
        else:
            view = memoryview(data).cast("B")
            done = 0
            while done < len(view):
                done += os.write(fd, view[done:done + (64 << 20)])
            expected = len(view)
        os.fsync(fd)
        size = os.fstat(fd).st_size
        if size == 0:
            fail("nothing was written")
        if expected is not None and size != expected:
            fail(f"only {fmt_size(size)} of {fmt_size(expected)} reached the disk")
        problem = checker(fd, size) if checker is not None else None
        if problem:
            fail(f"the written file did not check out ({problem})")
        os.close(fd)
        fd = None
        os.replace(tmp, real)
        tmp = None
        _fsync_folder(folder)
    except FileError:
        raise
    except OSError as exc:
        fail(describe(exc, folder), exc.errno)
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return target


def check_target(path: str | os.PathLike) -> Path:
    """What write_file checks before writing anything (the folder exists, the name is legal, no
    device, pipe or folder of that name), for callers that want to refuse before long work.
    Returns the real path (symlinks followed); raises FileError."""
    target = Path(os.fspath(path)).expanduser()

    def fail(reason: str, code: int | None = None):
        raise FileError(f"cannot write {str(target)!r}: {reason}", reason, str(target), code)

    try:
        return _target(target, fail)[0]
    except FileError:
        raise
    except OSError as exc:
        fail(describe(exc, target.parent), exc.errno)


def _target(target: Path, fail) -> tuple[Path, os.stat_result | None]:
    if "\0" in str(target):
        fail("the name contains a NUL character, which no file system allows")
    if not target.name:
        fail("that is a folder, not a file name", errno.EISDIR)
    # A symlink stays a link: write beside the file it points to and replace that one.
    real = Path(os.path.realpath(target))
    folder = real.parent
    try:
        folder_mode = os.stat(folder).st_mode
    except FileNotFoundError:
        fail(f"the folder {str(target.parent)!r} does not exist", errno.ENOENT)
    except NotADirectoryError:
        fail(f"{str(target.parent)!r} is a file, not a folder", errno.ENOTDIR)
    if not stat.S_ISDIR(folder_mode):
        fail(f"{str(target.parent)!r} is a file, not a folder", errno.ENOTDIR)
    name_bytes, name_max = len(os.fsencode(real.name)), _name_max(folder)
    if name_bytes > name_max:
        fail(f"the file name is {name_bytes} bytes long; this file system takes at most {name_max}",
             errno.ENAMETOOLONG)
    try:
        old = os.stat(real)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        what = kind_of(old.st_mode)
        if what == "a folder":
            fail("it is a folder", errno.EISDIR)
        fail(f"it is {what}, not a regular file: choose another name")
    return real, old


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return NAME_MAX


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every system can open a folder)."""
    try:
        dfd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


# -- reading ---------------------------------------------------------------------------------------------
def open_regular(path: str | os.PathLike) -> BinaryIO:
    """Open a regular file for reading. A named pipe, device, socket or folder is refused with
    FileError without blocking; a missing file raises FileNotFoundError and other OS errors pass
    through (callers name the file their own way)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(os.fspath(path), flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = kind_of(mode)
            code = errno.EISDIR if what == "a folder" else None
            raise FileError(f"{str(path)!r} is {what}, not a regular file", f"it is {what}, not a regular file",
                            str(path), code)
        try:
            os.set_blocking(fd, True)                  # O_NONBLOCK was for the open only
        except (OSError, AttributeError):
            pass
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The whole of a regular file of at most `limit` bytes; FileError if it is larger (counted
    while reading, so a file that lies about its size or grows is still bounded)."""
    with open_regular(path) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileError(f"{str(path)!r} is larger than {fmt_size(limit)}",
                        f"it is larger than {fmt_size(limit)}", str(path))
    return data


def read_text(path: str | os.PathLike, limit: int, encoding: str = "utf-8") -> str:
    return read_bytes(path, limit).decode(encoding)


# -- checksums -------------------------------------------------------------------------------------------
_digests: dict[tuple, str] = {}
_digests_lock = threading.Lock()
_DIGESTS_MAX = 256


def _version_key(path: str | os.PathLike, st: os.stat_result) -> tuple:
    return (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def cached_sha256(path: str | os.PathLike) -> str | None:
    """The sha256 of this version of a regular file if it was computed before (no reading)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    with _digests_lock:
        return _digests.get(_version_key(path, st))


def remember_sha256(path: str | os.PathLike, st: os.stat_result, digest: str) -> None:
    """Note the digest of a file version read elsewhere (e.g. while loading it)."""
    with _digests_lock:
        if len(_digests) >= _DIGESTS_MAX:             # a bounded memo, not a growing archive
            _digests.pop(next(iter(_digests)))
        _digests[_version_key(path, st)] = digest


def sha256_file(path: str | os.PathLike, progress: Callable[[int, int], None] | None = None) -> str:
    """sha256 of a regular file, remembered per file version (path, inode, size, mtime).
    `progress(done, total)` is called per MiB read; it may raise to stop. Non-regular: FileError."""
    with open_regular(path) as fh:
        st = os.fstat(fh.fileno())
        key = _version_key(path, st)
        with _digests_lock:
            if key in _digests:
                return _digests[key]
        h = hashlib.sha256()
        done = 0
        while block := fh.read(_CHUNK):
            h.update(block)
            done += len(block)
            if progress is not None:
                progress(done, st.st_size)
    digest = h.hexdigest()
    remember_sha256(path, st, digest)
    return digest


__all__ = ["CHECKS", "FileError", "NAME_MAX", "cached_sha256", "check_target", "describe", "fmt_size", "kind_of",
           "open_regular", "read_bytes", "read_text", "remember_sha256", "sha256_file", "write_file"]
