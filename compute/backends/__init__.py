"""Backend registry. Backends are created on first use, so importing compute stays cheap."""
from __future__ import annotations

import importlib
import sys
import threading

from .base import Backend, BackendOutput, BackendUnavailable, allowed_pairs

# name -> "module:Class", imported on first use (the CUDA backend pulls in numba.cuda).
_FACTORIES: dict[str, str] = {
    "reference": "compute.backends.reference:ReferenceBackend",
    "cpu": "compute.backends.cpu:CpuBackend",
    "cuda": "compute.backends.cuda:CudaBackend",
}
BACKEND_NAMES: tuple[str, ...] = ("auto", "reference", "cpu", "cuda")
_instances: dict[str, Backend] = {}
_lock = threading.Lock()


def backend_names() -> tuple[str, ...]:
    """"auto" and every registered backend (the built-in ones first)."""
    return ("auto",) + tuple(_FACTORIES)


def register_backend(name: str, factory: str) -> None:
    """Add a backend as "module:Class" (a Backend subclass with a no-argument constructor)."""
    with _lock:
        _FACTORIES[name] = factory
        _instances.pop(name, None)


def get_backend(name: str) -> Backend:
    """The backend instance for a name; BackendUnavailable if it cannot be built here."""
    with _lock:
        if name not in _instances:
            if name not in _FACTORIES:
                raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKEND_NAMES)}")
            module_name, cls_name = _FACTORIES[name].split(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                raise BackendUnavailable(f"the {name} backend cannot be loaded: {exc}") from exc
            _instances[name] = getattr(module, cls_name)()
        return _instances[name]


def cuda_unsupported_here(platform: str | None = None) -> str | None:
    """Why this operating system never runs the `cuda` backend (None on Linux, where it runs with an
    NVIDIA GPU and requirements-gpu.txt): macOS and Windows compute on the CPU."""
    platform = platform or sys.platform
    if platform.startswith("linux"):
        return None
    system = {"darwin": "macOS", "win32": "Windows"}.get(platform, platform)
    return f"{system} runs the cpu backend (the cuda backend is for Linux with an NVIDIA GPU)"


__all__ = ["Backend", "BackendOutput", "BackendUnavailable", "allowed_pairs", "get_backend",
           "register_backend", "backend_names", "BACKEND_NAMES", "cuda_unsupported_here"]
