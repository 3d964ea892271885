"""The ASGI application for uvicorn: the API over the index named by ``GANTHA_STORE`` / ``GANTHA_INDEX``.

A server process keeps what outlives a full garbage collection out of the next ones
(:func:`~gantha.api.live.freeze_survivors`)."""

import gc

from gantha.api.app import create_app
from gantha.api.live import freeze_survivors
from gantha.config import settings

gc.callbacks.append(freeze_survivors)
app = create_app(settings().location())
