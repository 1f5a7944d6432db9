"""Atomic file writing shared by sessions and exports: a temporary file beside the target,
renamed over it only when complete (never a half-written file; the old one stays until then)."""
from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path


def temp_beside(path: Path) -> Path:
    """Create an empty temporary file in the target's folder, with the permissions a new file
    there would get (mkstemp's 0600 would leak into the final file)."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        if path.exists():                                # replacing a file: keep its permissions
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        return tmp
    raise FileExistsError(f"no free temporary name beside {path}")


def replace(tmp: Path, path: Path) -> None:
    os.replace(tmp, path)
