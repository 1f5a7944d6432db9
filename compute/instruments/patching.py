"""The runs of many passes that circuits need: the head finder and activation patching (forward with
interventions, compute/circuits.py, many times)."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import progress
from ..circuits import (
    HeadScores,
    InterventionError,
    PatchingRun,
    PatchMetric,
    _one_blas_thread,
    _token,
    block_layers,
    final_metric,
    head_scores,
    repeated_tokens,
    unembed_column,
)
from ..config import Config
from ..forward import forward
from ..weights import Weights


def find_heads(cfg: Config, weights: Weights, backend: str = "cpu", n: int = 20, seed: int = 0,
               bos: int | None = None, low: int = 0) -> HeadScores:
    """Induction, previous-token, sink and duplicate-token scores of every head, from one pass on a
    random sequence repeated ([bos] + r + r)."""
    tokens = repeated_tokens(cfg, n, seed, low, bos)
    return head_scores(forward(cfg, weights, tokens, backend), n)



def patching(cfg: Config, weights: Weights, clean_tokens: Any, corrupted_tokens: Any, answer: int, wrong: int,
             backend: str = "cpu", kinds: Sequence[str] = ("heads", "positions"),
             on_cell: Callable[[str, int, int, float], None] | None = None,
             cancelled: Callable[[], bool] | None = None,
             on_run: Callable[[PatchingRun], None] | None = None) -> PatchingRun:
    """Activation patching (denoising): each head's z, and resid_pre at each position, of every layer
    taken from the clean pass into the corrupted one. The patches of a few consecutive start layers run
    as one sweep from the first of them on, the batch growing by each layer's patches (every layer before
    a patch is the corrupted pass's, reused; so are the rows before the first differing token); a cell is exactly
    forward(corrupted, interventions=[Patch(...)]) read at the metric. `on_cell(kind, layer, index,
    restored)` after each cell ("heads" or "positions"); `on_run(run)` with the maps so far (a copy; NaN:
    not yet) before the first sweep and after each; `cancelled()` true stops it (Cancelled), checked
    at every layer of a sweep."""
    t0 = time.perf_counter()
    clean_ids, corr_ids = cfg.validate_tokens(clean_tokens), cfg.validate_tokens(corrupted_tokens)
    if len(clean_ids) != len(corr_ids):
        raise InterventionError(f"the clean prompt has {len(clean_ids)} tokens, the corrupted one "
                                f"{len(corr_ids)}: patching needs prompts of equal length")
    if len(clean_ids) == 0:
        raise InterventionError("patching needs at least one token")
    metric = PatchMetric(_token(cfg, answer), _token(cfg, wrong))
    bad = [k for k in kinds if k not in ("heads", "positions")]
    if bad:
        raise InterventionError(f"unknown patching map {bad[0]!r}; choose 'heads' or 'positions'")
    clean = forward(cfg, weights, clean_ids, backend)
    corrupted = forward(cfg, weights, corr_ids, backend)
    m_clean, m_corr = metric(clean), metric(corrupted)
    L, H, T, dm = cfg.n_layers, cfg.n_heads, len(corr_ids), cfg.d_model
    heads_map, pos_map = np.full((L, H), np.nan), np.full((L, T), np.nan)
    gap = m_clean - m_corr
    # Rows before the first token the prompts differ in are the same in both passes (causal), so in every
    # patched pass too: each batch computes rows p0..T-1 only, the earlier rows' keys and values taken
    # from the corrupted pass.
    differ = np.flatnonzero(np.asarray(clean_ids) != np.asarray(corr_ids))
    p0 = int(min(differ[0], T - 1)) if differ.size and cfg.causal else 0
    score_key = cfg.components.score_inputs[1]

    def past(layer: int) -> tuple[np.ndarray, np.ndarray]:
        return (np.asarray(corrupted[score_key, layer][:p0], dtype=dtype),
                np.asarray(corrupted["v", layer][:p0], dtype=dtype))               # [p0, KV, dh] each
    dtype = np.dtype(corrupted.dtype)
    direction = unembed_column(cfg, weights, metric.answer) - unembed_column(cfg, weights, metric.wrong)  # [d_model]

    def snapshot() -> None:
        if on_run is not None:
            on_run(PatchingRun(clean_ids, corr_ids, metric, m_clean, m_corr, heads_map.copy(), pos_map.copy(),
                               time.perf_counter() - t0))

    def stop_if_asked() -> None:
        if cancelled is not None and cancelled():
            raise progress.Cancelled("patching cancelled")

    def sweep(kind: str, jobs: list[tuple[int, str, Callable, int, list[int]]]) -> None:
        """Patches that start at a few consecutive layers, as one sweep over the layers: at layer l the
        batch takes on the passes patched at l (`put(x, offset)` writes their value into x's batch rows
        offset..offset+n) beside the ones begun earlier, so each layer's weights are read once per sweep."""
        stop_if_asked()
        R = T - p0
        streams = np.empty((0, R, dm), dtype=dtype)                               # [B, T - p0, d_model]
        owners: list[tuple[int, int]] = []                                        # (layer, cell) of each pass
        for layer in range(jobs[0][0], L):
            todo = []
            for at, name, put, n, cells in jobs:
                if at == layer:
                    base = np.asarray(corrupted["resid_pre", layer], dtype=dtype)[p0:]   # [T - p0, d_model]
                    todo.append((name, put, len(streams)))
                    streams = np.concatenate([streams, np.broadcast_to(base, (n, R, dm))])   # [B + n, R, d_model]
                    owners += [(layer, c) for c in cells]

            def hook(at: str, _layer: int, x: np.ndarray, todo=todo) -> np.ndarray:
                if at == "resid_pre":
                    stop_if_asked()                                               # every layer of the sweep
                hits = [(put, offset) for name, put, offset in todo if name == at]
                if not hits:
                    return x
                x = x.copy()
                for put, offset in hits:
                    put(x, offset)
                return x
            with _one_blas_thread():
                streams = block_layers(cfg, weights, dtype, streams, layer, None, hook, first_row=p0, past=past,
                                       last=layer + 1)                            # [B, R, d_model]
        values = final_metric(cfg, weights, dtype, streams, direction)            # [B]
        for (layer, index), value in zip(owners, values, strict=True):
            restored = (float(value) - m_corr) / gap if gap != 0 else float("nan")
            (heads_map if kind == "heads" else pos_map)[layer, index] = restored
            if on_cell is not None:
                on_cell(kind, layer, index, restored)
        snapshot()

    # Patches of `group` consecutive start layers share a sweep: the map fills in about six times.
    group = max(1, -(-L // SWEEPS))
    snapshot()
    if "heads" in kinds:
        for a in range(0, L, group):
            jobs = []
            for layer in range(a, min(a + group, L)):
                z = np.asarray(clean["z", layer], dtype=dtype)                    # [T, H, dh]

                def put_heads(x, offset, z=z) -> None:      # x [B, T - p0, H, dh]: batch offset + b, head b
                    for b in range(H):
                        x[offset + b, :, b] = z[p0:, b]
                jobs.append((layer, "z", put_heads, H, list(range(H))))
            sweep("heads", jobs)
    if "positions" in kinds:
        for a in range(0, L, group):
            jobs = []
            for layer in range(a, min(a + group, L)):
                r = np.asarray(clean["resid_pre", layer], dtype=dtype)            # [T, d_model]
                # A row the two passes share (every row before the first differing token: causal) patches nothing.
                rows = np.flatnonzero((r != np.asarray(corrupted["resid_pre", layer], dtype=dtype)).any(axis=1))
                rows = rows[rows >= p0]                                           # before p0: equal by causality
                for p in sorted(set(range(T)) - set(rows.tolist())):
                    pos_map[layer, p] = 0.0
                    if on_cell is not None:
                        on_cell("positions", layer, p, 0.0)
                if not rows.size:
                    continue

                def put_positions(x, offset, r=r, rows=rows) -> None:  # x [B, T - p0, d_model]: offset + b, row rows[b]
                    for b, p in enumerate(rows):
                        x[offset + b, p - p0] = r[p]
                jobs.append((layer, "resid_pre", put_positions, len(rows), rows.tolist()))
            if jobs:
                sweep("positions", jobs)
            else:
                snapshot()
    return PatchingRun(clean_ids, corr_ids, metric, m_clean, m_corr, heads_map, pos_map, time.perf_counter() - t0)


SWEEPS = 6                                         # sweeps over the layers per map (how often it fills in)


# -- a patching run as the window keeps it: two prompts and a metric ------------------------------------------
# The prompts a patching page starts from when the model's tokenizer makes them equally long.
DEFAULT_PROMPTS = ("The capital of France is", "The capital of Italy is")
TOP = 5                                            # the answers offered: each prompt's top predictions


@dataclass(frozen=True)
class PatchSetup:
    """What a patching run is: the clean and corrupted prompts (token ids, equally long) and the metric's
    two tokens; None picks them from the predictions (`pick`): the clean prompt's top token as the answer,
    the corrupted prompt's top token (else its second) as the wrong one."""

    clean: tuple[int, ...]
    corrupted: tuple[int, ...]
    answer: int | None = None
    wrong: int | None = None

    def check(self, cfg: Config) -> PatchSetup:
        """The setup with plain ints, or InterventionError saying what is wrong for this model."""
        clean, corr = (tuple(int(t) for t in cfg.validate_tokens(list(p))) for p in (self.clean, self.corrupted))
        if not clean:
            raise InterventionError("patching needs at least one token")
        if len(clean) != len(corr):
            raise InterventionError(f"the clean prompt has {len(clean)} tokens, the corrupted one {len(corr)}: "
                                    f"patching needs prompts of equal length")
        answer, wrong = (None if t is None else _token(cfg, t) for t in (self.answer, self.wrong))
        return PatchSetup(clean, corr, answer, wrong)

    def pick(self, clean: Any, corrupted: Any) -> PatchMetric:
        """The metric's tokens: the chosen ones, else picked from the two passes' last predictions."""
        row_c, row_x = (np.asarray(t.logits_rows([t.T - 1])[0], np.float64) for t in (clean, corrupted))
        answer = self.answer if self.answer is not None else int(np.argmax(row_c))
        if self.wrong is not None:
            return PatchMetric(answer, self.wrong)
        order = np.argsort(-row_x, kind="stable")
        return PatchMetric(answer, int(order[0] if order[0] != answer else order[1]))


def swapped_setup(tokens: Sequence[int], d_vocab: int) -> PatchSetup:
    """A setup from any sentence: clean = the sentence, corrupted = the same with its middle token swapped
    for the next id (the model's own vocabulary needs no tokenizer for it)."""
    clean = tuple(int(t) for t in tokens)
    p = len(clean) // 2
    corr = clean[:p] + ((clean[p] + 1) % d_vocab,) + clean[p + 1:] if clean else clean
    return PatchSetup(clean, corr)


@dataclass(frozen=True)
class PatchedRun:
    """A patching run of a setup so far: `run` (its maps, NaN where not done yet), each prompt's top
    predictions (the answers a page offers), whether it ended and whether it was stopped."""

    weights_uid: int | None
    setup: PatchSetup
    run: PatchingRun
    clean_top: tuple[int, ...]
    corrupted_top: tuple[int, ...]
    finished: bool = False
    stopped: bool = False

    @property
    def done(self) -> int:
        return int(np.isfinite(self.run.heads).sum() + np.isfinite(self.run.positions).sum())

    @property
    def total(self) -> int:
        return int(self.run.heads.size + self.run.positions.size)


def run_setup(cfg: Config, weights: Weights, setup: PatchSetup, backend: str = "cpu",
              on_run: Callable[[PatchedRun], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> PatchedRun:
    """Patch every head and position for `setup` (its metric picked from the predictions where it names
    no tokens). `on_run` sees the run so far after each batch; `cancelled()` stops it (Cancelled)."""
    setup = setup.check(cfg)
    clean, corrupted = (forward(cfg, weights, list(p), backend) for p in (setup.clean, setup.corrupted))
    metric = setup.pick(clean, corrupted)
    tops = tuple(tuple(int(t) for t in np.argsort(-np.asarray(x.logits_rows([x.T - 1])[0]), kind="stable")[:TOP])
                 for x in (clean, corrupted))
    uid = getattr(weights, "uid", None)

    def seen(run: PatchingRun) -> None:
        if on_run is not None:
            on_run(PatchedRun(uid, setup, run, *tops))
    run = patching(cfg, weights, setup.clean, setup.corrupted, metric.answer, metric.wrong, backend,
                   cancelled=cancelled, on_run=seen)
    return replace(PatchedRun(uid, setup, run, *tops), finished=True)
