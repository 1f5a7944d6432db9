"""Reading a safetensors header by hand, every field validated.

The safetensors library silently accepts duplicate tensor names (the last one wins), so weights
files and checkpoint folders both read the header here first. Nothing is unpickled, nothing but
the header is read.
"""
from __future__ import annotations

import itertools
import json
import math
import struct
from dataclasses import dataclass
from pathlib import Path

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


def _unique(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise HeaderError(f"the tensor name {key!r} appears more than once")
        seen[key] = value
    return seen


def read_header(path: Path, itemsizes: dict[str, int], dtype_hint: str = "") -> Header:
    """The validated header of `path`. `itemsizes` maps the accepted dtype codes to their byte
    size; any other dtype is a problem ("... has dtype 'I64'" + dtype_hint). OSError passes through
    (the caller names the file); every format problem is a HeaderError listing all of them."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise HeaderError(f"too short to be a safetensors file ({size} bytes)")
        (n,) = struct.unpack("<Q", head)
        if n > min(MAX_HEADER, size - 8):
            raise HeaderError(f"header length {n} does not fit a file of {size} bytes "
                              "(not a safetensors file, or truncated)")
        raw = fh.read(n)
    try:
        parsed = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique)
    except HeaderError:
        raise
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise HeaderError("the header is not valid JSON (not a safetensors file, or corrupted)") from None
    if not isinstance(parsed, dict):
        raise HeaderError("the header is not a JSON object")
    metadata = parsed.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict):
        raise HeaderError("__metadata__ is not an object")
    data_len = size - 8 - n
    problems: list[str] = []
    entries: dict[str, Entry] = {}
    for name, info in parsed.items():
        if not isinstance(info, dict):
            problems.append(f"{name}: entry is not an object")
            continue
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if dtype not in itemsizes:
            problems.append(f"{name} has dtype {dtype!r}{dtype_hint}")
            continue
        if (not isinstance(shape, list)
                or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)):
            problems.append(f"{name} has an invalid shape {shape!r}")
            continue
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
            problems.append(f"{name} has invalid data_offsets {offsets!r}")
            continue
        begin, end = offsets
        if not 0 <= begin <= end <= data_len or end - begin != math.prod(shape) * itemsizes[dtype]:
            problems.append(f"{name}: data_offsets {offsets} do not match shape {shape} "
                            f"and {data_len} bytes of data (truncated or corrupted)")
            continue
        entries[name] = Entry(dtype, tuple(shape), begin, end)
    spans = sorted((e.begin, e.end, name) for name, e in entries.items() if e.end > e.begin)
    for (_, e0, n0), (b1, _, n1) in itertools.pairwise(spans):
        if b1 < e0:
            problems.append(f"{n0} and {n1} overlap in the file")
    if problems:
        raise HeaderError(problems)
    return Header(size=size, data_start=8 + n, entries=entries,
                  metadata={str(k): v for k, v in metadata.items()})
