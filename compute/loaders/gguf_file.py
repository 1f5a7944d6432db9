"""GGUF files (llama.cpp, Ollama, LM Studio) read through the `gguf` package, mapped to our names.

    cfg, weights, tokenizer = loaded = compute.load_checkpoint("SmolLM2-135M-Instruct.Q4_1.gguf")
    loaded.info.label        # 'weights dequantized from Q4_1 and Q8_0'

Architectures `llama` (Llama, SmolLM, TinyLlama, Mistral), `qwen2`, `qwen3` (QK-norm per head:
attn_q_norm, attn_k_norm), `olmo2` (no norms before attention and the MLP, post_attention_norm and
post_ffw_norm after them, QK-norm over all heads), `phi3`, `gemma3` and `gemma2` (compute.loaders.gemma3:
local and global layers, QK-norm, sandwich norms, GeGLU, soft-capping, its tensors read through a memory
map). Tensors of type F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q4_K, Q5_K and Q6_K are dequantized to
float32 by `gguf.quants`; the numbers are then those of the quantized model (not of the float model
it was made from).

GGUF keeps HF's (out, in) layout, so the tensors are renamed to HF's and mapped by
compute.loaders.hf_llama. One difference: llama.cpp's converter permutes the rows of every head of Q and K
for a RoPE that rotates adjacent pairs (2i, 2i+1); our RoPE (HF's) rotates (i, i + d/2), so the
rows are permuted back (`unpermute_heads`) for `llama` files. Qwen2, Qwen3, OLMo 2 and Phi-3 files
use the NEOX (rotate_half) order already and are not permuted (llama.cpp: LLAMA_ROPE_TYPE_NEOX for
these architectures; its converter permutes only for LlamaModel). Phi-3 files keep HF's fused products:
`attn_qkv` (rows q; k; v) and `ffn_up` of 2·d_mlp rows (gate; up), split by compute.loaders.hf_llama.

The tokenizer is built from the file's own vocabulary: byte-level BPE (`tokenizer.ggml.model = "gpt2"`)
with its merges through the `tokenizers` library, SentencePiece (`"llama"`: pieces, scores, byte
fallback) as llama.cpp encodes it (compute.loaders.sentencepiece).

Hostile files: the header is scanned here first with every length bounded by the file size
(`scan`), so the reader never loops over a made-up count; names, types, shapes, byte sizes and
finiteness are checked; every problem is a CheckpointError.
"""
from __future__ import annotations

import math
import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import safe_io
from ..config import Config, ConfigError
from ..i18n import QT_TR_NOOP
from .loaded import Checkpoint, CheckpointError, CheckpointInfo, CheckpointTokenizer, stored_label

ARCHITECTURES = ("llama", "qwen2", "qwen3", "olmo2", "phi3", "gemma3", "gemma2")
GEMMA_ARCHS = ("gemma3", "gemma2")        # read by compute.loaders.gemma3
TENSOR_TYPES = ("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q4_K", "Q5_K", "Q6_K")
MAX_TENSORS = 1 << 16
MAX_KV = 1 << 12
MAX_KEY = 1 << 16
MAX_DIMS = 4
# Arrays are bounded by what a model can have before a single item is read (a sparse file of zeros
# is 10^8 empty strings for 800 MB of nothing): a vocabulary at most MAX_VOCAB tokens (Gemma 3 has
# 262,144), any other array MAX_ARRAY items (Llama 3 has 280,147 merges).
MAX_VOCAB = 1 << 19
MAX_ARRAY = 1 << 21
VOCAB_ARRAYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type")
SCAN_STAGE = QT_TR_NOOP("reading the GGUF header")       # translated where it is shown

# GGUF value types: code -> (struct format, size); 8 = string, 9 = array.
_SCALARS = {0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4), 5: ("<i", 4),
            6: ("<f", 4), 7: ("<?", 1), 10: ("<Q", 8), 11: ("<q", 8), 12: ("<d", 8)}
_STRING, _ARRAY = 8, 9

# GGUF tensor name (per block: after "blk.{l}.") -> HF name (per layer: after "layers.{l}.").
_BLOCK_NAMES = {
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight", "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight", "attn_output.weight": "self_attn.o_proj.weight",
    "attn_q.bias": "self_attn.q_proj.bias", "attn_k.bias": "self_attn.k_proj.bias",
    "attn_v.bias": "self_attn.v_proj.bias", "attn_output.bias": "self_attn.o_proj.bias",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight", "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}
# Architectures whose files have other block tensors: their names replace or join the llama ones
# (Phi-3's fused products; Qwen3's and OLMo 2's QK-norm; OLMo 2's norms after attention and the MLP
# in place of those before: llama.cpp's LLM_ARCH_OLMO2 has no attn_norm or ffn_norm).
_QK_NORM_NAMES = {"attn_q_norm.weight": "self_attn.q_norm.weight", "attn_k_norm.weight": "self_attn.k_norm.weight"}
_ARCH_BLOCK_NAMES = {"phi3": {"attn_qkv.weight": "self_attn.qkv_proj.weight",
                              "ffn_up.weight": "mlp.gate_up_proj.weight"},
                     "qwen3": _QK_NORM_NAMES,
                     "olmo2": {**_QK_NORM_NAMES, "post_attention_norm.weight": "post_attention_layernorm.weight",
                               "post_ffw_norm.weight": "post_feedforward_layernorm.weight"}}
_NO_PRE_NORMS = ("olmo2",)                       # no attn_norm / ffn_norm in their files
_QK_NORM = {"qwen3": "head", "olmo2": "all"}     # arch -> Config.qk_norm_scope
_GLOBAL_NAMES = {"token_embd.weight": "embed_tokens.weight", "output_norm.weight": "norm.weight",
                 "output.weight": "lm_head.weight"}


def _error(problems, path):
    return CheckpointError(problems, path)


# -- the header, scanned with every length bounded ---------------------------------------------
@dataclass(frozen=True)
class _TensorInfo:
    name: str
    shape: tuple[int, ...]            # numpy order (GGUF's ne reversed): (rows, ..., ne0)
    type_code: int
    offset: int                       # from the start of the data section


def scan(path: Path) -> tuple[dict[str, Any], list[_TensorInfo], int]:
    """(metadata, tensor infos, data start) of a GGUF file, read with struct and every count,
    length and offset checked against the file's size; a CheckpointError for anything malformed.
    Large arrays (the vocabulary) are skipped over, not decoded: the gguf reader decodes them."""
    try:
        fh = safe_io.open_regular(path)              # a pipe or device: refused at once, not read
    except safe_io.FileError as exc:
        raise _error(exc.reason, path) from None
    with fh:
        return _scan(fh, os.fstat(fh.fileno()).st_size, path)


def _scan(fh, size: int, path: Path):
    def take(n: int) -> bytes:
        at = fh.tell()
        if n < 0 or at + n > size:
            raise _error(f"the header ends early (at byte {at:,} of {size:,}): truncated or not a GGUF file",
                         path)
        return fh.read(n)

    def skip(n: int) -> None:
        if fh.tell() + n > size:
            raise _error(f"the header ends early (at byte {fh.tell():,} of {size:,}): truncated", path)
        fh.seek(n, os.SEEK_CUR)

    def scalar(code: int):
        fmt, n = _SCALARS[code]
        return struct.unpack(fmt, take(n))[0]

    def string(limit: int = 1 << 24) -> str:
        n = scalar(10)
        if n > limit:
            raise _error(f"a string in the header claims {n:,} bytes (at most {limit:,} allowed)", path)
        try:
            return take(n).decode("utf-8")
        except UnicodeDecodeError:
            raise _error("a string in the header is not UTF-8", path) from None

    def skip_strings(count: int) -> None:
        """Past `count` strings (u64 length, bytes), read 1 MiB at a time; progress (and so Cancel)
        every 65,536 of them."""
        from .. import progress

        at = fh.tell()
        start, window = at, b""
        for i in range(count):
            if at + 8 > start + len(window):
                fh.seek(at)
                start, window = at, fh.read(1 << 20)
                if len(window) < 8:
                    raise _error(f"the header ends early (at byte {at:,} of {size:,}): truncated", path)
            n = struct.unpack_from("<Q", window, at - start)[0]
            at += 8 + n
            if n > 1 << 24 or at > size:
                raise _error(f"a string in the header claims {n:,} bytes, past the end of the file", path)
            if i & 0xFFFF == 0xFFFF:
                progress.report(SCAN_STAGE, at / size)              # a callback may cancel
        fh.seek(at)

    if take(4) != b"GGUF":
        raise _error("not a GGUF file (its first bytes are not 'GGUF')", path)
    version = scalar(4)
    if version not in (2, 3):
        raise _error(f"GGUF version {version} is not supported (2 and 3 are; big-endian files are not)", path)
    n_tensors, n_kv = scalar(10), scalar(10)
    if n_tensors > MAX_TENSORS or n_kv > MAX_KV:
        raise _error(f"the header claims {n_tensors:,} tensors and {n_kv:,} metadata entries "
                     f"(at most {MAX_TENSORS:,} and {MAX_KV:,}): corrupted or not a model", path)
    meta: dict[str, Any] = {}
    for _ in range(n_kv):
        key = string(MAX_KEY)
        if key in meta:
            raise _error(f"the metadata key {key!r} appears more than once", path)
        code = scalar(4)
        if code in _SCALARS:
            meta[key] = scalar(code)
        elif code == _STRING:
            meta[key] = string()
        elif code == _ARRAY:
            item, count = scalar(4), scalar(10)
            limit = MAX_VOCAB if key in VOCAB_ARRAYS else MAX_ARRAY
            if count > limit:
                raise _error(f"the array {key!r} claims {count:,} items; a model's has at most {limit:,}: "
                             "corrupted or not a model", path)
            if item in _SCALARS:
                nbytes = _SCALARS[item][1] * count
                if nbytes > size - fh.tell():
                    raise _error(f"the array {key!r} claims {count:,} items, more than the file holds", path)
                meta[key] = ("array", item, count, fh.tell())
                skip(nbytes)
            elif item == _STRING:
                if count > (size - fh.tell()) // 8:
                    raise _error(f"the array {key!r} claims {count:,} strings, more than the file holds", path)
                meta[key] = ("array", item, count, fh.tell())
                skip_strings(count)
            else:
                raise _error(f"the array {key!r} has items of type {item} (nested arrays are not supported)", path)
        else:
            raise _error(f"the metadata entry {key!r} has an unknown type {code}", path)
    infos = []
    for _ in range(n_tensors):
        name = string(MAX_KEY)
        n_dims = scalar(4)
        if not 1 <= n_dims <= MAX_DIMS:
            raise _error(f"tensor {name!r} has {n_dims} dimensions (1 to {MAX_DIMS} allowed)", path)
        ne = [scalar(10) for _ in range(n_dims)]
        if any(n < 1 or n > 1 << 40 for n in ne) or math.prod(ne) > 1 << 40:
            raise _error(f"tensor {name!r} has an impossible shape {ne}", path)
        infos.append(_TensorInfo(name, tuple(reversed(ne)), scalar(4), scalar(10)))
    alignment = meta.get("general.alignment", 32)
    if not isinstance(alignment, int) or alignment < 1 or alignment & (alignment - 1):
        raise _error(f"general.alignment={alignment!r} is not a power of two", path)
    data_start = -(-fh.tell() // alignment) * alignment
    return meta, infos, data_start


def _type_name(code: int) -> str:
    import gguf

    try:
        return gguf.GGMLQuantizationType(code).name
    except ValueError:
        return f"type {code}"


def _check_tensor_bytes(infos: list[_TensorInfo], data_start: int, size: int, path: Path) -> list[str]:
    """Each tensor's type supported, its rows whole blocks, its bytes inside the file, no overlaps."""
    import gguf

    problems, spans = [], []
    seen: set[str] = set()
    for t in infos:
        if t.name in seen:
            problems.append(f"tensor {t.name} appears more than once")
            continue
        seen.add(t.name)
        kind = _type_name(t.type_code)
        if kind not in TENSOR_TYPES:
            problems.append(f"{t.name} is stored as {kind}; supported: {', '.join(TENSOR_TYPES)}")
            continue
        block, block_bytes = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[kind]]
        if t.shape[-1] % block:
            problems.append(f"{t.name}: rows of {t.shape[-1]} values are not whole {kind} blocks of {block}")
            continue
        nbytes = math.prod(t.shape) // block * block_bytes
        begin = data_start + t.offset
        if begin + nbytes > size:
            problems.append(f"{t.name}: its data ({nbytes:,} bytes at {begin:,}) runs past the end of the "
                            f"file ({size:,} bytes): truncated")
            continue
        spans.append((begin, begin + nbytes, t.name))
    spans.sort()
    for (_, e0, n0), (b1, _, n1) in zip(spans, spans[1:], strict=False):
        if b1 < e0:
            problems.append(f"tensors {n0} and {n1} overlap in the file")
    return problems


# -- metadata -> Config ------------------------------------------------------------------------------
def _meta_int(meta: dict, key: str, problems: list[str], default: int | None = None, low: int = 1) -> int | None:
    value = meta.get(key, default)
    if value is None:
        problems.append(f"{key} is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        problems.append(f"{key}={_short(value)} must be a whole number >= {low}")
        return None
    return value


def _meta_float(meta: dict, key: str, problems: list[str], default: float) -> float | None:
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        problems.append(f"{key}={_short(value)} must be a positive number")
        return None
    return float(value)


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, tuple) else "an array"
    return text if len(text) <= 40 else text[:37] + "..."


def _config(meta: dict, names: set[str], path: Path) -> tuple[Config, str]:
    arch = meta.get("general.architecture")
    if arch not in ARCHITECTURES:
        raise _error(f"unsupported architecture: general.architecture={_short(arch)}; supported: "
                     f"{', '.join(ARCHITECTURES)}", path)
    problems: list[str] = []
    a = arch + "."
    d_model = _meta_int(meta, a + "embedding_length", problems)
    n_layers = _meta_int(meta, a + "block_count", problems)
    n_heads = _meta_int(meta, a + "attention.head_count", problems)
    n_kv = _meta_int(meta, a + "attention.head_count_kv", problems, default=n_heads)
    d_mlp = _meta_int(meta, a + "feed_forward_length", problems)
    n_ctx = _meta_int(meta, a + "context_length", problems)
    d_head = None
    if d_model and n_heads:
        d_head = _meta_int(meta, a + "attention.key_length", problems, default=d_model // n_heads or None)
        value_length = meta.get(a + "attention.value_length", d_head)
        if value_length != d_head:
            problems.append(f"{a}attention.value_length={_short(value_length)} differs from key_length={d_head} "
                            "(not supported)")
    rotary = _meta_int(meta, a + "rope.dimension_count", problems, default=d_head) if d_head else None
    eps = _meta_float(meta, a + "attention.layer_norm_rms_epsilon", problems, 1e-5)
    theta = _meta_float(meta, a + "rope.freq_base", problems, 10000.0)
    scaling = meta.get(a + "rope.scaling.type", "none")
    if scaling not in ("none", None):
        problems.append(f"{a}rope.scaling.type={_short(scaling)}: RoPE scaling is not supported")
    if "rope_freqs.weight" in names:
        problems.append("rope_freqs.weight (Llama 3.1-style RoPE frequency factors) is not supported")
    if arch == "llama" and rotary is not None and d_head is not None and rotary != d_head:
        problems.append(f"{a}rope.dimension_count={rotary} < key_length={d_head}: a partial RoPE in a llama "
                        "file is not supported")
    window = meta.get(a + "attention.sliding_window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        problems.append(f"{a}attention.sliding_window={_short(window)} must be a whole number >= 1")
        window = None
    if window is not None and arch == "olmo2":    # llama.cpp: OLMo 3's 3 local to 1 global layers
        problems.append(f"{a}attention.sliding_window={window}: OLMo 3's local and global layers are not supported")
    d_vocab = meta.get(a + "vocab_size")
    tokens = meta.get("tokenizer.ggml.tokens")
    if d_vocab is None and isinstance(tokens, tuple):
        d_vocab = tokens[2]
    if isinstance(d_vocab, bool) or not isinstance(d_vocab, int) or d_vocab < 1:
        problems.append(f"{a}vocab_size is missing or invalid ({_short(d_vocab)}), and there is no vocabulary")
    if problems:
        raise _error(problems, path)
    try:
        cfg = Config(d_model=d_model, n_heads=n_heads, d_head=d_head, n_ctx=n_ctx, d_vocab=d_vocab,
                     n_layers=n_layers, d_mlp=d_mlp, norm="rmsnorm", norm_eps=eps, positions="rope",
                     rope_theta=theta, rotary_dim=rotary, n_kv_heads=n_kv, mlp="swiglu",
                     tied_embeddings="output.weight" not in names, attn_bias="blk.0.attn_q.bias" in names,
                     mlp_bias="blk.0.ffn_up.bias" in names, windows=window,
                     qk_norm=arch in _QK_NORM, qk_norm_scope=_QK_NORM.get(arch, "head"),
                     pre_norms=arch not in _NO_PRE_NORMS, post_norms=arch in _NO_PRE_NORMS,
                     name=str(meta.get("general.name") or path.stem)[:80])
    except ConfigError as exc:
        raise _error(f"the metadata gives an impossible model: {exc}", path) from None
    return cfg, arch


def _expected(cfg: Config, arch: str) -> dict[str, tuple[int, ...]]:
    """GGUF tensor name -> numpy shape, from the HF shapes of the same model."""
    from . import hf_llama

    hf = hf_llama.hf_shapes(cfg, arch)                        # llama, qwen2, qwen3, olmo2 or phi3 (fused)
    to_gguf = {v: k for k, v in _GLOBAL_NAMES.items()}
    block = {v: k for k, v in _block_names(arch).items()}
    out = {}
    for name, shape in hf.items():
        if name.startswith("layers."):
            _, layer, rest = name.split(".", 2)
            out[f"blk.{layer}.{block[rest]}"] = shape
        else:
            out[to_gguf[name]] = shape
    return out


def gguf_config(path: str | os.PathLike) -> Config:
    """The Config a GGUF file describes, from its metadata (no tensor data is read)."""
    path = Path(path).expanduser()
    meta, infos, _ = _scan_checked(path)
    if meta.get("general.architecture") in GEMMA_ARCHS:
        from . import gemma3

        return gemma3.config_of(gemma3.layout(meta, infos, path), path)
    return _config(meta, {t.name for t in infos}, path)[0]


def gemma3_layout(path: str | os.PathLike):
    """The compute.loaders.gemma3.Gemma3Layout of a gemma3 GGUF file, from its header alone (no
    tensor data is read); CheckpointError for another architecture or a malformed file."""
    from .gemma3 import ARCH, layout

    path = Path(path).expanduser()
    meta, infos, _ = _scan_checked(path)
    if meta.get("general.architecture") != ARCH:
        raise _error(f"not a Gemma 3 file: general.architecture={_short(meta.get('general.architecture'))}", path)
    return layout(meta, infos, path)


def _load_gemma3(path: Path, meta: dict, infos: list, data_start: int):
    """A gemma3 (or gemma2) file as a Checkpoint: its layout checked (compute.loaders.gemma3), its tensors read
    through a memory map and dequantized one at a time, Q/K rows as stored (half-split: no permutation)."""
    from .. import memory
    from ..weights import Weights, WeightsError
    from . import float32_cache, gemma3, hf_llama

    described = gemma3.layout(meta, infos, path)
    cfg = gemma3.config_of(described, path)
    try:
        memory.check(cfg, 0, include_weights=True)
    except ConfigError as exc:
        raise _error(f"too large for this machine: {exc}", path) from None
    problems = _check_tensor_bytes(infos, data_start, path.stat().st_size, path)
    if problems:
        raise _error(problems, path)
    tokenizer = sentencepiece_tokenizer(path, meta, cfg.d_vocab, cfg.n_ctx)

    def make() -> Weights:
        hf, _ = gemma3.hf_tensors(infos, data_start, path, _dequantize_mapped)
        try:                                             # the file's norms are 1 + w already
            model_type = "gemma2" if described.arch == "gemma2" else "gemma3_text"
            ours = hf_llama.hf_to_ours(cfg, hf, model_type, norms_plus_one=False)
            return Weights.from_dict(cfg, ours, source=f"GGUF file {str(path)!r}")
        except WeightsError as exc:
            raise _error(exc.problems, path) from None

    weights, kept = float32_cache.cached(path, cfg, described.arch, make)
    types = _stored_types(infos)
    info = CheckpointInfo(source=str(path), format="gguf", model_type=described.arch, stored_types=types,
                          label=stored_label(types), name=cfg.name, notes=(described.summary(), *kept))
    return Checkpoint(cfg, weights, tokenizer, info)


def _stored_types(infos: list[_TensorInfo]) -> dict[str, int]:
    """Stored tensor type -> count, from the header."""
    types: dict[str, int] = {}
    for t in infos:
        types[_type_name(t.type_code)] = types.get(_type_name(t.type_code), 0) + 1
    return types


def _dequantize_mapped(mm: np.ndarray, data_start: int, info: _TensorInfo) -> np.ndarray:
    """One tensor as float32 in numpy order, from its own bytes of the memory-mapped file (checked
    by _check_tensor_bytes). Q8_0 by ggml's formula in numpy (gguf's generic path takes seconds
    on a 262k-row embedding), the others by `gguf.quants`."""
    import gguf
    from gguf.quants import dequantize

    kind = gguf.GGMLQuantizationType(info.type_code)
    block, block_bytes = gguf.GGML_QUANT_SIZES[kind]
    rows = math.prod(info.shape[:-1])
    begin = data_start + info.offset
    raw = mm[begin:begin + rows * (info.shape[-1] // block) * block_bytes]    # a view: read when used
    try:
        if kind == gguf.GGMLQuantizationType.Q8_0:
            return q8_0(raw).reshape(info.shape)
        if kind == gguf.GGMLQuantizationType.F32:
            return np.array(raw.view(np.float32).reshape(info.shape))
        arr = dequantize(np.asarray(raw).reshape(rows, -1), kind)
        return np.ascontiguousarray(arr, dtype=np.float32).reshape(info.shape)
    except Exception as exc:  # noqa: BLE001 - a malformed block: say which tensor
        raise _error(f"{info.name} cannot be dequantized from {kind.name}: {exc}", "GGUF file") from None


def q8_0(raw: np.ndarray) -> np.ndarray:
    """ggml's dequantize_row_q8_0: blocks of a float16 scale d and 32 int8 q; x = d·q. float32, flat."""
    blocks = np.asarray(raw, dtype=np.uint8).reshape(-1, 34)               # [n_blocks, 2 + 32]
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)            # [n_blocks, 1]
    q = blocks[:, 2:].view(np.int8)                                         # [n_blocks, 32]
    return (q * d).reshape(-1)                                              # float32


def read_array(path: Path, entry: tuple, key: str = "an array") -> list:
    """The items of a metadata array that `scan` skipped over (its entry: ("array", item type, count,
    offset)), read straight from the file: strings as str, numbers as Python numbers. Much faster
    than the gguf reader, which makes one numpy view per item (262,144 of them for Gemma's pieces)."""
    _, item, count, offset = entry
    with safe_io.open_regular(path) as fh:
        fh.seek(offset)
        if item in _SCALARS:
            fmt, n = _SCALARS[item]
            data = fh.read(n * count)
            if len(data) != n * count:
                raise _error(f"the metadata array {key} is cut short (truncated file)", path)
            return np.frombuffer(data, dtype=np.dtype(fmt)).tolist()
        if item != _STRING:
            raise _error(f"the metadata array {key} has items of type {item}", path)
        out: list[str] = []
        append, length = out.append, struct.Struct("<Q").unpack_from           # bound once: 262,144 turns
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            end, at = len(data), offset
            try:
                for _ in range(count):
                    n = length(data, at)[0]
                    at += 8
                    if n > end - at:
                        raise _error(f"the metadata array {key} is cut short (truncated file)", path)
                    append(data[at:at + n].decode("utf-8"))
                    at += n
            except (struct.error, UnicodeDecodeError) as exc:
                raise _error(f"the metadata array {key} cannot be read ({exc})", path) from None
    return out


def _scan_checked(path: Path):
    try:
        return scan(path)
    except FileNotFoundError:
        raise _error("file not found", path) from None
    except OSError as exc:
        raise _error(f"cannot be read: {exc.strerror or exc}", path) from None


# -- the permutation of llama.cpp's converter -------------------------------------------------------
def permute_heads(w: np.ndarray, n_heads: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf `permute`: HF rows (i, i + d/2) of each head made adjacent
    (2i, 2i+1). w is (n_heads * d_head, ...) in HF order. (Used by tests to write GGUF files.)"""
    d = w.shape[0] // n_heads
    return w.reshape(n_heads, 2, d // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute_heads(w: np.ndarray, n_heads: int) -> np.ndarray:
    """The inverse: GGUF rows of each head, stored for adjacent-pair RoPE, back to HF's rotate_half
    order, so that row i and row i + d/2 of a head are the pair our RoPE rotates together."""
    d = w.shape[0] // n_heads
    return w.reshape(n_heads, d // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


# -- loading ------------------------------------------------------------------------------------------
def load_gguf(path: str | os.PathLike, *, rope_pairs: str = "convert"):
    """A Checkpoint (cfg, weights, tokenizer; .info) from a GGUF file. `rope_pairs="as_stored"`
    skips the Q/K un-permutation (only to show what a wrong pairing does)."""
    from .. import memory, progress
    from ..weights import Weights, WeightsError
    from . import float32_cache, hf_llama

    path = Path(path).expanduser()
    meta, infos, data_start = _scan_checked(path)
    if meta.get("general.architecture") in GEMMA_ARCHS:                  # Gemma 3 and Gemma 2
        return _load_gemma3(path, meta, infos, data_start)
    names = {t.name for t in infos}
    cfg, arch = _config(meta, names, path)
    try:
        memory.check(cfg, 0, include_weights=True)
    except ConfigError as exc:
        raise _error(f"too large for this machine: {exc}", path) from None
    expected = _expected(cfg, arch)
    problems = _check_tensor_bytes(infos, data_start, path.stat().st_size, path)
    by_name = {t.name: t for t in infos}
    missing = [n for n in expected if n not in by_name]
    extra = sorted(n for n in by_name if n not in expected)
    if missing:
        problems.append(f"missing tensor(s) {_list(missing)}")
    if extra:
        problems.append(f"unexpected tensor(s) {_list(extra)} (not part of a {arch} model of "
                        f"{cfg.n_layers} layers)")
    for name, shape in expected.items():
        if name in by_name and by_name[name].shape != shape:
            problems.append(f"{name} has shape {by_name[name].shape} but the metadata implies {shape}")
    if problems:
        raise _error(problems, path)
    reader = _reader(path)
    tokenizer, notes = _tokenizer(path, meta, cfg, reader)
    if sorted(t.name for t in reader.tensors) != sorted(by_name):
        raise _error("the gguf reader and the header scan disagree on the tensor names (corrupted)", path)

    def make() -> Weights:
        hf: dict[str, np.ndarray] = {}
        non_finite = []
        for n, t in enumerate(reader.tensors):
            progress.report(QT_TR_NOOP("dequantizing the weights"), n / len(reader.tensors))   # a callback may cancel
            arr = _dequantize(t, by_name[t.name], path)                     # float32, numpy shape
            if not np.isfinite(arr).all():
                non_finite.append(f"{t.name} has {int(arr.size - np.isfinite(arr).sum())} NaN/Inf value(s) "
                                  "after dequantization")
            hf[_hf_name(t.name, arch)] = arr
        if non_finite:
            raise _error(non_finite, path)
        if arch == "llama" and rope_pairs == "convert":
            for layer in range(cfg.n_layers):
                for proj, heads in (("q_proj", cfg.n_heads), ("k_proj", cfg.n_kv_heads)):
                    for kind in ("weight", "bias"):
                        key = f"layers.{layer}.self_attn.{proj}.{kind}"
                        if key in hf:
                            hf[key] = unpermute_heads(hf[key], heads)       # adjacent pairs -> (i, i + d/2)
        try:
            return Weights.from_dict(cfg, hf_llama.hf_to_ours(cfg, hf, arch), source=f"GGUF file {str(path)!r}")
        except WeightsError as exc:
            raise _error(exc.problems, path) from None

    # the wrong pairing is a lesson, not a model to keep
    weights, kept = float32_cache.cached(path, cfg, arch, make) if rope_pairs == "convert" else (make(), ())
    notes = [*notes, *kept]
    types = _stored_types(infos)
    if rope_pairs != "convert":
        notes = (*notes, "Q/K rows left in llama.cpp's adjacent-pair order: RoPE pairs are WRONG")
    info = CheckpointInfo(source=str(path), format="gguf", model_type=arch, stored_types=types,
                          label=stored_label(types), name=cfg.name, notes=tuple(notes))
    return Checkpoint(cfg, weights, tokenizer, info)


def _list(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (f" (+{len(names) - limit} more)" if len(names) > limit else "")


def _block_names(arch: str) -> dict[str, str]:
    """GGUF block tensor names -> HF's, for this architecture (Phi-3's fused ones, QK-norms, OLMo 2's norms)."""
    names = {**_BLOCK_NAMES, **_ARCH_BLOCK_NAMES.get(arch, {})}
    if arch in _NO_PRE_NORMS:
        del names["attn_norm.weight"], names["ffn_norm.weight"]
    return names


def _hf_name(name: str, arch: str = "llama") -> str:
    if name.startswith("blk."):
        _, layer, rest = name.split(".", 2)
        return f"layers.{layer}.{_block_names(arch)[rest]}"
    return _GLOBAL_NAMES[name]


def _reader(path: Path):
    import gguf

    try:
        return gguf.GGUFReader(path, "r")
    except Exception as exc:  # noqa: BLE001 - the reader raises anything on a malformed file
        raise _error(f"the gguf reader cannot read it: {type(exc).__name__}: {exc}", path) from None


def _dequantize(t, info: _TensorInfo, path: Path) -> np.ndarray:
    """One tensor as float32 in numpy order (HF's (out, in) for matrices)."""
    from gguf.quants import dequantize

    try:
        arr = dequantize(np.asarray(t.data), t.tensor_type)
        return np.ascontiguousarray(arr, dtype=np.float32).reshape(info.shape)
    except Exception as exc:  # noqa: BLE001 - a malformed block: say which tensor
        raise _error(f"{t.name} cannot be dequantized from {t.tensor_type.name}: {exc}", path) from None


# -- the tokenizer from the file's own vocabulary -----------------------------------------------------
# llama.cpp's pre-tokenizer names -> the split before byte-level BPE (tokenizers' own building blocks).
_LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                 r"\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+")


def _pre_tokenizer(pre: str):
    from tokenizers import Regex, pre_tokenizers

    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre in ("default", "gpt2", "gpt-2", None):
        return byte_level, None
    if pre == "smollm":                            # digits one at a time, then GPT-2's rule
        return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level]), None
    split = {"llama-bpe": _LLAMA3_SPLIT, "llama3": _LLAMA3_SPLIT, "qwen2": _QWEN2_SPLIT}.get(pre)
    if split:
        return pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(split), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]), None
    return byte_level, (f"the file's pre-tokenizer {pre!r} is not known here: GPT-2's split is used, so "
                        "some token boundaries may differ from llama.cpp's")


def _array(reader, key: str, path: Path, kind=str) -> list | None:
    """A metadata array's items (None when absent); CheckpointError when they cannot be decoded."""
    field = reader.fields.get(key)
    if field is None:
        return None
    try:
        items = field.contents()
        return [kind(x) for x in (items if isinstance(items, list) else [items])]
    except Exception as exc:  # noqa: BLE001 - a corrupted string or number: say which array
        raise _error(f"the metadata array {key} cannot be read ({type(exc).__name__}: {exc})", path) from None


def _tokenizer(path: Path, meta: dict, cfg: Config, reader):
    """CheckpointTokenizer from tokenizer.ggml.* (byte-level BPE: model 'gpt2'; SentencePiece:
    model 'llama'), and notes."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, processors


    kind = meta.get("tokenizer.ggml.model")
    if kind == "llama":
        return sentencepiece_tokenizer(path, meta, cfg.d_vocab, cfg.n_ctx), []
    if kind != "gpt2":
        raise _error(f"tokenizer.ggml.model={_short(kind)}: only byte-level BPE ('gpt2': SmolLM, Llama 3, "
                     "Qwen2) and SentencePiece ('llama': Llama 2, TinyLlama, Mistral, Gemma) vocabularies are "
                     "supported", path)
    tokens = _array(reader, "tokenizer.ggml.tokens", path)
    merges = _array(reader, "tokenizer.ggml.merges", path)
    if not tokens or merges is None:
        raise _error("the file has no tokenizer.ggml.tokens or tokenizer.ggml.merges", path)
    if len(tokens) > cfg.d_vocab:
        raise _error(f"the vocabulary has {len(tokens):,} tokens but the model's is {cfg.d_vocab:,}", path)
    vocab: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        vocab.setdefault(tok, i)
    pairs = []
    for m in merges:
        left, sep, right = m.partition(" ")
        if not sep or left not in vocab or right not in vocab:
            raise _error(f"the merge {m[:40]!r} does not join two tokens of the vocabulary", path)
        pairs.append((left, right))
    try:
        tok = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False,
                                   ignore_merges=meta.get("tokenizer.ggml.pre") in ("llama-bpe", "llama3")))
    except Exception as exc:  # noqa: BLE001 - the tokenizers library raises plain Exceptions
        raise _error(f"the vocabulary cannot be made into a tokenizer: {exc}", path) from None
    except BaseException as exc:  # a Rust panic inside tokenizers is a BaseException (pyo3's PanicException)
        if type(exc).__name__ != "PanicException":
            raise
        raise _error(f"the vocabulary crashes the tokenizers library: {exc}", path) from None
    pre, note = _pre_tokenizer(meta.get("tokenizer.ggml.pre"))
    tok.pre_tokenizer = pre
    tok.decoder = decoders.ByteLevel()
    kinds = _array(reader, "tokenizer.ggml.token_type", path, int)
    if kinds is not None:
        special = [tokens[i] for i, k in enumerate(kinds[:len(tokens)]) if k in (3, 4)]   # control, user-defined
        tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in special])
    bos = meta.get("tokenizer.ggml.bos_token_id")
    if meta.get("tokenizer.ggml.add_bos_token") is True and isinstance(bos, int) and 0 <= bos < len(tokens):
        # The template names BOS by an alias: the token's own text may hold a space, a ':' or a '$',
        # which the template language would read as more pieces (and then refuse, or panic).
        try:
            tok.post_processor = processors.TemplateProcessing(single=["BOS", "$A"], special_tokens=[("BOS", bos)])
        except BaseException as exc:  # a Rust panic inside tokenizers is a BaseException (pyo3's PanicException)
            if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
                raise
            raise _error(f"the BOS token {_short(tokens[bos])} cannot be added to every text: {exc}", path) from None
    notes = [note] if note else []
    source = f"the GGUF file's vocabulary ({len(tokens):,} tokens, {len(merges):,} merges)"
    return CheckpointTokenizer(tok, source, cfg.n_ctx), notes


def sentencepiece_tokenizer(path: Path, meta: dict, d_vocab: int, n_ctx: int) -> CheckpointTokenizer:
    """CheckpointTokenizer of a SentencePiece vocabulary (tokenizer.ggml.model = "llama": pieces,
    scores, token types, <0xNN> byte pieces), read straight from the file (compute.loaders.sentencepiece).
    Merges, if the file has them, are not used: llama.cpp encodes these by the scores."""
    from .sentencepiece import SentencePieceError, SentencePieceVocab

    arrays = {}
    for key in VOCAB_ARRAYS:
        entry = meta.get(key)
        if entry is None:
            continue
        if not isinstance(entry, tuple) or len(entry) != 4:
            raise _error(f"{key} is not an array", path)
        if key == "tokenizer.ggml.tokens" and entry[1] != _STRING:
            raise _error(f"{key} is not an array of strings", path)
        if key != "tokenizer.ggml.tokens" and entry[1] not in (4, 5, 6):      # u32, i32, f32 (as llama.cpp)
            raise _error(f"{key} is not an array of numbers (its items are of type {entry[1]})", path)
        arrays[key] = read_array(path, entry, key)
    tokens = arrays.get("tokenizer.ggml.tokens")
    scores = arrays.get("tokenizer.ggml.scores")
    if not tokens:
        raise _error("the file has no tokenizer.ggml.tokens", path)
    if scores is None:
        raise _error("the SentencePiece vocabulary has no tokenizer.ggml.scores (the merge order)", path)
    if len(tokens) > d_vocab:
        raise _error(f"the vocabulary has {len(tokens):,} tokens but the model's is {d_vocab:,}", path)
    if not np.isfinite(np.asarray(scores, dtype=np.float64)).all():
        raise _error("tokenizer.ggml.scores holds NaN or infinite scores", path)

    def flag(key: str, default: bool) -> bool:
        value = meta.get(key, default)
        if not isinstance(value, bool):
            raise _error(f"{key}={_short(value)} must be true or false", path)
        return value

    def token_id(key: str, default: int | None) -> int | None:
        value = meta.get(key, default)
        if value is None or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(tokens)):
            return value
        if key in meta:                            # llama.cpp: an id outside the vocabulary is ignored
            return default if default is not None and default < len(tokens) else None
        return None

    try:
        vocab = SentencePieceVocab(
            tokens, scores, arrays.get("tokenizer.ggml.token_type"),
            bos_id=token_id("tokenizer.ggml.bos_token_id", 1), eos_id=token_id("tokenizer.ggml.eos_token_id", 2),
            unk_id=token_id("tokenizer.ggml.unknown_token_id", 0),
            add_bos=flag("tokenizer.ggml.add_bos_token", True), add_eos=flag("tokenizer.ggml.add_eos_token", False),
            add_space_prefix=flag("tokenizer.ggml.add_space_prefix", True))
    except SentencePieceError as exc:
        raise _error(f"the SentencePiece vocabulary cannot be used: {exc}", path) from None
    source = f"the GGUF file's SentencePiece vocabulary ({len(tokens):,} pieces)"
    return CheckpointTokenizer(vocab, source, n_ctx)
