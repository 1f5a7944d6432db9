"""Kernel tests: under numba's CUDA simulator (small sizes) or on a real GPU (larger sizes too).

    NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/cuda_kernels     # what tests/test_cuda_simulator.py runs
    NUMBA_ENABLE_CUDASIM=0 python -m pytest tests/cuda_kernels     # on a machine with a GPU

Tests marked `gpu` (larger sizes) run only on a real GPU.
"""
import os
import sys

# The simulator must be chosen before numba is first imported (a no-op if it already was).
if "numba" not in sys.modules:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
# The simulator runs each CUDA thread as a Python thread: handing the GIL over 50x more often than
# the default makes barrier-heavy kernels 5-30x faster (docs/ARCHITECTURE.md section 9).
sys.setswitchinterval(1e-4)

import pytest  # noqa: E402
from numba import cuda  # noqa: E402

from cuda_kernels import SIMULATOR  # noqa: E402

ON_GPU = (not SIMULATOR) and cuda.is_available()


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(__file__)
    for item in items:
        if not str(item.fspath).startswith(here):
            continue
        if not SIMULATOR and not ON_GPU:
            why = ("no GPU here (NUMBA_ENABLE_CUDASIM=0)" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "0" else
                   "no GPU, and numba was imported before the simulator could be switched on (run this folder alone)")
            item.add_marker(pytest.mark.skip(reason=why))
        elif item.get_closest_marker("gpu") is not None and not ON_GPU:   # the marker, not a path with "gpu" in it
            item.add_marker(pytest.mark.skip(reason="larger sizes: needs a real GPU"))
