"""The float32 weights a large GGUF file dequantizes to, kept in the lab's cache folder so that the
next opening reads them instead of dequantizing again (Gemma 3 270M: 253 MB of Q4_K_M and Q8_0
become 1.07 GB of float32; dequantizing and laying them out took most of the 6 s an opening took on
an idle machine, 18.7 s under load).

    weights, notes = cached(path, cfg, "gemma3", make)     # make() -> Weights, called on a miss

- The key is the file's content: its sha256 (compute.safe_io.sha256_file, remembered per size and
  mtime, so a real model's prepare() has already paid it), the variant (how the tensors were mapped:
  "gemma3", "llama", "llama-as_stored", ...), the `gguf` package's version (its dequantization) and
  CACHE_FORMAT. A changed file is another key: a stale entry is never read.
- An entry is a safetensors file written by Weights.save (compute.safe_io's one writer: temporary
  file, fsync, checked, renamed), read back by Weights.map (names, shapes against the file's own
  Config, finiteness). One version per GGUF file name: writing an entry removes those of that name
  made from other contents. A damaged entry is dequantized again and replaced. An entry is read
  through a memory map (Weights.map): no copy, its pages are the OS's file cache.
- Only files of CACHE_MIN_BYTES or more (smaller ones dequantize in well under a second), and
  never when QKV_LAB_FLOAT32_CACHE=0.
- The cache is only a copy of what the GGUF file holds: when its folder cannot be written (read-only,
  full disk) the opening still succeeds, dequantized as before, and a note says why nothing was kept.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from .. import safe_io

CACHE_MIN_BYTES = 64 << 20
CACHE_FORMAT = 1                  # bump when what an entry holds changes
ENV = "QKV_LAB_FLOAT32_CACHE"


def folder() -> Path:
    """Where the entries go: the lab's cache folder's float32/ (beside the real models' files)."""
    from .loaded import lab_cache_dir

    return lab_cache_dir() / "float32"


def enabled(path: Path) -> bool:
    return os.environ.get(ENV, "1") != "0" and path.stat().st_size >= CACHE_MIN_BYTES


def _stem(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", path.stem)[:80]


def entry_path(path: Path, variant: str) -> Path:
    """The cache file for this GGUF file's contents and variant."""
    import gguf

    version = getattr(gguf, "__version__", None) or _gguf_version()
    digest = safe_io.sha256_file(path)
    return folder() / f"{_stem(path)}-{digest[:32]}-{variant}-gguf{version}-f{CACHE_FORMAT}.safetensors"


def _gguf_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gguf")
    except PackageNotFoundError:
        return "unknown"


def cached(path: Path, cfg, variant: str, make: Callable[[], object]) -> tuple[object, tuple[str, ...]]:
    """(Weights, notes): read from the cache when an entry of this file's contents is there, else
    make() and keep its result (notes say what could not be kept, or what was damaged)."""
    from ..weights import Weights, WeightsError

    if not enabled(path):
        return make(), ()
    entry = entry_path(path, variant)
    notes: list[str] = []
    if entry.is_file() and not entry.is_symlink():
        try:
            return Weights.map(entry, cfg), ()
        except WeightsError as exc:                  # damaged or cut short: made again below
            notes.append(f"the cached float32 weights {str(entry)!r} could not be read ({exc}); dequantized "
                         "again")
    weights = make()
    notes.extend(_keep(weights, entry, path))
    return weights, tuple(notes)


def _keep(weights, entry: Path, path: Path) -> tuple[str, ...]:
    """Write the entry (and remove older entries of the same GGUF file name); a note when it cannot be."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        weights.save(entry)
    except (safe_io.FileError, OSError) as exc:
        reason = exc.reason if isinstance(exc, safe_io.FileError) else safe_io.describe(exc, entry.parent)
        return (f"the float32 weights could not be kept in the lab's cache folder {str(entry.parent)!r} "
                f"({reason}): the next opening dequantizes the file again",)
    digest = entry.name[len(_stem(path)) + 1:].split("-", 1)[0]
    for old in entry.parent.glob(f"{_stem(path)}-*.safetensors"):
        found = re.fullmatch(re.escape(_stem(path)) + r"-([0-9a-f]{32})-.*", old.name)
        if found and found.group(1) != digest:
            try:
                old.unlink()                          # another version of this file: never read again
            except OSError:
                pass
    return ()
