"""Gemma 3 GGUF files (general.architecture = "gemma3"), described from their metadata and tensor
names, before the lab computes them.

    layout = compute.loaders.gguf_file.gemma3_layout("gemma-3-270m-q4_k_m.gguf")
    layout.kinds          # ('local', 'local', 'local', 'local', 'local', 'global', ...)
    layout.windows        # (512, 512, 512, 512, 512, None, ...)
    layout.rope_thetas    # (10000.0, ..., 1000000.0, ...)
    cfg, weights, tokenizer = compute.load_checkpoint("gemma-3-270m-q4_k_m.gguf")   # computed by the lab

Some of a Gemma 3 model is not in the file and llama.cpp decides it by architecture (src/llama-model.cpp,
LLM_ARCH_GEMMA3); so does this description:

- every 6th layer (5, 11, 17, ...) is global, the others local (`set_swa_pattern(6)`): a local layer's
  query i sees keys i - W < j <= i with W = gemma3.attention.sliding_window;
- local layers rotate with RoPE base 10,000 (`rope_freq_base_train_swa`), global ones with
  gemma3.rope.freq_base (1,000,000);
- RoPE pairs are half-split, (i, i + d/2) (LLAMA_ROPE_TYPE_NEOX), and the converter does not permute
  Q/K rows for Gemma, so the rows are in Hugging Face's order;
- q is scaled by query_pre_attn_scalar^-1/2 before q·k, with query_pre_attn_scalar = d_head
  (1/16 for d_head 256; the 27B model alone uses d_model / n_heads);
- the embeddings are multiplied by sqrt(d_model) (in float32 in llama.cpp; Hugging Face rounds the
  factor to the weights' dtype first: 25.25 in bfloat16 for sqrt(640) = 25.2982);
- every RMSNorm weight (attn_norm, attn_q_norm, attn_k_norm, post_attention_norm, ffn_norm,
  post_ffw_norm, output_norm) is stored as 1 + w: convert_hf_to_gguf.py adds Gemma's 1 before writing,
  so the file's weight multiplies the normalized x directly;
- the MLP is GeGLU: GELU(tanh approximation)(x·W_gate) ⊙ x·W_up, then W_down.

Gemma 2 files (general.architecture = "gemma2", LLM_ARCH_GEMMA2) have the same tensors without the
QK-norm and llama.cpp decides the rest the same way: every other layer local (`set_swa_pattern(2)`:
layers 0, 2, 4, ... with W = gemma2.attention.sliding_window, 4096 when absent), one RoPE base for all
(gemma2.rope.freq_base), the scores soft-capped to cap·tanh(s / cap) with gemma2.attn_logit_softcapping
(50 when absent) and the logits with gemma2.final_logit_softcapping (30 when absent), and
query_pre_attn_scalar = d_head (the 27B model, 46 layers: d_model / n_heads).

`config_of` turns the layout into the lab's Config (windows, rope_theta_local, post_norms, qk_norm,
scale_embed, query_pre_attn_scalar, mlp="geglu"); `load` reads the tensors through a memory map of
the file (only each tensor's bytes, dequantized one at a time: the 262k-row embedding is the one
large array) and maps them to the lab's names.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .loaded import CheckpointError

ARCH = "gemma3"
ARCHS = ("gemma3", "gemma2")       # Gemma 2: the same tensors but the QK-norm, soft-capping
GLOBAL_EVERY = 6                   # llama.cpp: set_swa_pattern(6), layer l global when l % 6 == 5
GLOBAL_EVERY_GEMMA2 = 2            # llama.cpp: set_swa_pattern(2), the odd layers global
GEMMA2_DEFAULTS = {"attention.sliding_window": 4096, "rope.freq_base": 10_000.0,   # llama.cpp's, when absent
                   "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0}
LOCAL_ROPE_THETA = 10_000.0        # llama.cpp: rope_freq_base_train_swa
BLOCK_TENSORS = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "attn_q_norm", "attn_k_norm",
                 "post_attention_norm", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down", "post_ffw_norm")
# GGUF tensor name (after "blk.{l}.") -> Hugging Face Gemma3 name (after "layers.{l}."): Gemma's
# four norms per block are input, post-attention, pre-feedforward and post-feedforward.
HF_NAMES = {
    "attn_norm": "input_layernorm.weight", "attn_q": "self_attn.q_proj.weight", "attn_k": "self_attn.k_proj.weight",
    "attn_v": "self_attn.v_proj.weight", "attn_output": "self_attn.o_proj.weight",
    "attn_q_norm": "self_attn.q_norm.weight", "attn_k_norm": "self_attn.k_norm.weight",
    "post_attention_norm": "post_attention_layernorm.weight", "ffn_norm": "pre_feedforward_layernorm.weight",
    "ffn_gate": "mlp.gate_proj.weight", "ffn_up": "mlp.up_proj.weight", "ffn_down": "mlp.down_proj.weight",
    "post_ffw_norm": "post_feedforward_layernorm.weight",
}
GLOBAL_HF_NAMES = {"token_embd.weight": "embed_tokens.weight", "output_norm.weight": "norm.weight",
                   "output.weight": "lm_head.weight"}


@dataclass(frozen=True)
class Gemma3Layout:
    """A Gemma 3 text model as its GGUF file describes it (plus llama.cpp's by-architecture facts)."""

    name: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_head: int
    d_mlp: int
    n_ctx: int
    d_vocab: int
    norm_eps: float
    window: int                            # keys a local layer's query sees (itself included)
    rope_theta_global: float               # gemma3.rope.freq_base
    rope_theta_local: float = LOCAL_ROPE_THETA
    global_every: int = GLOBAL_EVERY
    query_pre_attn_scalar: float = 0.0     # scores scale by its -1/2 power
    final_logit_softcap: float | None = None
    tied_embeddings: bool = True           # no output.weight: logits use token_embd
    rope_pairs: str = "half"               # (i, i + d/2), llama.cpp's NEOX
    norms_stored_plus_one: bool = True     # the file holds 1 + w for every RMSNorm
    tensor_types: tuple[tuple[str, int], ...] = ()   # stored type -> count
    arch: str = ARCH                       # "gemma3", or "gemma2"
    attn_logit_softcap: float | None = None   # Gemma 2: scores cap·tanh(s / cap) before the mask

    @property
    def kinds(self) -> tuple[str, ...]:
        """'local' or 'global' per layer."""
        return tuple("global" if (layer + 1) % self.global_every == 0 else "local" for layer in range(self.n_layers))

    @property
    def windows(self) -> tuple[int | None, ...]:
        """Per layer as compute.Config.windows reads it: W on local layers, None (dense) on global ones."""
        return tuple(self.window if kind == "local" else None for kind in self.kinds)

    @property
    def rope_thetas(self) -> tuple[float, ...]:
        return tuple(self.rope_theta_local if kind == "local" else self.rope_theta_global for kind in self.kinds)

    @property
    def score_scale(self) -> float:
        return self.query_pre_attn_scalar ** -0.5

    @property
    def embed_scale(self) -> float:
        return math.sqrt(self.d_model)

    def summary(self) -> str:
        """One line: the shape and the layer pattern."""
        n_global = self.kinds.count("global")
        if self.arch == "gemma2":
            return (f"{self.name}: Gemma 2, {self.n_layers} layers ({self.n_layers - n_global} local with W = "
                    f"{self.window}, {n_global} global, RoPE base {self.rope_theta_global:,.0f}), scores soft-capped "
                    f"at {self.attn_logit_softcap:g}, logits at {self.final_logit_softcap:g}, d_model {self.d_model}, "
                    f"{self.n_heads} query heads and {self.n_kv_heads} K/V head(s) of {self.d_head}, d_mlp "
                    f"{self.d_mlp}, {self.d_vocab:,} pieces")
        return (f"{self.name}: {self.n_layers} layers ({self.n_layers - n_global} local with W = {self.window} and "
                f"RoPE base {self.rope_theta_local:,.0f}, {n_global} global with base {self.rope_theta_global:,.0f}), "
                f"d_model {self.d_model}, {self.n_heads} query heads and {self.n_kv_heads} K/V head(s) of "
                f"{self.d_head}, d_mlp {self.d_mlp}, {self.d_vocab:,} pieces")


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, tuple) else "an array"
    return text if len(text) <= 40 else text[:37] + "..."


def _meta_int(meta: dict, key: str, problems: list[str], default: int | None = None) -> int | None:
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        problems.append(f"{key} is missing" if value is None else f"{key}={_short(value)} must be a whole number >= 1")
        return None
    return value


def _meta_float(meta: dict, key: str, problems: list[str], default: float) -> float | None:
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        problems.append(f"{key}={_short(value)} must be a positive number")
        return None
    return float(value)


def _type_name(code: int) -> str:
    import gguf

    try:
        return gguf.GGMLQuantizationType(code).name
    except ValueError:
        return f"type {code}"


def layout(meta: dict, infos: list, path: Path) -> Gemma3Layout:
    """The Gemma3Layout of a scanned GGUF file (compute.loaders.gguf_file.scan: its metadata and
    tensor infos); a CheckpointError naming every problem with its metadata or tensors."""
    def _error(problems, where):
        return CheckpointError(problems, where)

    problems: list[str] = []
    arch = meta.get("general.architecture", ARCH)
    gemma2 = arch == "gemma2"
    a = arch + "."
    defaults = {a + k: v for k, v in GEMMA2_DEFAULTS.items()} if gemma2 else {}
    meta = {**defaults, **meta}
    d_model = _meta_int(meta, a + "embedding_length", problems)
    n_layers = _meta_int(meta, a + "block_count", problems)
    n_heads = _meta_int(meta, a + "attention.head_count", problems)
    n_kv = _meta_int(meta, a + "attention.head_count_kv", problems, default=n_heads)
    d_head = _meta_int(meta, a + "attention.key_length", problems, default=256)
    value_length = meta.get(a + "attention.value_length", d_head)
    if value_length != d_head:
        problems.append(f"{a}attention.value_length={_short(value_length)} differs from key_length={d_head}")
    d_mlp = _meta_int(meta, a + "feed_forward_length", problems)
    n_ctx = _meta_int(meta, a + "context_length", problems, default=131072)
    window = _meta_int(meta, a + "attention.sliding_window", problems)
    eps = _meta_float(meta, a + "attention.layer_norm_rms_epsilon", problems, 1e-6)
    theta = _meta_float(meta, a + "rope.freq_base", problems, 1_000_000.0)
    caps = {}
    for key in ("attn_logit_softcapping", "final_logit_softcapping"):
        cap = meta.get(a + key)
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or not cap > 0):
            problems.append(f"{a}{key}={_short(cap)} must be a positive number")
            cap = None
        caps[key] = float(cap) if cap is not None else None
    if n_heads and n_kv and n_heads % n_kv:
        problems.append(f"{a}attention.head_count={n_heads} is not a multiple of head_count_kv={n_kv}")
    tokens = meta.get("tokenizer.ggml.tokens")
    d_vocab = meta.get(a + "vocab_size", tokens[2] if isinstance(tokens, tuple) else None)
    if isinstance(d_vocab, bool) or not isinstance(d_vocab, int) or d_vocab < 1:
        problems.append(f"{a}vocab_size is missing or invalid ({_short(d_vocab)}), and there is no vocabulary")
    if problems:
        raise _error(problems, path)
    shapes = {t.name: t.shape for t in infos}
    vector = {"attn_norm": (d_model,), "ffn_norm": (d_model,), "post_attention_norm": (d_model,),
              "post_ffw_norm": (d_model,)}
    if not gemma2:                                       # Gemma 3's QK-norm
        vector.update({"attn_q_norm": (d_head,), "attn_k_norm": (d_head,)})
    matrix = {"attn_q": (n_heads * d_head, d_model), "attn_k": (n_kv * d_head, d_model),
              "attn_v": (n_kv * d_head, d_model), "attn_output": (d_model, n_heads * d_head),
              "ffn_gate": (d_mlp, d_model), "ffn_up": (d_mlp, d_model), "ffn_down": (d_model, d_mlp)}
    expected = {"token_embd.weight": (d_vocab, d_model), "output_norm.weight": (d_model,)}
    for layer in range(n_layers):
        for part, shape in {**vector, **matrix}.items():
            expected[f"blk.{layer}.{part}.weight"] = shape
    if "output.weight" in shapes:
        expected["output.weight"] = (d_vocab, d_model)
    missing = [n for n in expected if n not in shapes]
    if missing:
        problems.append(f"missing tensor(s) {', '.join(missing[:6])}" + (f" (+{len(missing) - 6} more)"
                                                                        if len(missing) > 6 else ""))
    extra = sorted(n for n in shapes if n not in expected)
    if extra:
        problems.append(f"unexpected tensor(s) {', '.join(extra[:6])} (not part of a Gemma {2 if gemma2 else 3} text "
                        f"model of {n_layers} layers)")
    problems += [f"{n} has shape {shapes[n]} but the metadata implies {s}" for n, s in expected.items()
                 if n in shapes and tuple(shapes[n]) != s]
    if problems:
        raise _error(problems, path)
    types: dict[str, int] = {}
    for t in infos:
        kind = _type_name(t.type_code)
        types[kind] = types.get(kind, 0) + 1
    return Gemma3Layout(
        name=str(meta.get("general.name") or path.stem)[:80], n_layers=n_layers, d_model=d_model, n_heads=n_heads,
        n_kv_heads=n_kv, d_head=d_head, d_mlp=d_mlp, n_ctx=n_ctx, d_vocab=d_vocab, norm_eps=eps, window=window,
        rope_theta_global=theta, rope_theta_local=theta if gemma2 else LOCAL_ROPE_THETA,
        global_every=GLOBAL_EVERY_GEMMA2 if gemma2 else GLOBAL_EVERY,
        query_pre_attn_scalar=d_model / n_heads if gemma2 and n_layers == 46 else float(d_head),   # llama.cpp: 27B
        final_logit_softcap=caps["final_logit_softcapping"], attn_logit_softcap=caps["attn_logit_softcapping"],
        tied_embeddings="output.weight" not in shapes, arch=arch,
        tensor_types=tuple(sorted(types.items(), key=lambda kv: -kv[1])))


def config_of(described: Gemma3Layout, path: Path):
    """The lab's Config of a Gemma 3 (or Gemma 2) layout; a CheckpointError for what the model does not
    have (a soft-cap in a Gemma 3 file: Gemma 2's, not Gemma 3's)."""
    from ..config import Config, ConfigError

    gemma2 = described.arch == "gemma2"
    if not gemma2 and (described.final_logit_softcap is not None or described.attn_logit_softcap is not None):
        cap = described.final_logit_softcap or described.attn_logit_softcap
        raise CheckpointError(f"{described.summary()}: a soft-cap of {cap:g} in a Gemma 3 file (soft-capping is "
                              "Gemma 2's; a gemma3 file has none)", path)
    try:
        return Config(d_model=described.d_model, n_heads=described.n_heads, n_kv_heads=described.n_kv_heads,
                      d_head=described.d_head, d_mlp=described.d_mlp, n_ctx=described.n_ctx,
                      d_vocab=described.d_vocab, n_layers=described.n_layers, norm="rmsnorm",
                      norm_eps=described.norm_eps, positions="rope", rope_theta=described.rope_theta_global,
                      rope_theta_local=None if gemma2 else described.rope_theta_local, windows=described.windows,
                      mlp="geglu", tied_embeddings=described.tied_embeddings, attn_bias=False, mlp_bias=False,
                      qk_norm=not gemma2, post_norms=True, scale_embed=True,
                      query_pre_attn_scalar=described.query_pre_attn_scalar,
                      attn_softcap=described.attn_logit_softcap if gemma2 else None,
                      final_softcap=described.final_logit_softcap if gemma2 else None, name=described.name)
    except ConfigError as exc:
        raise CheckpointError(f"the metadata gives an impossible model: {exc}", path) from None


def hf_tensors(infos: list, data_start: int, path: Path, dequantize) -> tuple[dict, dict[str, int]]:
    """Every tensor of the file as float32 under its Hugging Face name (norms as stored: 1 + w),
    read through one memory map: `dequantize(raw bytes, info)` makes each from its own bytes only.
    Also the count of each stored type."""
    import numpy as np

    from .. import progress
    from ..i18n import QT_TR_NOOP

    mm = np.memmap(path, dtype=np.uint8, mode="r")                          # nothing read until used
    hf, types = {}, {}
    for n, t in enumerate(infos):                 # finiteness: Weights.from_dict checks every array once
        progress.report(QT_TR_NOOP("dequantizing the weights"), n / len(infos))   # a callback may cancel
        kind = _type_name(t.type_code)
        types[kind] = types.get(kind, 0) + 1
        arr = dequantize(mm, data_start, t)                                 # float32, numpy shape
        if t.name.startswith("blk."):
            _, layer, rest = t.name.split(".", 2)
            hf[f"layers.{layer}.{HF_NAMES[rest.removesuffix('.weight')]}"] = arr
        else:
            hf[GLOBAL_HF_NAMES[t.name]] = arr
    return hf, types
