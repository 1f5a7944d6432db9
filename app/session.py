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
        "weights": {"kind": "random", "seed": 0},          # or {"kind": "file", "path": …,
                                                           #     "relative": …, "sha256": …, "seed": 0}
        "vocabulary": {"path": …, "relative": …}           # only for random weights named by a model's
      },                                                   #     tokenizer (Inputs.vocabulary)
      "selection": {"layer": 0, "head": 1, "query": 5, "key": null, "station": "scores"},
      "colours": {"theme": "light", "colormap": "blues", "diverging": "diverging",
                  "lock_scales": false, "show_values": true},
      "patching": {"clean": [...], "corrupted": [...],      # only with an activation-patching run: its
                   "answer": null, "wrong": null}           #     prompts; its metric (null: from the prediction)
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
import errno
import hashlib
import json
import os
import stat
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject

from compute import BACKEND_NAMES, PRESETS, Config, ConfigError, InterventionError, safe_io
from compute.instruments.patching import PatchSetup
from widgets.i18n import QT_TR_NOOP, error_text, num, tr
from widgets.theme import DIVERGING_MAPS, SEQUENTIAL_MAPS

from .background import Background, spawn
from .state import PAGES, SEED_MAX, Inputs

FORMAT = "qkv-lab-session"
SCHEMA_VERSION = 1
SUFFIX = ".qkvlab"
MAX_BYTES = 16 << 20                  # a session is a few kB even at T = 2048
SELECTION_FIELDS = ("layer", "head", "query", "key", "station")
COLOUR_FIELDS = ("theme", "colormap", "diverging", "lock_scales", "show_values")


class SessionError(Exception):
    """A session file that cannot be opened or written; the message is for the user (in the
    window's language). `not_found`: the file is not there (the recent-files list drops it)."""

    not_found = False


@dataclass(frozen=True)
class SessionData:
    inputs: Inputs
    selection: dict[str, Any]          # SELECTION_FIELDS + COLOUR_FIELDS, ready for LabState.select
    warnings: tuple[str, ...] = ()
    source: str = ""
    # Checksum comparisons too slow for the UI thread: (path, stored sha256, subject); see run_checks.
    checks: tuple[tuple[str, str, str], ...] = ()


def _version() -> str:
    try:
        from importlib.metadata import version

        return f"qkv-lab {version('qkv-lab')}"
    except Exception:  # noqa: BLE001 - not installed: running from a checkout
        return "qkv-lab (checkout)"


# -- weights references ------------------------------------------------------------------------------
# Files up to this size are hashed where they are asked for (~20 ms); a larger one only when its
# digest is already known (compute.safe_io remembers it per file version, and Weights.load takes
# it while reading), else on a background thread, so opening or saving never stalls the window.
INLINE_HASH_BYTES = 32 << 20


def sha256_of(path: str | os.PathLike, *, block: bool = True) -> str | None:
    """sha256 of a regular file; of a folder, over its top-level regular files' names and hashes
    (sorted). None if it cannot be read (the session then carries no hash), or, with
    block=False, if that would mean reading more than INLINE_HASH_BYTES now. Remembered per file
    version, so autosaving a session with a 500 MB checkpoint does not hash it again."""
    path = Path(path)
    try:
        if path.is_dir():
            h = hashlib.sha256()
            for child in sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")):
                digest = _file_digest(child, block)
                if digest is None:
                    return None
                h.update(f"{child.name}\0{digest}\n".encode())
            return h.hexdigest()
        return _file_digest(path, block)
    except (OSError, ValueError, RuntimeError):       # unreadable, a NUL in the name, a symlink loop
        return None


def _file_digest(path: Path, block: bool) -> str | None:
    known = safe_io.cached_sha256(path)
    if known is not None:
        return known
    if not block and path.stat().st_size > INLINE_HASH_BYTES:
        return None
    return safe_io.sha256_file(path)                   # regular files only: a pipe is refused


_HASHING: set[str] = set()                          # paths being hashed in the background now


def _hash_later(path: Path) -> None:
    """Fill the digest memo off the UI thread (the next save or check finds it), once per path."""
    key = str(path)
    if key in _HASHING:
        return
    _HASHING.add(key)

    def work() -> None:
        try:
            sha256_of(path)
        finally:
            _HASHING.discard(key)

    spawn(work, "sha256", tracked=False)             # a memo only: the app need not wait for it at exit


def _trained_file() -> Path | None:
    try:
        from compute.loaders import checkpoint
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
        digest = sha256_of(shipped) if shipped is not None and shipped.exists() else None
        if digest is not None:
            ref["sha256"] = digest
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
        digest = sha256_of(path, block=False)
        if digest is not None:
            ref["sha256"] = digest
        else:                                         # a big file not read yet: next time
            _hash_later(path)
    return ref


def vocabulary_reference(name: str, base_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """Where the tokenizer of Inputs.vocabulary lives (a model folder or GGUF file): its path, and
    the path relative to the session's folder, as for weights."""
    path = Path(name).expanduser().resolve()
    ref: dict[str, Any] = {"path": str(path)}
    if base_dir is not None:
        try:
            ref["relative"] = os.path.relpath(path, Path(base_dir).resolve())
        except ValueError:                            # another drive on Windows
            pass
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
            **({"ablated": [[int(la), int(h)] for la, h in inputs.ablated]} if inputs.ablated else {}),
            **({"vocabulary": vocabulary_reference(inputs.vocabulary, base_dir)} if inputs.vocabulary else {}),
        },
        "selection": {f: getattr(sel, f) for f in SELECTION_FIELDS},
        "colours": {f: getattr(sel, f) for f in COLOUR_FIELDS},
        **({"patching": _patching_dict(sel.patching)} if getattr(sel, "patching", None) is not None else {}),
    }


def _patching_dict(setup) -> dict[str, Any]:
    """The activation-patching run: its two prompts (ids) and its metric's tokens (null: picked from the prediction)."""
    return {"clean": [int(t) for t in setup.clean], "corrupted": [int(t) for t in setup.corrupted],
            "answer": None if setup.answer is None else int(setup.answer),
            "wrong": None if setup.wrong is None else int(setup.wrong)}


def dumps(state, base_dir=None) -> str:
    """A LabState as session JSON text."""
    return json.dumps(session_dict(state.inputs, state.selection, state.labels(), base_dir), indent=2,
                      ensure_ascii=False) + "\n"


def save_session(path: str | os.PathLike, state) -> Path:
    """Write the session through the project's one writer (compute.safe_io): the old file stays
    intact until the new one is complete and checked. SessionError (with the real cause) if it
    cannot be written."""
    path = Path(path).expanduser()
    if path.suffix.lower() != SUFFIX:
        path = path.with_name(path.name + SUFFIX)
    try:
        safe_io.check_target(path)                      # before hashing weights for the reference
        return safe_io.write_file(path, dumps(state, base_dir=path.parent), check="json")
    except safe_io.FileError as exc:
        raise SessionError(str(exc)) from None


# -- reading ---------------------------------------------------------------------------------------------
def _need(obj: Any, key: str, kind, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise SessionError(tr("{field} is missing").format(field=f"{where}.{key}"))
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise SessionError(tr("{field} = {value}: must be a whole number").format(field=f"{where}.{key}",
                                                                          value=json.dumps(value)[:60]))
    if kind is not int and not isinstance(value, kind):
        names = {str: tr("text"), bool: tr("true or false"), dict: tr("an object"), list: tr("a list")}
        raise SessionError(tr("{field} = {value}: must be {kind}").format(
            field=f"{where}.{key}", value=json.dumps(value)[:60], kind=names.get(kind, kind.__name__)))
    return value


def _weights(ref: Any, seed_default: int, base_dir: Path | None, warnings: list[str],
             checks: list[tuple[str, str, str]]) -> tuple[str, int]:
    if not isinstance(ref, dict):
        raise SessionError(tr("inputs.weights must be an object such as {example}").format(
            example='{"kind": "random", "seed": 0}'))
    kind = _need(ref, "kind", str, "inputs.weights")
    seed = _need(ref, "seed", int, "inputs.weights") if "seed" in ref else seed_default
    if not 0 <= seed <= SEED_MAX:
        raise SessionError(tr("{field} = {value}: a weight seed is a whole number from 0 to {most}").format(
            field="inputs.weights.seed", value=seed, most=num(SEED_MAX, ",")))
    digest = ref.get("sha256")
    digest = digest if isinstance(digest, str) and digest else None
    if kind == "random":
        return "random", seed
    if kind == "trained":
        shipped = _trained_file()
        if shipped is None or not shipped.exists():
            warnings.append(tr("The trained toy weights are not installed: the session is shown with random weights "
                               "(seed {seed}) instead.").format(seed=seed))
            return "random", seed
        if digest is not None:
            _check_digest(shipped, digest, tr("The shipped trained weights have"), warnings, checks)
        return "trained", seed
    if kind.startswith("custom:"):
        warnings.append(tr("The session used weights made in that session ({name}), which were not saved to a "
                           "file: it is shown with random weights (seed {seed}) instead.").format(name=_short(kind),
                                                                                                 seed=seed))
        return "random", seed
    if kind not in ("file", "folder"):
        # Never a path in disguise: an unknown kind would be opened relative to the working folder.
        warnings.append(tr("The session's weights are of a kind this version does not know ({kind}): it is shown "
                           "with random weights (seed {seed}) instead.").format(kind=repr(_short(kind)), seed=seed))
        return "random", seed
    stored = _need(ref, "path", str, "inputs.weights")
    candidates = []
    if isinstance(ref.get("relative"), str) and base_dir is not None:
        candidates.append(lambda: (base_dir / ref["relative"]).resolve())
    candidates.append(lambda: Path(stored).expanduser())
    found = next((p for p in map(_usable_path, candidates) if p is not None), None)
    if found is None:
        text = (tr("The weights file {path} was not found: the session is shown with random weights (seed {seed}) "
                   "instead. Load the weights to see the saved numbers.") if kind == "file" else
                tr("The weights folder {path} was not found: the session is shown with random weights (seed {seed}) "
                   "instead. Load the weights to see the saved numbers."))
        warnings.append(text.format(path=repr(_short(stored)), seed=seed))
        return "random", seed
    mode = found.stat().st_mode
    if not (stat.S_ISDIR(mode) if kind == "folder" else stat.S_ISREG(mode)):
        what = safe_io.kind_of(mode) if not stat.S_ISREG(mode) else "a file"
        text = (tr("The weights file {path} is {what}, not a weights file: the session is shown with random "
                   "weights (seed {seed}) instead.") if kind == "file" else
                tr("The weights folder {path} is {what}, not a weights folder: the session is shown with random "
                   "weights (seed {seed}) instead."))
        warnings.append(text.format(path=repr(str(found)), what=what, seed=seed))
        return "random", seed
    if digest is not None:
        subject = tr("The weights file {path} has") if kind == "file" else tr("The weights folder {path} has")
        _check_digest(found, digest, subject.format(path=repr(str(found))), warnings, checks)
    return str(found), seed


def _vocabulary(ref: Any, base_dir: Path | None, warnings: list[str]) -> str:
    """Inputs.vocabulary from its reference: the model whose tokenizer names the tokens, or ""
    (with a warning: the tokens are then shown as numbers) when it is not found."""
    stored = _need(ref, "path", str, "inputs.vocabulary")
    candidates = []
    if isinstance(ref.get("relative"), str) and base_dir is not None:
        candidates.append(lambda: (base_dir / ref["relative"]).resolve())
    candidates.append(lambda: Path(stored).expanduser())
    found = next((p for p in map(_usable_path, candidates) if p is not None), None)
    mode = found.stat().st_mode if found is not None else 0
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):            # never a pipe or a device to read from
        warnings.append(tr("The model {path} whose vocabulary names these tokens was not found: the tokens are "
                           "shown as numbers.").format(path=repr(_short(stored))))
        return ""
    return str(found)


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _usable_path(make) -> Path | None:
    """The candidate path if it exists; None if not, or if it cannot even be asked about (a NUL
    in the name, an unknown ~user, a symlink loop, a name too long)."""
    try:
        path = make()
        return path if path.exists() else None
    except (OSError, ValueError, RuntimeError):
        return None


def _changed(subject: str) -> str:
    return tr("{subject} changed since the session was saved (the sha256 differs): the numbers may not be the "
              "ones saved.").format(subject=subject)


def _check_digest(path: Path, digest: str, subject: str, warnings: list[str], checks: list) -> None:
    """Compare at once when that is cheap; else leave it to `checks` (run off the UI thread)."""
    now = sha256_of(path, block=False)
    if now is None and (path.is_dir() or path.stat().st_size > INLINE_HASH_BYTES):
        checks.append((str(path), digest, subject))
    elif now != digest:
        warnings.append(_changed(subject))


def run_checks(data: SessionData) -> list[str]:
    """The deferred checksum comparisons of a session, here and now (the CLI; a background thread):
    the warnings for those that differ."""
    return [_changed(subject) for path, digest, subject in data.checks if sha256_of(path) != digest]


def parse_session(text: str, source: str = "session", base_dir: str | os.PathLike | None = None) -> SessionData:
    """SessionData from session JSON text, or SessionError naming what is wrong."""
    try:
        return _parse(text, source, Path(base_dir) if base_dir is not None else None)
    except SessionError as exc:
        raise SessionError(f"{source}: {exc}") from None


# What selection.<name> counts, for its message (marked here, translated where it is said).
PLURAL = {"layer": QT_TR_NOOP("layers"), "head": QT_TR_NOOP("heads"), "query": QT_TR_NOOP("query positions")}


def _parse(text: str, source: str, base_dir: Path | None) -> SessionData:
    if not text.strip():
        raise SessionError(tr("the file is empty"))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SessionError(tr("the file is damaged or truncated (not valid JSON: {why} at line {line}, column "
                              "{column})").format(why=exc.msg, line=exc.lineno, column=exc.colno)) from None
    except (RecursionError, ValueError) as exc:          # nesting too deep, numbers too long
        raise SessionError(tr("the file is not a session QKV Lab can read ({why})").format(
            why=type(exc).__name__)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionError(tr("this is not a QKV Lab session (no \"format\": \"qkv-lab-session\")"))
    schema = data.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise SessionError(tr("{field} = {value}: not a session schema version").format(field="schema",
                                                                                    value=json.dumps(schema)[:60]))
    if schema > SCHEMA_VERSION:
        raise SessionError(tr("it was saved by a newer QKV Lab ({saved_by}, session schema {schema}); this version "
                              "reads schema {ours}. Update QKV Lab to open it.").format(
            saved_by=data.get("saved_by", tr("unknown version")), schema=schema, ours=SCHEMA_VERSION))
    warnings: list[str] = []
    inp = _need(data, "inputs", dict, "session")
    try:
        config = Config.from_dict(_need(inp, "config", dict, "inputs"))
    except (ConfigError, TypeError) as exc:
        raise SessionError(f"inputs.config: {error_text(exc) if isinstance(exc, ConfigError) else exc}") from None
    tokens = _need(inp, "tokens", list, "inputs")
    try:
        ids = tuple(int(t) for t in config.validate_tokens(tokens))
    except ConfigError as exc:
        raise SessionError(f"inputs.{error_text(exc)}") from None
    if not ids:
        raise SessionError(tr("inputs.tokens is empty: a session needs at least one token"))
    preset = _need(inp, "preset", str, "inputs") if "preset" in inp else "custom"
    if preset not in PRESETS:
        preset = "custom"
    backend = _need(inp, "backend", str, "inputs") if "backend" in inp else "auto"
    if backend not in BACKEND_NAMES:
        raise SessionError(tr("{field} = {value}: choose one of {choices}").format(
            field="inputs.backend", value=repr(backend), choices=", ".join(BACKEND_NAMES)))
    checks: list[tuple[str, str, str]] = []
    weights, seed = _weights(inp.get("weights", {"kind": "random", "seed": 0}), 0, base_dir, warnings, checks)
    ablated = _ablated(inp.get("ablated", []), config)
    vocabulary = _vocabulary(inp["vocabulary"], base_dir, warnings) if "vocabulary" in inp else ""
    inputs = Inputs(config=config, tokens=ids, preset=preset, seed=seed, weights=weights, backend=backend,
                    ablated=ablated, vocabulary=vocabulary)

    sel = _need(data, "selection", dict, "session") if "selection" in data else {}
    colours = _need(data, "colours", dict, "session") if "colours" in data else {}
    selection: dict[str, Any] = {}
    limits = {"layer": config.n_layers, "head": config.n_heads, "query": max(len(ids), 1)}
    for name, limit in limits.items():
        if name in sel:
            value = _need(sel, name, int, "selection")
            if not 0 <= value < limit:
                raise SessionError(tr("{field} = {value}: this model has {what} 0..{last}").format(
                    field=f"selection.{name}", value=value, what=tr(PLURAL[name]), last=limit - 1))
            selection[name] = value
    if sel.get("key") is not None:
        key = _need(sel, "key", int, "selection")
        if not 0 <= key < len(ids):
            raise SessionError(tr("{field} = {value}: there are %n token(s)", "", len(ids)).format(
                field="selection.key", value=key))
        selection["key"] = key
    elif "key" in sel:
        selection["key"] = None
    if "station" in sel:
        station = _need(sel, "station", str, "selection")
        if station not in PAGES:
            raise SessionError(tr("{field} = {value}: choose one of {choices}").format(
                field="selection.station", value=repr(station), choices=", ".join(PAGES)))
        selection["station"] = station
    choices = {"theme": ("light", "dark"), "colormap": SEQUENTIAL_MAPS, "diverging": DIVERGING_MAPS}
    for name, allowed in choices.items():
        if name in colours:
            value = _need(colours, name, str, "colours")
            if value not in allowed:
                raise SessionError(tr("{field} = {value}: choose one of {choices}").format(
                    field=f"colours.{name}", value=repr(value), choices=", ".join(allowed)))
            selection[name] = value
    for name in ("lock_scales", "show_values"):
        if name in colours:
            selection[name] = _need(colours, name, bool, "colours")
    if "patching" in data:
        selection["patching"] = _patching(data["patching"], config)
    return SessionData(inputs=inputs, selection=selection, warnings=tuple(warnings), source=source,
                       checks=tuple(checks))


def load_session(path: str | os.PathLike) -> SessionData:
    """Read and check a .qkvlab file; SessionError says what is wrong. Nothing is applied.
    Only a regular file is read, and at most MAX_BYTES of it (a named pipe or /dev/zero is
    refused at once, whatever its st_size says)."""
    name = str(path)
    try:
        path = Path(path).expanduser()
        name = str(path)
        raw = safe_io.read_bytes(path, MAX_BYTES)
    except FileNotFoundError:
        error = SessionError(tr("{name}: file not found").format(name=name))
        error.not_found = True
        raise error from None
    except PermissionError:
        raise SessionError(tr("{name}: permission denied").format(name=name)) from None
    except safe_io.FileError as exc:
        if exc.errno == errno.EISDIR:
            raise SessionError(tr("{name}: is a folder, not a session file").format(name=name)) from None
        if "larger than" in exc.reason:
            raise SessionError(tr("{name}: {reason}, too large to be a session").format(name=name,
                                                                                          reason=exc.reason)) from None
        raise SessionError(tr("{name}: {reason}, not a session file").format(name=name, reason=exc.reason)) from None
    except (OSError, RuntimeError, ValueError) as exc:   # RuntimeError: "~nobody"; ValueError: a NUL
        reason = safe_io.describe(exc) if isinstance(exc, OSError) else str(exc)
        raise SessionError(tr("{name}: cannot read ({reason})").format(name=name, reason=reason)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(tr("{name}: this is not a QKV Lab session (not UTF-8 text)").format(name=name)) from None
    return parse_session(text, name, path.parent)


# -- applying ---------------------------------------------------------------------------------------------
def apply_session(state, data: SessionData, label: str, undoable: bool = True, opened: str | None = None) -> bool:
    """Make the session current: the inputs as ONE undoable edit, then the view state (not undoable).
    If LabState refuses (e.g. the memory budget), nothing changes and the message says why.

    The session is open only once its inputs are on screen: its warnings (and `opened`, a message
    such as "Opened talk.qkvlab.", shown when there are none) wait for that; if the inputs fail to
    compute, the layer, head, station and colours go back with them and those messages never show.
    Checksums of large weights files are compared off the UI thread; a difference is a warning."""
    before = state.selection
    refusals: list[str] = []
    catch = lambda level, text: refusals.append(text) if level == "error" else None  # noqa: E731
    state.message.connect(catch)
    try:
        fields = {f.name: getattr(data.inputs, f.name) for f in dataclasses.fields(data.inputs)}
        ok = state.edit(tr("Open session {name}").format(name=label), **fields)
    finally:
        state.message.disconnect(catch)
    if not ok:
        reason = refusals[-1] if refusals else tr("the inputs were refused")
        state.message.emit("error", tr("Could not open {name}: {reason}. Nothing changed.").format(name=label,
                                                                                                 reason=reason))
        return False
    if not undoable:
        state.undo_stack.clear()
    state.select(hover=None, **data.selection)
    messages = [("warning", text) for text in data.warnings]
    if opened and not messages:
        messages.append(("info", opened))
    _Opening(state, data, before, messages)
    return True


class _Opening(QObject):
    """A session applied but not yet on screen: waits for its result (then shows its messages and
    starts its checks) or its failure (then puts the view state back). One per LabState."""

    def __init__(self, state, data: SessionData, before, messages: list[tuple[str, str]]):
        super().__init__(state)
        self.state, self.data, self.before, self.messages = state, data, before, messages
        self.target = state.inputs
        previous = _OPENING.get(state)
        if previous is not None:
            previous.finish()                       # a newer session supersedes it
        _OPENING[state] = self
        result = state.result
        if result is not None and result.inputs == self.target:
            self._opened(result)
            return
        state.resultChanged.connect(self._opened)
        state.computeFailed.connect(self._failed)
        self._waiting = True

    _waiting = False

    def finish(self, checking: bool = False) -> None:
        if self._waiting:
            self._waiting = False
            self.state.resultChanged.disconnect(self._opened)
            self.state.computeFailed.disconnect(self._failed)
        if _OPENING.get(self.state) is self:
            del _OPENING[self.state]
        if not checking:
            self.deleteLater()                      # a thread still checking deletes it when done

    def _opened(self, result) -> None:
        if result.inputs != self.target:
            return                                 # an older result shown again meanwhile
        self.finish(checking=bool(self.data.checks))
        for level, text in self.messages:
            self.state.message.emit(level, text)
        if self.data.checks:
            size = sum(_size(path) for path, _, _ in self.data.checks)
            self.state.message.emit("info", tr("Checking the sha256 of the weights ({size}) in the background…").format(
                size=safe_io.fmt_size(size)))
            data = self.data
            self.background = Background(self)
            self.background.progress.connect(self._warn)
            self.background.done.connect(self._checked)
            report = self.background.report
            self.background.run(("session-check",), lambda: [report(("check",), text) for text in run_checks(data)],
                                tracked=False)              # as the hashing: the app need not wait at exit

    def _failed(self, _text: str) -> None:
        self.finish()
        fields = [name for name in self.data.selection if hasattr(self.before, name)]
        self.state.select(hover=None, **{name: getattr(self.before, name) for name in fields})

    def _warn(self, _tag, text: str) -> None:
        self._say("warning", text)

    def _checked(self, _tag, _value, error) -> None:
        if error is not None:
            self._say("warning", f"{type(error).__name__}: {error}")
        self.deleteLater()                          # the checks are done: nothing waits for it now

    def _say(self, level: str, text: str) -> None:
        if self.state.inputs.weights == self.target.weights:    # still the weights it is about
            self.state.message.emit(level, text)


_OPENING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _size(path: str) -> int:
    try:
        p = Path(path)
        return sum(c.stat().st_size for c in p.iterdir() if c.is_file()) if p.is_dir() else p.stat().st_size
    except OSError:
        return 0


def _patching(value: Any, config):
    """patching: {"clean": [ids], "corrupted": [ids], "answer": id | null, "wrong": id | null}, for this model."""
    if not isinstance(value, dict):
        raise SessionError(tr("patching must be an object such as {example}").format(
            example='{"clean": [1, 2], "corrupted": [1, 3], "answer": null, "wrong": null}'))
    prompts = [_need(value, name, list, "patching") for name in ("clean", "corrupted")]
    tokens = []
    for name in ("answer", "wrong"):
        if value.get(name) is None:
            tokens.append(None)
        else:
            tokens.append(_need(value, name, int, "patching"))
    try:
        return PatchSetup(tuple(prompts[0]), tuple(prompts[1]), *tokens).check(config)
    except (InterventionError, ConfigError) as exc:
        raise SessionError(f"patching: {error_text(exc) or exc}") from None


def _ablated(value: Any, config) -> tuple[tuple[int, int], ...]:
    """inputs.ablated: the knocked-out heads as [[layer, head], ...], each inside the model."""
    if not isinstance(value, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in p)
            for p in value):
        raise SessionError(tr("inputs.ablated must be a list of [layer, head] pairs"))
    for la, h in value:
        if not (0 <= la < config.n_layers and 0 <= h < config.n_heads):
            raise SessionError(tr("inputs.ablated: there is no head {head} in layer {layer}").format(head=h, layer=la))
    return tuple(sorted({(la, h) for la, h in value}))
