"""The gantha command: ingest summary, search output, exit codes and one-line errors."""

from __future__ import annotations

import gzip
import io
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gantha.api.cli import app
from gantha.api.progress import tracker

from conftest import link_bible, link_books

runner = CliRunner()


def gantha(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gantha.api.cli", *args], capture_output=True, text=True, timeout=120)


def test_ingest_json_summary(tmp_path):
    corpus = link_books(tmp_path / "cst", ("vin02m3.mul",))
    r = runner.invoke(app, ["ingest", "cst", str(corpus), "--index", str(tmp_path / "idx"), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["books"] == 1 and summary["passages"] > 1000 and summary["skipped"] == []
    assert summary["page_refs"] > 0 and summary["bold_terms"] >= 0


def test_ingest_all_reads_the_cst_folder_of_a_data_dir(tmp_path):
    link_books(tmp_path / "data" / "cst", ("e1208n.nrf",))
    r = runner.invoke(app, ["ingest", "all", str(tmp_path / "data"), "--index", str(tmp_path / "idx"), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["books"] == 1


def test_ingest_all_prints_each_sources_summary_as_soon_as_it_is_done(tmp_path):
    data = tmp_path / "data"
    link_books(data / "cst", ("e1208n.nrf",))
    link_bible(data / "bible", ("43",))
    args = ["ingest", "all", str(data), "--index", str(tmp_path / "idx"), "--no-classify"]
    r = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream: the order the lines were printed in
        text=True,
        timeout=300,
        env={**os.environ, "GANTHA_VECTOR_CORPORA": ""},
    )
    assert r.returncode == 0, r.stdout
    lines = r.stdout.splitlines()
    at = {key: next(i for i, line in enumerate(lines) if line.startswith(key)) for key in ("ingested cst:", "bible: ")}
    assert at["ingested cst:"] < at["bible: "], lines  # the CST's summary before the Bible's progress
    assert any(line.startswith("ingested bible: 2 books") for line in lines[at["bible: "] :]), lines
    js = runner.invoke(app, [*args, "--json"])  # --json: one document at the end, as before
    assert js.exit_code == 0 and [s["source"] for s in json.loads(js.stdout)] == ["cst", "bible"]


def _up(corpus: Path, index: Path, env: dict[str, str]) -> list[str]:
    """The lines `gantha up` prints until it says whether the admin API is on (then it is stopped)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    unset = ("GANTHA_LLM_BASE_URL", "GANTHA_LLM_MODEL", "GANTHA_ADMIN_KEY")
    args = ["up", "--corpus", str(corpus), "--index", str(index), "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "gantha.api.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={k: v for k, v in os.environ.items() if k not in unset} | {"GANTHA_VECTOR_CORPORA": ""} | env,
    )
    watchdog = threading.Timer(300, proc.kill)
    watchdog.start()
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("admin API"):
                break
    finally:
        watchdog.cancel()
        proc.terminate()
        proc.wait(30)
    return lines


def test_up_says_whether_chat_has_a_model_and_the_admin_api_is_on(tmp_path):
    corpus = link_books(tmp_path / "data" / "cst", ("e1208n.nrf",))
    off = _up(corpus, tmp_path / "idx", {})
    serving = next(i for i, line in enumerate(off) if line.startswith("serving "))
    assert any(line.startswith("ingested cst:") for line in off[:serving]), off
    chat, admin = off[serving + 1 :]  # right after the address, one line each
    assert chat.startswith("chat without a model") and "set GANTHA_LLM_BASE_URL" in chat and "`local`" in chat
    assert admin == "admin API off: set GANTHA_ADMIN_KEY"
    on = _up(corpus, tmp_path / "idx", {"GANTHA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "GANTHA_LLM_MODEL": "qwen-x"})
    assert on[-2] == "chat answers by qwen-x (GANTHA_LLM_BASE_URL)" and on[-1] == "admin API off: set GANTHA_ADMIN_KEY"
    on = _up(corpus, tmp_path / "idx", {"GANTHA_ADMIN_KEY": "k", "GANTHA_LLM_BASE_URL": "local"})
    assert on[-2].startswith("chat answers by the bundled model") and on[-1].startswith("admin API on")


def test_ingest_reports_malformed_files_and_exits_3(tmp_path):
    corpus = link_books(tmp_path / "cst", ("vin02m3.mul", "e1208n.nrf"))
    (corpus / "e1208n.nrf.xml.gz").unlink()
    (corpus / "e1208n.nrf.xml.gz").write_bytes(gzip.compress(b"<TEI.2><p>"))
    r = gantha("ingest", "cst", str(corpus), "--index", str(tmp_path / "idx"))
    assert r.returncode == 3
    assert "ingested cst: 1 books" in r.stdout
    assert "1 skipped, 0 left out: see" in r.stderr and "e1208n.nrf" not in r.stderr  # one line, details in a file
    report = (tmp_path / "idx" / "reports" / "cst.tsv").read_text(encoding="utf-8")
    assert report.startswith("skipped\te1208n.nrf\t")
    verbose = gantha("ingest", "cst", str(corpus), "--index", str(tmp_path / "idx"), "--verbose")
    assert verbose.returncode == 3 and "e1208n.nrf" in verbose.stderr


def test_search_table_and_json(small_index):
    r = runner.invoke(app, ["search", "parivāsaṃ", "--mode", "exact", "--index", str(small_index), "--limit", "3"])
    assert r.exit_code == 0, r.output
    assert "hits for parivāsaṃ" in r.stdout and "cst/vin02" in r.stdout
    r = runner.invoke(app, ["search", "--page-ref", "PTS Vin II 31", "--index", str(small_index), "--json"])
    data = json.loads(r.stdout)
    assert data["hits"][0]["coordinate"] == "cst/vin02m3.mul/75"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "--page-ref", "nonsense"], "cannot parse page reference"),
        (["search", "x", "--book", "nope.mul"], "unknown book 'nope.mul'"),
        (["search", ""], "empty query"),
        (["ingest", "bogus", "."], "unknown source 'bogus'"),
        (["ingest", "cst", "/does/not/exist"], "no such file or folder"),
    ],
)
def test_errors_are_one_line_with_exit_2(small_index, args, message):
    r = gantha(*args, "--index", str(small_index))
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]


def test_search_without_index_says_so(tmp_path):
    r = gantha("search", "x", "--index", str(tmp_path / "none"))
    assert r.returncode == 2 and "no index at" in r.stderr


def test_research_verbs_on_the_command_line(small_index):
    r = runner.invoke(app, ["forms", "parivāsa", "--index", str(small_index)])
    assert r.exit_code == 0 and "parivāsaṃ" in r.stdout and "attested forms" in r.stdout
    r = runner.invoke(app, ["word", "parivāsaṃ", "--index", str(small_index)])
    assert r.exit_code == 0 and "m. sg. acc." in r.stdout
    r = runner.invoke(app, ["get", "cst/vin02m3.mul/75", "--channel", "pali,en", "--index", str(small_index)])
    assert r.exit_code == 0 and "PTS Vin II 30–31" in r.stdout and "At one time the Buddha" in r.stdout
    r = runner.invoke(app, ["versions", "cst/vin02m3.mul/75", "--index", str(small_index)])
    assert r.exit_code == 0 and "available" in r.stdout
    r = runner.invoke(app, ["search", "--similar", "pārivāsikā bhikkhū", "--index", str(small_index), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["hits"][0]["granularity"] == "sentence"
    r = runner.invoke(app, ["suggest", "pariv", "--index", str(small_index)])
    assert r.exit_code == 0 and "ā" in r.stdout


def test_chapter_of_unknown_coordinate_fails_with_one_line(small_index):
    r = gantha("chapter", "cst/vin02m3.mul/99999", "--index", str(small_index))
    line = r.stderr.strip()
    assert r.returncode == 2 and "\n" not in line and line.startswith("error: 'cst/vin02m3.mul/99999'")
    assert "no paragraph 99999" in line and "did you mean cst/vin02m3.mul/458" in line  # and what it has


def test_a_failed_download_says_how_to_use_a_local_corpus(tmp_path):
    env = {"GANTHA_CST_PATH": str(tmp_path / "none"), "GANTHA_CST_URL": "http://127.0.0.1:9/tipitaka.zip"}
    r = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", "up", "--index", str(tmp_path / "idx")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env, "GANTHA_DOWNLOADS": str(tmp_path / "downloads")},
    )
    assert r.returncode == 1
    error = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "download failed" in error[0]
    for hint in ("--corpus", "GANTHA_CST_PATH", "GANTHA_CST_URL", "wikipali/", "suttacentral/"):
        assert hint in error[0]


def test_embedding_beside_the_server_prints_plain_progress_lines_even_on_a_terminal():
    shown = io.StringIO()
    console = Console(file=shown, force_terminal=True, width=200)
    with tracker(console, "embed cst:en", "vectors", lines=True) as progress:
        for batch in ("a", "b", "c"):
            progress(batch, 512, 3)
    assert shown.getvalue().strip().splitlines()[-1].startswith("embed cst:en: 3/3 · 1,536 vectors · ")
    assert "\x1b[?25l" not in shown.getvalue()  # no live bar (its hidden cursor) under the server's output
