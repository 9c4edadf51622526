"""A local Hugging Face Hub stand-in for the release/download tests (threaded http.server on 127.0.0.1:0).

It implements what huggingface_hub (2.x) sends for ``create_repo``, ``upload_folder`` (regular,
non-LFS files only), ``list_repo_tree``, ``update_repo_settings`` and ``snapshot_download``:

- ``POST /api/repos/create``                              -> ``{"url", "name"}``; 409 if it exists
- ``POST /api/datasets/{repo}/preupload/{rev}``           -> uploadMode "regular" for every file
- ``POST /api/datasets/{repo}/commit/{rev}``              -> NDJSON header/file(base64)/deletedFile lines
- ``PUT  /api/datasets/{repo}/settings``                  -> gated / visibility
- ``POST /api/validate-yaml``                             -> checks the dataset card's front matter
- ``GET  /api/datasets/{repo}[/revision/{rev}]``          -> ``{"id", "sha", "siblings", ...}``
- ``GET  /api/datasets/{repo}/tree/{rev}[/{path}]``       -> files (size, git oid) and directories
- ``HEAD|GET /datasets/{repo}/resolve/{rev}/{path}``      -> ``X-Repo-Commit``, ``ETag``, ``Content-Length``

Tokens are ``Authorization: Bearer <token>``; ``write_tokens`` may create and commit, and every
token in a repository's ``access`` set may read it. A gated repository answers file downloads from
other callers with 401 (no token) or 403 (a token without access) and ``X-Error-Code: GatedRepo``;
with ``gate_metadata`` its info and tree endpoints are gated too. Every request is logged as
(method, path, token) and every answer as (path, status, error code), so tests can check both sides.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
GATED_MESSAGE = "Access to dataset {repo} is restricted. You must have access to it and be authenticated to access it."
API = re.compile(r"^/api/datasets/(?P<repo>[^/]+/[^/]+)(?:/(?P<op>revision|tree|preupload|commit|settings)"
                 r"(?:/(?P<rest>.*))?)?$")
GATED_FIELD_TYPES = {"text", "checkbox", "date_picker", "country", "ip_location"}
RESOLVE = re.compile(r"^/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")


def git_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    """One dataset repository: commits as full snapshots, a main branch, settings and readers."""

    repo_id: str
    private: bool
    owner: str
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    main: str = ""
    gated: str | bool = False
    access: set[str] = field(default_factory=set)

    def commit(self, files: dict[str, bytes], summary: str) -> str:
        listing = "".join(f"{git_oid(files[p])} {p}\n" for p in sorted(files))
        sha = hashlib.sha1(f"{self.main}\n{summary}\n{listing}".encode()).hexdigest()
        self.commits[sha] = dict(files)
        self.main = sha
        return sha

    def resolve(self, rev: str) -> str | None:
        rev = unquote(rev)
        if rev == "main":
            return self.main
        return rev if rev in self.commits else None


class FakeHub:
    """The server and its state; use as a context manager (``with FakeHub() as hub: hub.url``)."""

    def __init__(self, write_tokens: tuple[str, ...] = ("owner-token",), gate_metadata: bool = False) -> None:
        self.write_tokens = set(write_tokens)
        self.gate_metadata = gate_metadata
        self.repos: dict[str, Repo] = {}
        self.log: list[tuple[str, str, str | None]] = []
        self.answers: list[tuple[str, int, str | None]] = []
        """(path, status, X-Error-Code) of every response."""
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    # test helpers
    def grant(self, repo_id: str, token: str) -> None:
        self.repos[repo_id].access.add(token)

    def tamper(self, repo_id: str, path: str, data: bytes) -> str:
        """Someone with write access replaces one file: a new commit on main."""
        repo = self.repos[repo_id]
        files = dict(repo.commits[repo.main])
        files[path] = data
        return repo.commit(files, f"tamper {path}")

    def head_files(self, repo_id: str) -> dict[str, bytes]:
        repo = self.repos[repo_id]
        return repo.commits[repo.main]


def card_metadata_errors(content: str, repo_type: str | None) -> list[str]:
    """The checks the hub applies to a dataset card's YAML that the release relies on."""
    if not content.startswith("---\n") or "\n---\n" not in content[4:]:
        return ["no YAML front matter between --- lines"]
    try:
        meta = yaml.safe_load(content[4:content.index("\n---\n", 4)])
    except yaml.YAMLError as exc:
        return [f"YAML does not parse: {exc}"]
    errors = []
    if repo_type != "dataset":
        errors.append(f"expected repoType dataset, got {repo_type!r}")
    for config in meta.get("configs", []):
        if not isinstance(config.get("config_name"), str) or not isinstance(config.get("data_files"), list):
            errors.append(f"configs entry needs config_name and data_files: {config!r}")
    for name, kind in (meta.get("extra_gated_fields") or {}).items():
        if kind not in GATED_FIELD_TYPES and not (isinstance(kind, dict) and kind.get("type") == "select"):
            errors.append(f"extra_gated_fields.{name}: unknown field type {kind!r}")
    return errors


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output quiet
            pass

        # ---------------------------------------------------------------- plumbing
        def _token(self) -> str | None:
            value = self.headers.get("Authorization", "")
            return value[7:] if value.startswith("Bearer ") else None

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
                  content_type: str = "application/json", head: bool = False) -> None:
            with hub.lock:
                hub.answers.append((urlsplit(self.path).path, status, (headers or {}).get("X-Error-Code")))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(data).encode(), headers)

        def _error(self, status: int, code: str, message: str, head: bool = False) -> None:
            self._send(status, json.dumps({"error": message}).encode(),
                       {"X-Error-Code": code, "X-Error-Message": message}, head=head)

        def _dispatch(self, method: str) -> None:
            path = urlsplit(self.path).path
            token = self._token()
            with hub.lock:
                hub.log.append((method, path, token))
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._route(method, path, token)

        def do_GET(self) -> None:
            self._dispatch("GET")

        def do_HEAD(self) -> None:
            self._dispatch("HEAD")

        def do_POST(self) -> None:
            self._dispatch("POST")

        def do_PUT(self) -> None:
            self._dispatch("PUT")

        # ---------------------------------------------------------------- access
        def _readable(self, repo: Repo | None, token: str | None, head: bool = False, gate: bool = True) -> bool:
            """Answer the access error and return False if the caller may not read ``repo``."""
            if repo is None or (repo.private and token not in repo.access):
                self._error(401, "RepoNotFound", "Repository not found", head)
                return False
            if gate and repo.gated and token not in repo.access:
                status = 401 if token is None else 403
                self._error(status, "GatedRepo", GATED_MESSAGE.format(repo=repo.repo_id), head)
                return False
            return True

        def _writable(self, repo: Repo | None, token: str | None) -> bool:
            if repo is None:
                self._error(404, "RepoNotFound", "Repository not found")
                return False
            if token not in hub.write_tokens:
                self._error(403, "Forbidden", "You don't have the rights to write to this repository")
                return False
            return True

        # ---------------------------------------------------------------- routes
        def _route(self, method: str, path: str, token: str | None) -> None:
            if method == "POST" and path == "/api/repos/create":
                return self._create(token)
            if method == "POST" and path == "/api/validate-yaml":
                return self._validate_yaml()
            found = RESOLVE.match(path)
            if found and method in ("GET", "HEAD"):
                return self._resolve(found["repo"], found["rev"], unquote(found["path"]), token, method == "HEAD")
            found = API.match(path)
            if not found:
                return self._error(404, "NotFound", f"no route {method} {path}")
            repo = hub.repos.get(found["repo"])
            op, rest = found["op"], found["rest"] or ""
            if method == "GET" and op in (None, "revision"):
                return self._info(repo, rest or "main", token)
            if method == "GET" and op == "tree":
                rev, _, sub = rest.partition("/")
                return self._tree(repo, rev, unquote(sub), token)
            if method == "POST" and op == "preupload":
                return self._preupload(repo, token)
            if method == "POST" and op == "commit":
                return self._commit(repo, unquote(rest), token)
            if method == "PUT" and op == "settings":
                return self._settings(repo, token)
            return self._error(404, "NotFound", f"no route {method} {path}")

        def _validate_yaml(self) -> None:
            payload = json.loads(self._body())
            errors = card_metadata_errors(payload["content"], payload.get("repoType"))
            if errors:
                return self._json(400, {"errors": [{"message": e} for e in errors]})
            return self._json(200, {"warnings": []})

        def _create(self, token: str | None) -> None:
            payload = json.loads(self._body() or b"{}")
            if token not in hub.write_tokens:
                return self._error(401, "Unauthorized", "Invalid credentials in Authorization header")
            repo_id = f"{payload.get('organization')}/{payload['name']}"
            url = f"{hub.url}/datasets/{repo_id}"
            if repo_id in hub.repos:
                return self._json(409, {"error": "You already created this dataset repo", "url": url})
            repo = Repo(repo_id, payload.get("visibility") == "private", token, access={token})
            repo.commit({".gitattributes": GITATTRIBUTES}, "initial commit")
            hub.repos[repo_id] = repo
            return self._json(200, {"url": url, "name": repo_id})

        def _info(self, repo: Repo | None, rev: str, token: str | None) -> None:
            if not self._readable(repo, token, gate=hub.gate_metadata):
                return None
            assert repo is not None
            sha = repo.resolve(rev)
            if sha is None:
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {unquote(rev)}")
            files = repo.commits[sha]
            return self._json(200, {
                "id": repo.repo_id, "author": repo.repo_id.split("/")[0], "sha": sha, "private": repo.private,
                "gated": repo.gated, "disabled": False, "tags": [],
                "siblings": [{"rfilename": p} for p in sorted(files)],
            })

        def _tree(self, repo: Repo | None, rev: str, sub: str, token: str | None) -> None:
            if not self._readable(repo, token, gate=hub.gate_metadata):
                return None
            assert repo is not None
            sha = repo.resolve(rev)
            if sha is None:
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {unquote(rev)}")
            prefix = f"{sub.strip('/')}/" if sub.strip("/") else ""
            files = {p: d for p, d in repo.commits[sha].items() if p.startswith(prefix)}
            folders = sorted({"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)})
            entries: list[dict[str, Any]] = [{"type": "directory", "oid": git_oid(d.encode()), "path": d}
                                             for d in folders if d.startswith(prefix)]
            entries += [{"type": "file", "oid": git_oid(data), "size": len(data), "path": p}
                        for p, data in sorted(files.items())]
            return self._json(200, entries)

        def _preupload(self, repo: Repo | None, token: str | None) -> None:
            payload = json.loads(self._body())
            if not self._writable(repo, token):
                return None
            assert repo is not None
            head = repo.commits[repo.main]
            answer = [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                       "oid": git_oid(head[f["path"]]) if f["path"] in head else None} for f in payload["files"]]
            return self._json(200, {"files": answer, "commitOid": repo.main})

        def _commit(self, repo: Repo | None, rev: str, token: str | None) -> None:
            lines = [json.loads(line) for line in self._body().splitlines() if line.strip()]
            if not self._writable(repo, token):
                return None
            assert repo is not None
            if rev != "main":
                return self._error(400, "BadRequest", "this fake hub commits to main only")
            files = dict(repo.commits[repo.main])
            summary = ""
            for line in lines:
                key, value = line["key"], line["value"]
                if key == "header":
                    summary = value.get("summary", "")
                elif key == "file":
                    files[value["path"]] = base64.b64decode(value["content"])
                elif key == "deletedFile":
                    files.pop(value["path"], None)
                elif key == "deletedFolder":
                    folder = value["path"].rstrip("/") + "/"
                    files = {p: d for p, d in files.items() if not p.startswith(folder)}
                else:
                    return self._error(400, "BadRequest", f"unsupported commit operation {key!r}")
            sha = repo.commit(files, summary)
            return self._json(200, {"success": True, "commitOid": sha,
                                    "commitUrl": f"{hub.url}/datasets/{repo.repo_id}/commit/{sha}"})

        def _settings(self, repo: Repo | None, token: str | None) -> None:
            payload = json.loads(self._body())
            if not self._writable(repo, token):
                return None
            assert repo is not None
            if "gated" in payload:
                repo.gated = payload["gated"]
            if "visibility" in payload:
                repo.private = payload["visibility"] == "private"
            return self._json(200, {})

        def _resolve(self, repo_id: str, rev: str, path: str, token: str | None, head: bool) -> None:
            repo = hub.repos.get(repo_id)
            if not self._readable(repo, token, head=head):
                return None
            assert repo is not None
            sha = repo.resolve(rev)
            if sha is None:
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {unquote(rev)}", head)
            files = repo.commits[sha]
            if path not in files:
                return self._send(404, b"", {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": sha,
                                             "X-Error-Message": "Entry not found"}, head=head)
            data = files[path]
            return self._send(200, data, {"X-Repo-Commit": sha, "ETag": f'"{git_oid(data)}"'},
                              content_type="application/octet-stream", head=head)

    return Handler
