"""gantha: a retrieval engine for canonical texts, with citable coordinates."""

__version__ = "0.1.0"
