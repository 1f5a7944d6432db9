"""Model weights: an immutable, validated mapping from TransformerLens names to float32 arrays.

Files are safetensors only. The loader reads the header itself first, because the safetensors
library silently accepts duplicate names, NaN/Inf values and zero-size tensors; nothing is ever
unpickled. Every problem with a file or a dict becomes one `WeightsError` listing all of them.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import struct
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import memory, progress, safe_io
from .config import Config, ConfigError
from .names import block_weight_names, missing_weight_reason, weight_shapes
from .safetensors_header import Entry, HeaderError, read_header, short

METADATA_KEY = "qkv_lab.config"
FORMAT_KEY = "format"
FORMAT = "qkv-lab-weights/1"
# safetensors dtype codes we read, all converted to float32.
_FLOAT_DTYPES = {"F16": np.float16, "F32": np.float32, "F64": np.float64}
_ITEMSIZES = {code: np.dtype(t).itemsize for code, t in _FLOAT_DTYPES.items()}
_uids = itertools.count(1)


class WeightsError(ValueError):
    """Weights that cannot be used: missing, extra, duplicate, misshapen, non-float or non-finite."""

    def __init__(self, problems: list[str] | str, source: str = "weights"):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.source = source
        shown = self.problems[:8]
        more = len(self.problems) - len(shown)
        text = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
        count = "1 problem" if len(self.problems) == 1 else f"{len(self.problems)} problems"
        super().__init__(f"{source}: {count}: {text}")


class Weights(Mapping):
    """Read-only float32 arrays by name (docs/ARCHITECTURE.md, "Names"), made for one Config's shapes."""

    def __init__(self, cfg: Config, arrays: dict[str, np.ndarray], *, _checked: bool = False):
        if not _checked:
            raise TypeError("use Weights.random, Weights.from_dict or Weights.load")
        self._cfg = cfg
        self._arrays = arrays
        # A unique id per instance: backends key device copies and fused layouts on it.
        self.uid = next(_uids)

    # -- mapping -----------------------------------------------------------------------------
    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._arrays[name]
        except KeyError:
            why = missing_weight_reason(str(name), self._cfg)
            raise KeyError(why or f"no weight named {name!r}; names look like 'blocks.0.attn.W_Q' "
                           f"(w.names() lists all {len(self._arrays)})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def names(self) -> list[str]:
        return list(self._arrays)

    @property
    def cfg(self) -> Config:
        return self._cfg

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._arrays.values())

    def block(self, layer: int) -> dict[str, np.ndarray]:
        """The weights of one block by short name ('attn.W_Q', 'ln1.w', ...): those this model
        has (compute.names.block_weight_names; no biases with attn_bias=False, say)."""
        return {short: self._arrays[f"blocks.{layer}.{short}"] for short in block_weight_names(self._cfg)}

    def __repr__(self) -> str:
        return f"Weights({self._cfg.describe()}, {memory.fmt_bytes(self.nbytes)})"

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def random(cls, cfg: Config, seed: int = 0, *, bias_std: float = 0.0) -> Weights:
        """Deterministic GPT-2-style initialisation.

        Matrices that read the residual stream (W_Q, W_K, W_V, W_in) have std 1/sqrt(fan_in), so
        q, k and v start with unit variance: raw scores then spread like sqrt(d_head), which is
        exactly what the 1/sqrt(d_head) scaling corrects. W_O and W_out (which write the stream)
        are also divided by sqrt(2 * n_layers), as GPT-2 does. Embeddings use GPT-2's 0.02
        (positions 0.01). LayerNorm weights are 1 and biases 0 unless `bias_std` > 0, which also
        draws every bias and jitters LayerNorm (tests use it so no term can hide as a zero).
        Each tensor has its own random stream from (seed, name): changing d_head redraws only
        the attention weights, adding a layer keeps the others.
        """
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ConfigError("seed", seed, "must be a whole number >= 0", limit=0)
        memory.check(cfg, 0, include_weights=True)
        residual_scale = 1.0 / math.sqrt(2.0 * cfg.n_layers)
        arrays: dict[str, np.ndarray] = {}
        shapes = weight_shapes(cfg)
        total, done = sum(math.prod(s) for s in shapes.values()), 0
        for name, shape in shapes.items():
            progress.report(f"weights {name}", done / total)
            done += math.prod(shape)
            rng = np.random.default_rng([int(seed), zlib.crc32(name.encode())])
            short = name.rsplit(".", 1)[-1]
            if short in ("W_Q", "W_K", "W_V", "W_in", "W_gate", "W_router"):
                std = 1.0 / math.sqrt(shape[-2])
            elif short == "W_O":
                std = residual_scale / math.sqrt(cfg.d_concat)
            elif short == "W_out":
                std = residual_scale / math.sqrt(cfg.d_mlp)
            elif short in ("W_E", "W_U"):
                std = 0.02
            elif short == "W_pos":
                std = 0.01
            else:
                std = None
            if std is not None:
                arr = rng.standard_normal(shape, dtype=np.float32) * np.float32(std)
            elif short == "w":  # LayerNorm / RMSNorm gain
                arr = np.ones(shape, np.float32)
                if bias_std > 0:
                    arr += rng.standard_normal(shape, dtype=np.float32) * np.float32(bias_std)
            else:  # biases
                arr = np.zeros(shape, np.float32)
                if bias_std > 0:
                    arr = rng.standard_normal(shape, dtype=np.float32) * np.float32(bias_std)
            arr.setflags(write=False)
            arrays[name] = arr
        return cls(cfg, arrays, _checked=True)

    @classmethod
    def from_dict(cls, cfg: Config, tensors: Mapping[str, Any], *, source: str = "weights") -> Weights:
        """Validate names, shapes, dtypes and finiteness against `cfg`; copies to float32."""
        if not isinstance(cfg, Config):
            raise TypeError("from_dict needs a Config as its first argument")
        if not isinstance(tensors, Mapping):
            raise WeightsError(f"expected a mapping of names to arrays, got {type(tensors).__name__}", source)
        expected = weight_shapes(cfg)
        problems: list[str] = []
        missing = [n for n in expected if n not in tensors]
        extra = sorted(str(n) for n in tensors if n not in expected)
        if missing:
            problems.append(f"missing {_list(missing)}")
        if extra:
            problems.append(f"unexpected {_list(extra)} (not a name for {cfg.n_layers} layers)")
        arrays: dict[str, np.ndarray] = {}
        for name, shape in expected.items():
            if name not in tensors:
                continue
            value = tensors[name]
            try:
                arr = np.asarray(value)
            except Exception:  # noqa: BLE001 - anything un-array-like is a problem to report
                problems.append(f"{name} is not an array")
                continue
            if arr.dtype.kind != "f":
                problems.append(f"{name} has dtype {arr.dtype}, expected floating point")
                continue
            if arr.shape != shape:
                problems.append(f"{name} has shape {tuple(arr.shape)}, expected {shape} "
                                f"{_shape_hint(name, cfg)}")
                continue
            arr = np.array(arr, dtype=np.float32, copy=True, order="C")  # own, contiguous, float32
            if not np.isfinite(arr).all():
                bad = int(arr.size - np.isfinite(arr).sum())
                problems.append(f"{name} has {bad} non-finite value(s) (NaN or Inf)")
                continue
            arr.setflags(write=False)
            arrays[name] = arr
        if problems:
            raise WeightsError(problems, source)
        return cls(cfg, arrays, _checked=True)

    def replace(self, updates: Mapping[str, Any]) -> Weights:
        """New Weights with some tensors swapped; the whole set is validated again."""
        unknown = sorted(str(n) for n in updates if n not in self._arrays)
        if unknown:
            raise WeightsError(f"unexpected {_list(unknown)}")
        return Weights.from_dict(self._cfg, {**self._arrays, **updates})

    # -- files ---------------------------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> Path:
        """Write a safetensors file through the project's one writer (compute.safe_io): streamed
        tensor by tensor (no second copy of the weights in memory), fsync'ed, checked, renamed
        into place; the old file stays intact on any failure. Raises safe_io.FileError."""
        metadata = {FORMAT_KEY: FORMAT, METADATA_KEY: json.dumps(self._cfg.to_dict())}
        return safe_io.write_file(path, _safetensors_writer(self._arrays, metadata), check="safetensors")

    @classmethod
    def load(cls, path: str | os.PathLike, cfg: Config | None = None) -> Weights:
        """Read and validate a safetensors file. Without `cfg`, the config stored in the file is
        used, or one inferred from the tensor shapes. Any problem: WeightsError, nothing partial.

        Only a regular file is read; a file whose float32 weights would not fit the memory budget
        (compute.memory) is refused before anything is allocated. Tensors are read straight into
        their final arrays (peak ~1x the float32 size, plus one tensor for F16/F64 files), and
        the file's sha256 is taken on the way (sessions refer to it without reading it again)."""
        path = Path(path)
        source = f"weights file {str(path)!r}"
        try:
            with safe_io.open_regular(path) as fh:
                st = os.fstat(fh.fileno())
                header = read_header(fh, _ITEMSIZES, "; only F16, F32 and F64 are weights")
                entries = dict(header.entries)
                empty = [n for n, e in entries.items() if math.prod(e.shape) == 0]
                if empty:
                    raise WeightsError([f"{short(n)} is empty (shape {list(entries[n].shape)})" for n in empty],
                                       source)
                if cfg is None:
                    cfg = _config_from(header.metadata, entries, source)
                _check_entries_against(cfg, entries, source)
                _check_budget(entries, source)
                tensors, digest = _read_tensors(fh, header, entries, source)
                tensors = {n: tensors[n] for n in weight_shapes(cfg)}     # the canonical order, as from_dict
                if os.fstat(fh.fileno()).st_mtime_ns != st.st_mtime_ns:
                    raise WeightsError("the file changed while it was read; open it again", source)
        except HeaderError as exc:
            raise WeightsError(exc.problems, source) from None
        except FileNotFoundError:
            raise WeightsError("file not found", source) from None
        except IsADirectoryError:
            raise WeightsError("is a folder, not a safetensors file", source) from None
        except PermissionError:
            raise WeightsError("permission denied", source) from None
        except safe_io.FileError as exc:
            raise WeightsError(exc.reason, source) from None
        except OSError as exc:
            raise WeightsError(f"cannot read: {safe_io.describe(exc)}", source) from None
        except MemoryError:
            raise WeightsError("not enough memory to read it", source) from None
        safe_io.remember_sha256(path, st, digest)
        return cls(cfg, tensors, _checked=True)

    @classmethod
    def map(cls, path: str | os.PathLike, cfg: Config) -> Weights:
        """A float32 safetensors file (one save() wrote) as read-only views of a memory map of it:
        nothing is copied, the pages are the OS's file cache (shared, read when first touched).
        Names and shapes are checked against `cfg` and every value's finiteness, as load() does;
        the file is not hashed. For files the lab writes itself and replaces only by rename
        (compute.loaders.float32_cache): a file cut short in place while mapped would fault."""
        path = Path(path)
        source = f"weights file {str(path)!r}"
        try:
            with safe_io.open_regular(path) as fh:
                header = read_header(fh, {"F32": 4}, "; a mapped weights file holds F32 only")
                entries = dict(header.entries)
                _check_entries_against(cfg, entries, source)
                mm = np.memmap(fh, dtype=np.uint8, mode="r")                   # [file bytes], read-only
        except HeaderError as exc:
            raise WeightsError(exc.problems, source) from None
        except FileNotFoundError:
            raise WeightsError("file not found", source) from None
        except safe_io.FileError as exc:
            raise WeightsError(exc.reason, source) from None
        except (OSError, ValueError) as exc:           # ValueError: numpy cannot map an empty file
            raise WeightsError(f"cannot read: {exc}", source) from None
        arrays: dict[str, np.ndarray] = {}
        problems = []
        for n, (name, shape) in enumerate(weight_shapes(cfg).items()):
            progress.report(f"reading {name}", n / len(entries))             # a callback may cancel
            e = entries[name]
            arr = mm[header.data_start + e.begin:header.data_start + e.end].view("<f4").reshape(shape)
            if not all(np.isfinite(rows).all() for rows in np.array_split(arr.reshape(-1), max(1, arr.size >> 22))):
                problems.append(f"{short(name)} has non-finite value(s) (NaN or Inf)")
            arrays[name] = arr
        if problems:
            raise WeightsError(problems, source)
        return cls(cfg, arrays, _checked=True)


# -- helpers -------------------------------------------------------------------------------------
def _list(names: list[str], limit: int = 6) -> str:
    shown = ", ".join(short(n) for n in names[:limit])
    return shown + (f" (+{len(names) - limit} more)" if len(names) > limit else "")


def _shape_hint(name: str, cfg: Config) -> str:
    return (f"for d_model={cfg.d_model}, n_heads={cfg.n_heads}, d_head={cfg.d_head}, "
            f"d_mlp={cfg.d_mlp}, d_vocab={cfg.d_vocab}, n_ctx={cfg.n_ctx}")


def _safetensors_writer(arrays: Mapping[str, np.ndarray], metadata: dict[str, str]):
    """A callable that writes `arrays` (float32) as a safetensors file to a binary file object:
    8-byte header length, the JSON header padded to 8 bytes with spaces (as the safetensors
    library writes it), then each tensor's little-endian bytes in header order."""
    header: dict[str, Any] = {"__metadata__": metadata}
    offset = 0
    for name, arr in arrays.items():
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)

    def write(fh) -> None:
        fh.write(struct.pack("<Q", len(text)))
        fh.write(text)
        for arr in arrays.values():
            fh.write(memoryview(np.ascontiguousarray(arr, dtype="<f4")).cast("B"))

    return write


def _check_budget(entries: dict[str, Entry], source: str) -> None:
    """Refuse before allocating: the float32 arrays, plus the largest tensor's raw bytes (F16/F64
    are converted) and its finiteness mask, must fit the same budget a forward pass uses."""
    sizes = [math.prod(e.shape) for e in entries.values()]
    final = 4 * sum(sizes)
    raw = max((e.end - e.begin for e in entries.values() if e.dtype != "F32"), default=0)
    need = final + raw + max(sizes, default=0)
    budget = memory.over_budget(need)
    if budget is not None:
        raise WeightsError(f"loading it needs an estimated {memory.fmt_bytes(need)} (float32 weights "
                           f"{memory.fmt_bytes(final)} + working space {memory.fmt_bytes(need - final)}), over "
                           f"the memory budget of {memory.fmt_bytes(budget)} ({memory.budget_source()}); "
                           "nothing was loaded", source)


def _read_tensors(fh, header, entries: dict[str, Entry], source: str) -> tuple[dict[str, np.ndarray], str]:
    """Every tensor as a read-only float32 array, and the sha256 of the whole file, in one
    sequential pass (gaps between tensors are hashed too)."""
    digest = hashlib.sha256()
    fh.seek(0)
    digest.update(_read_exact(fh, header.data_start, source, "the header"))
    total = header.size - header.data_start
    arrays: dict[str, np.ndarray] = {}
    problems: list[str] = []
    position = 0                                       # within the data section
    for name, e in sorted(entries.items(), key=lambda item: item[1].begin):
        progress.report(f"reading {name}", position / max(total, 1))
        _hash_skip(fh, digest, e.begin - position, source)
        if e.dtype == "F32":
            arr = np.empty(e.shape, dtype="<f4")
            _read_into(fh, memoryview(arr).cast("B"), source, name)
            digest.update(memoryview(arr).cast("B"))
            if arr.dtype != np.float32:                # a big-endian machine
                arr = arr.astype(np.float32)
        else:
            raw = bytearray(e.end - e.begin)
            _read_into(fh, memoryview(raw), source, name)
            digest.update(raw)
            arr = np.frombuffer(raw, dtype=np.dtype(_FLOAT_DTYPES[e.dtype]).newbyteorder("<"))
            arr = arr.astype(np.float32).reshape(e.shape)
            del raw
        position = e.end
        if not np.isfinite(arr).all():
            bad = int(arr.size - np.count_nonzero(np.isfinite(arr)))
            problems.append(f"{short(name)} has {bad} non-finite value(s) (NaN or Inf)")
            continue
        arr.setflags(write=False)
        arrays[name] = arr
    _hash_skip(fh, digest, total - position, source)
    if problems:
        raise WeightsError(problems, source)
    return arrays, digest.hexdigest()


def _read_exact(fh, n: int, source: str, what: str) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise WeightsError(f"{what}: file ends before its data", source)
    return data


def _read_into(fh, view: memoryview, source: str, name: str) -> None:
    done = 0
    while done < len(view):
        got = fh.readinto(view[done:])
        if not got:
            raise WeightsError(f"{short(name)}: file ends before its data", source)
        done += got


def _hash_skip(fh, digest, n: int, source: str) -> None:
    while n > 0:
        block = fh.read(min(n, 1 << 20))
        if not block:
            raise WeightsError("the file ends before its data", source)
        digest.update(block)
        n -= len(block)


_BLOCK_RE = re.compile(r"^blocks\.(\d+)\.")


def _config_from(metadata: dict[str, Any], entries: dict[str, Entry], source: str) -> Config:
    """The config a file was saved with, or one read off its tensor shapes."""
    stored = metadata.get(METADATA_KEY)
    if isinstance(stored, str):
        try:
            return Config.from_dict(json.loads(stored))
        except (json.JSONDecodeError, RecursionError):
            raise WeightsError("the stored config is not valid JSON", source) from None
        except (ConfigError, TypeError) as exc:
            raise WeightsError(f"the stored config is invalid: {exc}", source) from None
    try:
        d_vocab, d_model = entries["embed.W_E"].shape
        n_ctx = entries["pos_embed.W_pos"].shape[0]
        n_heads, _, d_head = entries["blocks.0.attn.W_Q"].shape
        d_mlp = entries["blocks.0.mlp.W_in"].shape[1]
    except (KeyError, ValueError, IndexError):
        raise WeightsError("no stored config, and embed.W_E, pos_embed.W_pos, blocks.0.attn.W_Q or "
                           "blocks.0.mlp.W_in is missing or misshapen, so the shapes cannot be read "
                           "off the tensors", source) from None
    layers = {int(m.group(1)) for n in entries if (m := _BLOCK_RE.match(n))}
    try:
        return Config(d_model=d_model, n_heads=n_heads, d_head=d_head, n_ctx=n_ctx,
                      d_vocab=d_vocab, n_layers=max(layers) + 1, d_mlp=d_mlp)
    except ConfigError as exc:
        raise WeightsError(f"the tensor shapes give an impossible config: {exc}", source) from None


def _check_entries_against(cfg: Config, entries: dict[str, Entry], source: str) -> None:
    """Refuse before reading data if names or shapes do not match (keeps huge bad files cheap)."""
    expected = weight_shapes(cfg)
    problems = []
    missing = [n for n in expected if n not in entries]
    extra = sorted(n for n in entries if n not in expected)
    if missing:
        problems.append(f"missing {_list(missing)}")
    if extra:
        problems.append(f"unexpected {_list(extra)} (not a name for {cfg.n_layers} layers)")
    for name, entry in entries.items():
        shape = entry.shape
        if name in expected and shape != expected[name]:
            problems.append(f"{name} has shape {shape}, expected {expected[name]} {_shape_hint(name, cfg)}")
    if problems:
        raise WeightsError(problems, source)
