"""``GET /api/v3/<verb>`` for every research verb of :mod:`gantha.verbs`, generated from its declaration."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, get_args

from fastapi import APIRouter, Query
from fastapi.responses import Response

from gantha.api.errors import ERRORS
from gantha.api.live import LiveIndex
from gantha.api.responses import Envelope
from gantha.research.desk import Exportable
from gantha.research.desk.export import MEDIA
from gantha.verbs import VERBS, Verb


def _endpoint(verb: Verb, index: LiveIndex) -> Callable[..., Any]:
    def endpoint(params: Any) -> Envelope[Any] | Response:
        result = verb.run(index.research(), params)
        if isinstance(result, Exportable) and (file := result.exported()) is not None:  # format=tsv, png …
            disposition = f'inline; filename="{file.filename}"'
            return Response(file.content, media_type=file.media_type, headers={"Content-Disposition": disposition})
        return Envelope(data=result)

    query = inspect.Parameter("params", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[verb.params, Query()])
    endpoint.__signature__ = inspect.Signature([query])  # type: ignore[attr-defined]
    endpoint.__name__ = verb.name
    return endpoint


def _responses(verb: Verb) -> dict[int | str, dict[str, Any]]:
    """The error bodies, and for a verb that can answer a file, the file's media types beside JSON."""
    field = verb.params.model_fields.get("format")
    if not (isinstance(verb.result, type) and issubclass(verb.result, Exportable) and field):
        return ERRORS
    files = {MEDIA[fmt]: {} for fmt in get_args(field.annotation) if fmt in MEDIA}
    return {**ERRORS, 200: {"content": files, "description": "JSON, or the file that format names"}}


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter()
    for verb in VERBS:
        api.add_api_route(
            verb.path,
            _endpoint(verb, index),
            methods=["GET"],
            summary=verb.summary,
            description=verb.doc,
            response_model=Envelope[verb.result],  # type: ignore[name-defined]
            responses=_responses(verb),
        )
    return api
