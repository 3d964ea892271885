"""The PostgreSQL store (see :mod:`gantha.store.postgres.store`)."""

from gantha.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
