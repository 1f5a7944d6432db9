"""Open a checkpoint, mapped to our names: a Hugging Face folder (model_type gpt2, llama, mistral,
qwen2, qwen3, phi3, gpt_neox) or a GGUF file (compute.loaders.gguf_file).

    cfg, weights, tokenizer = compute.load_checkpoint("~/models/gpt2")
    trace = forward(cfg, weights, tokenizer.encode("The cat sat"))
    compute.load_checkpoint("model.gguf").info.label     # e.g. 'weights dequantized from Q4_1'

The GPT-2 mapping is below; the LLaMA family's is in compute.loaders.hf_llama, GPT-NeoX's (Pythia) in
compute.loaders.hf_neox (both: config_from_json, hf_shapes, headline, strip_prefix, unexpected, hf_to_ours).

The folder holds `config.json`, `model.safetensors` (or shards listed in
`model.safetensors.index.json`) and `tokenizer.json` (or `vocab.json` + `merges.txt`). Nothing is
downloaded and nothing is unpickled: a folder with only `pytorch_model.bin` is refused.

The mapping (GPT-2's Conv1D stores weights as (in, out), so they are already right-multiplied):
    wte.weight [d_vocab, d_model]                -> embed.W_E
    wpe.weight [n_ctx, d_model]                  -> pos_embed.W_pos
    h.l.ln_1.weight / .bias                      -> blocks.l.ln1.w / .b
    h.l.attn.c_attn.weight [d_model, 3*d_model]  -> columns [Q | K | V], each split per head into
                                                    blocks.l.attn.W_{Q,K,V} [n_heads, d_model, d_head]
    h.l.attn.c_attn.bias [3*d_model]             -> blocks.l.attn.b_{Q,K,V} [n_heads, d_head]
    h.l.attn.c_proj.weight [d_model, d_model]    -> blocks.l.attn.W_O [n_heads, d_head, d_model]
                                                    (rows are z_concat's index: NO transpose; the
                                                    matrix is square, so only outputs catch a mistake)
    h.l.ln_2.*, h.l.mlp.c_fc.*, h.l.mlp.c_proj.* -> blocks.l.ln2.*, mlp.W_in/b_in, mlp.W_out/b_out
    ln_f.weight / .bias                          -> ln_final.w / .b
A leading `transformer.` is accepted; the `attn.bias` / `attn.masked_bias` mask buffers are
ignored. The unembedding is tied to W_E here (docs/ARCHITECTURE.md, "Names"): an `lm_head.weight` equal to
`wte.weight` is fine, one that differs is refused, because our logits would not be the model's.

Every problem is a `CheckpointError` (a ValueError) whose message names the folder, the file and
the value; the function is all-or-nothing, so a caller's previous model stays in place.
"""
from __future__ import annotations

import errno
import json
import math
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import memory, progress, safe_io
from ..config import PRESETS, Config, ConfigError
from ..i18n import QT_TR_NOOP
from ..safetensors_header import HeaderError, read_header
from ..weights import Weights, WeightsError
from .loaded import (  # noqa: F401 - re-exported, compute.loaders.checkpoint is where callers find them
    VISIBLE_CONTROLS,
    Checkpoint,
    CheckpointError,
    CheckpointInfo,
    CheckpointTokenizer,
    stored_label,
)

ASSETS = Path(__file__).resolve().parents[2] / "assets"
TRAINED_TOY_FILE = ASSETS / "toy_trained.safetensors"
TRAINED_TOY_INFO = ASSETS / "toy_trained.json"

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
TOKENIZER_FILE = "tokenizer.json"
VOCAB_FILE, MERGES_FILE = "vocab.json", "merges.txt"
PICKLE_FILES = ("pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack",
                "model.ckpt.index")

SUPPORTED_MODEL_TYPES = ("gpt2", "llama", "mistral", "qwen2", "qwen3", "phi3", "gpt_neox", "gemma2", "gemma3_text",
                         "olmo2", "mixtral", "qwen3_moe", "olmoe")
SUPPORTED_ARCHITECTURES = ("GPT2LMHeadModel", "GPT2Model")
# Both are GPT-2's tanh approximation, which is what our GELU is.
SUPPORTED_ACTIVATIONS = ("gelu_new", "gelu_pytorch_tanh")
LN_EPS = 1e-5                      # our LayerNorm's eps (backends/reference.py)
# Buffers some checkpoints carry: the causal mask and its fill value, not weights.
IGNORED_SUFFIXES = (".attn.bias", ".attn.masked_bias")

# safetensors dtype codes with their item sizes; float ones are converted to float32.
_ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1, "U16": 2, "I16": 2, "F16": 2,
             "BF16": 2, "U32": 4, "I32": 4, "F32": 4, "U64": 8, "I64": 8, "F64": 8}
_FLOATS = ("F16", "BF16", "F32", "F64")




def _load_tokenizer(folder: Path, cfg: Config) -> CheckpointTokenizer:
    from tokenizers import ByteLevelBPETokenizer, Tokenizer  # only checkpoints need them

    if (folder / TOKENIZER_FILE).is_file():
        source, make = TOKENIZER_FILE, lambda: Tokenizer.from_file(str(folder / TOKENIZER_FILE))
    elif (folder / VOCAB_FILE).is_file() and (folder / MERGES_FILE).is_file():
        source = f"{VOCAB_FILE} + {MERGES_FILE}"
        make = lambda: ByteLevelBPETokenizer(str(folder / VOCAB_FILE), str(folder / MERGES_FILE))  # noqa: E731
    else:
        raise CheckpointError(f"no tokenizer: expected {TOKENIZER_FILE}, or {VOCAB_FILE} and {MERGES_FILE}",
                              folder)
    sizes = [(folder / n).stat().st_size for n in (TOKENIZER_FILE, VOCAB_FILE, MERGES_FILE) if (folder / n).is_file()]
    if max(sizes, default=0) > MAX_JSON_BYTES:
        raise CheckpointError(f"the tokenizer files ({source}) are over {MAX_JSON_BYTES >> 20} MiB: not a tokenizer",
                              folder)
    try:
        tok = make()
    except Exception as exc:  # noqa: BLE001 - the tokenizers library raises plain Exceptions
        raise CheckpointError(f"the tokenizer files ({source}) cannot be read: {exc}", folder) from None
    except BaseException as exc:  # a Rust panic inside tokenizers is a BaseException (pyo3's PanicException)
        if type(exc).__name__ != "PanicException":
            raise
        raise CheckpointError(f"the tokenizer files ({source}) crash the tokenizers library: {exc}", folder) from None
    # A tokenizer.json may ask to truncate or pad; the lab shows exactly the text's tokens.
    tok.no_truncation()
    tok.no_padding()
    wrapped = CheckpointTokenizer(tok, source, cfg.n_ctx)
    if wrapped.size > cfg.d_vocab:
        raise CheckpointError(f"the tokenizer ({source}) has {wrapped.size:,} tokens but the model's "
                              f"vocabulary is vocab_size={cfg.d_vocab:,}: ids beyond it have no "
                              "embedding (tokenizer and weights do not belong together)", folder)
    return wrapped


# -- config.json ---------------------------------------------------------------------------------
def os_problem(exc: OSError) -> str:
    """What the file system said, in words: a path too long for it is named as such."""
    if exc.errno == errno.ENAMETOOLONG:
        return ("the path is too long for the file system (a name over 255 bytes, or the whole path "
                "over its limit)")
    return f"cannot be read: {exc.strerror or exc}"


def _shown_path(path: Any) -> str:
    text = str(path)
    return text if len(text) <= 160 else text[:100] + "…" + text[-40:]


def checkpoint_config(folder: str | os.PathLike) -> Config:
    """The Config a checkpoint describes, read from config.json (or a GGUF file's metadata) alone."""
    try:
        return _checkpoint_config(folder)
    except OSError as exc:
        raise CheckpointError(os_problem(exc), _shown_path(folder)) from None


def _checkpoint_config(folder: str | os.PathLike) -> Config:
    if _is_gguf(folder):
        from .gguf_file import gguf_config

        return gguf_config(folder)
    folder = _check_folder(folder)
    return _config_from_json(folder)


def _decimal(text: str) -> bool:
    """ASCII digits only: str.isdigit() is also True for '²' or '١', which int() refuses or reads."""
    return text.isascii() and text.isdigit()


def _is_gguf(path: Any) -> bool:
    """A file whose name ends in .gguf or whose first four bytes are GGUF's magic."""
    try:
        p = Path(path).expanduser()
        if not p.is_file():
            return False
        if p.suffix.lower() == ".gguf":
            return True
        with open(p, "rb") as fh:
            return fh.read(4) == b"GGUF"
    except (OSError, TypeError, ValueError):
        return False


def _check_folder(folder: str | os.PathLike) -> Path:
    try:
        path = Path(folder).expanduser()
    except TypeError:
        raise CheckpointError(f"expected a folder path, got {type(folder).__name__}", str(folder)) from None
    if not path.exists():
        raise CheckpointError("folder not found", path)
    if not path.is_dir():
        raise CheckpointError(f"is a file, not a folder; choose the folder that holds {CONFIG_FILE}, "
                              f"{WEIGHTS_FILE} and the tokenizer files", path)
    return path


MAX_JSON_BYTES = 64 << 20        # config.json and shard indexes are kilobytes; tokenizer.json ~10 MB


def _read_json(path: Path, folder: Path, what: str) -> Any:
    try:
        # Bounded while reading and regular files only: a pipe named config.json reports size 0
        # and would block a plain read forever; /dev/zero would never end.
        text = safe_io.read_text(path, MAX_JSON_BYTES)
    except safe_io.FileError as exc:
        too_big = exc.reason.startswith("it is larger")
        raise CheckpointError(f"{path.name} is larger than the {MAX_JSON_BYTES >> 20} MiB such a file can need"
                              if too_big else f"{path.name}: {exc.reason}", folder) from None
    except FileNotFoundError:
        present = sorted(p.name for p in folder.iterdir())[:12]
        raise CheckpointError(f"{path.name} is missing ({what}); the folder has: "
                              f"{', '.join(present) or 'nothing'}", folder) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path.name} cannot be read: {exc}", folder) from None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CheckpointError(f"{path.name} is not valid JSON ({exc})", folder) from None


def _config_from_json(folder: Path) -> Config:
    raw = _read_json(folder / CONFIG_FILE, folder, "the model's sizes")
    if not isinstance(raw, dict):
        raise CheckpointError(f"{CONFIG_FILE} is not a JSON object", folder)
    model_type = raw.get("model_type")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise CheckpointError(f"unsupported architecture: {CONFIG_FILE} has model_type={model_type!r}; "
                              f"supported: {', '.join(SUPPORTED_MODEL_TYPES)}", folder)
    if model_type != "gpt2":
        return _family(model_type).config_from_json(raw, folder, CheckpointError)
    archs = raw.get("architectures") or []
    if not isinstance(archs, list) or any(a not in SUPPORTED_ARCHITECTURES for a in archs):
        raise CheckpointError(f"unsupported architecture {archs!r}; supported: "
                              f"{', '.join(SUPPORTED_ARCHITECTURES)}", folder)

    problems = []
    act = raw.get("activation_function", "gelu_new")
    if act not in SUPPORTED_ACTIVATIONS:
        problems.append(f"activation_function={act!r} is not supported (the lab's GELU is GPT-2's "
                        f"tanh approximation: {' or '.join(SUPPORTED_ACTIVATIONS)})")
    eps = raw.get("layer_norm_epsilon", LN_EPS)
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not math.isclose(eps, LN_EPS, rel_tol=1e-9):
        problems.append(f"layer_norm_epsilon={eps!r} is not supported (the lab's LayerNorm uses {LN_EPS})")
    for flag in ("scale_attn_by_inverse_layer_idx", "add_cross_attention"):
        if raw.get(flag):
            problems.append(f"{flag}=true is not supported")
    scale = raw.get("scale_attn_weights", True)
    if not isinstance(scale, bool):
        problems.append(f"scale_attn_weights={scale!r} must be true or false")

    sizes = {}
    n_pos_key = "n_positions" if "n_positions" in raw else "n_ctx"
    for ours, key in (("d_model", "n_embd"), ("n_heads", "n_head"), ("n_layers", "n_layer"),
                      ("d_vocab", "vocab_size"), ("n_ctx", n_pos_key)):
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(f"{key}={value!r} must be a whole number >= 1" if key in raw
                            else f"{key} is missing")
        else:
            sizes[ours] = value
    n_inner = raw.get("n_inner")
    if n_inner is not None and (isinstance(n_inner, bool) or not isinstance(n_inner, int) or n_inner < 1):
        problems.append(f"n_inner={n_inner!r} must be a whole number >= 1 or null")
    if "d_model" in sizes and "n_heads" in sizes and sizes["d_model"] % sizes["n_heads"]:
        problems.append(f"n_embd={sizes['d_model']} is not divisible by n_head={sizes['n_heads']}")
    if problems:
        raise CheckpointError([f"{CONFIG_FILE}: {p}" for p in problems], folder)
    try:
        return Config(d_model=sizes["d_model"], n_heads=sizes["n_heads"],
                      d_head=sizes["d_model"] // sizes["n_heads"], n_ctx=sizes["n_ctx"],
                      d_vocab=sizes["d_vocab"], n_layers=sizes["n_layers"],
                      d_mlp=n_inner if n_inner is not None else 4 * sizes["d_model"],
                      scale_scores=scale, name=folder.name or "checkpoint")
    except ConfigError as exc:
        raise CheckpointError(f"{CONFIG_FILE} gives an impossible model: {exc}", folder) from None


# -- safetensors, read by hand -------------------------------------------------------------------
# (dtype code, shape, file, absolute byte offset, byte length) per tensor name.
_Entry = tuple[str, tuple[int, ...], Path, int, int]


def _read_header(path: Path, folder: Path) -> dict[str, _Entry]:
    """Names, dtypes, shapes and byte ranges of one safetensors file, every field validated
    (the safetensors library would accept duplicate names and hide them)."""
    where = path.name
    try:
        header = read_header(path, _ITEMSIZE, " (not a dtype safetensors knows)")
    except FileNotFoundError:
        raise CheckpointError(f"{where} is missing", folder) from None
    except OSError as exc:
        raise CheckpointError(f"{where} cannot be read: {exc.strerror or exc}", folder) from None
    except HeaderError as exc:
        raise CheckpointError([f"{where}: {p}" for p in exc.problems], folder) from None
    return {name: (e.dtype, e.shape, path, header.data_start + e.begin, e.end - e.begin)
            for name, e in header.entries.items()}


def _weight_files(folder: Path) -> list[Path]:
    """model.safetensors, or the shards its index lists; a pickle-only folder is refused."""
    if (folder / WEIGHTS_FILE).is_file():
        return [folder / WEIGHTS_FILE]
    if (folder / INDEX_FILE).is_file():
        index = _read_json(folder / INDEX_FILE, folder, "the list of weight shards")
        weight_map = index.get("weight_map") if isinstance(index, dict) else None
        if not isinstance(weight_map, dict) or not weight_map:
            raise CheckpointError(f"{INDEX_FILE} has no weight_map", folder)
        files = sorted(set(map(str, weight_map.values())))
        bad = [f for f in files if Path(f).name != f or not f.endswith(".safetensors")]
        if bad:
            raise CheckpointError(f"{INDEX_FILE} lists shards that are not .safetensors files in this "
                                  f"folder: {', '.join(bad[:4])}", folder)
        missing = [f for f in files if not (folder / f).is_file()]
        if missing:
            raise CheckpointError(f"shard(s) listed in {INDEX_FILE} are missing: {', '.join(missing[:4])}",
                                  folder)
        return [folder / f for f in files]
    pickles = [p for p in PICKLE_FILES if (folder / p).exists()]
    if pickles:
        raise CheckpointError(f"{WEIGHTS_FILE} is missing; the folder has only {', '.join(pickles)}. "
                              "QKV Lab reads safetensors only (pickle files can run code when loaded); "
                              "convert it to model.safetensors with the safetensors or transformers "
                              "package first", folder)
    raise CheckpointError(f"{WEIGHTS_FILE} is missing (no weights in this folder)", folder)


def _read_tensor(entry: _Entry, name: str, folder: Path) -> np.ndarray:
    """One tensor as float32, whatever float type it was stored as."""
    dtype, shape, path, offset, length = entry
    if dtype not in _FLOATS:
        raise CheckpointError(f"{name} has dtype {dtype}; weights must be F16, BF16, F32 or F64", folder)
    try:
        with safe_io.open_regular(path) as fh:
            fh.seek(offset)
            raw = fh.read(length)
    except OSError as exc:
        raise CheckpointError(f"{path.name} cannot be read: {exc.strerror or exc}", folder) from None
    if len(raw) != length:
        raise CheckpointError(f"{path.name}: {name} ends past the end of the file (truncated)", folder)
    if dtype == "BF16":  # bfloat16 is the top half of a float32
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16              # [n]
        return bits.view(np.float32).reshape(shape)
    native = {"F16": "<f2", "F32": "<f4", "F64": "<f8"}[dtype]
    return np.frombuffer(raw, dtype=native).astype(np.float32).reshape(shape)


# -- the mapping -------------------------------------------------------------------------------
def hf_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """Every tensor a GPT-2 checkpoint must have for `cfg`, with its HF shape (Conv1D: (in, out))."""
    dm, mlp = cfg.d_model, cfg.d_mlp
    shapes = {"wte.weight": (cfg.d_vocab, dm), "wpe.weight": (cfg.n_ctx, dm)}
    for layer in range(cfg.n_layers):
        shapes.update({
            f"h.{layer}.ln_1.weight": (dm,), f"h.{layer}.ln_1.bias": (dm,),
            f"h.{layer}.attn.c_attn.weight": (dm, 3 * dm), f"h.{layer}.attn.c_attn.bias": (3 * dm,),
            f"h.{layer}.attn.c_proj.weight": (dm, dm), f"h.{layer}.attn.c_proj.bias": (dm,),
            f"h.{layer}.ln_2.weight": (dm,), f"h.{layer}.ln_2.bias": (dm,),
            f"h.{layer}.mlp.c_fc.weight": (dm, mlp), f"h.{layer}.mlp.c_fc.bias": (mlp,),
            f"h.{layer}.mlp.c_proj.weight": (mlp, dm), f"h.{layer}.mlp.c_proj.bias": (dm,),
        })
    shapes["ln_f.weight"], shapes["ln_f.bias"] = (dm,), (dm,)
    return shapes


def hf_to_ours(cfg: Config, hf: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """HF GPT-2 tensors (names without `transformer.`) to our names and layouts (docs/ARCHITECTURE.md, "Names")."""
    dm, H, dh = cfg.d_model, cfg.n_heads, cfg.d_head

    def heads_in(w: np.ndarray) -> np.ndarray:
        return w.reshape(dm, H, dh).transpose(1, 0, 2)                              # [H, d_model, dh]

    out = {"embed.W_E": hf["wte.weight"],                                           # [d_vocab, d_model]
           "pos_embed.W_pos": hf["wpe.weight"]}                                     # [n_ctx, d_model]
    for layer in range(cfg.n_layers):
        h, p = f"h.{layer}.", f"blocks.{layer}."
        W_q, W_k, W_v = np.split(hf[h + "attn.c_attn.weight"], 3, axis=1)           # 3 x [d_model, H*dh]
        b_q, b_k, b_v = np.split(hf[h + "attn.c_attn.bias"], 3)                     # 3 x [H*dh]
        out.update({
            p + "ln1.w": hf[h + "ln_1.weight"], p + "ln1.b": hf[h + "ln_1.bias"],   # [d_model]
            p + "attn.W_Q": heads_in(W_q), p + "attn.W_K": heads_in(W_k),          # [H, d_model, dh]
            p + "attn.W_V": heads_in(W_v),                                          # [H, d_model, dh]
            p + "attn.b_Q": b_q.reshape(H, dh), p + "attn.b_K": b_k.reshape(H, dh),  # [H, dh]
            p + "attn.b_V": b_v.reshape(H, dh),                                     # [H, dh]
            # c_proj is (in, out): row h*dh + e reads z_concat[h*dh + e], so rows split by head.
            p + "attn.W_O": hf[h + "attn.c_proj.weight"].reshape(H, dh, dm),        # [H, dh, d_model]
            p + "attn.b_O": hf[h + "attn.c_proj.bias"],                             # [d_model]
            p + "ln2.w": hf[h + "ln_2.weight"], p + "ln2.b": hf[h + "ln_2.bias"],   # [d_model]
            p + "mlp.W_in": hf[h + "mlp.c_fc.weight"],                              # [d_model, d_mlp]
            p + "mlp.b_in": hf[h + "mlp.c_fc.bias"],                                # [d_mlp]
            p + "mlp.W_out": hf[h + "mlp.c_proj.weight"],                           # [d_mlp, d_model]
            p + "mlp.b_out": hf[h + "mlp.c_proj.bias"],                             # [d_model]
        })
    out["ln_final.w"], out["ln_final.b"] = hf["ln_f.weight"], hf["ln_f.bias"]      # [d_model]
    return out


def _strip_prefix(entries: dict[str, _Entry]) -> dict[str, _Entry]:
    """Drop GPT2LMHeadModel's `transformer.` prefix (lm_head.weight has none)."""
    if not any(n.startswith("transformer.") for n in entries):
        return entries
    return {n.removeprefix("transformer."): e for n, e in entries.items()}


def _layer_of(name: str) -> int | None:
    parts = name.split(".")
    return int(parts[1]) if len(parts) > 2 and parts[0] == "h" and _decimal(parts[1]) else None


def _check_tensors(cfg: Config, entries: dict[str, _Entry], folder: Path) -> None:
    """Names and shapes against config.json, before any data is read; every mismatch listed."""
    expected = hf_shapes(cfg)
    # First the sizes config.json states against the sizes the tensors have: one line each,
    # instead of a shape complaint for every tensor of a mismatched width.
    headline = []
    for name, key, axis, value in (("wte.weight", "vocab_size", 0, cfg.d_vocab),
                                   ("wte.weight", "n_embd", 1, cfg.d_model),
                                   ("wpe.weight", "n_positions", 0, cfg.n_ctx),
                                   ("h.0.mlp.c_fc.weight", "n_inner (default 4 * n_embd)", 1, cfg.d_mlp)):
        shape = entries[name][1] if name in entries else None
        if shape is not None and len(shape) == 2 and shape[axis] != value:
            headline.append(f"config.json says {key}={value} but {name} has shape {shape}")
    if headline:
        raise CheckpointError(["config.json does not match the tensors: " + headline[0], *headline[1:]],
                              folder)
    problems = []
    layers = sorted({x for n in entries if (x := _layer_of(n)) is not None})
    if layers and len(layers) != cfg.n_layers:
        problems.append(f"config.json says n_layer={cfg.n_layers} but the weights have "
                        f"{len(layers)} block(s) (h.{layers[0]}..h.{layers[-1]})")
    missing = [n for n in expected if n not in entries]
    extra = sorted(n for n in entries if n not in expected and n != "lm_head.weight"
                   and not n.endswith(IGNORED_SUFFIXES))
    if missing:
        problems.append(f"missing tensor(s) {_names(missing)}")
    if extra:
        problems.append(f"unexpected tensor(s) {_names(extra)} (not part of a GPT-2 language model)")
    for name, shape in expected.items():
        if name in entries and entries[name][1] != shape:
            problems.append(f"{name} has shape {entries[name][1]} but config.json implies {shape}")
    if "lm_head.weight" in entries and entries["lm_head.weight"][1] != expected["wte.weight"]:
        problems.append(f"lm_head.weight has shape {entries['lm_head.weight'][1]}, expected "
                        f"{expected['wte.weight']}")
    for name in expected:
        if name in entries and entries[name][0] not in _FLOATS:
            problems.append(f"{name} has dtype {entries[name][0]}; weights must be F16, BF16, F32 or F64")
    if problems:
        raise CheckpointError(problems, folder)


def _names(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (f" (+{len(names) - limit} more)" if len(names) > limit else "")


def load_checkpoint(path: str | os.PathLike) -> Checkpoint:
    """(Config, Weights, tokenizer) from a Hugging Face folder or a GGUF file, with `.info`
    (CheckpointInfo: format, stored tensor types, the UI's label), or CheckpointError."""
    try:
        return _load_checkpoint(path)
    except OSError as exc:
        raise CheckpointError(os_problem(exc), _shown_path(path)) from None


def _load_checkpoint(path: str | os.PathLike) -> Checkpoint:
    if _is_gguf(path):
        from .gguf_file import load_gguf

        return load_gguf(path)
    folder = _check_folder(path)
    cfg = _config_from_json(folder)
    problem = _memory_problem(cfg)
    if problem:
        raise CheckpointError(problem, folder)
    entries: dict[str, _Entry] = {}
    for file in _weight_files(folder):
        for name, entry in _read_header(file, folder).items():
            if name in entries:
                raise CheckpointError(f"{name} appears in more than one shard", folder)
            entries[name] = entry
    if _model_type(folder) == "gpt2":
        return _load_gpt2(folder, cfg, entries)
    return _load_llama(folder, cfg, entries)


def _memory_problem(cfg: Config) -> str | None:
    try:
        memory.check(cfg, 0, include_weights=True)
    except ConfigError as exc:
        return f"too large for this machine: {exc}"
    return None


def _model_type(folder: Path) -> str:
    return _read_json(folder / CONFIG_FILE, folder, "the model's sizes").get("model_type")


def _read_all(entries: dict[str, _Entry], names: Iterable[str], folder: Path) -> dict[str, np.ndarray]:
    """The named tensors as float32, every NaN/Inf reported at once."""
    out: dict[str, np.ndarray] = {}
    non_finite = []
    names = list(names)
    for n, name in enumerate(names):
        progress.report(QT_TR_NOOP("reading the weights"), n / len(names))           # a callback may cancel
        arr = _read_tensor(entries[name], name, folder)
        if not np.isfinite(arr).all():
            non_finite.append(f"{name} has {int(arr.size - np.isfinite(arr).sum())} NaN/Inf value(s)")
        out[name] = arr
    if non_finite:
        raise CheckpointError(non_finite, folder)
    return out


def _info(folder: Path, model_type: str, entries: dict[str, _Entry], names: Iterable[str]) -> CheckpointInfo:
    types: dict[str, int] = {}
    for name in names:
        types[entries[name][0]] = types.get(entries[name][0], 0) + 1
    return CheckpointInfo(source=str(folder), format="huggingface", model_type=model_type,
                          stored_types=types, label=stored_label(types), name=folder.name)


def _load_gpt2(folder: Path, cfg: Config, entries: dict[str, _Entry]) -> Checkpoint:
    entries = _strip_prefix(entries)
    _check_tensors(cfg, entries, folder)
    tokenizer = _load_tokenizer(folder, cfg)       # before the big read: a cheap refusal first
    hf = _read_all(entries, hf_shapes(cfg), folder)
    if "lm_head.weight" in entries:
        lm_head = _read_tensor(entries["lm_head.weight"], "lm_head.weight", folder)  # [d_vocab, d_model]
        if not np.array_equal(lm_head, hf["wte.weight"]):
            worst = float(np.nanmax(np.abs(lm_head - hf["wte.weight"])))
            raise CheckpointError("lm_head.weight differs from wte.weight (max difference "
                                  f"{worst:.3g}): this model has a separate unembedding, and QKV Lab "
                                  "ties the unembedding to W_E, so its logits would be wrong", folder)
    try:
        weights = Weights.from_dict(cfg, hf_to_ours(cfg, hf), source=f"checkpoint {str(folder)!r}")
    except WeightsError as exc:  # a mapping bug, or a case the checks above missed
        raise CheckpointError(exc.problems, folder) from None
    return Checkpoint(cfg, weights, tokenizer, _info(folder, "gpt2", entries, hf_shapes(cfg)))


def _family(model_type: str):
    """The mapping module of a non-GPT-2 model_type: hf_neox for GPT-NeoX, else hf_llama."""
    if model_type == "gpt_neox":
        from . import hf_neox

        return hf_neox
    from . import hf_llama

    return hf_llama


def _load_llama(folder: Path, cfg: Config, entries: dict[str, _Entry]) -> Checkpoint:
    model_type = _model_type(folder)
    hf_llama = _family(model_type)                  # the family's mapping (llama-like or GPT-NeoX)
    entries = hf_llama.strip_prefix(entries)
    expected = hf_llama.hf_shapes(cfg, model_type)
    headline = hf_llama.headline(cfg, entries)
    if headline:
        raise CheckpointError(["config.json does not match the tensors: " + headline[0], *headline[1:]], folder)
    problems = []
    layers = sorted({int(n.split(".")[1]) for n in entries if n.startswith("layers.") and _decimal(n.split(".")[1])})
    if layers and len(layers) != cfg.n_layers:
        problems.append(f"config.json says num_hidden_layers={cfg.n_layers} but the weights have "
                        f"{len(layers)} layer(s) (layers.{layers[0]}..layers.{layers[-1]})")
    missing = [n for n in expected if n not in entries]
    extra = hf_llama.unexpected(entries, expected)
    if missing:
        problems.append(f"missing tensor(s) {_names(missing)}")
    if extra:
        problems.append(f"unexpected tensor(s) {_names(extra)} (not part of a {model_type} language model)")
    for name, shape in {**expected, **({"lm_head.weight": (cfg.d_vocab, cfg.d_model)}
                                       if "lm_head.weight" in entries else {})}.items():
        if name in entries and entries[name][1] != shape:
            problems.append(f"{name} has shape {entries[name][1]} but config.json implies {shape}")
        if name in entries and entries[name][0] not in _FLOATS:
            problems.append(f"{name} has dtype {entries[name][0]}; weights must be F16, BF16, F32 or F64")
    if problems:
        raise CheckpointError(problems, folder)
    tokenizer = _load_tokenizer(folder, cfg)
    hf = _read_all(entries, expected, folder)
    if cfg.tied_embeddings and "lm_head.weight" in entries:
        lm_head = _read_tensor(entries["lm_head.weight"], "lm_head.weight", folder)   # [d_vocab, d_model]
        if not np.array_equal(lm_head, hf["embed_tokens.weight"]):
            raise CheckpointError("config.json says tie_word_embeddings=true but lm_head.weight differs from "
                                  "embed_tokens.weight", folder)
    try:
        weights = Weights.from_dict(cfg, hf_llama.hf_to_ours(cfg, hf, model_type),
                                    source=f"checkpoint {str(folder)!r}")
    except WeightsError as exc:
        raise CheckpointError(exc.problems, folder) from None
    return Checkpoint(cfg, weights, tokenizer, _info(folder, model_type, entries, expected))


# -- the shipped trained toy weights (torch-free, so the app can load them at start-up) -----------
@lru_cache(maxsize=1)
def trained_toy_weights() -> Weights:
    """The toy preset's trained weights (assets/toy_trained.safetensors, made by
    `python -m compute.instruments.training`), validated by Weights.load. Random weights stay one call away:
    Weights.random(PRESETS["toy"], seed)."""
    weights = Weights.load(TRAINED_TOY_FILE)
    if not weights.cfg.same_shapes(PRESETS["toy"]):
        raise WeightsError(f"they are for {weights.cfg.describe()}, not the toy preset",
                           f"weights file {str(TRAINED_TOY_FILE)!r}")
    return weights


def trained_toy_info() -> dict:
    """How the shipped weights were made: seed, steps, task, accuracy, baselines, head scores,
    wall time, torch version (assets/toy_trained.json)."""
    try:
        return json.loads(TRAINED_TOY_INFO.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise WeightsError(f"cannot be read: {exc}", f"file {str(TRAINED_TOY_INFO)!r}") from None
