"""Embedding providers behind one small interface, and the factory that picks one from settings."""

from __future__ import annotations

from gantha.embed.base import Embedder, EmbedderError, make_embedder

__all__ = ["Embedder", "EmbedderError", "make_embedder"]
