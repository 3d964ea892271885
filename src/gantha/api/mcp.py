"""MCP server (official ``mcp`` SDK, stdio): the research verbs as tools for a model.

Descriptions are written for the model that calls them: what each tool is for, which search to
use when, and that a lemma must be expanded to its forms before searching the Pali exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gantha.model import SearchMode, SearchRequest
from gantha.research import Research
from gantha.store.embedded import StoreError

INSTRUCTIONS = """Search and read the Pali canon (Chaṭṭha Saṅgāyana Tipiṭaka) and its translations.
Every passage has a coordinate such as cst/vin02m3.mul/75 (corpus/book/paragraph). Cite only
coordinates these tools returned, and fetch the text you quote with `get`.
Typical research chain: `word` (spelling, meaning) → `forms` (every attested inflected form of the
lemma) → `search` with those forms (first bold=true: the commentaries' definitions) → `dist` (where
the hits are) → `get` (the paragraphs to quote, with citations) → `chapter` (context; size first)
→ `versions` (is there a translation?). An empty result is an answer: say the texts do not have it."""


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(exclude_none=True)


def build_server(index: Path) -> MCPServer:
    """An MCP server over the index at ``index``."""
    research = Research.open(index)
    server = MCPServer("gantha", instructions=INSTRUCTIONS, log_level="WARNING")

    def tool(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        """Register a tool whose user errors reach the model as a readable message."""

        @wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                return fn(*args, **kwargs)
            except (ValueError, StoreError) as exc:  # bad coordinate, page ref, mode, unknown book …
                raise ToolError(str(exc)) from exc

        return server.tool()(wrapper)

    def _search(**kwargs: Any) -> dict[str, Any]:
        lemma = kwargs.pop("lemma", None)
        res = research.search(SearchRequest(**{k: v for k, v in kwargs.items() if v is not None}), lemma=lemma)
        return _dump(res)

    @tool
    def search(
        query: str = "",
        mode: str = "fuzzy",
        forms: list[str] | None = None,
        lemma: str | None = None,
        bold: bool = False,
        books: list[str] | None = None,
        categories: list[str] | None = None,
        tags: list[str] | None = None,
        page_ref: str | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> dict[str, Any]:
        """Search Pali passages; returns coordinates, snippets and per-book/category counts.

        mode "fuzzy" ignores diacritics (type parivasa for parivāsa); "exact" matches the form as
        written; "semantic" and "hybrid" search by meaning (vectors, across languages) and may answer
        outcome "not_found" with only "weak" candidates: then say the texts do not have it.
        The query understands "a phrase", -excluded and prefix*. To find every inflection of a word,
        do NOT rely on one form: pass `lemma` (expanded to its attested forms, listed in
        query_info.lemma) or the `forms` from the `forms` tool. bold=true keeps passages where the
        word stands in bold — the commentaries' definitions. categories: mula (root texts),
        atthakatha (commentaries), tika (subcommentaries), anya (others). An outcome of
        "unattested_form" means the word is a headword but never occurs in that form.
        """
        return _search(
            q=query,
            mode=SearchMode(mode),
            forms=forms or [],
            lemma=lemma,
            bold_only=bold,
            books=books or [],
            categories=categories or [],
            tags=tags or [],
            page_ref=page_ref,
            limit=limit,
            offset=offset,
        )

    @tool
    def similar_sentences(sentence: str, limit: int = 10) -> dict[str, Any]:
        """Sentences whose sequence of lemmas matches this one regardless of inflection and sandhi,
        each with a 0–1 similarity (1.0: the same lemmas in the same order). For finding parallels."""
        return _dump(research.similar(sentence, limit=limit))

    @tool
    def forms(word: str) -> dict[str, Any]:
        """Expand a Pali word to its lemma and every form attested in the canon, with paragraph and
        bold counts and which source proposed each form. Use before an exact search."""
        return _dump(research.forms(word))

    @tool
    def word(word: str) -> dict[str, Any]:
        """Dictionary meanings (English, Chinese, Sinhala) and morphology (lemma, case, number) of a Pali word."""
        return _dump(research.word(word))

    @tool
    def dist(forms: list[str] | None = None, lemma: str | None = None, bold: bool = False) -> dict[str, Any]:
        """How the paragraphs containing any of these forms spread over books: title, category
        (root text / commentary / subcommentary), tags, counts. Give forms or a lemma."""
        return _dump(research.dist(forms or [], lemma=lemma, bold_only=bold))

    @tool
    def get(coordinates: list[str], channels: list[str] | None = None, tokens: bool = False) -> dict[str, Any]:
        """Fetch paragraphs by coordinate, with heading path, page refs of every edition and
        ready citations. channels: pali (default), my (Burmese), en (English), pli-ms. A channel
        without text there comes back with status "missing" — say so rather than translate yourself.
        tokens=true adds each word's lemma and grammar."""
        return _dump(research.get(coordinates, channels or None, tokens))

    @tool
    def chapter(coordinate: str, confirm: bool = False) -> dict[str, Any]:
        """The chapter containing a coordinate. Without confirm only its size (paragraphs, tokens):
        check the size before asking for the text with confirm=true."""
        return _dump(research.chapter(coordinate, confirm))

    @tool
    def versions(coordinate: str) -> dict[str, Any]:
        """Which channels (original, translations) have text at a coordinate and which are missing,
        with language, translator and provenance."""
        return _dump(research.versions(coordinate))

    @tool
    def suggest(q: str, type: str = "term", limit: int = 10) -> dict[str, Any]:
        """Complete a partial word (ASCII → Pali with diacritics, by frequency), a Chinese term
        (→ Pali headwords) or a page reference (type page_ref)."""
        return _dump(research.suggest(q, type, limit))

    # the function-calling set of the original design
    @tool
    def search_by_query(query: str, page: int = 1, page_size: int = 10) -> dict[str, Any]:
        """Search by meaning and words together (hybrid) for descriptive questions, in any language;
        falls back to keyword search where no vectors were built."""
        mode = SearchMode.HYBRID if research.searcher.semantic else SearchMode.FUZZY
        return _search(q=query, mode=mode, limit=page_size, offset=(page - 1) * page_size)

    @tool
    def search_by_page_ref(page_ref: str) -> dict[str, Any]:
        """The paragraphs on a page of a print edition: "PTS Vin II 31", "P2.31", "M0.82", "V0.77"."""
        return _search(page_ref=page_ref, limit=20)

    @tool
    def get_term_definition(term: str) -> dict[str, Any]:
        """Define a Pali or Buddhist term: dictionary meanings plus the passages where the term
        stands in bold (the commentaries' own definitions)."""
        definition = _dump(research.word(term))
        expansion = research.forms(term)
        bold = (
            _search(forms=[f.form for f in expansion.forms], bold_only=True, limit=5)
            if expansion.forms
            else {"hits": []}
        )
        return {"definition": definition, "bold_passages": bold.get("hits", [])}

    @tool
    def search_pali(term: str, bold: bool = False, limit: int = 10) -> dict[str, Any]:
        """Search a Pali word in all its inflections: the lemma is expanded to every attested form first."""
        return _search(lemma=term, bold_only=bold, limit=limit)

    return server
