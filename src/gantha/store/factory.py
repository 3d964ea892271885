"""Open a store by where it lives: a folder is the embedded store, ``postgresql://…`` the PostgreSQL store."""

from __future__ import annotations

from pathlib import Path

from gantha.store.base import Store

URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str | Path) -> bool:
    return str(location).startswith(URL_SCHEMES)


def open_store(location: str | Path, *, create: bool = True) -> Store:
    """The store at ``location`` (``create=False``: it must exist and hold an index)."""
    if is_url(location):
        from gantha.store.postgres import PostgresStore

        return PostgresStore(str(location), create=create)
    from gantha.store.embedded import EmbeddedStore

    return EmbeddedStore(Path(location), create=create)
