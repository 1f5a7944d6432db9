"""The cuda backend's limits said as they are, without a GPU: a driver too old for CUDA 13 is named
(no pip command fixes it), and the cuBLAS path's TF32 switch is safe with torch on other threads."""
from __future__ import annotations

import threading

import pytest


def test_a_driver_older_than_cuda_13_is_the_reason_not_a_missing_package(monkeypatch):
    from numba import cuda

    from compute.backends import cuda as cuda_backend

    monkeypatch.setattr(cuda_backend, "SIMULATOR", False)
    monkeypatch.setattr(cuda, "is_available", lambda: True)                 # a GPU the driver sees
    monkeypatch.setattr(cuda_backend, "driver_cuda_version", lambda: (12, 8))
    ok, why = cuda_backend.CudaBackend()._probe()
    assert not ok
    assert "CUDA 12.8" in why and "driver 580 or newer" in why and "pip install" not in why


def test_tf32_stays_off_while_any_pass_runs_and_comes_back_after_the_last():
    torch = pytest.importorskip("torch")
    from compute.backends.cuda_blas import no_tf32

    switch = torch.backends.cuda.matmul
    before = switch.allow_tf32
    switch.allow_tf32 = True                                                # as a user's torch code may set it
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def pass_a():
        with no_tf32():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def pass_b():
        a_in.wait(5)
        with no_tf32():
            b_in.set()
            a_out.wait(5)
            seen["b after a left"] = switch.allow_tf32                      # A's exit must not switch it back
    threads = [threading.Thread(target=pass_a), threading.Thread(target=pass_b)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert seen == {"b after a left": False}
        assert switch.allow_tf32 is True                                    # the last one out put it back
    finally:
        switch.allow_tf32 = before
