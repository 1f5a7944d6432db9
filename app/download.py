"""Fetch a model from the Hugging Face hub on request (Model ▸ Download…), Qt-free.

    folder = fetch("HuggingFaceTB/SmolLM2-135M", report=lambda stage, fraction: ...)
    compute.load_checkpoint(folder)

Only the files the lab reads are fetched — safetensors weights (and their shard index), config.json
and the tokenizer files; never a pickle — into huggingface_hub's standard cache (~/.cache/huggingface,
or HF_HOME), where a second fetch of the same repo finds them without the network. `report(stage,
fraction)` is called as bytes arrive and may raise compute.progress.Cancelled to stop (the partial
file stays in the cache's .incomplete and a later fetch resumes it). Without a network, a repo not in
the cache is a DownloadError that says the machine is offline.
"""
from __future__ import annotations

import io
import threading
from collections.abc import Callable
from pathlib import Path

from compute.progress import Cancelled

# The repos the menu offers: id -> what it is (the download size is the safetensors file's).
REPOS: dict[str, str] = {
    "gpt2": "GPT-2 small: 124 M parameters, 12 layers (548 MB)",
    "HuggingFaceTB/SmolLM2-135M": "SmolLM2-135M: 30 layers, RMSNorm, RoPE, GQA, SwiGLU (269 MB)",
    "HuggingFaceTB/SmolLM2-135M-Instruct": "SmolLM2-135M-Instruct: the chat-tuned 135M (269 MB)",
    "HuggingFaceTB/SmolLM2-360M": "SmolLM2-360M: 32 layers, 15 heads sharing 5 K/V heads (724 MB)",
}
# What a folder needs for compute.load_checkpoint, and nothing else.
ALLOW_PATTERNS = ["*.safetensors", "model.safetensors.index.json", "config.json", "generation_config.json",
                  "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt"]


class DownloadError(Exception):
    """A fetch that did not happen; the message says why (offline, no such repo, ...)."""


def _progress_class(report: Callable[[str, float], None] | None, repo: str):
    """A tqdm class for huggingface_hub's progress bars that passes the bytes on to `report`
    (which may raise Cancelled: that stops the download at its next chunk)."""
    from tqdm.std import tqdm

    lock = threading.Lock()
    byte_bars: list = []

    class Progress(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs.pop("name", None)
            kwargs["file"] = io.StringIO()              # nothing on the terminal
            kwargs["disable"] = False                   # a disabled bar stops counting
            super().__init__(*args, **kwargs)
            if self.unit == "B":
                with lock:
                    byte_bars.append(self)

        def update(self, n=1):
            out = super().update(n)
            if report is not None:
                with lock:
                    shares = [b.n / b.total for b in byte_bars if b.total]
                    done = max((b.n for b in byte_bars), default=0)
                fraction = max(shares, default=0.0)
                report(f"downloading {repo} ({done / 1e6:,.1f} MB)", min(fraction, 1.0))
            return out

    return Progress


def fetch(repo: str, report: Callable[[str, float], None] | None = None, *, endpoint: str | None = None,
          cache_dir: str | Path | None = None, revision: str | None = None) -> Path:
    """The local folder of `repo` (its safetensors, config and tokenizer files), fetched into the
    hub's cache if they are not there yet. Raises DownloadError, or Cancelled from `report`."""
    import huggingface_hub
    from huggingface_hub import errors

    if report is not None:
        report(f"asking the hub for {repo}", 0.0)
    try:
        folder = huggingface_hub.snapshot_download(
            repo, revision=revision, allow_patterns=ALLOW_PATTERNS, endpoint=endpoint, cache_dir=cache_dir,
            tqdm_class=_progress_class(report, repo), max_workers=2, etag_timeout=10)
    except Cancelled:
        raise
    except errors.RepositoryNotFoundError:
        raise DownloadError(f"{repo}: no such model on the hub (or it is private)") from None
    except errors.RevisionNotFoundError:
        raise DownloadError(f"{repo}: no revision {revision!r} on the hub") from None
    except (errors.LocalEntryNotFoundError, errors.OfflineModeIsEnabled) as exc:
        where = endpoint or huggingface_hub.constants.ENDPOINT
        raise DownloadError(f"offline: {where} cannot be reached and {repo} is not in the download cache "
                            f"({type(exc.__cause__ or exc).__name__}). Connect to the internet and try again, "
                            "or open a folder or GGUF file you have (Model ▸ Open model folder or GGUF file…)"
                            ) from None
    except errors.HfHubHTTPError as exc:
        raise DownloadError(f"{repo}: the hub answered {exc}") from None
    except OSError as exc:
        raise DownloadError(f"{repo}: {exc.strerror or exc}") from None
    folder = Path(folder)
    if not any(folder.glob("*.safetensors")):
        raise DownloadError(f"{repo} has no .safetensors weights (only formats the lab does not open)")
    return folder
