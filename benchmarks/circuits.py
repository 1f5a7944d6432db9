"""Activation patching on the real SmolLM2-135M: all 270 heads' z (and resid_pre at every position) patched
from the clean prompt into the corrupted one, each patch at layer l reusing the corrupted pass's layers
before l, against the peer in the same run: the same patches, each a pass of every layer (no reuse).

    python -m benchmarks.circuits --repeat 3        # writes benchmarks/results/circuits-cpu-<date>.json
"""
from __future__ import annotations

import argparse
import datetime
import json
import statistics
import time
from pathlib import Path

import numpy as np

from compute import forward, real_models
from compute.circuits import Patch, PatchMetric
from compute.instruments.patching import patching

from .compute import machine

CLEAN = "When Mary and John went to the store after school on a sunny day, John gave a drink to"
CORRUPTED = "When Mary and John went to the store after school on a sunny day, Mary gave a drink to"


SAMPLE = 5                                          # the peer runs every 5th layer's heads, scaled to all


def heads_without_reuse(cfg, w, clean_ids, corr_ids, metric, backend) -> float:
    """The peer: each head's patch as its own pass over every layer (forward with the Patch, no reuse=,
    one patch at a time), timed on every SAMPLE-th layer's heads and scaled to all layers."""
    clean = forward(cfg, w, clean_ids, backend)
    layers = range(0, cfg.n_layers, SAMPLE)
    t0 = time.perf_counter()
    for layer in layers:
        for h in range(cfg.n_heads):
            metric(forward(cfg, w, corr_ids, backend, interventions=[Patch("z", layer, clean, head=h)]))
    return (time.perf_counter() - t0) * cfg.n_layers / len(layers)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    cfg, w, tok = real_models.load("smollm2-135m")
    clean_ids, corr_ids = tok.encode(CLEAN), tok.encode(CORRUPTED)
    assert len(clean_ids) == len(corr_ids), (len(clean_ids), len(corr_ids))
    answer, wrong = tok.encode(" Mary")[0], tok.encode(" John")[0]
    metric = PatchMetric(answer, wrong)
    patching(cfg, w, clean_ids, corr_ids, answer, wrong, args.backend, kinds=("positions",))   # warm-up
    ours, peer, positions = [], [], []
    for _ in range(args.repeat):                     # ours and the peer alternate
        run = patching(cfg, w, clean_ids, corr_ids, answer, wrong, args.backend, kinds=("heads",))
        ours.append(run.seconds)
        print(f"patching 270 heads: {run.seconds:.2f} s", flush=True)
        peer.append(heads_without_reuse(cfg, w, clean_ids, corr_ids, metric, args.backend))
        positions.append(patching(cfg, w, clean_ids, corr_ids, answer, wrong, args.backend,
                                  kinds=("positions",)).seconds)
    best = np.unravel_index(int(np.nanargmax(run.heads)), run.heads.shape)
    row = {"what": "activation patching, SmolLM2-135M (real weights), every head's z",
           "T": len(clean_ids), "heads": cfg.n_layers * cfg.n_heads, "backend": args.backend,
           "patching_heads_s": statistics.median(ours), "without_reuse_s": statistics.median(peer),
           "ratio": statistics.median(ours) / statistics.median(peer),
           "patching_positions_s": statistics.median(positions), "positions": cfg.n_layers * len(clean_ids),
           "peer_sampled_every_n_layers": SAMPLE,
           "runs": {"heads": ours, "without_reuse": peer, "positions": positions},
           "clean_metric": run.clean_metric, "corrupted_metric": run.corrupted_metric,
           "most_restoring_head": [int(best[0]), int(best[1]), float(run.heads[best])],
           "date": datetime.date.today().isoformat(), "machine": machine()}
    print(f"T={row['T']}: {row['heads']} heads patched in {row['patching_heads_s']:.2f} s "
          f"(without reuse {row['without_reuse_s']:.2f} s, ratio {row['ratio']:.2f}); "
          f"{row['positions']} positions in {row['patching_positions_s']:.2f} s")
    out = Path(args.out or Path(__file__).parent / "results" / f"circuits-{args.backend}-{row['date']}.json")
    out.write_text(json.dumps(row, indent=2) + "\n")
    print(f"written: {out}")


if __name__ == "__main__":
    main()
