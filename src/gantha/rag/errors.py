"""The one error type of the services an answer needs (the model, a web engine)."""

from __future__ import annotations


def is_unconfigured(code: str) -> bool:
    """Whether an error code says a setting or an install is missing (the user's to fix), not a failure."""
    return code.endswith(("unconfigured", "missing"))


class ServiceError(RuntimeError):
    """A service is not configured, cannot be reached, or answered an error; ``code`` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def unconfigured(self) -> bool:
        return is_unconfigured(self.code)


class LLMError(ServiceError):
    """The model could not be asked: not configured, unreachable, or it answered an error."""
