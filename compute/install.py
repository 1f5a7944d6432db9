"""The install commands the lab suggests, for the Python that runs it.

A bare `pip` is, on many machines, another Python's (the system's, a conda base): the package it
installs never reaches this lab. `pip_command("install x")` names this interpreter instead.
"""
from __future__ import annotations

import shlex
import sys


def pip_command(args: str) -> str:
    """`<this python> -m pip <args>`, quoted for a shell."""
    return f"{shlex.quote(sys.executable or 'python3')} -m pip {args}"
