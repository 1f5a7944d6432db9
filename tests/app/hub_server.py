"""A Hugging Face hub on the loopback interface, serving tiny repos from folders: the few endpoints
huggingface_hub's snapshot_download uses (repo info, the file tree, HEAD and GET of a file). Tests
of Model ▸ Download… point `endpoint` at it; nothing here reaches the real hub."""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

SHA = "0123456789abcdef0123456789abcdef01234567"


class HubServer:
    """`repos`: repo id -> folder. `delay` (s) between chunks of a GET slows a download down so a
    test can cancel it; `requested` lists the files whose bodies were asked for."""

    def __init__(self, repos: dict[str, Path], delay: float = 0.0, chunk: int = 1 << 14):
        self.repos = {k: Path(v) for k, v in repos.items()}
        self.delay, self.chunk = delay, chunk
        self.requested: list[str] = []
        self.aborted = threading.Event()            # a GET whose client went away (a cancelled download)
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):           # quiet
                pass

            def do_HEAD(self):                      # noqa: N802 - http.server's name
                hub._file(self, body=False)

            def do_GET(self):                       # noqa: N802
                path = unquote(urlparse(self.path).path)
                if path.startswith("/api/models/"):
                    hub._api(self, path[len("/api/models/"):])
                else:
                    hub._file(self, body=True)

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
        self.server.shutdown()
        self.server.server_close()

    # -- answers ----------------------------------------------------------------------------------------
    def _split(self, rest: str) -> tuple[str | None, str]:
        for repo in sorted(self.repos, key=len, reverse=True):
            if rest == repo or rest.startswith(repo + "/"):
                return repo, rest[len(repo):].lstrip("/")
        return None, rest

    @staticmethod
    def _send(handler, code: int, body: bytes = b"", headers: dict | None = None, send_body: bool = True):
        handler.send_response(code)
        for k, v in {"Content-Length": str(len(body)), **(headers or {})}.items():
            handler.send_header(k, v)
        handler.end_headers()
        if send_body and body:
            handler.wfile.write(body)

    def _files(self, repo: str) -> list[Path]:
        folder = self.repos[repo]
        return sorted(p for p in folder.rglob("*") if p.is_file())

    def _api(self, handler, rest: str) -> None:
        repo, tail = self._split(rest)
        if repo is None:
            self._send(handler, 404, b'{"error": "Repository not found"}',
                       {"Content-Type": "application/json", "X-Error-Code": "RepoNotFound"})
            return
        folder = self.repos[repo]
        if tail.startswith("tree/"):
            entries = [{"type": "file", "path": str(p.relative_to(folder)), "size": p.stat().st_size,
                        "oid": hashlib.sha1(p.read_bytes()).hexdigest()} for p in self._files(repo)]
            body = json.dumps(entries).encode()
        else:                                       # repo info ("" or "revision/<rev>")
            body = json.dumps({"id": repo, "modelId": repo, "sha": SHA, "private": False,
                               "siblings": [{"rfilename": str(p.relative_to(folder))}
                                            for p in self._files(repo)]}).encode()
        self._send(handler, 200, body, {"Content-Type": "application/json"})

    def _file(self, handler, body: bool) -> None:
        path = unquote(urlparse(handler.path).path).lstrip("/")
        m = re.match(r"(.+?)/resolve/([^/]+)/(.+)", path)
        repo = m and self._split(m.group(1) + "/")[0]
        target = self.repos[repo] / m.group(3) if repo else None
        if target is None or not target.is_file():
            self._send(handler, 404, b"", {"X-Error-Code": "EntryNotFound"}, send_body=body)
            return
        data = target.read_bytes()
        headers = {"X-Repo-Commit": SHA, "ETag": f'"{hashlib.sha1(data).hexdigest()}"',
                   "Content-Type": "application/octet-stream"}
        if not body:
            self._send(handler, 200, data, headers, send_body=False)
            return
        self.requested.append(m.group(3))
        handler.send_response(200)
        for k, v in {"Content-Length": str(len(data)), **headers}.items():
            handler.send_header(k, v)
        handler.end_headers()
        try:
            for i in range(0, len(data), self.chunk):
                handler.wfile.write(data[i:i + self.chunk])
                handler.wfile.flush()
                if self.delay:
                    time.sleep(self.delay)
        except (BrokenPipeError, ConnectionResetError):
            self.aborted.set()
