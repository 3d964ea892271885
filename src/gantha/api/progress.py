"""Progress of long jobs: a live bar on a terminal, plain throttled lines in a log file.

``tracker(console, label, unit)`` yields a callback ``(item, units done in it, steps total)`` that the
ingesters and the embedder call once per step (a book, a file, a batch).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

LOG_EVERY = 10.0  # seconds between plain progress lines
BESIDE_EVERY = 30.0  # between the lines of a job running beside the server

Callback = Callable[[str, int, int], None]


@contextmanager
def tracker(
    console: Console, label: str, unit: str = "paragraphs", enabled: bool = True, lines: bool = False
) -> Iterator[Callback]:
    """A progress callback for one job; nothing is shown when ``enabled`` is false; ``lines``: plain lines
    even on a terminal (a job beside a running server, whose output a live bar would garble)."""
    if not enabled:
        yield lambda item, n, total: None
    elif console.is_terminal and not lines:
        yield from _bar(console, label, unit)
    else:
        yield from _lines(console, label, unit, BESIDE_EVERY if lines else LOG_EVERY)


def _bar(console: Console, label: str, unit: str) -> Iterator[Callback]:
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("· {task.fields[units]:,} " + unit + " · {task.fields[rate]:,.0f}/s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(label, total=None, units=0, rate=0.0)
        done = {"units": 0}

        def update(item: str, n: int, total: int) -> None:
            done["units"] += n
            elapsed = bar.tasks[0].elapsed or 1e-9
            rate = done["units"] / elapsed
            bar.update(
                task, total=total, advance=1, description=f"{label} {item[:16]:<16}", units=done["units"], rate=rate
            )

        yield update


def _lines(console: Console, label: str, unit: str, every: float) -> Iterator[Callback]:
    started = time.monotonic()
    state = {"steps": 0, "units": 0, "last": started, "total": 0}

    def line() -> None:
        elapsed = time.monotonic() - started
        rate = state["units"] / max(elapsed, 1e-9)
        console.print(
            f"{label}: {state['steps']}/{state['total'] or '?'} · {state['units']:,} {unit} · {rate:,.0f}/s · "
            f"{elapsed:.0f} s",
            highlight=False,
            soft_wrap=True,
        )

    def update(item: str, n: int, total: int) -> None:
        state["steps"] += 1
        state["units"] += n
        state["total"] = total
        now = time.monotonic()
        if now - state["last"] >= every or state["steps"] == total:
            state["last"] = now
            line()

    yield update
