"""The documentation cannot drift: the site builds strictly, and its examples run against the test index.

The convention (docs/writing-docs.md):

* a ```` ```console ```` block holds ``$ gantha …`` commands, each followed by the output it prints; each is
  run against the test index (the session's ``small_index``) and its output compared, timings normalised, a
  line ``…`` standing for any number of lines, a last line ``[exit N]`` for a non-zero exit status;
* every other ``gantha …`` command line of the pages (``bash`` blocks, full-index transcripts) is parsed by
  the CLI itself (``--help`` appended: an unknown command or option fails).

``GANTHA_DOCS_UPDATE=1`` rewrites each console block's expected output with what its commands print.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gantha.api import render
from gantha.api.cli import app
from gantha.config import settings

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WIDTH = 100  # the terminal width the examples are printed at
README_LINES = 250
TIMING = re.compile(r"\b\d[\d,]*(?:\.\d+)? ?(?:ms|s)\b|(?<=\"took_ms\": )[\d.]+")
FENCE = re.compile(r"^(\s*)(`{3,})(\w*)")


@dataclass
class Example:
    """A ``$ gantha …`` command of a console block, the output it should print and where it stands."""

    page: Path
    line: int  # 1-based line of the command
    command: str
    expected: list[str] = field(default_factory=list)
    end: int = 0  # 0-based line after its expected output


@dataclass
class Block:
    page: Path
    lang: str
    start: int  # 0-based line of the first line inside the fence
    lines: list[str]


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page."""
    out: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        out.append(Block(page, lang, i + 1, [x[len(indent) :] for x in lines[i + 1 : j]]))
        i = j + 1
    return out


def examples(block: Block) -> list[Example]:
    """The commands of a console block, each with its expected output."""
    found: list[Example] = []
    for n, text in enumerate(block.lines):
        if text.startswith("$ "):
            if found:
                found[-1].end = block.start + n
            found.append(Example(block.page, block.start + n + 1, text[2:].strip()))
        elif found:
            found[-1].expected.append(text)
    if found:
        found[-1].end = block.start + len(block.lines)
    return found


def console_examples() -> list[Example]:
    return [e for p in PAGES for b in blocks(p) if b.lang == "console" for e in examples(b)]


def command_lines() -> list[tuple[Path, list[str]]]:
    """Every other ``gantha`` command the pages show (shell lines and transcript lines), as its arguments."""
    found = []
    for page in PAGES:
        for b in blocks(page):
            if b.lang == "console":
                continue
            for text in b.lines:
                if b.lang not in ("bash", "sh", "shell") and not text.startswith("$ "):
                    continue
                words = shell_words(text.removeprefix("$ "))
                for at, word in enumerate(words):
                    first = at == 0 or words[at - 1] in SEPARATORS or "=" in words[at - 1]
                    if word in ("gantha", ".venv/bin/gantha") and first:
                        args = words[at + 1 :]
                        cut = next((i for i, w in enumerate(args) if w in SEPARATORS), len(args))
                        found.append((page, args[:cut]))
    return found


SEPARATORS = {"&&", "||", ";", "|", "&"}


def shell_words(line: str) -> list[str]:
    """A shell line's words as the shell splits them (quotes, ``&&``/``;``/``|`` apart, ``# comment`` dropped)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # an unbalanced quote: the test of that line fails on it
        return line.split()


def normalise(lines: list[str]) -> list[str]:
    return [TIMING.sub("<time>", x.rstrip()) for x in lines]


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the output matches the expected lines, each ``…`` line standing for any number of lines."""
    exp, act = normalise(expected), normalise(actual)
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()

    def at(i: int, j: int) -> bool:
        if i == len(exp):
            return j == len(act)
        if exp[i] == "…":
            return any(at(i + 1, k) for k in range(j, len(act) + 1))
        return j < len(act) and exp[i] == act[j] and at(i + 1, j + 1)

    return at(0, 0)


@pytest.fixture(scope="module")
def run_cli(small_index):
    """Run a gantha command line in this process against the test index; (output, exit status)."""
    runner = CliRunner()
    mp = pytest.MonkeyPatch()
    mp.setenv("GANTHA_INDEX", str(small_index))
    mp.delenv("GANTHA_STORE", raising=False)
    mp.setenv("GANTHA_LLM_BASE_URL", "")
    for console in (render.out, render.err):
        mp.setattr(console, "width", WIDTH)
    settings.cache_clear()

    def run(command: str | list[str]) -> tuple[list[str], int]:
        args = shlex.split(command) if isinstance(command, str) else command
        r = runner.invoke(app, args[1:] if args[:1] == ["gantha"] else args)
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            raise r.exception
        status = r.exit_code
        lines = r.output.splitlines()
        return lines + ([f"[exit {status}]"] if status else []), status

    yield run
    mp.undo()
    settings.cache_clear()


def test_the_readme_is_short_and_names_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES
    assert "scripts/setup.sh && .venv/bin/gantha up" in text and "scripts/test.sh" in text
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
    assert len([e for e in console_examples() if e.page.name == "README.md"]) >= 10


def test_every_page_is_in_the_site_and_the_site_builds_strictly(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which("mkdocs")
    assert mkdocs, "mkdocs is not installed (pip install -e '.[docs]')"
    r = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert r.returncode == 0, r.stderr[-3000:]
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in (ROOT / "docs").glob("*.md"):
        assert page.name in nav, f"{page.name} is not in mkdocs.yml's nav"
        assert (tmp_path / "site" / ("" if page.stem == "index" else page.stem) / "index.html").exists()


def test_the_convention_reads_blocks_and_elisions():
    assert matches(["a", "…", "d"], ["a", "b", "c", "d"]) and matches(["a", "…"], ["a"])
    assert not matches(["a", "d"], ["a", "b", "d"]) and not matches(["a"], ["a", "b"])
    assert matches(["found in 3.2 ms"], ["found in 41 ms"]) and not matches(["3 hits"], ["4 hits"])
    assert shell_words("gantha search 'a # b' --tags \"x;y\"  # note") == ["gantha", "search", "a # b", "--tags", "x;y"]


@pytest.mark.parametrize("example", console_examples(), ids=lambda e: f"{e.page.name}:{e.line}")
def test_console_example_prints_what_the_page_says(example: Example, run_cli):
    if os.environ.get("GANTHA_DOCS_UPDATE"):
        pytest.skip("rewriting the examples (test_update_the_examples)")
    actual, _ = run_cli(example.command)
    assert matches(example.expected, actual), (
        f"{example.page.name}:{example.line} `$ {example.command}` printed:\n" + "\n".join(actual)
    )


@pytest.mark.skipif(not os.environ.get("GANTHA_DOCS_UPDATE"), reason="set GANTHA_DOCS_UPDATE=1 to rewrite them")
def test_update_the_examples(run_cli):
    """Write what each console command prints as its expected output (the last of a page first)."""
    for page in PAGES:
        found = [e for b in blocks(page) if b.lang == "console" for e in examples(b)]
        lines = page.read_text(encoding="utf-8").splitlines()
        for e in reversed(found):
            actual, _ = run_cli(e.command)
            lines[e.line : e.end] = [x.rstrip() for x in actual]
        page.write_text("\n".join(lines) + "\n", encoding="utf-8")


COMMANDS = command_lines()


@pytest.mark.parametrize("page,args", COMMANDS, ids=[f"{p.name}:{' '.join(a)[:40]}" for p, a in COMMANDS])
def test_every_command_line_of_the_pages_parses(page: Path, args: list[str], run_cli):
    _, status = run_cli([*args, "--help"])
    assert status == 0, f"{page.name}: `gantha {' '.join(args)}` does not parse"


def test_the_parse_check_fails_a_wrong_command_or_option(run_cli):
    assert run_cli(["search", "x", "--limit", "3", "--help"])[1] == 0
    assert run_cli(["search", "x", "--no-such-option", "--help"])[1] == 2
    assert run_cli(["serch", "x", "--help"])[1] == 2
