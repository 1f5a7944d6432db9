"""Shared test setup. The first lines must run before anything imports Qt or numba."""
import os

# Without a display Qt aborts the whole pytest process (exit 134) unless told to draw offscreen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Tests must never see the user's memory situation as a reason to refuse small models.
os.environ.setdefault("QKV_LAB_MEMORY_BUDGET_GIB", "8")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

# tests/cuda_kernels needs numba's CUDA simulator switched on before numba is first imported, so
# it runs in a process of its own (tests/test_cuda_simulator.py starts it). Naming the folder
# on the command line still runs it (under the simulator, or with NUMBA_ENABLE_CUDASIM=0 on a GPU).
if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
    collect_ignore = ["cuda_kernels"]


# The cyclic garbage collector runs on the main thread only, between tests, as app/gc_guard.py makes
# the app run it on the GUI thread: left automatic, a collection starts on whichever thread allocates
# past a threshold (a runner's compute, numba's), and garbage from earlier tests that holds Qt objects
# (widgets, plots in reference cycles) is then torn down there; Qt crashed later in the main thread's
# event loop (segfaults in three of three full runs under xdist, each in a different test).
_collections = {"tests": 0}


@pytest.fixture(autouse=True, scope="session")
def _no_collection_off_the_main_thread():
    import gc

    was = gc.isenabled()
    gc.disable()
    yield
    gc.collect()
    if was:
        gc.enable()


@pytest.fixture(autouse=True)
def _collect_after_each_test():
    import gc

    yield
    _collections["tests"] += 1
    gc.collect(2 if _collections["tests"] % 25 == 0 else 1)     # here, on the main thread


@pytest.fixture
def rng(request):
    """A fresh, reported seed per test: failures print it, reruns can pin it with QKV_TEST_SEED."""
    seed = int(os.environ.get("QKV_TEST_SEED", np.random.SeedSequence().entropy % (2**32)))
    request.node.user_properties.append(("seed", seed))
    print(f"random seed: {seed} (set QKV_TEST_SEED={seed} to repeat)")
    return np.random.default_rng(seed)


def _xdist_worker(config) -> bool:
    """True in a pytest-xdist worker (the README's test command runs two: `-n 2`)."""
    return hasattr(config, "workerinput")


def pytest_collection_modifyitems(config, items):
    """The kernel-suite test only waits for its own process. Alone, that process starts at
    collection and the test goes last, when it has run beside everything else. Under xdist each
    worker collects everything, so the test goes first instead: the worker that gets it starts the
    process and waits, while the other worker runs tests and then takes over the rest of its queue."""
    last = [item for item in items if item.nodeid.endswith(_KERNEL_SUITE)]
    if last:
        rest = [item for item in items if item not in last]
        items[:] = last + rest if _xdist_worker(config) else rest + last


_KERNEL_SUITE = "test_cuda_simulator.py::test_cuda_kernel_suite_passes_under_the_simulator"


def pytest_collection_finish(session):
    """Without xdist the CUDA kernel suite (its own process, ~7 min) starts now when it is among
    the chosen tests, so that it runs on the second core while this process runs the rest."""
    if session.config.option.collectonly or _xdist_worker(session.config):
        return
    if any(item.nodeid.endswith(_KERNEL_SUITE) for item in session.items):
        from tests import test_cuda_simulator

        test_cuda_simulator.start()


def pytest_sessionfinish(session):
    from tests import test_cuda_simulator

    test_cuda_simulator.stop()
