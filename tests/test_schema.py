"""Schemathesis over the whole HTTP API, in-process (ASGI, no network), on the session's small real index.

Every operation of the OpenAPI schema is called with generated requests, valid and invalid ones (the
examples, coverage and fuzzing phases; derandomized, no shrinking, no example database, at most
``MAX_EXAMPLES`` fuzzed requests per operation; real words and coordinates of the index mixed in), and
with a few chosen requests whose answers generated ones seldom reach. Every answer is checked: no server
error (5xx), a status code the schema documents for the operation, the declared content type, a body that
validates against the declared schema, the declared headers, and a 405 with a true ``Allow`` for the
methods the schema does not declare.

- The public operations (``/api/v3``: search, the research verbs, health, books, chat; ``/api/v1`` health
  and search) answer from the
  shared session index; they only read it, and no task runner starts beside it (no admin key is set).
- The admin operations (``/api/v1`` but its health and search) answer from a throwaway copy of that index: with the key, an accepted
  ``POST`` or ``DELETE /api/v1/documents`` queues an ingestion or a deletion that the server's task runner
  carries out on the copy. They run twice: as generated (no key, or a wrong one) and with the valid key.

Not checked: that every schema-valid request is accepted (a 400 answers what the schema cannot say: an
empty query, a coordinate that does not parse, an upload that is not a text), nor that every
schema-violating one is refused (FastAPI reads ``"llm": 0`` in a JSON body as false and ``"6"`` as 6).
Excluded: the ``unsupported_method`` and ``Allow`` checks on the two task operations, as
``/api/v1/documents/{key:path}`` also matches ``/api/v1/documents/tasks/…`` (DELETE there is the document
route and answers 404), which the schema, where a path parameter holds no slash, cannot say. The chat's
event stream is declared as ``text/event-stream`` without a schema, so only its content type is checked.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.python.asgi import shutdown_lifespans
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from gantha.api.app import create_app
from gantha.config import settings

KEY = "s3cret"
MAX_EXAMPLES = 50
SOURCES = Path(tempfile.gettempdir()) / f"gantha-schema-{os.getpid()}"  # the one folder the admin API ingests
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
METHOD_CHECKS = [unsupported_method, allow_header_conformance]
OVERLAPPED = {"GET /api/v1/documents/tasks", "GET /api/v1/documents/tasks/{task_id}"}
CONFIG = {
    "generation": {
        "mode": "all",  # positive and negative
        "max-examples": MAX_EXAMPLES,
        "deterministic": True,
        "no-shrink": True,
        "database": "none",
    },
    # real values of the small index, mixed in with the generated ones so that requests also find something
    "dictionaries": {
        "words": {
            "values": [
                "bhikkhu",
                "parivāsa",
                "parivāsaṃ",
                "parivasa*",
                "karoti",
                '"evaṃ me sutaṃ"',
                "parivāsa NEAR/3 dātabba",
                '"dhārayāmī’ti"',
            ]
        },
        "sentences": {"values": ["sabbe saṅkhārā aniccā", "evaṃ me sutaṃ", "In the beginning God created"]},
        "coordinates": {"values": ["DN 2", "cst/vin02m3.mul/75", "cst/s0101m.mul", "bible/genesis/1:1", "Rom 3:24"]},
        "fields": {"values": ["coordinate,snippet", "coordinate,book,path,snippet"]},
        "page_refs": {"values": ["PTS Vin II 31", "P2.0031"]},
        "books": {"values": ["vin02m3.mul", "s0101m.mul"]},
        "corpora": {"values": ["cst", "bible", "dict"]},
        "sources": {"values": [str(SOURCES / "note.md")]},
    },
    "parameters": {
        "query.q": {"dictionary": "words", "probability": 0.5},
        "query.word": {"dictionary": "words", "probability": 0.5},
        "query.lemma": {"dictionary": "words", "probability": 0.2},
        "query.forms": {"dictionary": "words", "probability": 0.2},
        "query.sentence": {"dictionary": "sentences", "probability": 0.5},
        "query.similar": {"dictionary": "sentences", "probability": 0.2},
        "query.coordinate": {"dictionary": "coordinates", "probability": 0.5},
        "query.coordinates": {"dictionary": "coordinates", "probability": 0.5},
        "query.fields": {"dictionary": "fields", "probability": 0.3},
        "query.page_refs": {"dictionary": "page_refs", "probability": 0.2},
        "query.book": {"dictionary": "books", "probability": 0.2},
        "query.corpus": {"dictionary": "corpora", "probability": 0.5},
        "body.messages[*].content": {"dictionary": "sentences", "probability": 0.5},
        "body.path": {"dictionary": "sources", "probability": 0.5},
        "body.query": {"dictionary": "words", "probability": 0.5},
    },
}
# The schema does not depend on the index: it is read at import from an app that never opens its own, and
# every request goes to the app of the test's fixture instead (schemathesis.pytest.from_fixture, which would
# load it from a fixture, fails under pytest 9.2: it reads a node attribute that pytest renamed).
schema = schemathesis.openapi.from_dict(
    create_app(Path(__file__).parent / "no-index").openapi(), config=schemathesis.Config.from_dict(CONFIG)
)
ANSWERS: Counter[tuple[str, str, int]] = Counter()  # (test, operation, status) → requests


@pytest.fixture(scope="module")
def public_app(small_index):
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("GANTHA_ADMIN_KEY", raising=False)  # no task runner beside the shared index
        settings.cache_clear()
        yield create_app(small_index)
    settings.cache_clear()


@pytest.fixture(scope="module")
def admin_app(small_index, tmp_path_factory):
    copy = tmp_path_factory.mktemp("schema") / "index"
    shutil.copytree(small_index, copy)
    SOURCES.mkdir(exist_ok=True)
    (SOURCES / "note.md").write_text("# Notes\n\nThe *zanzibarite* precept.\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GANTHA_ADMIN_KEY", KEY)
        mp.setenv("GANTHA_INGEST_ROOTS", str(SOURCES))
        settings.cache_clear()
        yield create_app(copy)
        shutdown_lifespans()  # the task runner the first request started
    settings.cache_clear()
    shutil.rmtree(SOURCES)


def _call(test: str, case, app) -> int:
    checks = CHECKS if case.operation.label in OVERLAPPED else CHECKS + METHOD_CHECKS
    response = case.call_and_validate(app=app, checks=checks)
    ANSWERS[(test, case.operation.label, response.status_code)] += 1
    return response.status_code


def _with_key(case):
    case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "x-api-key"} | {"X-API-Key": KEY}
    return case


@schema.exclude(tag="admin").parametrize()
def test_public_operations(case, public_app):
    _call("public", case, public_app)


@schema.include(tag="admin").parametrize()
def test_admin_operations_without_the_key(case, admin_app):
    _call("no key", case, admin_app)


@schema.include(tag="admin").parametrize()
def test_admin_operations_with_the_key(case, admin_app):
    _call("key", _with_key(case), admin_app)


CHOSEN = [
    ("GET", "/api/v3/search", {"query": {"q": "parivāsaṃ", "search_mode": "exact", "page_size": 5}}),
    ("GET", "/api/v3/search", {"query": {"q": "bhikkhu", "fields": "coordinate,snippet"}}),
    ("GET", "/api/v3/search", {"query": {"q": "parivsa"}}),  # not found: suggestions
    ("GET", "/api/v3/search", {"query": {"q": "bhikkhu", "granularity": "sutta", "page_size": 3}}),
    ("GET", "/api/v3/search", {"query": {"q": "In the beginning God created", "search_mode": "hybrid"}}),
    ("GET", "/api/v3/search", {"query": {"similar": "evaṃ me sutaṃ", "fields": "coordinate"}}),
    ("GET", "/api/v3/search", {"query": {"page_refs": "PTS Vin II 31"}}),
    ("GET", "/api/v3/search", {"query": {"q": "parivāsa NEAR/3 dātabba"}}),
    ("GET", "/api/v3/search", {"query": {"lemma": "parivāsa", "derivatives": "false", "fields": "coordinate"}}),
    ("GET", "/api/v3/similar", {"query": {"sentence": "evaṃ me sutaṃ", "min_similarity": 0.5, "fields": "coordinate"}}),
    ("GET", "/api/v3/similar", {"query": {"sentence": "evaṃ me sutaṃ", "limit": 20}}),
    ("GET", "/api/v3/get", {"query": {"coordinates": "cst/vin02m3.mul/75,Rom 3:24,nope", "tokens": "true"}}),
    ("GET", "/api/v3/chapter", {"query": {"coordinate": "DN 2", "confirm": "true", "section": "true"}}),
    ("GET", "/api/v3/outline", {"query": {"coordinate": "cst/s0101m.mul"}}),
    ("GET", "/api/v3/versions", {"query": {"coordinate": "DN 2"}}),
    ("GET", "/api/v3/dist", {"query": {"lemma": "parivāsa"}}),
    ("GET", "/api/v3/forms", {"query": {"word": "parivāsa", "unattested": "true"}}),
    ("GET", "/api/v3/word", {"query": {"word": "bhikkhu"}}),
    ("POST", "/api/v3/chat", {"body": {"messages": [{"role": "user", "content": "What is parivāsa?"}], "llm": False}}),
    ("POST", "/api/v3/chat", {"body": {"messages": [{"role": "user", "content": "parivāsa"}], "stream": True}}),
    ("GET", "/api/v1/documents/{key}", {"path_parameters": {"key": "cst/vin02m3.mul"}}),
    ("POST", "/api/v1/search", {"body": {"query": "bhikkhu", "granularity": "chapter", "page_size": 3}}),
    ("POST", "/api/v1/search", {"body": {"query": "parivāsa", "filters": {"book": ["vin02m3.mul"]}}}),
    ("DELETE", "/api/v1/documents/{key}", {"path_parameters": {"key": "cst/vin02a3.att"}}),
    (
        "POST",
        "/api/v1/documents",
        {"body": {"source": "markdown", "path": str(SOURCES)}, "media_type": "application/json"},
    ),
]


@pytest.mark.parametrize(("method", "path", "request_"), CHOSEN, ids=[f"{m} {p}" for m, p, _ in CHOSEN])
def test_chosen_requests(method, path, request_, request):
    """Requests with real answers: hits, hits cut to fields, whole texts, chapters, a streamed chat, a
    document, a deletion and an ingestion (the last two on the copy)."""
    case = schema[path][method].Case(**request_)
    if path.startswith("/api/v1/"):
        assert _call("chosen", _with_key(case), request.getfixturevalue("admin_app")) < 300
    else:
        assert _call("chosen", case, request.getfixturevalue("public_app")) < 300


def test_every_operation_was_exercised():
    """Each operation got requests; the admin ones were refused without the key and answered with it."""
    ran = {test for test, _, _ in ANSWERS} - {"chosen"}
    if not ran:
        pytest.skip("runs after the generated requests")
    for (test, op, status), n in sorted(ANSWERS.items()):
        print(f"{test:7} {op:40} {status} ×{n}")
    print(f"{sum(ANSWERS.values())} requests")
    operations = {r.ok().label for r in schema.get_all_operations()}
    admin = {r.ok().label for r in schema.include(tag="admin").get_all_operations()}
    expected = {"public": operations - admin, "no key": admin, "key": admin}
    for test in ran:
        assert {op for t, op, _ in ANSWERS if t == test} == expected[test], test
    assert not any(200 <= status < 300 for test, _, status in ANSWERS if test == "no key")
    if "key" in ran:
        assert {op for t, op, status in ANSWERS if t == "key" and status < 300} >= {
            "GET /api/v1/knowledge/stats",
            "GET /api/v1/documents",
            "GET /api/v1/documents/tasks",
            "POST /api/v1/documents",
        }
