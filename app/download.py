"""Fetch a model from the Hugging Face hub on request (Model ▸ Download…), Qt-free.

    folder = fetch("HuggingFaceTB/SmolLM2-135M", report=lambda stage, fraction: ...)
    compute.load_checkpoint(folder)

Only the files the lab reads are fetched — safetensors weights (and their shard index), config.json
and the tokenizer files of the repo's top level; never a pickle — into the hub's standard cache
layout (~/.cache/huggingface/hub, or HF_HUB_CACHE, HF_HOME): `models--<org>--<name>/snapshots/<commit>/`,
with `refs/<revision>` written last, so a second fetch of the same repo finds it without the network.

The server never chooses a path (docs/security.md). The lab makes the four kinds of request itself
(httpx2): the repo's commit (`/api/models/<repo>/revision/<rev>`), its top-level file listing
(`/api/models/<repo>/tree/<commit>`, paged), and a GET of each file. Every name that comes back is
checked before it is used: the commit is 40 hex digits, a file name is one of the repo's own
relative names (no `..`, no absolute path, no backslash; names in subfolders are not needed and are
skipped), a size is an integer within the file's own limit and the lab's memory budget. Headers
(ETag, X-Repo-Commit, X-Linked-Size) are never used for anything. A body goes to a temporary file in
the repo's folder of the cache, is counted (never more than the listing's size) and hashed (the
listing's sha256 or git blob id), and only a complete, matching file is moved into the snapshot.

The requests run on a worker thread (app/background.py `spawn`); the calling thread wakes every
0.1 s to call `report(stage, fraction)`, which may raise compute.progress.Cancelled: Cancel acts
within that time whatever the server does (a trickling body, a request that is never answered), and
so does the overall deadline. An abandoned worker stops at its next chunk or its read timeout; what it had is kept in
`.incomplete/<hash>.part`, and a later fetch resumes from it (a Range request, the hash taken over
the whole file); a file the hub sent wrong is not kept.
"""
from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from compute import memory
from compute.progress import Cancelled
from widgets.i18n import QT_TR_NOOP, message, num, tr

from .background import spawn

# The repos the menu offers: id -> what it is (the download size is the safetensors file's).
REPOS: dict[str, str] = {
    "gpt2": QT_TR_NOOP("GPT-2 small: 124 M parameters, 12 layers (548 MB)"),
    "HuggingFaceTB/SmolLM2-135M": QT_TR_NOOP("SmolLM2-135M: 30 layers, RMSNorm, RoPE, GQA, SwiGLU (269 MB)"),
    "HuggingFaceTB/SmolLM2-135M-Instruct": QT_TR_NOOP("SmolLM2-135M-Instruct: the chat-tuned 135M (269 MB)"),
    "HuggingFaceTB/SmolLM2-360M": QT_TR_NOOP("SmolLM2-360M: 32 layers, 15 heads sharing 5 K/V heads (724 MB)"),
}
# What a folder needs for compute.load_checkpoint, and nothing else.
ALLOW_PATTERNS = ["*.safetensors", "model.safetensors.index.json", "config.json", "generation_config.json",
                  "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt"]
ENDPOINT = "https://huggingface.co"

DEADLINE_S = 3600.0              # a whole fetch, every file included
CONNECT_S = 10.0                 # to open a connection
STALL_S = 30.0                   # a connection that sends nothing for this long has failed
TICK_S = 0.1                     # how often the calling thread reports, and so how soon Cancel acts
STOP_WAIT_S = 0.3                # after Cancel, how long to wait for the worker to stop (a stalled one is left)
MAX_JSON = 16 << 20              # one answer of the API (a repo's commit, a page of its listing)
MAX_PAGES = 20                   # of a listing (the hub pages 1,000 entries at a time; the top level only)
MAX_ENTRIES = 20_000             # in a listing
MAX_TEXT_FILE = 256 << 20        # config, tokenizer and index files, each
CHUNK = 1 << 16

_REPO_PART = re.compile(r"[A-Za-z0-9_.-]{1,96}")
_REVISION = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


class DownloadError(Exception):
    """A fetch that did not happen; the message says why (offline, no such repo, a hostile answer, ...)."""


def check_repo_id(repo: object) -> str:
    """`org/name` or `name` as the hub spells them (ASCII letters, digits, `_.-`; no `..` or `--`)."""
    parts = repo.split("/") if isinstance(repo, str) else []
    if (not 1 <= len(parts) <= 2 or not all(_REPO_PART.fullmatch(p) for p in parts)
            or ".." in repo or "--" in repo or any(p[0] in ".-" or p[-1] in ".-" for p in parts)):
        raise DownloadError(tr("{repo}: not a repo id of the hub (organisation/name, with letters, digits, "
                               "'_', '.' and '-')").format(repo=_shown(repo)))
    return repo


def check_revision(revision: object) -> str:
    if not (isinstance(revision, str) and _REVISION.fullmatch(revision) and ".." not in revision):
        raise DownloadError(tr("{revision}: not a revision name (a branch, tag or commit id)").format(
            revision=_shown(revision)))
    return revision


def file_name(name: object) -> str | None:
    """A name from the hub's listing: the name itself if it is a file of the repo's top level,
    None for a file in a subfolder (the lab does not need those); DownloadError for a name that
    leaves the repo (`..`, an absolute path, a backslash, a drive, a control character)."""
    ok = (isinstance(name, str) and 0 < len(name.encode("utf-8", "surrogatepass")) <= 1024
          and not name.startswith("/") and "\\" not in name and ":" not in name
          and not any(ord(c) < 32 or ord(c) == 127 for c in name)
          and all(part not in ("", ".", "..") for part in name.split("/")))
    if not ok:
        raise DownloadError(tr("the hub listed a file name outside the repo: {name}. Nothing was "
                               "downloaded").format(name=_shown(name)))
    if "/" in name or len(name.encode("utf-8", "surrogatepass")) > 255:
        return None
    return name


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "…"


def default_cache() -> Path:
    """The hub's cache folder, as huggingface_hub finds it (HF_HUB_CACHE, HF_HOME/hub, ~/.cache)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return Path(home).expanduser() / "hub"


def _offline_env() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _inside(path: Path, root: Path) -> Path:
    """`path`, checked to stay inside `root` once links are resolved (a planted link in the cache)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    if os.path.commonpath([real, top]) != top:
        raise DownloadError(tr("{path} leads outside the download cache {cache}: nothing written there").format(
            path=path, cache=root))
    return path


_ACTIVE: set[Path] = set()        # .part files a worker of this process writes now
_ACTIVE_LOCK = threading.Lock()


class _Hostile(DownloadError):
    """An answer that is not what the hub sends (too large, wrong size or hash, a bad name)."""


class _Reach(DownloadError):
    """The hub could not be reached (`offline` names the failure) or did not work (HTTP 5xx): the
    cache may help."""

    def __init__(self, text: str, offline: str | None = None):
        super().__init__(text)
        self.offline = offline


class _Fetch:
    """The requests of one fetch, on a worker thread; the caller reads stage and fraction and
    sets `stop` to end it (at the next chunk, or when a read times out)."""

    def __init__(self, repo: str, revision: str, endpoint: str, cache: Path, stall: float):
        self.repo, self.revision, self.endpoint, self.cache = repo, revision, endpoint.rstrip("/"), cache
        self.stall = stall
        self.repo_dir = cache / ("models--" + repo.replace("/", "--"))
        self.stop = threading.Event()
        self.finished = threading.Event()
        self.folder: Path | None = None
        self.error: BaseException | None = None
        self.total = 0
        self.done = 0
        self.downloading = False
        self.sha: str | None = None

    # -- the caller's view -----------------------------------------------------------------------------
    def stage(self) -> str:
        if not self.downloading:
            return tr("asking the hub for {repo}").format(repo=self.repo)
        return tr("downloading {repo} ({mb} MB)").format(repo=self.repo, mb=num(self.done / 1e6, ",.1f"))

    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0

    # -- the worker ------------------------------------------------------------------------------------
    def run(self) -> None:
        try:
            self.folder = self._run()
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            self.error = exc
        finally:
            self.finished.set()

    def _client(self):
        import httpx2

        return httpx2.Client(timeout=httpx2.Timeout(self.stall, connect=min(CONNECT_S, self.stall)),
                             follow_redirects=True, max_redirects=5, trust_env=True,
                             headers={"User-Agent": "qkv-lab", "Accept-Encoding": "identity"})

    def _run(self) -> Path:
        import httpx2

        try:
            with self._client() as client:
                sha = self.sha = self._commit(client)
                entries = self._listing(client, sha)
                return self._download(client, sha, entries)
        except httpx2.TooManyRedirects:
            raise _Hostile(tr("{repo}: the hub redirected more than 5 times").format(repo=self.repo)) from None
        except httpx2.UnsupportedProtocol as exc:
            raise _Hostile(tr("{repo}: the hub redirected to an address that is not http or https ({why})").format(
                repo=self.repo, why=exc)) from None
        except (httpx2.TimeoutException, httpx2.NetworkError, httpx2.RemoteProtocolError, httpx2.ProxyError) as exc:
            raise _Reach(tr("{where} cannot be reached ({why})").format(where=self.endpoint, why=type(exc).__name__),
                         offline=type(exc).__name__) from None
        except httpx2.HTTPError as exc:
            raise _Hostile(tr("{repo}: the hub's answer could not be read ({why}: {detail})").format(
                repo=self.repo, why=type(exc).__name__, detail=exc)) from None
        except OSError as exc:
            raise DownloadError(tr("{repo}: cannot write to the download cache {cache}: {why}").format(
                repo=self.repo, cache=self.cache, why=exc.strerror or exc)) from None

    def _check_status(self, response, what: str) -> None:
        code = response.status_code
        if code == 200:
            return
        if code in (401, 403, 404) and what == "info":
            error = response.headers.get("X-Error-Code", "")
            if error == "RevisionNotFound":
                raise DownloadError(tr("{repo}: no revision {revision} on the hub").format(
                    repo=self.repo, revision=repr(self.revision)))
            raise DownloadError(tr("{repo}: no such model on the hub (or it is private)").format(repo=self.repo))
        if code >= 500:
            raise _Reach(tr("the hub at {where} answered HTTP {code} (a server error, not this machine's "
                            "connection): try again later").format(where=self.endpoint, code=code))
        raise _Hostile(tr("{repo}: the hub answered HTTP {code} for {what}").format(
            repo=self.repo, code=code, what=what))

    def _json(self, client, url: str, what: str):
        with client.stream("GET", url) as response:
            self._check_status(response, what)
            body = bytearray()
            for chunk in response.iter_bytes(CHUNK):
                if self.stop.is_set():
                    raise Cancelled()
                body += chunk
                if len(body) > MAX_JSON:
                    raise _Hostile(tr("{repo}: the hub's answer for {what} is over {limit}").format(
                        repo=self.repo, what=what, limit=message(memory.bytes_message(MAX_JSON))))
            links = response.links
        try:
            return json.loads(bytes(body)), links
        except (ValueError, RecursionError):
            raise _Hostile(tr("{repo}: the hub's answer for {what} is not JSON").format(
                repo=self.repo, what=what)) from None

    def _commit(self, client) -> str:
        url = f"{self.endpoint}/api/models/{self.repo}/revision/{quote(self.revision, safe='')}"
        info, _ = self._json(client, url, "info")
        sha = info.get("sha") if isinstance(info, dict) else None
        if not (isinstance(sha, str) and _COMMIT.fullmatch(sha)):
            raise _Hostile(tr("{repo}: the hub gave {sha} as the commit, not a commit id (40 hex digits)").format(
                repo=self.repo, sha=_shown(sha)))
        return sha

    def _listing(self, client, sha: str) -> dict[str, tuple[int, str, str]]:
        """The wanted files of the top level: name -> (size, hash kind, hex digest)."""
        url: str | None = f"{self.endpoint}/api/models/{self.repo}/tree/{sha}"
        entries: dict[str, tuple[int, str, str]] = {}
        pages = seen = 0
        while url is not None:
            pages += 1
            if pages > MAX_PAGES:
                raise _Hostile(tr("{repo}: the hub's file listing goes on for more than {n} pages").format(
                    repo=self.repo, n=MAX_PAGES))
            page, links = self._json(client, url, "tree")
            if not isinstance(page, list):
                raise _Hostile(tr("{repo}: the hub's file listing is not a list").format(repo=self.repo))
            for entry in page:
                seen += 1
                if seen > MAX_ENTRIES:
                    raise _Hostile(tr("{repo}: the hub lists more than {n} files").format(
                        repo=self.repo, n=MAX_ENTRIES))
                if not isinstance(entry, dict) or entry.get("type") != "file":
                    continue
                name = file_name(entry.get("path"))
                if name is None or not any(fnmatch.fnmatchcase(name, p) for p in ALLOW_PATTERNS):
                    continue
                entries[name] = self._entry(name, entry)
            url = (links.get("next") or {}).get("url")
            if url is not None and not url.startswith(self.endpoint + "/api/"):
                raise _Hostile(tr("{repo}: the hub's listing continues at another address: {url}").format(
                    repo=self.repo, url=_shown(url)))
        return entries

    def _entry(self, name: str, entry: dict) -> tuple[int, str, str]:
        lfs = entry.get("lfs")
        size, kind, digest = ((lfs.get("size"), "sha256", lfs.get("oid")) if isinstance(lfs, dict)
                              else (entry.get("size"), "git", entry.get("oid")))
        if type(size) is not int or size < 0:
            raise _Hostile(tr("{repo}: the hub gave {size} as the size of {name}").format(
                repo=self.repo, size=_shown(size), name=name))
        pattern = _HEX64 if kind == "sha256" else _COMMIT
        if not (isinstance(digest, str) and pattern.fullmatch(digest)):
            raise _Hostile(tr("{repo}: the hub gave {digest} as the hash of {name}").format(
                repo=self.repo, digest=_shown(digest), name=name))
        limit = memory.budget_bytes() if name.endswith(".safetensors") else MAX_TEXT_FILE
        if size > limit:
            raise DownloadError(tr("{repo}: {name} is {size} on the hub, more than the {limit} the lab opens").format(
                repo=self.repo, name=name, size=message(memory.bytes_message(size)),
                limit=message(memory.bytes_message(limit))))
        return size, kind, digest

    def _download(self, client, sha: str, entries: dict[str, tuple[int, str, str]]) -> Path:
        weights = sum(size for name, (size, _, _) in entries.items() if name.endswith(".safetensors"))
        if not any(name.endswith(".safetensors") for name in entries):
            raise DownloadError(tr("{repo} has no .safetensors weights (only formats the lab does not "
                                   "open)").format(repo=self.repo))
        budget = memory.budget_bytes()
        if weights > budget:
            raise DownloadError(tr("{repo}: its weights are {size}, more than this machine's memory budget {budget} "
                                   "({source})").format(repo=self.repo, size=message(memory.bytes_message(weights)),
                                                        budget=message(memory.bytes_message(budget)),
                                                        source=message(memory.budget_message())))
        snapshot = self.repo_dir / "snapshots" / sha
        todo = {}
        for name, entry in entries.items():
            target = _inside(snapshot / name, self.cache)
            if not (target.is_file() and target.stat().st_size == entry[0]):
                todo[name] = entry
        self.total = sum(size for size, _, _ in todo.values())
        self.downloading = True
        if todo:
            self.cache.mkdir(parents=True, exist_ok=True)
            temp = _inside(self.repo_dir / ".incomplete", self.cache)
            temp.mkdir(parents=True, exist_ok=True)
            _inside(snapshot, self.cache).mkdir(parents=True, exist_ok=True)
        for name, entry in todo.items():
            self._file(client, sha, name, entry, temp, snapshot)
        self._write_ref(sha)
        return snapshot

    def _file(self, client, sha: str, name: str, entry: tuple[int, str, str], temp: Path, snapshot: Path) -> None:
        """One file: into `.incomplete/<its hash>.part` (a name made of validated hex), resumed from
        what an earlier, cancelled fetch left there; counted, hashed, then moved into the snapshot."""
        size, kind, digest = entry
        url = f"{self.endpoint}/{self.repo}/resolve/{sha}/{quote(name)}"
        part = _inside(temp / f"{digest}.part", self.cache)
        with _ACTIVE_LOCK:
            if part in _ACTIVE:                               # an abandoned fetch still writes it: start apart
                fd, other = tempfile.mkstemp(prefix="qkv-", suffix=".part", dir=temp)
                os.close(fd)
                part = Path(other)
            _ACTIVE.add(part)
        keep = part.name == f"{digest}.part"                 # a cancelled or broken-off download resumes later
        try:
            fd = os.open(part, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
            with os.fdopen(fd, "r+b") as out:
                have = self._resume(out, size)
                h = hashlib.sha256() if kind == "sha256" else hashlib.sha1(b"blob %d\0" % size)
                if have:
                    out.seek(0)
                    for block in iter(lambda: out.read(1 << 20), b""):
                        if self.stop.is_set():
                            raise Cancelled()
                        h.update(block)
                headers = {"Range": f"bytes={have}-"} if have else {}
                with client.stream("GET", url, headers=headers) as response:
                    if have and response.status_code == 206 and \
                            response.headers.get("Content-Range", "").startswith(f"bytes {have}-"):
                        out.seek(have)
                    else:
                        self._check_status(response, name)
                        have = 0                              # the whole file again
                        h = hashlib.sha256() if kind == "sha256" else hashlib.sha1(b"blob %d\0" % size)
                        out.seek(0)
                        out.truncate()
                    got = have
                    self.done += have
                    for chunk in response.iter_bytes(CHUNK):
                        if self.stop.is_set():
                            raise Cancelled()
                        got += len(chunk)
                        if got > size:
                            raise _Hostile(tr("{repo}: the hub sent more than the {size} bytes its listing gives "
                                              "for {name}").format(repo=self.repo, size=size, name=name))
                        h.update(chunk)
                        out.write(chunk)
                        self.done += len(chunk)
                    if got != size:
                        raise _Hostile(tr("{repo}: the hub sent {got} of the {size} bytes of {name}").format(
                            repo=self.repo, got=got, size=size, name=name))
                out.flush()
                os.fsync(out.fileno())
            if h.hexdigest() != digest:
                raise _Hostile(tr("{repo}: {name} does not match the hash in the hub's listing").format(
                    repo=self.repo, name=name))
            if self.stop.is_set():
                raise Cancelled()
            os.replace(part, _inside(snapshot / name, self.cache))
        except _Hostile:
            keep = False                                      # what the server sent is not kept
            raise
        finally:
            with _ACTIVE_LOCK:
                _ACTIVE.discard(part)
            if not keep:
                with contextlib.suppress(OSError):
                    os.unlink(part)

    @staticmethod
    def _resume(out, size: int) -> int:
        """Bytes already there from an earlier fetch (none if there are more than the file has)."""
        have = os.fstat(out.fileno()).st_size
        if have >= size:
            out.truncate(0)
            return 0
        return have

    def _write_ref(self, sha: str) -> None:
        if _COMMIT.fullmatch(self.revision):
            return
        refs = _inside(self.repo_dir / "refs", self.cache)
        refs.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix="qkv-", dir=refs)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(sha)
        os.replace(part, _inside(refs / self.revision, self.cache))

    def cached(self) -> Path | None:
        """The snapshot a fetch of this repo and revision left in the cache, if any (offline)."""
        try:
            sha = self.revision
            if not _COMMIT.fullmatch(sha):
                ref = self.repo_dir / "refs" / self.revision
                if not ref.is_file() or ref.stat().st_size > 64:
                    return None
                sha = ref.read_text(encoding="ascii", errors="replace").strip()
            if not _COMMIT.fullmatch(sha):
                return None
            snapshot = _inside(self.repo_dir / "snapshots" / sha, self.cache)
            return snapshot if any(snapshot.glob("*.safetensors")) else None
        except (OSError, DownloadError):
            return None


def fetch(repo: str, report: Callable[[str, float], None] | None = None, *, endpoint: str | None = None,
          cache_dir: str | Path | None = None, revision: str | None = None, deadline: float = DEADLINE_S,
          stall: float = STALL_S) -> Path:
    """The local folder of `repo` (its safetensors, config and tokenizer files), fetched into the
    hub's cache if they are not there yet. `endpoint` defaults to HF_ENDPOINT or the real hub.
    Raises DownloadError (past `deadline` s too), or Cancelled from `report`."""
    check_repo_id(repo)
    revision = check_revision("main" if revision is None else revision)
    endpoint = (endpoint or os.environ.get("HF_ENDPOINT") or ENDPOINT).rstrip("/")
    if not endpoint.startswith(("http://", "https://")):
        raise DownloadError(tr("{where}: the hub's address must start with http:// or https://").format(
            where=_shown(endpoint)))
    cache = Path(cache_dir).expanduser() if cache_dir is not None else default_cache()
    job = _Fetch(repo, revision, endpoint, cache, stall)
    if report is not None:
        report(job.stage(), 0.0)
    if _offline_env():
        folder = job.cached()
        if folder is None:
            raise DownloadError(_offline_text(endpoint, repo, "HF_HUB_OFFLINE"))
        return folder
    spawn(job.run, "download", tracked=False)       # its caller (a Background job) is the one the app waits for
    end = time.monotonic() + deadline
    try:
        while not job.finished.wait(TICK_S):
            if report is not None:
                report(job.stage(), job.fraction())          # Cancel: raises here, within TICK_S
            if time.monotonic() > end:
                raise DownloadError(tr("{repo}: the download took longer than {s} s and was stopped").format(
                    repo=repo, s=num(deadline, "g")))
    except BaseException:
        job.stop.set()                                       # the worker ends at its next chunk or timeout;
        job.finished.wait(STOP_WAIT_S)                       # one that does so at once leaves its .part free
        raise
    if isinstance(job.error, _Reach):
        folder = job.cached() if job.sha is None else None      # the hub failed before it named a commit
        if folder is not None:
            return folder
        if job.error.offline is None:
            raise DownloadError(f"{repo}: {job.error}") from None
        raise DownloadError(_offline_text(endpoint, repo, job.error.offline)) from None
    if isinstance(job.error, (DownloadError, Cancelled)):
        raise job.error
    if job.error is not None:                                # anything else an answer made happen: in words
        raise DownloadError(tr("{repo}: the hub's answer could not be read ({why}: {detail})").format(
            repo=repo, why=type(job.error).__name__, detail=job.error)) from None
    if report is not None:
        report(job.stage(), 1.0)
    assert job.folder is not None
    return job.folder


def _offline_text(endpoint: str, repo: str, why: str) -> str:
    return tr("offline: {where} cannot be reached and {repo} is not in the download cache ({why}). Connect to the "
              "internet and try again, or open a folder or GGUF file you have (Model ▸ Open model folder or GGUF "
              "file…)").format(where=endpoint, repo=repo, why=why)
