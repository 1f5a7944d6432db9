"""Backend registry. Backends are created on first use, so importing compute stays cheap."""
from __future__ import annotations

import importlib
import os
import sys
import threading

from ..i18n import QT_TR_NOOP, Message
from ..install import pip_command
from .base import Backend, BackendOutput, BackendUnavailable, allowed_pairs

# name -> "module:Class", imported on first use (the CUDA backend pulls in numba.cuda).
_FACTORIES: dict[str, str] = {
    "reference": "compute.backends.reference:ReferenceBackend",
    "cpu": "compute.backends.cpu:CpuBackend",
    "cuda": "compute.backends.cuda:CudaBackend",
}
BACKEND_NAMES: tuple[str, ...] = ("auto", "reference", "cpu", "cuda")
_instances: dict[str, Backend] = {}
_load_errors: dict[str, str] = {}                # name -> why its module could not be imported
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
                hint = f" ({pip_command('install -r requirements-gpu.txt')})" if name == "cuda" else ""
                _load_errors[name] = f"the {name} backend cannot be loaded: {exc}{hint}"
                raise BackendUnavailable(_load_errors[name]) from exc
            _instances[name] = getattr(module, cls_name)()
        return _instances[name]


def loaded_backends() -> tuple[str, ...]:
    """The backends made so far in this process (a name here costs nothing more to use)."""
    with _lock:
        return tuple(_instances)


def nvidia_gpu_present() -> bool:
    """An NVIDIA GPU with its driver on this machine (Linux: the driver's /proc entry or device
    nodes), whether or not the Python packages that use it are installed. Cheap: no import."""
    return os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidia0")


def cuda_unsupported_here(platform: str | None = None) -> str | None:
    """Why this operating system never runs the `cuda` backend (None on Linux, where it runs with an
    NVIDIA GPU and requirements-gpu.txt): macOS and Windows compute on the CPU."""
    platform = platform or sys.platform
    if platform.startswith("linux"):
        return None
    system = {"darwin": "macOS", "win32": "Windows"}.get(platform, platform)
    return Message(QT_TR_NOOP("{system} runs the cpu backend (the cuda backend is for Linux with an NVIDIA GPU)"),
                   system=system)


def cuda_unused_reason() -> str | None:
    """Why passes run on the CPU although this is Linux, for the backend line: what CUDA lacks here
    (no driver or GPU, or a missing library with the command that installs it). None when CUDA
    runs, or when nothing has asked for it yet (the backend was never loaded)."""
    if cuda_unsupported_here() is not None:
        return None                                  # macOS, Windows: cuda_unsupported_here says it
    if "cuda" in _load_errors:
        return Message(QT_TR_NOOP("CUDA not used: {why}"), why=_load_errors["cuda"])
    if "cuda" not in _instances and not nvidia_gpu_present():      # "auto" never loaded it: no GPU to use
        return Message(QT_TR_NOOP("CUDA not used: {why}"),
                       why=Message(QT_TR_NOOP("no NVIDIA GPU here: the cpu backend computes everything")))
    known = getattr(_instances.get("cuda"), "_available", None)   # as probed off the UI thread; never probe here
    if known is None:
        return None
    ok, why = known
    return None if ok else Message(QT_TR_NOOP("CUDA not used: {why}"), why=why)


__all__ = ["Backend", "BackendOutput", "BackendUnavailable", "allowed_pairs", "get_backend",
           "register_backend", "backend_names", "BACKEND_NAMES", "cuda_unsupported_here",
           "cuda_unused_reason", "loaded_backends", "nvidia_gpu_present"]
