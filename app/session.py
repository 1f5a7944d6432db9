"""Session files (.qkvlab): what the lab showed, so a lecture can be reopened exactly.

A session is UTF-8 JSON with a schema version (SCHEMA_VERSION = 1):

    {
      "format": "qkv-lab-session", "schema": 1, "saved_by": "qkv-lab 0.1.0", "saved_at": "…Z",
      "inputs": {
        "preset": "toy",                                   # a PRESETS name or "custom"
        "config": {"d_model": 8, "n_heads": 2, …},         # Config.to_dict()
        "tokens": [0, 1, 2, 3, 0, 4],                      # ids; "text" is for people only
        "text": "the cat sat on the mat",
        "backend": "auto",
        "weights": {"kind": "random", "seed": 0}           # or {"kind": "file", "path": …,
      },                                                   #     "relative": …, "sha256": …, "seed": 0}
      "selection": {"layer": 0, "head": 1, "query": 5, "key": null, "station": "scores"},
      "colours": {"theme": "light", "colormap": "blues", "diverging": "diverging",
                  "lock_scales": false, "show_values": true}
    }

Saving is atomic (a temporary file renamed over the target). Loading checks everything before
anything changes: a damaged, truncated, too-new or hand-broken file raises SessionError with a
message naming the file and the field, and the caller's state stays as it was. A weights file
that is missing opens the session on random weights (its seed) with a warning; one whose hash
changed opens with a warning.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from compute import BACKEND_NAMES, PRESETS, Config, ConfigError
from widgets.theme import DIVERGING_MAPS, SEQUENTIAL_MAPS

from . import files
from .state import PAGES, SEED_MAX, Inputs

FORMAT = "qkv-lab-session"
SCHEMA_VERSION = 1
SUFFIX = ".qkvlab"
MAX_BYTES = 16 << 20                  # a session is a few kB even at T = 2048
SELECTION_FIELDS = ("layer", "head", "query", "key", "station")
COLOUR_FIELDS = ("theme", "colormap", "diverging", "lock_scales", "show_values")


class SessionError(Exception):
    """A session file that cannot be opened or written; the message is for the user."""


@dataclass(frozen=True)
class SessionData:
    inputs: Inputs
    selection: dict[str, Any]          # SELECTION_FIELDS + COLOUR_FIELDS, ready for LabState.select
    warnings: tuple[str, ...] = ()
    source: str = ""


def _version() -> str:
    try:
        from importlib.metadata import version

        return f"qkv-lab {version('qkv-lab')}"
    except Exception:  # noqa: BLE001 - not installed: running from a checkout
        return "qkv-lab (checkout)"


# -- weights references ------------------------------------------------------------------------------
_HASHES: dict[tuple[str, int, int], str] = {}


def _file_sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:                          # GPT-2 is 500 MB: hash once per version
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        _HASHES[key] = h.hexdigest()
    return _HASHES[key]


def sha256_of(path: str | os.PathLike) -> str | None:
    """sha256 of a file; of a folder, over its top-level files' names and hashes (sorted). None if
    it cannot be read (the session then simply carries no hash). Remembered per file version, so
    autosaving a session with a 500 MB checkpoint does not hash it again."""
    path = Path(path)
    try:
        if path.is_dir():
            h = hashlib.sha256()
            for child in sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")):
                h.update(f"{child.name}\0{_cached_sha256(child)}\n".encode())
            return h.hexdigest()
        return _cached_sha256(path)
    except OSError:
        return None


def _cached_sha256(path: Path) -> str:
    st = path.stat()
    return _sha256_version(str(path.resolve()), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=64)
def _sha256_version(path: str, mtime_ns: int, size: int) -> str:
    return _file_sha256(Path(path))


def _trained_file() -> Path | None:
    try:
        from compute import checkpoint
    except ImportError:
        return None
    return getattr(checkpoint, "TRAINED_TOY_FILE", None)


def _looks_like_path(text: str) -> bool:
    return "/" in text or os.sep in text or text.endswith((".safetensors", ".json")) or Path(text).expanduser().exists()


def weights_reference(inputs: Inputs, base_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """How to get these weights again. "random" keeps the seed; a path keeps the file's sha256;
    any other name (e.g. "trained") is kept as its kind."""
    source = inputs.weights
    if source == "random":
        return {"kind": "random", "seed": inputs.seed}
    if source == "trained":                           # the shipped toy weights: note their hash
        shipped = _trained_file()
        ref = {"kind": "trained", "seed": inputs.seed}
        if shipped is not None and shipped.exists():
            ref["sha256"] = sha256_of(shipped)
        return ref
    if not _looks_like_path(source):
        return {"kind": source, "seed": inputs.seed}
    path = Path(source).expanduser().resolve()
    ref: dict[str, Any] = {"kind": "folder" if path.is_dir() else "file", "path": str(path), "seed": inputs.seed}
    if base_dir is not None:
        try:
            ref["relative"] = os.path.relpath(path, Path(base_dir).resolve())
        except ValueError:                            # another drive on Windows
            pass
    if path.exists():
        digest = sha256_of(path)
        if digest is not None:
            ref["sha256"] = digest
    return ref


# -- writing ---------------------------------------------------------------------------------------------
def session_dict(inputs: Inputs, selection, labels=None, base_dir=None) -> dict[str, Any]:
    """The JSON object of a session (schema 1)."""
    sel = selection
    return {
        "format": FORMAT,
        "schema": SCHEMA_VERSION,
        "saved_by": _version(),
        "saved_at": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "inputs": {
            "preset": inputs.preset,
            "config": inputs.config.to_dict(),
            "tokens": [int(t) for t in inputs.tokens],
            "text": " ".join(labels) if labels is not None else "",
            "backend": inputs.backend,
            "weights": weights_reference(inputs, base_dir),
        },
        "selection": {f: getattr(sel, f) for f in SELECTION_FIELDS},
        "colours": {f: getattr(sel, f) for f in COLOUR_FIELDS},
    }


def dumps(state, base_dir=None) -> str:
    """A LabState as session JSON text."""
    return json.dumps(session_dict(state.inputs, state.selection, state.labels(), base_dir), indent=2,
                      ensure_ascii=False) + "\n"


def save_session(path: str | os.PathLike, state) -> Path:
    """Write the session atomically: the old file (if any) stays intact until the new one is
    complete. SessionError (with the reason) if it cannot be written."""
    path = Path(path).expanduser()
    if path.suffix.lower() != SUFFIX:
        path = path.with_name(path.name + SUFFIX)
    folder = path.parent
    if path.is_dir():
        raise SessionError(f"cannot save {str(path)!r}: it is a folder")
    if folder.exists() and not folder.is_dir():
        raise SessionError(f"cannot save {str(path)!r}: {str(folder)!r} is a file, not a folder")
    if not folder.is_dir():
        raise SessionError(f"cannot save {str(path)!r}: the folder {str(folder)!r} does not exist")
    text = dumps(state, base_dir=folder)
    tmp = None
    try:
        tmp = files.temp_beside(path)
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        files.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise SessionError(f"cannot save {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return path


# -- reading ---------------------------------------------------------------------------------------------
def _need(obj: Any, key: str, kind, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise SessionError(f"{where}.{key} is missing")
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise SessionError(f"{where}.{key} = {json.dumps(value)}: must be a whole number")
    if kind is not int and not isinstance(value, kind):
        names = {str: "text", bool: "true or false", dict: "an object", list: "a list"}
        raise SessionError(f"{where}.{key} = {json.dumps(value)[:60]}: must be {names.get(kind, kind.__name__)}")
    return value


def _weights(ref: Any, seed_default: int, base_dir: Path | None, warnings: list[str]) -> tuple[str, int]:
    if not isinstance(ref, dict):
        raise SessionError("inputs.weights must be an object such as {\"kind\": \"random\", \"seed\": 0}")
    kind = _need(ref, "kind", str, "inputs.weights")
    seed = _need(ref, "seed", int, "inputs.weights") if "seed" in ref else seed_default
    if not 0 <= seed <= SEED_MAX:
        raise SessionError(f"inputs.weights.seed = {seed}: a weight seed is a whole number from 0 to {SEED_MAX:,}")
    if kind == "random":
        return "random", seed
    if kind == "trained":
        shipped, digest = _trained_file(), ref.get("sha256")
        if shipped is None or not shipped.exists():
            warnings.append(f"The trained toy weights are not installed: the session is shown with random "
                            f"weights (seed {seed}) instead.")
            return "random", seed
        if isinstance(digest, str) and digest and sha256_of(shipped) != digest:
            warnings.append("The shipped trained weights have changed since the session was saved "
                            "(their sha256 differs): the numbers may not be the ones saved.")
        return "trained", seed
    if kind.startswith("custom:"):
        warnings.append(f"The session used weights made in that session ({kind}), which were not saved to a "
                        f"file: it is shown with random weights (seed {seed}) instead.")
        return "random", seed
    if kind not in ("file", "folder"):
        return kind, seed                              # a named source a later version may know
    stored = _need(ref, "path", str, "inputs.weights")
    candidates = []
    if isinstance(ref.get("relative"), str) and base_dir is not None:
        candidates.append((base_dir / ref["relative"]).resolve())
    candidates.append(Path(stored).expanduser())
    found = next((p for p in candidates if p.exists()), None)
    if found is None:
        warnings.append(f"The weights {kind} {stored!r} was not found: the session is shown with random "
                        f"weights (seed {seed}) instead. Load the weights to see the saved numbers.")
        return "random", seed
    digest = ref.get("sha256")
    if isinstance(digest, str) and digest and sha256_of(found) != digest:
        warnings.append(f"The weights {kind} {str(found)!r} has changed since the session was saved "
                        "(its sha256 differs): the numbers may not be the ones saved.")
    return str(found), seed


def parse_session(text: str, source: str = "session", base_dir: str | os.PathLike | None = None) -> SessionData:
    """SessionData from session JSON text, or SessionError naming what is wrong."""
    try:
        return _parse(text, source, Path(base_dir) if base_dir is not None else None)
    except SessionError as exc:
        raise SessionError(f"{source}: {exc}") from None


PLURAL = {"layer": "layers", "head": "heads", "query": "query positions"}


def _parse(text: str, source: str, base_dir: Path | None) -> SessionData:
    if not text.strip():
        raise SessionError("the file is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SessionError(f"the file is damaged or truncated (not valid JSON: {exc.msg} at line {exc.lineno}, "
                           f"column {exc.colno})") from None
    except (RecursionError, ValueError) as exc:          # nesting too deep, numbers too long
        raise SessionError(f"the file is not a session QKV Lab can read ({type(exc).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionError("this is not a QKV Lab session (no \"format\": \"qkv-lab-session\")")
    schema = data.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise SessionError(f"schema = {json.dumps(schema)}: not a session schema version")
    if schema > SCHEMA_VERSION:
        raise SessionError(f"it was saved by a newer QKV Lab ({data.get('saved_by', 'unknown version')}, session "
                           f"schema {schema}); this version reads schema {SCHEMA_VERSION}. Update QKV Lab to open it.")
    warnings: list[str] = []
    inp = _need(data, "inputs", dict, "session")
    try:
        config = Config.from_dict(_need(inp, "config", dict, "inputs"))
    except (ConfigError, TypeError) as exc:
        raise SessionError(f"inputs.config: {exc}") from None
    tokens = _need(inp, "tokens", list, "inputs")
    try:
        ids = tuple(int(t) for t in config.validate_tokens(tokens))
    except ConfigError as exc:
        raise SessionError(f"inputs.{exc}") from None
    if not ids:
        raise SessionError("inputs.tokens is empty: a session needs at least one token")
    preset = _need(inp, "preset", str, "inputs") if "preset" in inp else "custom"
    if preset not in PRESETS:
        preset = "custom"
    backend = _need(inp, "backend", str, "inputs") if "backend" in inp else "auto"
    if backend not in BACKEND_NAMES:
        raise SessionError(f"inputs.backend = {backend!r}: choose one of {', '.join(BACKEND_NAMES)}")
    weights, seed = _weights(inp.get("weights", {"kind": "random", "seed": 0}), 0, base_dir, warnings)
    inputs = Inputs(config=config, tokens=ids, preset=preset, seed=seed, weights=weights, backend=backend)

    sel = _need(data, "selection", dict, "session") if "selection" in data else {}
    colours = _need(data, "colours", dict, "session") if "colours" in data else {}
    selection: dict[str, Any] = {}
    limits = {"layer": config.n_layers, "head": config.n_heads, "query": max(len(ids), 1)}
    for name, limit in limits.items():
        if name in sel:
            value = _need(sel, name, int, "selection")
            if not 0 <= value < limit:
                raise SessionError(f"selection.{name} = {value}: this model has {PLURAL[name]} 0..{limit - 1}")
            selection[name] = value
    if sel.get("key") is not None:
        key = _need(sel, "key", int, "selection")
        if not 0 <= key < len(ids):
            raise SessionError(f"selection.key = {key}: there are {len(ids)} tokens")
        selection["key"] = key
    elif "key" in sel:
        selection["key"] = None
    if "station" in sel:
        station = _need(sel, "station", str, "selection")
        if station not in PAGES:
            raise SessionError(f"selection.station = {station!r}: choose one of {', '.join(PAGES)}")
        selection["station"] = station
    choices = {"theme": ("light", "dark"), "colormap": SEQUENTIAL_MAPS, "diverging": DIVERGING_MAPS}
    for name, allowed in choices.items():
        if name in colours:
            value = _need(colours, name, str, "colours")
            if value not in allowed:
                raise SessionError(f"colours.{name} = {value!r}: choose one of {', '.join(allowed)}")
            selection[name] = value
    for name in ("lock_scales", "show_values"):
        if name in colours:
            selection[name] = _need(colours, name, bool, "colours")
    return SessionData(inputs=inputs, selection=selection, warnings=tuple(warnings), source=source)


def load_session(path: str | os.PathLike) -> SessionData:
    """Read and check a .qkvlab file; SessionError says what is wrong. Nothing is applied."""
    path = Path(path).expanduser()
    name = str(path)
    try:
        if path.is_dir():
            raise SessionError(f"{name}: is a folder, not a session file")
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SessionError(f"{name}: {size:,} bytes is too large to be a session")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SessionError(f"{name}: file not found") from None
    except PermissionError:
        raise SessionError(f"{name}: permission denied") from None
    except OSError as exc:
        raise SessionError(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(f"{name}: this is not a QKV Lab session (not UTF-8 text)") from None
    return parse_session(text, name, path.parent)


# -- applying ---------------------------------------------------------------------------------------------
def apply_session(state, data: SessionData, label: str, undoable: bool = True) -> bool:
    """Make the session current: the inputs as ONE undoable edit, then the view state (not undoable).
    If LabState refuses (e.g. the memory budget), nothing changes and the message says why."""
    refusals: list[str] = []
    catch = lambda level, text: refusals.append(text) if level == "error" else None  # noqa: E731
    state.message.connect(catch)
    try:
        fields = {f.name: getattr(data.inputs, f.name) for f in dataclasses.fields(data.inputs)}
        ok = state.edit(f"Open session {label}", **fields)
    finally:
        state.message.disconnect(catch)
    if not ok:
        reason = refusals[-1] if refusals else "the inputs were refused"
        state.message.emit("error", f"Could not open {label}: {reason}. Nothing changed.")
        return False
    if not undoable:
        state.undo_stack.clear()
    state.select(hover=None, **data.selection)
    for text in data.warnings:
        state.message.emit("warning", text)
    return True
