"""Writing GGUF files the way llama.cpp's convert_hf_to_gguf.py does, from a tiny HF model and its
byte-level BPE tokenizer, so the GGUF loader can be compared with transformers on the same weights.

K-quants (Q4_K, Q5_K, Q6_K) cannot be made by `gguf.quants.quantize`, so they are written as random
valid blocks, and `decode_k_quant` below decodes them independently of the gguf package (a
transcription of ggml's dequantize_row_q{4,5,6}_K).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

CORPUS = ["The capital of France is Paris.", "The capital of Germany is Berlin.", "the cat sat on the mat",
          "a dog ran to the big red hat", "It is 2026, and 42 cats saw it!"]

_BLOCK = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
          "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
          "self_attn.o_proj.weight": "attn_output.weight", "self_attn.q_proj.bias": "attn_q.bias",
          "self_attn.k_proj.bias": "attn_k.bias", "self_attn.v_proj.bias": "attn_v.bias",
          "post_attention_layernorm.weight": "ffn_norm.weight", "mlp.gate_proj.weight": "ffn_gate.weight",
          "mlp.up_proj.weight": "ffn_up.weight", "mlp.down_proj.weight": "ffn_down.weight",
          "self_attn.qkv_proj.weight": "attn_qkv.weight", "mlp.gate_up_proj.weight": "ffn_up.weight"}   # Phi-3
# llama.cpp's names for what only some architectures have (gguf's MODEL_TENSORS / tensor_mapping):
# Qwen3's and OLMo 2's QK-norm; OLMo 2's post_attention_layernorm is a norm after attention there.
_QK_NORM = {"self_attn.q_norm.weight": "attn_q_norm.weight", "self_attn.k_norm.weight": "attn_k_norm.weight"}
_ARCH_BLOCK = {"qwen3": _QK_NORM,
               "olmo2": {**_QK_NORM, "post_attention_layernorm.weight": "post_attention_norm.weight",
                         "post_feedforward_layernorm.weight": "post_ffw_norm.weight"}}
_GLOBAL = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
           "lm_head.weight": "output.weight"}


def byte_level_bpe(vocab_size: int = 300):
    """A byte-level BPE trained on CORPUS (tokens as GPT-2 writes them: 'Ġthe')."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>", "<|im_start|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS * 8, trainer)
    return tok


def vocab_and_merges(tok) -> tuple[list[str], list[str]]:
    model = json.loads(tok.to_str())["model"]
    tokens = [t for t, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1])]
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    return tokens, merges


def permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp convert_hf_to_gguf.py's LlamaModel.permute (HF rotate_half rows -> adjacent pairs)."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def hf_state(model) -> dict[str, np.ndarray]:
    return {n: p.detach().float().numpy().copy() for n, p in model.state_dict().items()}


def write_gguf(path: Path, model, tok, *, arch: str = "llama", types: dict[str, str] | None = None,
               raw: dict[str, tuple[np.ndarray, str]] | None = None, permute_qk: bool = True,
               extra_meta=None, drop=(), n_ctx: int = 64, add_bos: bool = False,
               rename: dict[int, str] | None = None, spm: dict | None = None) -> Path:
    """A GGUF of `model` (HF) and `tok`. `types` maps GGUF tensor names to a type (default F32);
    `raw` gives (uint8 blocks [rows, bytes], type) to store as they are (K-quants); `rename` gives
    tokens another text (by id); `add_bos` asks for token 0 before every text. `spm` (tokens,
    scores, types, and optionally add_space_prefix) writes a SentencePiece vocabulary instead of
    `tok` (tokenizer.ggml.model = "llama", BOS 1, EOS 2, unknown 0, as llama.cpp's converter)."""
    import gguf
    from gguf.quants import quantize

    cfg = model.config
    H, KV = cfg.num_attention_heads, cfg.num_key_value_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // H
    types, raw = types or {}, raw or {}
    w = gguf.GGUFWriter(str(path), arch)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_context_length(n_ctx)
    w.add_embedding_length(cfg.hidden_size)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(H)
    w.add_head_count_kv(KV)
    w.add_rope_freq_base(float(cfg.rope_parameters["rope_theta"]))
    w.add_layer_norm_rms_eps(float(cfg.rms_norm_eps))
    w.add_rope_dimension_count(head_dim)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_vocab_size(cfg.vocab_size)
    if spm is not None:
        w.add_tokenizer_model("llama")
        w.add_tokenizer_pre("default")
        w.add_token_list(spm["tokens"])
        w.add_token_scores(spm["scores"])
        w.add_token_types(spm["types"])
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_unk_token_id(0)
        w.add_add_bos_token(add_bos)
        if "add_space_prefix" in spm:
            w.add_add_space_prefix(spm["add_space_prefix"])
    else:
        tokens, merges = vocab_and_merges(tok)
        tokens = [(rename or {}).get(i, t) for i, t in enumerate(tokens)]
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("gpt2")
        w.add_token_list(tokens)
        w.add_token_types([3 if t.startswith("<|") else 1 for t in tokens])
        w.add_token_merges(merges)
        w.add_bos_token_id(0)
        w.add_add_bos_token(add_bos)
    for key, value in (extra_meta or {}).items():
        w.add_key_value(key, value[0], value[1])
    for name, arr in hf_state(model).items():
        if name.startswith("model.layers."):
            _, _, layer, rest = name.split(".", 3)
            out = f"blk.{layer}.{_ARCH_BLOCK.get(arch, {}).get(rest) or _BLOCK[rest]}"
            if arch == "llama" and permute_qk and rest.startswith(("self_attn.q_proj", "self_attn.k_proj")):
                arr = permute(arr, H if "q_proj" in rest else KV)
        else:
            out = _GLOBAL[name]
        if out in drop:
            continue
        if out in raw:
            blocks, kind = raw[out]
            w.add_tensor(out, blocks, raw_dtype=gguf.GGMLQuantizationType[kind])
            continue
        kind = types.get(out, "F32")
        if kind == "F32":
            w.add_tensor(out, arr.astype(np.float32))
        elif kind == "F16":
            w.add_tensor(out, arr.astype(np.float16))
        else:
            qt = gguf.GGMLQuantizationType[kind]
            w.add_tensor(out, quantize(arr.astype(np.float32), qt), raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


# -- K-quants: random valid blocks and an independent decoder -----------------------------------------
K_BYTES = {"Q4_K": 144, "Q5_K": 176, "Q6_K": 210}


def random_k_blocks(rng, rows: int, cols: int, kind: str) -> np.ndarray:
    """[rows, cols / 256 * bytes] of random blocks whose f16 scales are small and finite."""
    n = cols // 256
    blocks = rng.integers(0, 256, (rows, n, K_BYTES[kind]), dtype=np.uint8)
    d = (rng.random((rows, n)) * 0.02 + 0.001).astype(np.float16).view(np.uint8).reshape(rows, n, 2)
    dmin = (rng.random((rows, n)) * 0.02).astype(np.float16).view(np.uint8).reshape(rows, n, 2)
    if kind == "Q6_K":
        blocks[..., 208:210] = d                        # ql[128] qh[64] scales[16] d
    else:
        blocks[..., 0:2], blocks[..., 2:4] = d, dmin    # d dmin scales[12] (qh[32]) qs[128]
    return blocks.reshape(rows, -1)


def _scale_min(j: int, q: np.ndarray) -> tuple[int, int]:
    if j < 4:
        return int(q[j] & 63), int(q[j + 4] & 63)
    return (int((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4)), int((q[j + 4] >> 4) | ((q[j] >> 6) << 4)))


def _decode_block(b: np.ndarray, kind: str) -> np.ndarray:
    y = np.zeros(256, np.float64)
    if kind == "Q6_K":
        ql, qh, sc = b[0:128], b[128:192], b[192:208].view(np.int8)
        d = float(b[208:210].view(np.float16)[0])
        for n in range(2):                              # two halves of 128
            for e in range(32):
                i = e // 16
                q1 = ((int(ql[64 * n + e]) & 0xF) | (((int(qh[32 * n + e]) >> 0) & 3) << 4)) - 32
                q2 = ((int(ql[64 * n + e + 32]) & 0xF) | (((int(qh[32 * n + e]) >> 2) & 3) << 4)) - 32
                q3 = ((int(ql[64 * n + e]) >> 4) | (((int(qh[32 * n + e]) >> 4) & 3) << 4)) - 32
                q4 = ((int(ql[64 * n + e + 32]) >> 4) | (((int(qh[32 * n + e]) >> 6) & 3) << 4)) - 32
                s = sc[8 * n:]
                y[128 * n + e] = d * s[i] * q1
                y[128 * n + e + 32] = d * s[i + 2] * q2
                y[128 * n + e + 64] = d * s[i + 4] * q3
                y[128 * n + e + 96] = d * s[i + 6] * q4
        return y
    d = float(b[0:2].view(np.float16)[0])
    dmin = float(b[2:4].view(np.float16)[0])
    scales = b[4:16]
    qh = b[16:48] if kind == "Q5_K" else None
    qs = b[48:176] if kind == "Q5_K" else b[16:144]
    out, u1, u2 = 0, 1, 2
    for j in range(4):                                  # four groups of 64
        sc1, m1 = _scale_min(2 * j, scales)
        sc2, m2 = _scale_min(2 * j + 1, scales)
        q = qs[32 * j:32 * j + 32]
        for e in range(32):
            high = (16 if qh[e] & u1 else 0) if qh is not None else 0
            y[out + e] = d * sc1 * ((int(q[e]) & 0xF) + high) - dmin * m1
        for e in range(32):
            high = (16 if qh[e] & u2 else 0) if qh is not None else 0
            y[out + 32 + e] = d * sc2 * ((int(q[e]) >> 4) + high) - dmin * m2
        out += 64
        u1, u2 = u1 << 2, u2 << 2
    return y


def decode_k_quant(blocks: np.ndarray, kind: str) -> np.ndarray:
    """[rows, cols] float64 from the [rows, bytes] blocks, block by block."""
    rows = blocks.shape[0]
    per = blocks.reshape(rows, -1, K_BYTES[kind])
    return np.stack([np.concatenate([_decode_block(per[r, k], kind) for k in range(per.shape[1])])
                     for r in range(rows)])


_GEMMA3_BLOCK = {"input_layernorm.weight": "attn_norm", "post_attention_layernorm.weight": "post_attention_norm",
                 "pre_feedforward_layernorm.weight": "ffn_norm", "post_feedforward_layernorm.weight": "post_ffw_norm",
                 "self_attn.q_norm.weight": "attn_q_norm", "self_attn.k_norm.weight": "attn_k_norm",
                 "self_attn.q_proj.weight": "attn_q", "self_attn.k_proj.weight": "attn_k",
                 "self_attn.v_proj.weight": "attn_v", "self_attn.o_proj.weight": "attn_output",
                 "mlp.gate_proj.weight": "ffn_gate", "mlp.up_proj.weight": "ffn_up", "mlp.down_proj.weight": "ffn_down"}


def write_gemma3_gguf(path: Path, model, *, drop=(), extra_meta=None, arch: str = "gemma3",
                      softcaps: bool = True) -> Path:
    """A gemma3 GGUF of a transformers Gemma3ForCausalLM as llama.cpp's convert_hf_to_gguf.py
    (Gemma3Model) writes one: every *norm.weight stored as 1 + w, Q/K rows not permuted, no
    output.weight (tied), a SentencePiece vocabulary (pieces "<pad>", "<eos>", "<bos>", ... "▁t<i>").
    With arch "gemma2", a Gemma2ForCausalLM's as Gemma2Model writes it: one RoPE base and both soft-caps
    (left out with `softcaps` False)."""
    import gguf

    cfg = model.config
    w = gguf.GGUFWriter(str(path), arch)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_key_length(cfg.head_dim)
    w.add_value_length(cfg.head_dim)
    w.add_layer_norm_rms_eps(float(cfg.rms_norm_eps))
    rope = cfg.rope_parameters
    rope = rope["full_attention"] if "full_attention" in rope else rope                  # Gemma 2: one base
    w.add_rope_freq_base(float(rope["rope_theta"]))
    w.add_sliding_window(cfg.sliding_window)
    if arch == "gemma2" and softcaps:
        w.add_attn_logit_softcapping(float(cfg.attn_logit_softcapping))
        w.add_final_logit_softcapping(float(cfg.final_logit_softcapping))
    tokens = ["<pad>", "<eos>", "<bos>", "<unk>"] + [f"▁t{i}" for i in range(cfg.vocab_size - 4)]
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * 4 + [-float(i) for i in range(cfg.vocab_size - 4)])
    w.add_token_types([3, 3, 3, 2] + [1] * (cfg.vocab_size - 4))
    w.add_bos_token_id(2)
    w.add_eos_token_id(1)
    w.add_unk_token_id(3)
    w.add_add_space_prefix(False)
    for key, value in (extra_meta or {}).items():
        w.add_key_value(key, value[0], value[1])
    for name, arr in hf_state(model).items():
        if name == "lm_head.weight":
            continue                                          # tied: llama.cpp skips it
        if name.endswith("norm.weight"):
            arr = arr + 1.0                                   # Gemma3Model.norm_shift
        if name.startswith("model.layers."):
            _, _, layer, rest = name.split(".", 3)
            out = f"blk.{layer}.{_GEMMA3_BLOCK[rest]}.weight"
        else:
            out = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight"}[name]
        if out not in drop:
            w.add_tensor(out, arr.astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
