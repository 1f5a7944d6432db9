"""Reading a safetensors header by hand, every field validated.

The safetensors library silently accepts duplicate tensor names (the last one wins), so weights
files and checkpoint folders both read the header here first. Nothing is unpickled, nothing but
the header is read, and only from a regular file.
"""
from __future__ import annotations

import itertools
import json
import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .safe_io import open_regular

MAX_HEADER = 100 << 20          # the safetensors format's own limit on the header's size


class HeaderError(ValueError):
    """One or more problems with the header; `problems` lists them in words."""

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class Entry:
    dtype: str                      # the safetensors code, e.g. "F32"
    shape: tuple[int, ...]
    begin: int                      # byte offsets into the data section
    end: int


@dataclass(frozen=True)
class Header:
    size: int                       # of the whole file
    data_start: int                 # 8 + header length: where the data section begins
    entries: dict[str, Entry]
    metadata: dict[str, str]


def short(value, limit: int = 60) -> str:
    """A value for a message, cut short: a hostile header can hold megabytes in one field."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _unique(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise HeaderError(f"the tensor name {short(repr(key))} appears more than once")
        seen[key] = value
    return seen


def read_header(source: Path | BinaryIO, itemsizes: dict[str, int], dtype_hint: str = "") -> Header:
    """The validated header of a file (a path, or a binary file open at any position).
    `itemsizes` maps the accepted dtype codes to their byte size; any other dtype is a problem
    ("... has dtype 'I64'" + dtype_hint). Only regular files are read (a named pipe or device is
    a safe_io.FileError, without blocking). OSError passes through (the caller names the file);
    every format problem is a HeaderError listing all of them."""
    if isinstance(source, (str, os.PathLike)):
        with open_regular(source) as fh:
            return read_header(fh, itemsizes, dtype_hint)
    fh = source
    size = os.fstat(fh.fileno()).st_size
    fh.seek(0)
    head = fh.read(8)
    if len(head) < 8:
        raise HeaderError(f"too short to be a safetensors file ({size} bytes)")
    (n,) = struct.unpack("<Q", head)
    if n > min(MAX_HEADER, size - 8):
        raise HeaderError(f"header length {n} does not fit a file of {size} bytes "
                          "(not a safetensors file, or truncated)")
    raw = fh.read(n)
    if len(raw) != n:
        raise HeaderError("the file ends inside its header (truncated)")
    try:
        parsed = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique)
    except HeaderError:
        raise
    except (ValueError, RecursionError):       # not UTF-8, not JSON, or a number of 5,000 digits
        raise HeaderError("the header is not valid JSON (not a safetensors file, or corrupted)") from None
    if not isinstance(parsed, dict):
        raise HeaderError("the header is not a JSON object")
    metadata = parsed.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict):
        raise HeaderError("__metadata__ is not an object")
    data_len = size - 8 - n
    problems: list[str] = []
    entries: dict[str, Entry] = {}
    for key, info in parsed.items():
        name = short(key)
        if not isinstance(info, dict):
            problems.append(f"{name}: entry is not an object")
            continue
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        # Any JSON value can stand in any field: test the type before using it (a list is unhashable).
        if not isinstance(dtype, str) or dtype not in itemsizes:
            problems.append(f"{name} has dtype {short(repr(dtype))}{dtype_hint}")
            continue
        if (not isinstance(shape, list)
                or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)):
            problems.append(f"{name} has an invalid shape {short(shape)}")
            continue
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
            problems.append(f"{name} has invalid data_offsets {short(offsets)}")
            continue
        begin, end = offsets
        if not 0 <= begin <= end <= data_len or end - begin != math.prod(shape) * itemsizes[dtype]:
            problems.append(f"{name}: data_offsets {short(offsets)} do not match shape {short(shape)} "
                            f"and {data_len} bytes of data (truncated or corrupted)")
            continue
        entries[key] = Entry(dtype, tuple(shape), begin, end)
    spans = sorted((e.begin, e.end, name) for name, e in entries.items() if e.end > e.begin)
    for (_, e0, n0), (b1, _, n1) in itertools.pairwise(spans):
        if b1 < e0:
            problems.append(f"{short(n0)} and {short(n1)} overlap in the file")
    if problems:
        raise HeaderError(problems)
    # The format says metadata maps text to text; anything else is left out.
    return Header(size=size, data_start=8 + n, entries=entries,
                  metadata={k: v for k, v in metadata.items() if isinstance(v, str)})
