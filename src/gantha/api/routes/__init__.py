"""The HTTP routes by concern; each module's ``router(index)`` answers from one :class:`LiveIndex`."""
