"""The project is configured in pyproject.toml. This file only stops an install on an older Python
with a plain message: pip prepares `-e .` before the pinned packages, which would otherwise fail
first with "no matching distribution found for numpy"."""
import sys

if sys.version_info < (3, 11):  # noqa: UP036 - the point: requires-python is checked too late
    sys.exit(f"QKV Lab needs Python 3.11 or newer; this is Python {sys.version.split()[0]} ({sys.executable}). "
             "Make the virtual environment with a newer one: delete the .venv folder and run the command "
             "again with python3.12 (or 3.11, 3.13) in place of python3.")

from setuptools import setup  # noqa: E402

setup()
