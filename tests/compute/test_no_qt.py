"""compute/ and cuda_kernels/ never import Qt (docs/ARCHITECTURE.md, "Layers")."""
import subprocess
import sys


def test_importing_compute_imports_no_qt():
    code = ("import sys, compute, compute.backends.cpu, compute.backends.reference, cuda_kernels\n"
            "import compute.backends.cuda, cuda_kernels.products, cuda_kernels.rows\n"
            "import cuda_kernels.elementwise, cuda_kernels.source_map, cuda_kernels.ptx\n"
            "from compute import PRESETS, Weights, forward\n"
            "forward(PRESETS['toy'], Weights.random(PRESETS['toy'], 0), [1, 2], backend='cpu')\n"
            "qt = ('PySide6', 'PyQt5', 'PyQt6', 'pyqtgraph', 'shiboken6')\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in qt]\n"
            "print(bad); sys.exit(1 if bad else 0)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
