"""Downloading the public upstream: a local HTTP server serves an archive laid out like the upstream."""

from __future__ import annotations

import http.server
import io
import os
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from gantha.corpus.cst import discover, read_book
from gantha.corpus.download import DownloadError, download_cst
from gantha.corpus.files import read_text


def _upstream_zip(small_cst: Path) -> bytes:
    """tipitaka-xml-main/romn/<book>.xml, one UTF-16 file per book, as the upstream repository has it."""
    books, _ = discover(small_cst)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for book in books[:2]:
            bodies = []
            for f in book.files:
                text = read_text(f)
                bodies.append(text[text.index("<body>") + 6 : text.index("</body>")])
            doc = f'<?xml version="1.0" encoding="UTF-16"?>\n<TEI.2><text><body>{"".join(bodies)}</body></text></TEI.2>'
            zf.writestr(f"tipitaka-xml-main/romn/{book.book}.xml", doc.encode("utf-16"))
        zf.writestr("tipitaka-xml-main/README.md", "upstream")
    return buf.getvalue()


@pytest.fixture(scope="module")
def upstream(small_cst):
    payload = _upstream_zip(small_cst)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/archive.zip":
                self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            else:
                self.send_response(404)
                self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_download_extracts_the_roman_books(upstream, tmp_path, small_cst):
    seen = []
    folder = download_cst(f"{upstream}/archive.zip", tmp_path, lambda done, total: seen.append((done, total)))
    assert sorted(p.name for p in folder.iterdir()) == ["e1208n.nrf.xml", "s0101m.mul.xml"]
    assert seen and seen[-1][0] == seen[-1][1]
    books, problems = discover(folder)
    assert not problems
    downloaded = list(read_book(next(b for b in books if b.book == "s0101m.mul")))
    local_books, _ = discover(small_cst)
    local = list(read_book(next(b for b in local_books if b.book == "s0101m.mul")))
    assert [p.coordinate for p in downloaded] == [p.coordinate for p in local]
    assert not list(tmp_path.glob("*.part")) and not list(tmp_path.glob("*.zip"))


def test_download_errors_are_clear(upstream, tmp_path):
    with pytest.raises(DownloadError, match="HTTP 404"):
        download_cst(f"{upstream}/missing.zip", tmp_path)
    with pytest.raises(DownloadError, match="127.0.0.1:9"):
        download_cst("http://127.0.0.1:9/archive.zip", tmp_path)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_up_downloads_indexes_and_serves(upstream, tmp_path):
    port = _free_port()
    env = {
        **os.environ,
        "GANTHA_INDEX": str(tmp_path / "idx"),
        "GANTHA_CST_PATH": str(tmp_path / "absent"),
        "GANTHA_CST_URL": f"{upstream}/archive.zip",
        "GANTHA_DOWNLOADS": str(tmp_path / "dl"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "gantha.api.cli", "up", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/v3/health", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.3)
        else:
            pytest.fail("gantha up did not start serving")
        assert r.json()["data"]["books"] == 2
        r = httpx.get(f"http://127.0.0.1:{port}/api/v3/search", params={"q": "brahmajala*"})
        assert r.json()["data"]["total"] > 0
    finally:
        proc.terminate()
        proc.wait(10)
