"""A Hugging Face hub on the loopback interface, serving tiny repos from folders: the endpoints a
download uses (a revision's commit, the file tree, HEAD and GET of a file), answered as the real hub
does, or — when a test sets one of the knobs below — the way a hostile or broken mirror would.
Tests of Model ▸ Download… point `endpoint` (or HF_ENDPOINT) at it; nothing here reaches the real hub."""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

SHA = "0123456789abcdef0123456789abcdef01234567"


def git_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class HubServer:
    """`repos`: repo id -> folder. `delay` (s) between chunks of a GET slows a download down so a
    test can cancel it; `requested` lists the files whose bodies were asked for.

    Misbehaviour, set as attributes before a fetch:
    `sha` the commit the hub names; `headers` extra headers on every file answer (ETag, X-Repo-Commit,
    X-Linked-Size ...); `extra_entries` more entries in the listing; `sizes` name -> the size the listing
    claims; `pages_forever` a listing whose every page links a next one; `status` the HTTP code of every
    answer; `stall` kinds of request ("info", "tree", "head", "file") never answered; `endless` names
    whose body never ends; `trickle` names sent a byte at a time; `redirect` name -> Location;
    `bodies` name -> the bytes sent in place of the file's."""

    def __init__(self, repos: dict[str, Path], delay: float = 0.0, chunk: int = 1 << 14):
        self.repos = {k: Path(v) for k, v in repos.items()}
        self.delay, self.chunk = delay, chunk
        self.requested: list[str] = []
        self.ranges: list[tuple[str, int]] = []      # (file, first byte) of every resumed GET
        self.seen: list[str] = []                   # every request, "METHOD path"
        self.aborted = threading.Event()            # a GET whose client went away (a cancelled download)
        self.release = threading.Event()            # set on exit: stalled and endless answers end
        self.sha = SHA
        self.headers: dict[str, str] = {}
        self.extra_entries: list = []
        self.sizes: dict[str, int] = {}
        self.pages_forever = False
        self.status: int | None = None
        self.stall: set[str] = set()
        self.endless: set[str] = set()
        self.trickle: set[str] = set()
        self.redirect: dict[str, str] = {}
        self.bodies: dict[str, bytes] = {}
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):           # quiet
                pass

            def do_HEAD(self):                      # noqa: N802 - http.server's name
                hub.seen.append(f"HEAD {self.path}")
                hub._file(self, body=False)

            def do_GET(self):                       # noqa: N802
                hub.seen.append(f"GET {self.path}")
                path = unquote(urlparse(self.path).path)
                try:
                    if path.startswith("/api/models/"):
                        hub._api(self, path[len("/api/models/"):])
                    else:
                        hub._file(self, body=True)
                except (BrokenPipeError, ConnectionResetError):
                    hub.aborted.set()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    # -- answers ----------------------------------------------------------------------------------------
    def _split(self, rest: str) -> tuple[str | None, str]:
        for repo in sorted(self.repos, key=len, reverse=True):
            if rest == repo or rest.startswith(repo + "/"):
                return repo, rest[len(repo):].lstrip("/")
        return None, rest

    def _send(self, handler, code: int, body: bytes = b"", headers: dict | None = None, send_body: bool = True):
        handler.send_response(code)
        for k, v in {"Content-Length": str(len(body)), **(headers or {})}.items():
            handler.send_header(k, v)
        handler.end_headers()
        if send_body and body:
            handler.wfile.write(body)

    def _stalled(self, handler, kind: str) -> bool:
        if kind in self.stall:
            self.release.wait(30)                   # never answered (until the test ends)
            handler.close_connection = True
            return True
        return False

    def _files(self, repo: str) -> list[Path]:
        folder = self.repos[repo]
        return sorted(p for p in folder.rglob("*") if p.is_file())

    def _entry(self, folder: Path, p: Path) -> dict:
        data = p.read_bytes()
        name = str(p.relative_to(folder))
        entry = {"type": "file", "path": name, "size": self.sizes.get(name, len(data)), "oid": git_oid(data)}
        if p.suffix == ".safetensors":
            entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": self.sizes.get(name, len(data)),
                            "pointerSize": 134}
        return entry

    def _api(self, handler, rest: str) -> None:
        kind = "tree" if re.match(r".+?/tree/", rest) else "info"
        if self._stalled(handler, kind):
            return
        if self.status is not None:
            self._send(handler, self.status, b'{"error": "Internal Error"}', {"Content-Type": "application/json"})
            return
        repo, tail = self._split(rest)
        if repo is None:
            self._send(handler, 404, b'{"error": "Repository not found"}',
                       {"Content-Type": "application/json", "X-Error-Code": "RepoNotFound"})
            return
        folder = self.repos[repo]
        headers = {"Content-Type": "application/json"}
        if tail.startswith("tree/"):
            entries = [self._entry(folder, p) for p in self._files(repo)] + list(self.extra_entries)
            page = int(parse_qs(urlparse(handler.path).query).get("cursor", ["0"])[0])
            if self.pages_forever:
                entries = entries if page == 0 else [{"type": "directory", "path": f"d{page}", "oid": "0" * 40}]
                headers["Link"] = f'<{self.endpoint}/api/models/{repo}/tree/{self.sha}?cursor={page + 1}>; rel="next"'
            body = json.dumps(entries).encode()
        else:                                       # a revision's commit ("revision/<rev>")
            body = json.dumps({"id": repo, "modelId": repo, "sha": self.sha, "private": False,
                               "siblings": [{"rfilename": str(p.relative_to(folder))}
                                            for p in self._files(repo)]}).encode()
        self._send(handler, 200, body, headers)

    def _file(self, handler, body: bool) -> None:
        if self._stalled(handler, "file" if body else "head"):
            return
        if self.status is not None:
            self._send(handler, self.status, b"", send_body=body)
            return
        path = unquote(urlparse(handler.path).path).lstrip("/")
        m = re.match(r"(.+?)/resolve/([^/]+)/(.+)", path)
        repo = m and self._split(m.group(1) + "/")[0]
        target = self.repos[repo] / m.group(3) if repo else None
        if target is None or not target.is_file():
            self._send(handler, 404, b"", {"X-Error-Code": "EntryNotFound"}, send_body=body)
            return
        name = m.group(3)
        if name in self.redirect:
            self._send(handler, 302, b"", {"Location": self.redirect[name]}, send_body=body)
            return
        data = self.bodies.get(name, target.read_bytes())
        headers = {"X-Repo-Commit": self.sha, "ETag": f'"{hashlib.sha1(data).hexdigest()}"',
                   "Content-Type": "application/octet-stream", **self.headers}
        if not body:
            self._send(handler, 200, data, headers, send_body=False)
            return
        self.requested.append(name)
        if name in self.endless:                    # chunked, and the chunks never stop
            handler.send_response(200)
            for k, v in {**headers, "Transfer-Encoding": "chunked"}.items():
                handler.send_header(k, v)
            handler.end_headers()
            block = bytes(1 << 16)
            while not self.release.is_set():
                handler.wfile.write(b"%x\r\n" % len(block) + block + b"\r\n")
            return
        start = 0
        wanted = re.fullmatch(r"bytes=(\d+)-", handler.headers.get("Range", ""))
        if wanted and int(wanted.group(1)) < len(data):        # a resumed download: the rest only
            start = int(wanted.group(1))
            self.ranges.append((name, start))
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        handler.send_response(206 if start else 200)
        for k, v in {"Content-Length": str(len(data) - start), **headers}.items():
            handler.send_header(k, v)
        handler.end_headers()
        data = data[start:]
        try:
            step = 1 if name in self.trickle else self.chunk
            for i in range(0, len(data), step):
                handler.wfile.write(data[i:i + step])
                handler.wfile.flush()
                if name in self.trickle:
                    if self.release.wait(0.2):
                        return
                elif self.delay:
                    time.sleep(self.delay)
        except (BrokenPipeError, ConnectionResetError):
            self.aborted.set()
