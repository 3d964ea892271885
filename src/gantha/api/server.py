"""The ASGI application for uvicorn: the API over the index named by ``GANTHA_STORE`` / ``GANTHA_INDEX``.

A server process keeps what outlives a full garbage collection out of the next ones
(:func:`~gantha.api.live.freeze_survivors`), and lets a request's own objects come and go before a young
collection looks at them (:data:`YOUNG_COLLECTION`)."""

import gc

from gantha.api.app import create_app
from gantha.api.live import freeze_survivors
from gantha.config import settings

# objects allocated (less those freed) before a young collection: CPython's 700 is crossed inside one search, so
# 1,650 distinct searches ran 2,079 young collections (0.17 ms of each search); at 5,000, 42 (0.01 ms)
YOUNG_COLLECTION = 5_000

gc.callbacks.append(freeze_survivors)
gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
app = create_app(settings().location())
