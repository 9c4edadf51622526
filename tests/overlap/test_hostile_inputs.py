"""`dp overlap` against inputs that lie or attack: another configuration's journal, presigned URLs, short
HTTP bodies, secrets in URLs, endless lines and decompression bombs, a Dask scheduler that never answers."""

from __future__ import annotations

import gzip
import http.server
import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.overlap import engines
from decisionpivot.overlap.run import filter_folder, overlap_command
from decisionpivot.overlap.sources import JSONL, PARQUET, TEXT, detect_format
from tests.overlap.helpers import TEXTS, reference

SECRETS = ("s3cr3t-pa55", "AKIAEXAMPLEKEY", "f00dsignature0123", "sessiontoken0123")
"""What the presigned URLs below carry; none of it may be written or printed."""


class _Files(http.server.BaseHTTPRequestHandler):
    """Serves ``files`` by path (the query is ignored, as a presigned URL's is by anything but the store); a
    path starting with /short/ announces 100 bytes more than it sends."""

    files: ClassVar[dict[str, bytes]] = {}

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        path = self.path.split("?", 1)[0]
        data = self.files.get(path.removeprefix("/short"))
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data) + (100 if path.startswith("/short/") else 0)))
        self.end_headers()
        if body:
            self.wfile.write(data)
            self.wfile.flush()
            if path.startswith("/short/"):
                self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, dict[str, bytes]]]:
    """A real HTTP server on the loopback interface: (its base URL, the files it serves by path)."""
    files: ClassVar[dict[str, bytes]] = {}
    handler = type("Handler", (_Files,), {"files": files})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", files
    finally:
        httpd.shutdown()
        httpd.server_close()


def _signed(url: str) -> str:
    return (f"{url}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={SECRETS[1]}%2F20261203%2Fus-east-1%2Fs3"
            f"&X-Amz-Signature={SECRETS[2]}&X-Amz-Security-Token={SECRETS[3]}&X-Amz-Expires=3600")


def _with_userinfo(url: str) -> str:
    return url.replace("http://", f"http://reader:{SECRETS[0]}@")


def test_a_changed_text_column_scans_again_instead_of_resuming(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    train = tmp_path / "train.parquet"
    pq.write_table(pa.table({"text": ["nothing of the items here"] * 3, "body": [TEXTS[0], TEXTS[2], "short"]}),
                   train)
    fresh, _ = filter_folder(folder, [train], tmp_path / "fresh", text_column="body")
    assert fresh[0].removed == 4
    filter_folder(folder, [train], tmp_path / "out", text_column="text")
    resumed, _ = filter_folder(folder, [train], tmp_path / "out", text_column="body")
    assert resumed == fresh
    header = json.loads((tmp_path / "out" / "overlap.state").read_text().split("\n")[0])
    assert header["text_column"] == "body"


@pytest.mark.parametrize("name", ["/corpus.jsonl.gz", "/corpus.parquet"])
def test_a_presigned_url_is_read_by_the_suffix_of_its_path(tmp_path: Path, server: tuple[str, dict[str, bytes]],
                                                           name: str) -> None:
    base, files = server
    documents = ["noise before", TEXTS[1], "noise after"]
    if name.endswith(".gz"):
        files[name] = gzip.compress("".join(json.dumps({"text": d}) + "\n" for d in documents).encode(), mtime=0)
    else:
        sink = pa.BufferOutputStream()
        pq.write_table(pa.table({"text": documents}), sink)
        files[name] = sink.getvalue().to_pybytes()
    [report], scan = filter_folder(reference(tmp_path), [_signed(base + name)], tmp_path / "out")
    assert (report.flagged, report.removed) == (1, 2)
    assert scan.files[0].format == (JSONL if name.endswith(".gz") else PARQUET)


def test_the_format_of_a_url_comes_from_its_path_never_its_query() -> None:
    assert detect_format("https://b.s3.amazonaws.com/c.jsonl.zst?X-Amz-Signature=ab.txt") == (JSONL, "zstd")
    assert detect_format("https://h/c.parquet?sig=x&v=a.gz") == (PARQUET, "")
    assert detect_format("https://h/c.txt.gz?format=jsonl") == (TEXT, "gzip")
    assert detect_format("data/odd?.jsonl") == (JSONL, "")  # a local name keeps its "?"


def test_a_body_shorter_than_its_content_length_is_one_error_naming_the_url(
        tmp_path: Path, server: tuple[str, dict[str, bytes]]) -> None:
    base, files = server
    files["/corpus.jsonl"] = ("".join(json.dumps({"text": t}) + "\n" for t in TEXTS) * 20).encode()
    url = base + "/short/corpus.jsonl"
    with pytest.raises(DecisionPivotError) as caught:
        filter_folder(reference(tmp_path), [url], tmp_path / "out")
    message = str(caught.value)
    assert message.startswith(f"{url}: ") and "\n" not in message
    assert "content length" in message.lower()
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_cli_run_on_a_short_body_prints_one_line_and_no_traceback(tmp_path: Path,
                                                                   server: tuple[str, dict[str, bytes]]) -> None:
    base, files = server
    files["/corpus.jsonl"] = ("".join(json.dumps({"text": t}) + "\n" for t in TEXTS) * 20).encode()
    done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "overlap", base + "/short/corpus.jsonl",
                           "--items", str(reference(tmp_path)), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "short/corpus.jsonl" in line]
    assert len(errors) == 1, done.stderr


def test_credentials_and_signatures_of_urls_are_never_written_or_printed(
        tmp_path: Path, server: tuple[str, dict[str, bytes]], capsys: pytest.CaptureFixture[str]) -> None:
    base, files = server
    files["/a.jsonl"] = (json.dumps({"text": TEXTS[0]}) + "\n").encode()
    files["/b.txt"] = TEXTS[2].encode()
    urls = [_signed(base + "/a.jsonl"), _with_userinfo(base + "/b.txt")]
    out = tmp_path / "out"
    overlap_command(urls, str(reference(tmp_path)), str(out), 13, "local", 1, None, "text", 256, None, False)
    overlap_command(urls, str(reference(tmp_path)), str(out), 13, "local", 1, None, "text", 256, None, False)
    printed = capsys.readouterr()
    assert "resuming" in printed.err  # the journal of the same (redacted) URLs is found again
    written = {p.name: p.read_text() for p in out.iterdir()}
    summary = json.loads(written["overlap.json"])
    assert summary["tasks"][0]["removed"] == 4
    assert "X-Amz-Signature=%5BREDACTED%5D" in summary["training"][0] or "[REDACTED]" in summary["training"][0]
    for secret in SECRETS:
        for name, text in [*written.items(), ("stdout", printed.out), ("stderr", printed.err)]:
            assert secret not in text, f"{secret} in {name}"


def test_an_error_quoting_a_presigned_url_does_not_print_its_signature(tmp_path: Path,
                                                                       server: tuple[str, dict[str, bytes]]) -> None:
    base, _ = server
    with pytest.raises(DecisionPivotError) as caught:
        filter_folder(reference(tmp_path), [_signed(base + "/missing.jsonl")], tmp_path / "out")
    assert "missing.jsonl" in str(caught.value)
    assert not any(secret in str(caught.value) for secret in SECRETS)


_MEASURE = textwrap.dedent("""
    import resource, sys
    from pathlib import Path
    from decisionpivot.errors import DecisionPivotError
    from decisionpivot.overlap.sources import expand_inputs, plan_parts, read_part
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a runaway reader fails here, not the machine
    [part] = plan_parts(expand_inputs([sys.argv[1]]), 1 << 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        for block in read_part(part):
            pass
        said = "read"
    except (DecisionPivotError, MemoryError) as exc:
        said = f"{type(exc).__name__}: {exc}"
    print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
    print(said)
""")


def _zstd_file(path: Path, first: bytes, repeated: bytes, times: int, last: bytes) -> None:
    """``first + repeated * times + last`` compressed to ``path`` without holding it in memory."""
    import zstandard

    compressor = zstandard.ZstdCompressor(level=3).compressobj()
    with path.open("wb") as handle:
        handle.write(compressor.compress(first))
        for _ in range(times):
            handle.write(compressor.compress(repeated))
        handle.write(compressor.compress(last) + compressor.flush())


def _peak_mb(path: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True, timeout=300,
                          check=True)
    peak, said = done.stdout.splitlines()
    return int(peak), said


def test_a_json_line_longer_than_the_bound_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl.zst"  # 48 MiB on line 2, from a file of a few KB
    _zstd_file(path, b'{"text": "fine"}\n{"text": "', b"word " * (1 << 18), 48 * 4, b'"}\n')
    assert path.stat().st_size < 100_000
    peak, said = _peak_mb(path)
    assert said.startswith(f"DecisionPivotError: {path}:2: a JSON line longer than 32 MiB"), said
    assert peak < 160, f"{peak} MB more at peak to refuse one long line"


def test_a_zstd_bomb_is_decompressed_a_bounded_piece_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "newlines.txt.zst"  # 256 MiB of separators (no tokens at all) from a file of a few KB
    _zstd_file(path, b"", b"\n" * (1 << 20), 256, b"")
    assert path.stat().st_size < 100_000
    peak, said = _peak_mb(path)
    assert said == "read"
    assert peak < 100, f"{peak} MB more at peak to read 256 MiB of newlines"


def test_a_dask_scheduler_that_accepts_and_stays_silent_is_an_error_within_the_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(silent.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
    monkeypatch.setattr(engines, "CONNECT_SECONDS", 2)
    train = tmp_path / "train.txt"
    train.write_text(TEXTS[0])
    started = time.monotonic()
    result: list[BaseException] = []

    def run() -> None:
        try:
            filter_folder(reference(tmp_path), [train], tmp_path / "out", engine="dask", address=address)
        except BaseException as exc:
            result.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)
    try:
        assert not worker.is_alive(), "still waiting for a scheduler that never answers"
        [error] = result
        assert isinstance(error, DecisionPivotError) and address in str(error) and "did not answer" in str(error)
        assert time.monotonic() - started < 30
    finally:
        silent.close()
        for connection in accepted:
            connection.close()


def test_the_scheduler_check_works_inside_a_running_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """A notebook runs an event loop: the handshake check must not call asyncio.run on it."""
    import asyncio

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(silent.accept()[0]), daemon=True).start()
    monkeypatch.setattr(engines, "CONNECT_SECONDS", 1)

    async def inside() -> str:
        with pytest.raises(DecisionPivotError) as caught:
            engines._check_answers(f"tcp://127.0.0.1:{silent.getsockname()[1]}")
        return str(caught.value)

    try:
        assert "did not answer in 1 s" in asyncio.run(inside())
    finally:
        silent.close()
        for connection in held:
            connection.close()
