"""For each station: the code that computed it, read from the running source, and its key line.

The app's code view shows this. `station_source(backend, station)` returns the function (or CUDA
kernel) text with the line that does the station's key step (e.g. the multiplication by
1/sqrt(d_head)). Long functions are cut to a window around that line.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import lru_cache

from .backends import reference
from .stations import STATIONS

WINDOW = 14   # lines shown either side of the key line for long functions


def _py(fn):
    """The plain Python function behind a numba kernel (cpu twin or njit) or a method."""
    fn = getattr(fn, "parallel", fn)
    return getattr(fn, "py_func", fn)


# backend -> station -> (function, marker): the marker is part of the one line doing the key step.
# Made on first use: the cpu backend's module imports numba, which the first paint does not need.
@lru_cache(maxsize=1)
def _source_map() -> dict:
    from .backends import cpu, cpu_kernels

    return {
        "reference": {
            "embeddings": (reference.ReferenceBackend.run, 'resid = embed + pos_embed'),
            "layernorm": (reference.layer_norm, "out = (x - mean[..., None]) / np.sqrt(var[..., None] + eps)"),
            "projections": (reference.ReferenceBackend.run, 'q = plus(np.einsum("td,hde->the", ln1_out'),
            "scores": (reference.ReferenceBackend.run, "attn_scores_scaled = attn_scores_raw * scale"),
            "softmax": (reference.softmax_rows, "e = np.exp(scores - row_max)"),
            "weighted_sum": (reference.ReferenceBackend.run, "z = (pattern @ v_h.transpose(1, 0, 2))"),
            "heads": (reference.ReferenceBackend.run, 'attn_out = plus(result.sum(axis=1)'),
            "mlp": (reference.gelu, "return 0.5 * x * (1.0 + np.tanh("),
        },
        "cpu": {
            "embeddings": (cpu_kernels.embed_rows, "out[c] = x + pos[c]"),
            "layernorm": (cpu_kernels.layer_norm, "out[t, c] = (x[t, c] - mean32) * inv32 * w[c] + b[c]"),
            "projections": (cpu.ln1_qkv_rows, "np.matmul(ln1_out[r0:r1], W_QKV"),
            "scores": (cpu_kernels.scale_mask_softmax, "# scaled score (no extra mask)"),
            "softmax": (cpu_kernels.scale_mask_softmax, "e = exp32(ms[j] - row_max)"),
            "weighted_sum": (cpu.attention_blocks, "np.matmul(rows[s0 - r0:s1 - r0, first:keys], vh[g, first:keys]"),
            "heads": (cpu.attention_blocks, "np.matmul(z[r0:r1, h], W_O[h]"),
            "mlp": (cpu_kernels.bias_gelu, "post[t, n] = np.float32(0.5) * x * (one + tanh_u)"),   # GPT-2's tanh
        },
    }


# The CUDA kernels' own map (cuda_kernels.source_map) is by kernel step; the step of each station.
_CUDA_STEP = {"embeddings": "embeddings", "layernorm": "ln1", "projections": "projections", "scores": "scores",
              "softmax": "softmax", "weighted_sum": "weighted_sum", "heads": "heads_W_O", "mlp": "mlp"}


@dataclass(frozen=True)
class SourceView:
    backend: str
    station: str
    function: str                     # e.g. "scale_mask_softmax"
    path: str                         # source file
    first_line: int                   # file line number of lines[0]
    lines: tuple[str, ...]            # the shown text, one entry per line
    key_line: int                     # index into `lines` (0-based) of the key step

    @property
    def key_text(self) -> str:
        return self.lines[self.key_line]

    @property
    def key_file_line(self) -> int:
        return self.first_line + self.key_line


def _view(backend: str, station: str, fn, marker: str) -> SourceView:
    fn = _py(fn)
    lines, first = inspect.getsourcelines(fn)
    hits = [n for n, line in enumerate(lines) if marker in line]
    if len(hits) != 1:
        raise LookupError(f"{backend}/{station}: marker {marker!r} occurs {len(hits)} times in {fn.__name__}")
    key = hits[0]
    lo = max(0, key - WINDOW) if len(lines) > 2 * WINDOW + 8 else 0
    hi = min(len(lines), key + WINDOW + 1) if lo else len(lines)
    return SourceView(backend=backend, station=station, function=fn.__qualname__,
                      path=inspect.getsourcefile(fn) or "", first_line=first + lo,
                      lines=tuple(line.rstrip("\n") for line in lines[lo:hi]), key_line=key - lo)


def _family_source(backend: str, station: str, family: tuple[str, ...]):
    """(function, marker) where a model family computes the station with other code: RMSNorm for
    the LayerNorm station, SiLU·gate for a SwiGLU MLP, GELU(gate)·up for GeGLU, the erf GELU for
    Pythia's; None where the GPT-2 code is the code."""
    from .backends import cpu_kernels as ck
    from .models import functions
    from .models.components import GeGLU

    variants = {
        ("layernorm", "rmsnorm"): {
            "reference": (reference.rms_norm, "out = x / scale[..., None] * w"),
            "cpu": (ck.rms_norm, "out[t, c] = x[t, c] * inv32 * w[c]"),
            "cuda": ("rows.rms_norm", "out[t, c] = x[t, c] * inv * w[c]")},
        ("mlp", "swiglu"): {
            "reference": (reference.silu, "return x / (1.0 + np.exp(-x))"),
            "cpu": (ck.bias_silu_gate, "post[t, n] = g / (one + exp32(-g)) * u"),
            "cuda": ("elementwise.silu_gate", "out[t, c] = g / (float32(1.0) + math.exp(-g)) * up[t, c]")},
        # GPT-NeoX / Pythia: the exact GELU by erf, not GPT-2's tanh one
        ("mlp", "gelu_erf"): {
            "reference": (functions.gelu_erf, "return (0.5 * x * (1.0 + _erf(x / np.sqrt(2.0))"),
            "cpu": (ck.bias_gelu_erf, "post[t, n] = np.float32(0.5) * x * (one + math.erf(x * inv_sqrt2))"),
            "cuda": ("elementwise.gelu_erf", "out[t, c] = float32(0.5) * v * (float32(1.0) + math.erf(")},
        # Gemma: GELU(gate) ⊙ up, the tanh GELU of the gate times the linear branch
        ("mlp", "geglu"): {
            "reference": (GeGLU.activation, "return F.gelu(mlp_pre) * mlp_pre_linear"),
            "cpu": (ck.bias_gelu_gate, "post[t, n] = np.float32(0.5) * g * (one + tanh_a) * u"),
            "cuda": ("elementwise.gelu_gate", "out[t, c] = float32(0.5) * g * (float32(1.0) + math.tanh(")},
    }
    for tag in family:
        found = variants.get((station, tag), {}).get(backend)
        if found is not None:
            fn, marker = found
            if isinstance(fn, str):                      # a CUDA kernel: import numba.cuda only for it
                import importlib

                module, name = fn.split(".")
                fn = getattr(importlib.import_module(f"cuda_kernels.{module}"), name)
            return fn, marker
    return None


def family_of(cfg) -> tuple[str, ...]:
    """The parts of a config's model family that change which code computes a station: RMSNorm,
    the MLP's activation (SwiGLU, GeGLU, or the exact erf GELU; () keeps GPT-2's tanh GELU)."""
    c = cfg.components
    mlp = ("gelu_erf",) if c.mlp.exact else tuple(tag for tag in ("swiglu", "geglu") if c.has(tag))
    return (("rmsnorm",) if c.has("rmsnorm") else ()) + mlp


@lru_cache(maxsize=64)
def station_source(backend: str, station: str, family: tuple[str, ...] = ()) -> SourceView:
    """The code of `backend` ("reference", "cpu" or "cuda") that computes `station` for a model of
    this `family` (family_of(cfg); GPT-2's code for ()). Read once: the source does not change
    while the app runs."""
    if station not in STATIONS:
        raise KeyError(f"no station {station!r}; stations: {', '.join(STATIONS)}")
    if backend not in ("cuda", "reference", "cpu"):
        raise KeyError(f"no source map for backend {backend!r}")
    if station not in mapped_stations(backend):
        raise KeyError(f"the code view has no entry for {station!r} on {backend} yet (compute/source_map.py)")
    variant = _family_source(backend, station, family)
    if variant is not None:
        return _view(backend, station, *variant)
    if backend == "cuda":
        from cuda_kernels.source_map import KERNEL_SOURCE

        fn, marker = KERNEL_SOURCE[_CUDA_STEP[station]]
        return _view("cuda", station, fn, marker)
    fn, marker = _source_map()[backend][station]
    return _view(backend, station, fn, marker)


def mapped_stations(backend: str) -> tuple[str, ...]:
    """The stations whose code the code view can show for `backend` (a new station may have none yet)."""
    return tuple(s for s in STATIONS if s in (_CUDA_STEP if backend == "cuda" else _source_map().get(backend, {})))


# Instrument pages: the function behind each page's main numbers (module under compute/, name).
INSTRUMENT_SOURCE: dict[str, tuple[str, str]] = {
    "head_lens": ("instruments.explain", "most_different_head"),
    "sqrt_dk": ("instruments.sqrt_dk", "dot_product_spread"),
    "mask": ("instruments.explain", "mask_shares"),
    "kv_cache": ("instruments.kvcache", "decode_step"),
    "rope": ("instruments.rope_lab", "rope_score"),
    "shared_kv": ("instruments.shared_kv", "group"),
    "windows": ("instruments.receptive", "reach"),
    "tiled_softmax": ("instruments.tiled_softmax", "tiled_attention"),
    "ab": ("instruments.ab", "run"),
    "knockout": ("circuits", "head_attribution"),
    "logit_lens": ("circuits", "logit_lens"),
    "score_parts": ("circuits", "score_parts"),
    "head_finder": ("instruments.patching", "find_heads"),
    "patching": ("instruments.patching", "patching"),
}


def _first_statement(lines: list[str]) -> int:
    """The index of a function's first line of code after its signature and docstring."""
    n, quote = 0, None
    while n < len(lines) and not lines[n].rstrip().endswith(":"):       # the signature, maybe several lines
        n += 1
    n += 1
    while n < len(lines):
        text = lines[n].strip()
        if quote is not None:                                           # inside the docstring
            if quote in text:
                quote = None
        elif text.startswith(('"""', "'''")):
            q = text[:3]
            if text.count(q) < 2 or text == q:
                quote = q
        elif text and not text.startswith("#"):
            return n
        n += 1
    return 0


@lru_cache(maxsize=32)
def instrument_source(page: str) -> SourceView:
    """The code behind an instrument page's numbers (INSTRUMENT_SOURCE), its first statement marked."""
    import importlib

    if page not in INSTRUMENT_SOURCE:
        raise KeyError(f"no instrument page {page!r}; pages: {', '.join(INSTRUMENT_SOURCE)}")
    module, name = INSTRUMENT_SOURCE[page]
    fn = _py(getattr(importlib.import_module(f"compute.{module}"), name))
    lines, first = inspect.getsourcelines(fn)
    key = _first_statement(lines)
    hi = min(len(lines), max(key + 2 * WINDOW, 40))
    return SourceView(backend="compute", station=page, function=fn.__qualname__, path=inspect.getsourcefile(fn) or "",
                      first_line=first, lines=tuple(line.rstrip("\n") for line in lines[:hi]), key_line=key)
