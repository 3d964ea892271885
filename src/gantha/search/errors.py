"""The error of a search request that cannot be answered as asked."""

from __future__ import annotations


class SearchError(ValueError):
    """A request that cannot be answered as asked; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
