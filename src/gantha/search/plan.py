"""Plan: a search request as an analysed store query, with the explanation shown to the caller.

Fuzzy mode matches diacritic-folded words (each Pali word every attested form of its lemma), exact mode
the canonical form as typed; bold occurrences rank first; a page reference selects the paragraphs on
that page of that edition, the one the page begins in first; the scope is the canon unless a corpus,
a book or a resource type is named."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from itertools import product

from gantha.model import Category, QueryInfo, SearchMode, SearchRequest, comma_list
from gantha.search import iti, resources
from gantha.search.errors import SearchError
from gantha.search.query import ParsedQuery, QuerySyntaxError, normalize, parse_query
from gantha.search.words import Inflection
from gantha.store.base import Clause, Store, StoreQuery
from gantha.text.analysis import words
from gantha.text.chinese import PARTICLES
from gantha.text.pali import canon, canon_word, fold
from gantha.text.refs import EDITIONS, parse_page_ref
from gantha.topics import scope

MAX_SCORED_FORMS = 400  # a lemma with more forms and compounds is ranked by its own forms alone (speed)
MAX_PREFIXES, MIN_PREFIX = 4, 2  # prefix* terms of one query (a one-letter prefix expands to ~1/20 of the words)
# query text, on every surface: above any verse or sentence a reader pastes (the Bible's longest verse, Esther 8:9,
# has 91 words and 529 characters in the KJV, the CUV's longest 63 words); each Pali word costs a lemma expansion
MAX_QUERY_CHARS, MAX_QUERY_WORDS = 1_000, 100
MAX_WILDCARDS, MIN_WILDCARD = 2, 3  # leading wildcards scan the term dictionary (~0.3 s each on the canon)
DEFAULT_CORPUS = "cst"  # the Pali canon: the corpus of a book named without one
CANONS = ("cst", "agama")  # searched unless a corpus or a book is named; other corpora answer when asked for
MAX_ITI_GROUPS = 64  # combinations of the spellings of a query's words quoted before iti


def _clause(field: str, tokens: list[str]) -> Clause:
    """A word, or a phrase of several."""
    return Clause(field, tokens, "phrase" if len(tokens) > 1 else "term")


def _highlighted(
    analysed: ParsedQuery, spelled: dict[str | tuple[str, ...], list[list[str]]], near: list[list[str]]
) -> ParsedQuery:
    """The query as snippets mark it: with every spelling of its iti words and both sides of each NEAR."""
    extra = [s for spellings in spelled.values() for s in spellings[1:]]
    return replace(
        analysed,
        terms=[*analysed.terms, *(s[0] for s in extra if len(s) == 1), *(f for forms in near for f in forms)],
        phrases=[*analysed.phrases, *(s for s in extra if len(s) > 1)],
    )


@lru_cache(maxsize=256)
def canonical_forms(forms: tuple[str, ...]) -> tuple[str, ...]:
    """The forms asked for, canonical and each once (a lemma's thousands of compounds: kept per lemma)."""
    return tuple(dict.fromkeys(canon_word(f) for f in forms if f.strip()))


def check_query(text: str) -> None:
    """``invalid_query`` for query text over :data:`MAX_QUERY_CHARS` characters or :data:`MAX_QUERY_WORDS` words."""
    if (chars := len(text)) > MAX_QUERY_CHARS:
        raise SearchError("invalid_query", f"a query of {chars:,} characters: at most {MAX_QUERY_CHARS:,} characters")
    if (count := len(words(text))) > MAX_QUERY_WORDS:
        raise SearchError("invalid_query", f"a query of {count:,} words: at most {MAX_QUERY_WORDS} words")


def refuse_unknown(store: Store, filters: dict[str, list[str]]) -> None:
    """``unknown_language`` or ``unknown_channel``, naming those of the index, for a value it does not hold."""
    channels = store.all_channels()
    known = {
        "language": {x for c in channels for x in (c.language, c.language.split("-")[0])},
        "channel": {c.name for c in channels},
    }
    for name, values in known.items():
        if bad := [v for v in filters.get(name, []) if v not in values]:
            raise SearchError(
                f"unknown_{name}", f"unknown {name} {bad[0]!r}; this index has {', '.join(sorted(values))}"
            )


def tag_groups(values: list[str]) -> list[list[str]]:
    """Tag filters as groups: ``,`` joins tags a passage must all have, ``;`` separates alternatives
    ("vinaya,khandhaka;abhidhamma" → [["vinaya", "khandhaka"], ["abhidhamma"]]); several values join with ``,``."""
    expression = ",".join(v for v in values if v.strip())
    groups = [[fold(t.strip()) for t in part.split(",") if t.strip()] for part in expression.split(";")]
    return [g for g in groups if g]


class Planner:
    """Turns requests into store queries against one store."""

    def __init__(
        self,
        store: Store,
        inflect: Callable[[str], Inflection | None] | None = None,
        headword: Callable[[str, bool], bool] | None = None,
    ):
        self.store = store
        self.inflect = inflect  # a word → every attested form of its lemma (the ordinary search's expansion)
        self.headword = headword  # (word, folded) → a dictionary headword: itself, not a word joined with iti

    def filters(self, req: SearchRequest) -> dict[str, list[str]]:
        books_known = self.store.books(channel=None)
        filters: dict[str, list[str]] = {}
        books = comma_list(req.books)
        if books:
            by_id = {rec.info.book: rec for rec in books_known.values()}
            unknown = [b for b in books if b not in by_id and b not in books_known]
            if unknown:
                raise SearchError(
                    "unknown_book",
                    f"unknown book {unknown[0]!r}: books are ids such as vin02m3.mul (see /api/v3/books)",
                )
            filters["book"] = [b.split("/", 1)[1] if b in books_known else b for b in books]
        categories = [resources.category(fold(c).replace("-", "")) for c in comma_list(req.categories)]
        valid = [c.value for c in Category]
        if bad := [c for c in categories if c not in valid]:
            names = ", ".join([*valid, *resources.CATEGORIES])
            raise SearchError("unknown_category", f"unknown category {bad[0]!r}; one of {names}")
        if categories:
            filters["category"] = categories
        known_tags = {t for rec in books_known.values() for t in rec.info.tags}
        for group in tag_groups(req.tags):
            if bad := [t for t in group if t not in known_tags]:
                raise SearchError("unknown_tag", f"unknown tag {bad[0]!r}; known tags: {', '.join(sorted(known_tags))}")
        for name, values in (("language", req.languages), ("channel", req.channels), ("corpus", req.corpora)):
            if vals := comma_list(values):
                filters[name] = vals
        refuse_unknown(self.store, filters)
        if kinds := comma_list(req.resource_types):  # the original API's resource types: corpora and channels
            try:
                corpora, channels = resources.channels_of(kinds, self.store.records())
            except KeyError as exc:
                raise SearchError(
                    "unknown_resource_type",
                    f"unknown resource_type {exc.args[0]!r}; one of {', '.join(resources.known())}",
                ) from exc
            filters["corpus"] = sorted(set(filters.get("corpus", corpora)) & corpora) or ["none"]
            if channels is not None:
                filters["channel"] = sorted(set(filters.get("channel", channels)) & channels) or ["none"]
        canons = sorted({rec.info.corpus for rec in books_known.values()} & set(CANONS))
        if "corpus" not in filters and "book" not in filters and canons:  # the default scope: the canons
            filters["corpus"] = canons

        if req.granularity not in (None, "paragraph", "sentence"):
            raise SearchError(
                "invalid_parameter",
                f"unknown granularity {req.granularity!r}; paragraph, sentence, book, chapter, sutta, section or auto",
            )
        if req.granularity == "paragraph":
            filters["granularity"] = ["paragraph"]
        return filters

    def scopes(self, req: SearchRequest) -> list[tuple[str, str, tuple[int, ...]]]:
        """The books and chapters the topic filters select (none: no topic filter)."""
        return scope.scopes(self.store, comma_list(req.topics), comma_list(req.topic_tags))

    def plan(self, req: SearchRequest, own_forms: list[str] | None = None) -> tuple[StoreQuery, QueryInfo, ParsedQuery]:
        """The store query for a request, with the explanation shown to the caller. ``bold_forms``: the
        forms whose bold occurrences rank first (default: all of ``req.forms``)."""
        normalized, steps = normalize(req.q, req.scheme)
        try:
            parsed = parse_query(normalized)
        except QuerySyntaxError as exc:
            raise SearchError("invalid_query", str(exc)) from exc
        info = QueryInfo(original=req.q, mode=req.mode, normalized=normalized, steps=steps, bold_only=req.bold_only)
        forms = list(canonical_forms(tuple(req.forms)))
        if parsed.empty and not req.page_ref and not forms and not req.comments_on:
            raise SearchError("empty_query", "empty query: give words to search for, forms, or a page reference")
        if parsed.terms and set(parsed.terms) <= PARTICLES and not (parsed.phrases or parsed.near or parsed.prefixes):
            raise SearchError(
                "invalid_query",
                f"{' '.join(parsed.terms)} alone is a particle found in nearly every Chinese paragraph: "
                "search a word or a phrase (e.g. 毒箭, \"四聖諦\")",
            )
        folded = req.mode != SearchMode.EXACT and not forms
        analysed = parsed.analysed(folded)
        field = "fold" if folded else "exact"
        info.field = field
        info.terms, info.phrases = analysed.terms, analysed.phrases
        info.prefixes = analysed.prefixes
        info.excluded = analysed.excluded + [p + "*" for p in analysed.excluded_prefixes]
        info.forms = forms

        sq = StoreQuery(limit=req.limit, offset=req.offset, filters=self.filters(req), order=req.order)
        sq.tag_groups = tag_groups(req.tags)
        sq.scopes = self.scopes(req)
        if "language" not in sq.filters and "channel" not in sq.filters:
            sq.filters["primary"] = ["yes"]  # originals, not aligned translations, unless a language is asked
        inflected = folded and req.inflections  # inflection-blind: every attested form of the lemma
        typed = dict(zip(analysed.terms, map(canon, parsed.terms), strict=True))  # each folded word as typed
        words = {t: self._inflected(t, info, typed[t]) if inflected else [t] for t in analysed.terms}
        spelled = self._iti(sq, info, analysed, words, folded)
        sq.must += [Clause(field, words[t]) for t in analysed.terms if t not in spelled]
        sq.must += [Clause(field, p, "phrase") for p in analysed.phrases if tuple(p) not in spelled]
        near = self._near(sq, info, analysed, inflected)
        sq.must += [Clause(field, [p], "prefix") for p in analysed.prefixes]
        prefixes = analysed.prefixes + analysed.excluded_prefixes
        if len(prefixes) > MAX_PREFIXES or any(len(p) < MIN_PREFIX for p in prefixes):
            raise SearchError(
                "invalid_query",
                f"at most {MAX_PREFIXES} prefix* terms, each of {MIN_PREFIX} letters or more: a prefix expands to "
                "every word it begins",
            )
        wildcards = [(s, "suffix") for s in analysed.suffixes] + [(s, "infix") for s in analysed.infixes]
        if len(wildcards) > MAX_WILDCARDS or any(len(s) < MIN_WILDCARD for s, _ in wildcards):
            raise SearchError(
                "invalid_query",
                f"at most {MAX_WILDCARDS} leading wildcards (*word, *part*), each of {MIN_WILDCARD} letters or more: "
                "they are matched against every word of the index",
            )
        sq.must += [Clause(field, [s], kind) for s, kind in wildcards]
        sq.rank_first += [Clause(f"bold_{field}", [s], kind) for s, kind in wildcards]
        info.prefixes += ["*" + s for s in analysed.suffixes] + ["*" + s + "*" for s in analysed.infixes]
        sq.must_not += [_clause(field, s) for t in analysed.excluded for s in self._spellings(t, folded)]
        sq.must_not += [Clause(field, [p], "prefix") for p in analysed.excluded_prefixes]
        bold_field = f"bold_{field}"
        sq.rank_first += [Clause(bold_field, words[t]) for t in analysed.terms]
        sq.rank_first += [Clause(bold_field, p, "phrase") for p in analysed.phrases]
        sq.rank_first += [_clause(bold_field, s) for spellings in spelled.values() for s in spellings[1:]]
        sq.rank_first += [Clause(bold_field, forms) for forms in near]
        sq.rank_first += [Clause(bold_field, [p], "prefix") for p in analysed.prefixes]
        if forms and own_forms and len(forms) > len(own_forms):  # a lemma with its compounds: match any
            sq.must.append(Clause("exact", forms, "set"))  # (thousands for dhamma), rank by its own forms
            sq.scoring.append(Clause("exact", forms if len(forms) <= MAX_SCORED_FORMS else own_forms, "forms"))
            sq.rank_first.append(Clause("bold_exact", own_forms))
        elif forms:
            sq.must.append(Clause("exact", forms, "forms"))
            sq.rank_first.append(Clause("bold_exact", own_forms or forms))
        if req.bold_only:  # at least one searched word must stand in bold
            sq.should = list(sq.rank_first)
        if req.variants:
            self._variants(sq, info)
        if req.comments_on:  # the commentary paragraphs on those root paragraphs, in reading order when no words
            sq.ids = [f"{c}@pali" for c in req.within] or ["none"]
            sq.order = "reading" if parsed.empty and not forms else sq.order

        if req.page_ref:
            ref = parse_page_ref(req.page_ref)
            sq.must.append(Clause("page_refs", [ref.key]))
            sq.rank_first = [Clause("page_starts", [ref.key])]
            sq.book_pattern = ref.books
            sq.order = "reading" if parsed.empty else "score"
            info.page_ref = {
                "key": ref.key,
                "short": ref.short,
                "edition": EDITIONS[ref.edition],
                "volume": ref.volume,
                "page": ref.page,
                "books": ref.books,
                "label": ref.label,
            }
            info.bold_ranking = False
        info.filters = {k: v for k, v in sq.filters.items()}
        for name, values in (("topic", req.topics), ("topic_tags", req.topic_tags)):
            if values := comma_list(values):
                info.filters[name] = values
        return sq, info, _highlighted(analysed, spelled, near)

    def _iti(
        self,
        sq: StoreQuery,
        info: QueryInfo,
        analysed: ParsedQuery,
        words: dict[str, list[str]],
        folded: bool,
    ) -> dict[str | tuple[str, ...], list[list[str]]]:
        """A word quoted before iti matches each of its spellings (``gantha.search.iti``): every term or
        phrase that has several becomes a choice among them, the choices combined as ``alternatives`` (at
        most :data:`MAX_ITI_GROUPS` combinations; a word past them matches as typed). Returns the rewritten
        terms and phrases (a phrase as a tuple) with their spellings, as typed first."""
        field = info.field
        spelled: dict[str | tuple[str, ...], list[list[str]]] = {}
        choices: list[list[Clause]] = []
        typed = [(t, self._spellings(t, folded)) for t in analysed.terms]
        typed += [(tuple(p), iti.variants(p, lambda w: self._spellings(w, folded))) for p in analysed.phrases]
        combinations = 1
        for key, spelt in typed:
            if len(spelt) < 2 or combinations * len(spelt) > MAX_ITI_GROUPS:
                continue
            combinations *= len(spelt)
            spelled[key] = spelt
            own = Clause(field, words[key]) if isinstance(key, str) else Clause(field, list(key), "phrase")
            choices.append([own] + [_clause(field, s) for s in spelt[1:]])
            info.iti.append(
                {"typed": key if isinstance(key, str) else " ".join(key), "spellings": [" ".join(s) for s in spelt]}
            )
        if choices:
            sq.alternatives = [list(group) for group in product(*choices)]
        return spelled

    @staticmethod
    def _variants(sq: StoreQuery, info: QueryInfo) -> None:
        """Each condition on the text may be met in a variant reading instead (``variants_<field>``): every
        combination of text and variant per condition becomes a group of ``alternatives`` (at most
        :data:`MAX_ITI_GROUPS`; past them a condition holds on the text alone)."""
        info.variants = True
        own = [c for c in sq.must if c.field == info.field]
        groups: list[list[Clause]] = [list(g) for g in sq.alternatives] or [[]]
        kept = [c for c in sq.must if c.field != info.field]
        for c in own:
            if len(groups) * 2 > MAX_ITI_GROUPS:
                kept.append(c)
                continue
            groups = [[*g, x] for g in groups for x in (c, replace(c, field=f"variants_{c.field}"))]
        if len(kept) > len(sq.must) - len(own):
            info.notes.append("too many words to look for each in the variant readings: the last ones in the text only")
        sq.must, sq.alternatives = kept, groups

    def _spellings(self, word: str, folded: bool) -> list[list[str]]:
        """The word's spellings before iti (``gantha.search.iti``); a dictionary headword's only itself
        (pajānāti, vāti: the verbs, not pajānā, vā + iti)."""
        return [[word]] if self.headword and self.headword(word, folded) else iti.spellings(word, folded)

    def _near(self, sq: StoreQuery, info: QueryInfo, analysed: ParsedQuery, inflected: bool) -> list[list[str]]:
        """``word NEAR/n word`` clauses, each side every attested form of its lemma (fuzzy mode, inflections
        on) or the word as typed; the words' own clauses rank the matches. Returns each side's forms."""
        sides: list[list[str]] = []
        for n in analysed.near:
            pair = [self._inflected(w, info) if inflected else [w] for w in (n.left, n.right)]
            sq.must.append(Clause(info.field, [], "near", groups=pair, distance=n.distance))
            sq.scoring += [Clause(info.field, forms) for forms in pair]
            info.near.append({"words": [n.left, n.right], "distance": n.distance, "forms": pair})
            sides += pair
        return sides

    def _inflected(self, word: str, info: QueryInfo, typed: str | None = None) -> list[str]:
        """Every attested form of the (folded) word's lemma, the word first, noted in ``info.inflections``;
        the word alone when its lemma has no other. ``typed``: the word as typed, whose diacritics, when
        given, choose among the lemmas its folded form could belong to."""
        inf = self.inflect(typed or word) if self.inflect else None
        if not inf or len(inf.forms) < 2:
            return [word]
        if all(i["word"] != word for i in info.inflections):
            info.inflections.append(
                {"word": word, "lemma": inf.lemma, "forms": list(inf.forms), "others": list(inf.others)}
            )
        return list(dict.fromkeys([word, *inf.forms]))
