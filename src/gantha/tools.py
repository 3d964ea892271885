"""The research verbs as model tools, one definition shared by the MCP server and the chat agent.

Docstrings are written for the model that calls them: what each tool is for, which search to
use when, and that a lemma must be expanded to its forms before searching the Pali exactly.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, create_model

from gantha.budget import AGENT_BYTES, MAX_BYTES, MIN_BYTES, fit, lean
from gantha.model import MAX_LIMIT, MAX_OFFSET, SearchMode, SearchRequest
from gantha.research import Research
from gantha.search.present import unrepeated
from gantha.search.service import compact
from gantha.verbs import VERBS, Verb

Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description=f"hits per page, 1–{MAX_LIMIT}")]
Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET, description=f"hits to skip, 0–{MAX_OFFSET:,}")]
Fields = Annotated[
    list[str] | None,
    Field(description="keep only these fields of each hit (coordinate, snippet, path …) and of query_info"),
]
MaxBytes = Annotated[
    int | None,
    Field(ge=MIN_BYTES, le=MAX_BYTES, description="reply budget in bytes; what is cut to fit is named in omitted"),
]

INSTRUCTIONS = f"""Search and read the Pali canon (Chaṭṭha Saṅgāyana Tipiṭaka) and its translations.
Every passage has a coordinate such as cst/vin02m3.mul/75 (corpus/book/paragraph); a sutta reference
(MN 10, SN 56.11, AN 3.65, Dhp 183, Kd 12) is accepted wherever a coordinate is. Cite only
coordinates these tools returned, and fetch the text you quote with `get`.
Typical research chain: `word` (spelling, meaning) → `forms` (every attested inflected form of the
lemma) → `search` with those forms (first bold=true: the commentaries' definitions) → `dist` (where
the hits are) → `get` (the paragraphs to quote, with citations) → `chapter` (context; size first)
→ `versions` (is there a translation?). `links` answers in one call a paragraph's commentary and
subcommentary, who cites it, its parallels and its variant readings. An empty result is an answer: say
the texts do not have it.
Every tool takes max_bytes, a reply budget (over MCP {AGENT_BYTES:,} unless given, {MIN_BYTES:,} at least):
a reply cut to fit says what it left out in `omitted` (ask again with offset, limit or fields, or a larger
max_bytes).
`help` with a tool's name answers its whole description and what each of its arguments means."""


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(exclude_none=True)


def _reply(data: dict[str, Any], max_bytes: int | None) -> dict[str, Any]:
    """A tool's reply; with a budget, lean (no empty or repeated fields) and cut to fit it (:func:`fit`)."""
    return data if max_bytes is None else fit(lean(unrepeated(data)), max_bytes)


def _tool(verb: Verb, research: Research) -> Callable[..., dict[str, Any]]:
    """The tool function of a research verb: its parameters as keyword arguments, with bounds and help."""

    def tool(**values: Any) -> dict[str, Any]:
        params = verb.params(**values)
        return verb.reply(verb.run(research, params), params)

    parameters, hints = [], {}
    for name, field in verb.params.model_fields.items():
        hints[name] = Annotated[(field.annotation, *field.metadata, Field(description=field.description))]
        default = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
        parameters.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hints[name])
        )
    tool.__signature__ = inspect.Signature(parameters, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    tool.__annotations__ = {**hints, "return": dict[str, Any]}
    tool.__name__ = tool.__qualname__ = verb.tool_name
    tool.__doc__ = verb.doc
    return tool


class Toolbox:
    """The tools over one :class:`Research`; each returns JSON-ready data or raises ``ValueError``.

    The research verbs' tools are generated from :data:`gantha.verbs.VERBS`; the search tools are here.
    """

    NAMES = (
        "search",
        *(verb.tool_name for verb in VERBS),
        "search_by_query",
        "search_by_page_ref",
        "get_term_definition",
        "search_pali",
    )

    def __init__(self, research: Research) -> None:
        self.research = research
        for verb in VERBS:
            setattr(self, verb.tool_name, _tool(verb, research))

    def functions(self) -> list[Callable[..., dict[str, Any]]]:
        return [getattr(self, name) for name in self.NAMES]

    def _search(self, max_bytes: int | None = None, **kwargs: Any) -> dict[str, Any]:
        lemma, fields = kwargs.pop("lemma", None), kwargs.pop("fields", None)
        req = SearchRequest(**{k: v for k, v in kwargs.items() if v is not None})
        return _reply(compact(_dump(self.research.search(req, lemma=lemma)), fields or []), max_bytes)

    def search(
        self,
        query: str = "",
        mode: str = "fuzzy",
        forms: list[str] | None = None,
        lemma: str | None = None,
        bold: bool = False,
        books: list[str] | None = None,
        categories: list[str] | None = None,
        tags: list[str] | None = None,
        topics: list[str] | None = None,
        topic_tags: list[str] | None = None,
        page_ref: str | None = None,
        limit: Limit = 10,
        offset: Offset = 0,
        compounds: bool = True,
        derivatives: bool = True,
        inflections: bool = True,
        order: Literal["score", "reading"] = "score",
        fields: Fields = None,
        granularity: Literal["paragraph", "sentence", "book", "chapter", "sutta", "section", "auto"] = "paragraph",
        variants: bool = False,
        comments_on: Annotated[list[str] | None, Field(max_length=20)] = None,
        max_bytes: MaxBytes = None,
    ) -> dict[str, Any]:
        """Search Pali passages by words (fuzzy, exact; "a phrase", -not, prefix*, a NEAR/3 b) or meaning (hybrid).

        Answers coordinates, snippets and counts per book and category.

        mode "fuzzy" ignores diacritics (type parivasa for parivāsa) and inflection (each word matches
        every attested form of its lemma, listed in query_info.inflections; inflections=false keeps the
        typed word); "exact" matches the form as written; "semantic" and "hybrid" search by meaning
        (vectors, across languages) and may answer outcome "not_found" with only "weak" candidates:
        then say the texts do not have it. The query understands "a phrase", -excluded, prefix* and
        word NEAR/3 word (at most 3 words between, either order, every form of each; NEAR alone: 5); a word
        quoted before iti matches however the texts write it (gacchāmīti = gacchāmī’ti = gacchāmī ti).
        To find every occurrence of a word pass `lemma`: its attested forms (query_info.lemma), its
        derivatives (pārivāsika of parivāsa; derivatives=false: without) and the compounds holding it
        (compounds=false: without); each hit says which forms matched and whether inside a compound;
        ranked by the lemma's frequency, bold definitions first (order="reading": book order). For many
        hits ask fields=["coordinate","book","path","snippet"]. bold=true keeps passages where the word
        stands in bold — the commentaries' definitions. granularity "chapter", "sutta", "section" or
        "book" answers whole texts (nodes: title, summary, size, confidence, evidence) for questions about
        a whole text; "auto" descends while a chapter holds most of the evidence. categories: mula
        (root texts), atthakatha (commentaries), tika (subcommentaries), anya (others). topics: categories
        of the taxonomy (monastic-discipline, meditation, ethics-lay-life, doctrine-analysis, cosmology,
        narratives-biography, devotional-verse, language-grammar, uncategorized) of a passage's chapter;
        topic_tags: its soft tags; aggregations "topic" and "topic_tags" count the hits. An outcome of
        "unattested_form" means the word is a headword but never occurs in that form. variants=true also
        matches words that stand only in another edition's variant reading (such hits say variant_only and
        variant_readings). comments_on (root paragraphs: ["vin02m3.mul/75-110"], ["MN 10"]) searches only the
        aṭṭhakathā and ṭīkā paragraphs on them — with no query, all of them in reading order.
        """
        return self._search(
            q=query,
            mode=SearchMode(mode),
            forms=forms or [],
            lemma=lemma,
            bold_only=bold,
            books=books or [],
            categories=categories or [],
            tags=tags or [],
            topics=topics or [],
            topic_tags=topic_tags or [],
            page_ref=page_ref,
            limit=limit,
            offset=offset,
            compounds=compounds,
            derivatives=derivatives,
            inflections=inflections,
            order=order,
            fields=fields,
            granularity=None if granularity == "paragraph" else granularity,
            variants=variants,
            comments_on=comments_on or [],
            max_bytes=max_bytes,
        )

    # the function-calling set of the original design
    def search_by_query(
        self,
        query: str,
        page: Annotated[int, Field(ge=1, le=MAX_OFFSET)] = 1,
        page_size: Limit = 10,
        max_bytes: MaxBytes = None,
    ) -> dict[str, Any]:
        """Search by meaning and words together (hybrid) for a question in English or Chinese.

        Answers Pali paragraphs (with sutta number, title and the English beside), or not_found when
        nothing is relevant enough; falls back to keyword search where no vectors were built."""
        mode = SearchMode.HYBRID if self.research.searcher.semantic else SearchMode.FUZZY
        return self._search(q=query, mode=mode, limit=page_size, offset=(page - 1) * page_size, max_bytes=max_bytes)

    def search_by_page_ref(self, page_ref: str, max_bytes: MaxBytes = None) -> dict[str, Any]:
        """The paragraphs on a page of a print edition: "PTS Vin II 31", "P2.31", "M0.82", "V0.77"."""
        return self._search(page_ref=page_ref, limit=20, max_bytes=max_bytes)

    def get_term_definition(self, term: str, max_bytes: MaxBytes = None) -> dict[str, Any]:
        """Define a Pali or Buddhist term: its dictionary meanings and its bold definitions in the commentaries.

        The passages where the term stands in bold are the commentaries' own definitions."""
        definition = _dump(self.research.word(term))
        expansion = self.research.forms(term, derivatives=False)
        forms = [f.form for f in expansion.forms]
        bold = self._search(forms=forms, bold_only=True, limit=5) if forms else {"hits": []}
        return _reply({"definition": definition, "bold_passages": bold.get("hits", [])}, max_bytes)

    def search_pali(
        self, term: str, bold: bool = False, limit: Limit = 10, max_bytes: MaxBytes = None
    ) -> dict[str, Any]:
        """Search a Pali word in all its inflections: the lemma is expanded to every attested form first."""
        return self._search(lemma=term, bold_only=bold, limit=limit, max_bytes=max_bytes)


def function_spec(fn: Callable[..., Any], brief: bool = False) -> dict[str, Any]:
    """The OpenAI ``tools`` entry for a tool function: name, description and JSON-schema parameters.

    ``brief`` keeps only the description's first paragraph (a shorter prompt for small local models).
    """
    hints = typing.get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(fn).parameters.items():
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (hints.get(name, Any), default)
    schema = create_model(f"{fn.__name__}_args", **fields).model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    description = inspect.cleandoc(fn.__doc__ or "")
    if brief:
        description = description.split("\n\n")[0].replace("\n", " ")
    return {"type": "function", "function": {"name": fn.__name__, "description": description, "parameters": schema}}
