"""What the model predicts next, and a greedy decode of a few tokens.

    top_predictions(trace, position=-1, k=5)   # [Prediction(token, prob, logit), ...] best first
    generate(cfg, weights, [3, 1, 4], n_new=4)  # the prompt followed by 4 greedy tokens

Decoding recomputes the whole prefix at every step (no cache): at the toy's sizes that is
microseconds, and it keeps every step an ordinary `forward` whose Trace the views can show.
"""
from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from ..config import Config, ConfigError
from ..forward import forward
from ..trace import Trace
from ..weights import Weights


class Prediction(NamedTuple):
    token: int        # the token id
    prob: float       # softmax of the logits row
    logit: float


def next_token_probs(trace: Trace, position: int = -1) -> np.ndarray:
    """softmax(logits[position]) in float64: [d_vocab]."""
    T = trace.T
    if T == 0:
        raise ConfigError("position", position, "there are no tokens, so nothing to predict from")
    if isinstance(position, bool) or not isinstance(position, numbers.Integral) or not -T <= position < T:
        raise ConfigError("position", position, f"must be a token position 0..{T - 1} (or -1 for the last)")
    logits = np.asarray(trace.logits_rows([int(position)])[0], dtype=np.float64)  # [d_vocab]
    e = np.exp(logits - logits.max())                                              # [d_vocab]
    return e / e.sum()                                                             # [d_vocab]


def top_predictions(trace: Trace, position: int = -1, k: int = 5) -> list[Prediction]:
    """The k most likely next tokens after `position`, best first (ties: lower id first)."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ConfigError("k", k, "must be a whole number >= 1", limit=1)
    probs = next_token_probs(trace, position)                                      # [d_vocab]
    logits = trace.logits_rows([int(position)])[0]                                 # [d_vocab]
    # The k largest without sorting all d_vocab (262,144 for Gemma: a full sort took 60 ms on the UI
    # thread): every id at least as likely as the k-th, in id order, then a stable sort of those.
    k = min(int(k), probs.size)
    kth = np.partition(probs, probs.size - k)[probs.size - k]                      # the k-th largest
    ids = np.flatnonzero(probs >= kth)                                             # [>= k], ascending
    order = ids[np.argsort(-probs[ids], kind="stable")][:k]                        # [k]
    return [Prediction(int(t), float(probs[t]), float(logits[t])) for t in order]


def generate(cfg: Config, weights: Weights, ids: Any, n_new: int, backend: str = "cpu") -> list[int]:
    """The prompt `ids` followed by `n_new` greedily chosen tokens (argmax of the last row's logits).

    The whole result must fit the context (len(ids) + n_new <= n_ctx), so it can be shown and
    traced as one sequence; a longer request is a ConfigError saying how many tokens still fit.
    """
    tokens = [int(t) for t in cfg.validate_tokens(ids)]
    if isinstance(n_new, bool) or not isinstance(n_new, numbers.Integral) or n_new < 0:
        raise ConfigError("n_new", n_new, "must be a whole number >= 0", limit=0)
    if not tokens and n_new:
        raise ConfigError("tokens", "[]", "generation needs at least one prompt token")
    room = cfg.n_ctx - len(tokens)
    if n_new > room:
        raise ConfigError("n_new", n_new, f"the prompt has {len(tokens)} tokens and n_ctx={cfg.n_ctx}, "
                          f"so at most {room} new tokens fit", limit=room)
    for _ in range(int(n_new)):
        trace = forward(cfg, weights, tokens, backend=backend)
        last = trace.logits_rows([len(tokens) - 1])[0]                              # [d_vocab]
        tokens.append(int(np.argmax(last)))
    return tokens
