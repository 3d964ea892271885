"""The ASGI application for uvicorn: the API over the index named by ``GANTHA_STORE`` / ``GANTHA_INDEX``."""

from gantha.api.app import create_app
from gantha.config import settings

app = create_app(settings().location())
