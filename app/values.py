"""The lab's plain values, Qt-free: the frozen Inputs (what is computed) and Selection (what is
looked at), the LabResult the views draw from, the presets as the lab starts them, and the one way
to turn Inputs into weights and a result. LabState (app/state.py), the runner (app/runner.py) and
the headless `qkv-lab export` (app/export.py) all use these, so none of them imports another.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compute import (
    PRESETS,
    Ablate,
    CheckpointError,
    Config,
    Weights,
    WeightsError,
    forward,
    load_checkpoint,
    real_models,
    toy_tokenizer,
    trained_toy_weights,
)
from compute.config import ONE_BLOCK_PRESETS
from compute.i18n import QT_TR_NOOP, Message

DEFAULT_TEXT = "the cat sat on the mat"
# Larger presets start with a longer text from the toy words (their weights are random anyway).
LONG_TEXT = ("the big red dog saw a cat and the cat ran to the mat it is a big mat and the dog sat "
             "on the red hat the cat saw the dog and ran to a big red hat it is the hat on the mat")


def preset_tokens(name: str) -> tuple[int, ...]:
    words = toy_tokenizer().encode(DEFAULT_TEXT if name == "toy" else LONG_TEXT)
    cfg = PRESETS[name]
    if name != "toy":
        words = (words * (64 // len(words) + 1))[:64]
    return tuple(words[: cfg.n_ctx])


def preset_weights(name: str) -> str:
    """The toy preset starts with the trained weights (patterns with a story); others are random."""
    if name == "toy":
        try:
            trained_toy_weights()
            return "trained"
        except (WeightsError, OSError):
            return "random"                          # the asset is missing or damaged: still usable
    return "random"


def preset_config(name: str) -> Config:
    """The preset as the lab runs it: the dimension-only presets too large to hold (GPT-3 175B,
    Llama-3-8B, Mistral-7B; compute.config.ONE_BLOCK_PRESETS) are shown one block at a time. A
    preset whose layers alternate dense and banded attention shows a banded block (a dense one is
    GPT-3 itself)."""
    cfg = PRESETS[name]
    if name not in ONE_BLOCK_PRESETS:
        return cfg
    windows = cfg.windows and [w for w in cfg.windows if w is not None]
    if windows and len(set(cfg.windows)) > 1:
        return cfg.replace(n_layers=1, windows=(windows[0],), name=name)
    return cfg.replace(n_layers=1, name=name)


@dataclass(frozen=True)
class Inputs:
    config: Config
    tokens: tuple[int, ...]
    preset: str = "toy"
    seed: int = 0
    # "random": Weights.random(config, seed) · "trained": the shipped toy weights · "custom:<n>":
    # made in this session (training) · a .safetensors path · a checkpoint folder or .gguf file
    weights: str = "random"
    backend: str = "auto"
    # Random weights of a model's shapes with its vocabulary (d_head changed on SmolLM2): the weights
    # whose tokenizer still names the tokens; "" = the weights' own (or the toy vocabulary).
    vocabulary: str = ""

    def words_from(self) -> str:
        """The weights name whose tokenizer labels these tokens."""
        return self.vocabulary or self.weights

    ablated: tuple[tuple[int, int], ...] = ()      # heads knocked out (z = 0): (layer, head), compute.Ablate

    def interventions(self) -> tuple | None:
        """The knocked-out heads as compute.Ablate (those the config has), or None."""
        c = self.config
        kept = tuple(Ablate(la, h) for la, h in self.ablated if 0 <= la < c.n_layers and 0 <= h < c.n_heads)
        return kept or None

    def weights_key(self) -> tuple:
        """Which weights these inputs compute with: their source, the seed, and every field that
        decides which weights exist and their shapes (Config.shape_key, the one list of them)."""
        return (self.weights, self.seed, *self.config.shape_key())


@dataclass(frozen=True)
class Selection:
    layer: int = 0
    head: int = 0
    query: int = 0
    key: int | None = None
    hover: tuple[int, int] | None = None
    station: str = "scores"
    lock_scales: bool = False
    show_values: bool = True
    full_range: bool = False                    # colour scales to the largest value (else outliers are clipped)
    trace: tuple | None = None                  # dot-product trace: (name, row, col) in layer/head
    lens: tuple | None = None                   # head lens: (layer, head) of A and of B (clamped); None: the
                                                # selected head and the most different one
    d_k: int = 64                               # the sqrt(d_k) lab's d_k
    theme: str = "light"                        # "light" | "dark" (widgets.theme.PALETTES)
    colormap: str = "blues"                     # widgets.theme.DEFAULT_SEQUENTIAL (export's default too)
    diverging: str = "diverging"                # widgets.theme.DEFAULT_DIVERGING
    # the modern-attention instruments (widgets/instrument_views.py clamps them to the model)
    kv_heads: int | None = None                 # shared K/V: the cache meter's n_kv_heads (None: the model's)
    window: int | None = None                   # windows: the window W compared (None: the model's or T // 3)
    tile: int = 4                               # tiled softmax: B_r = B_c
    tile_step: int | None = None                # tiled softmax: steps done (None: all of them)
    ab: tuple | None = None                     # A/B: the condition (change, value) of compute.instruments.ab
    patching: Any = None                        # activation patching: a compute.instruments.patching.PatchSetup
                                                #   (the two prompts and the metric; None: the page's default)


@dataclass(frozen=True)
class LabResult:
    """Everything the views draw from: the Trace, the weights it used, the inputs, the labels."""

    request_id: int
    inputs: Inputs
    trace: Any                      # compute.Trace
    weights: Any                    # compute.Weights
    labels: tuple[str, ...]
    compute_ms: float
    notice: str | None = None
    token_label: Any = str          # id -> word, from the tokenizer in use
    bos: int | None = None          # the id the tokenizer starts every text with (Gemma's <bos>), or None


SEED_MAX = 2**31 - 1                      # the seed box's range (and numpy's for a plain int seed)


def real_model_of(weights: str):
    """The compute.loaders.real_models entry whose file these weights are (an Inputs.weights path), or None."""
    for model in real_models.entries():
        path = model.path
        if path is not None and weights == str(path.resolve()):
            return model
    return None


def model_label(title: str, loaded) -> Message:
    """What the window says of opened weights: the model and how its numbers were stored, e.g.
    "SmolLM2-135M (real weights) · weights dequantized from Q4_1 and Q8_0" (a Message: the window
    says it in its language, widgets.i18n.message; values stay Qt-free)."""
    info = getattr(loaded, "info", None)
    if info is not None and info.label:
        return Message("{title} · {stored}", title=Message(title), stored=info.label)
    return Message(title)
@dataclass
class WeightsEntry:
    """Weights kept in memory under an Inputs.weights name, with the tokenizer that goes with them."""

    weights: Weights
    tokenizer: object | None = None          # encode/decode/label(s); None: the toy vocabulary
    label: str = ""


def make_weights(inputs, registry: dict | None = None) -> Weights:
    """The weights an Inputs names (shared by the runner and the headless `qkv-lab export`):
    "random" (from the seed), "trained" (the shipped toy weights), "custom:<n>" (made in this
    session, e.g. by training), a .safetensors file, a Hugging Face folder or a GGUF file.
    Files and folders are validated against the config; a folder's tokenizer goes to `registry`."""
    source = inputs.weights
    if registry is not None and source in registry:
        return registry[source].weights
    cfg = inputs.config
    if source == "random":
        return Weights.random(cfg, inputs.seed)
    if source == "trained":
        weights = trained_toy_weights()
    elif source.startswith("custom:"):
        raise WeightsError(Message(QT_TR_NOOP("these weights existed only in memory (made by training here, not saved "
                                              "to a file); use Model › Save weights to keep trained weights")), source)
    elif _is_model(source):
        weights = _load_model(source, registry)
    else:
        weights = Weights.load(Path(source).expanduser(), cfg=cfg)
    if not weights.cfg.same_shapes(cfg):
        raise WeightsError(Message(QT_TR_NOOP("they are for {theirs}, not for {ours}"), theirs=weights.cfg.describe(),
                                   ours=cfg.describe()), source)
    return weights


def _is_model(source: str) -> bool:
    """A checkpoint folder or a GGUF file (these bring their tokenizer), not a .safetensors file."""
    return Path(source).expanduser().is_dir() or source.lower().endswith(".gguf")


def _load_model(source: str, registry: dict | None) -> Weights:
    """A checkpoint folder's or GGUF file's weights; its tokenizer and label go to `registry`."""
    real = real_model_of(source)                 # the packaged real model: loaded once, kept
    loaded = real_models.load(real.key) if real is not None else load_checkpoint(Path(source).expanduser())
    _, weights, tokenizer = loaded
    if registry is not None:
        title = real.title if real is not None else Path(source).name
        registry[source] = WeightsEntry(weights, tokenizer, model_label(title, loaded))
    return weights


def register_vocabulary(inputs, registry: dict | None) -> None:
    """Bring the model whose tokenizer names the tokens (Inputs.vocabulary: random weights of a
    real model's vocabulary, e.g. a reopened session of SmolLM2 with d_head changed) into
    `registry` when it is not there yet. One that cannot be loaded leaves the ids as #numbers
    (the session said so when its file was missing); the pass itself does not fail for it."""
    name = inputs.vocabulary
    if not name or registry is None or name in registry or not _is_model(name):
        return
    try:
        _load_model(name, registry)
    except (CheckpointError, OSError):
        pass


def tokenizer_for(weights_name: str, registry: dict | None = None):
    """The tokenizer that goes with named weights: a checkpoint's own, else the toy vocabulary."""
    entry = registry.get(weights_name) if registry is not None else None
    return entry.tokenizer if entry is not None and entry.tokenizer is not None else toy_tokenizer()


def make_result(request_id: int, inputs: Inputs, trace, weights: Weights, tokenizer, t0: float) -> LabResult:
    """The one way to wrap a Trace for the views (the runner's early and full results, the CLI):
    token labels from the tokenizer of these weights, the time since `t0` (perf_counter)."""
    return LabResult(request_id=request_id, inputs=inputs, trace=trace, weights=weights,
                     labels=tuple(tokenizer.labels(inputs.tokens)), compute_ms=(time.perf_counter() - t0) * 1e3,
                     notice=trace.notice, token_label=tokenizer.label,
                     bos=getattr(tokenizer, "bos", None))


def compute_result(inputs: Inputs, registry: dict | None = None, request_id: int = 0) -> LabResult:
    """Weights and forward pass for `inputs`, synchronously (the CLI; the synchronous runner)."""
    t0 = time.perf_counter()
    registry = {} if registry is None else registry
    weights = make_weights(inputs, registry)
    register_vocabulary(inputs, registry)
    trace = forward(inputs.config, weights, inputs.tokens, backend=inputs.backend,
                    interventions=inputs.interventions())
    return make_result(request_id, inputs, trace, weights, tokenizer_for(inputs.words_from(), registry), t0)
