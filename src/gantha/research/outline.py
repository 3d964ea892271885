"""The verb ``outline``: the tree of a text (corpus › book › chapter › section …) with sizes and summaries.

Every node has a coordinate: ``cst`` (the corpus: its books), ``cst/vin02m3.mul`` (a book),
``cst/vin02m3.mul/ch3`` (its third chapter: the top heading below the book, as the ``chapter``
aggregation counts them), ``cst/vin02m3.mul/ch3.2`` (the second section of that chapter), ``ch3.2.1``
and so on down the heading levels. The tree is read from the headings every passage carries (CST's
nikāya › book › chapter › title › subhead; the Bible's book › chapter; a Markdown file's headings), so
every corpus has one and the coordinates stay the same as long as the text does (a Markdown file's
chapters are its top headings below its title; a text with no headings at all is cut into sections by
length and topic shift, the original design's "2.5-level" fallback). A paragraph
coordinate or a sutta reference (``MN 10``) names the smallest node holding it.

A node's summary is extractive (:func:`gantha.text.summary.central`): its opening sentence and its most
central ones, from the aligned English where the canon has it, else from the text itself — or the one a
model wrote, where ``gantha summarize`` stored one (:mod:`gantha.summaries`). A book's and a
chapter's topic in the taxonomy (:mod:`gantha.topics`) is shown with its confidence; a section shows its
chapter's.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field, replace

from pydantic import BaseModel, Field

from gantha.corpus.blurbs import Description
from gantha.model import HEADING_KINDS, Passage, TextRecord, TopicRecord
from gantha.research.descriptions import match
from gantha.search.errors import SearchError
from gantha.text.pali import fold
from gantha.text.segment import cut
from gantha.text.sentences import split
from gantha.text.summary import central

NODE = re.compile(r"^(?P<book>[^/]+/[^/]+)/ch(?P<key>\d+(?:\.\d+)*)$")  # cst/vin02m3.mul/ch3.2
SUMMARY_CHANNELS = ("en",)  # translations a Pali node's summary is taken from, where they have text
MAX_BOOKS = 256  # outlines kept in memory (the whole CST: about 50 MB)
SAMPLE = 240  # paragraphs a long node's summary is drawn from
SECTION_WORDS = 6  # words of its opening that title a section cut from a text without headings


class OutlineNode(BaseModel):
    coordinate: str
    level: str  # corpus | book | chapter | section
    title: str
    path: list[str] = Field(default_factory=list)  # headings from the book down to this node
    first: str | None = None  # its first and last paragraph
    last: str | None = None
    paragraphs: int = 0
    characters: int = 0
    children: int = 0
    sutta: str | None = None  # the named text this node holds whole, "MN 10"
    summary: str | None = None
    summary_channel: str | None = None  # the channel the summary was taken from: en, pali …
    summary_by: str | None = None  # "suttacentral" (its blurb), "extractive", or "model:<name>" (`gantha summarize`)
    title_zh: str | None = None  # its Chinese name, where SuttaCentral gives one
    topic: str | None = None  # its category in the taxonomy (a book's or chapter's), or "uncategorized"
    topic_confidence: float | None = None
    topic_tags: list[str] = Field(default_factory=list)  # soft tags: the other candidate categories


class OutlineResult(BaseModel):
    node: OutlineNode
    parents: list[OutlineNode] = Field(default_factory=list)  # outermost first
    children: list[OutlineNode] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Slot:
    """What a tree keeps of a passage (its text is fetched when a summary needs it)."""

    seq: int
    coordinate: str
    kind: str
    chars: int

    @classmethod
    def of(cls, p: Passage) -> _Slot:
        return cls(p.seq, p.coordinate, p.kind, len(p.text))


@dataclass(eq=False)
class _Node:
    key: tuple[int, ...]
    title: str
    passages: list[_Slot] = field(default_factory=list)
    children: list[_Node] = field(default_factory=list)
    parent: _Node | None = None
    sutta: str | None = None  # the named text this node holds whole

    @property
    def first_seq(self) -> int:
        return self.passages[0].seq if self.passages else -1

    @property
    def last_seq(self) -> int:
        return self.passages[-1].seq if self.passages else -1

    def walk(self):  # type: ignore[no-untyped-def]
        yield self
        for child in self.children:
            yield from child.walk()


def node_coordinate(corpus: str, book: str, node: _Node) -> str:
    """``cst/vin02m3.mul`` (the book), ``cst/vin02m3.mul/ch3`` (a chapter), ``…/ch3.2`` (a section)."""
    return f"{corpus}/{book}" + (f"/ch{'.'.join(map(str, node.key))}" if node.key else "")


def node_level(node: _Node) -> str:
    return "book" if not node.key else "chapter" if len(node.key) == 1 else "section"


def _book_depth(passages: list[Passage]) -> int:
    """How many headings of a passage's path lie above its chapter (the nikāya and book titles)."""
    depths = [p.path.index(p.chapter_title) for p in passages if p.chapter >= 1 and p.chapter_title in p.path]
    if depths:
        return min(depths)
    paths = [p.path for p in passages if p.path]
    if not paths:
        return 0
    common = 0
    while all(len(x) > common and x[common] == paths[0][common] for x in paths):
        common += 1
    return common - 1 if all(len(x) == common for x in paths) else common  # one chapter: its heading


def _heading_chapters(passages: list[Passage]) -> list[Passage]:
    """A text without numbered chapters (a Markdown file): its top headings below the book title are its
    chapters, numbered in reading order."""
    if any(p.chapter >= 1 for p in passages):
        return passages
    depth, titles, out = _book_depth(passages), [], []
    for p in passages:
        if len(p.path) > depth:
            if not titles or titles[-1] != p.path[depth]:
                titles.append(p.path[depth])
            p = replace(p, chapter=len(titles), chapter_title=p.path[depth])
        out.append(p)
    return out if titles else _cut_sections(passages)


def _cut_sections(passages: list[Passage]) -> list[Passage]:
    """A text with no headings at all: sections cut by length and topic shift (:mod:`gantha.text.segment`),
    each titled by its opening words."""
    starts = set(cut([p.text for p in passages]))
    if len(starts) < 2:
        return passages
    out, number, title = [], 0, ""
    for i, p in enumerate(passages):
        if i in starts:
            number += 1
            words = p.text.split()
            title = f"§{number} " + " ".join(words[:SECTION_WORDS]) + (" …" if len(words) > SECTION_WORDS else "")
        out.append(replace(p, chapter=number, chapter_title=title))
    return out


def build_tree(title: str, passages: list[Passage], texts: list[TextRecord] = ()) -> _Node:
    """The heading tree of one book's passages in reading order, with the book's named ``texts``
    (suttas, rules): where one runs over several sibling headings, they are gathered under one node.

    Chapters are the book's own (a passage's ``chapter``, as the ``chapter`` aggregation counts them);
    below a chapter, the headings of each passage's path under the chapter's heading."""
    root = _Node((), title)
    passages = _heading_chapters(passages)
    depth = _book_depth(passages)
    stack = [root]
    for p in passages:
        if p.chapter < 1:  # before the first chapter: the book's own headings
            del stack[1:]
            root.passages.append(_Slot.of(p))
            continue
        if len(stack) < 2 or stack[1].key != (p.chapter,):
            del stack[1:]
            heading = p.chapter_title or (p.path[depth] if len(p.path) > depth else "")
            chapter = _Node((p.chapter,), heading, parent=root)
            root.children.append(chapter)
            stack.append(chapter)
        at = p.path.index(p.chapter_title) + 1 if p.chapter_title in p.path else depth + 1
        rel = p.path[at:]
        i = 0
        while i < len(rel) and i + 2 < len(stack) and stack[i + 2].title == rel[i]:
            i += 1
        del stack[i + 2 :]
        for heading in rel[i:]:
            node = _Node((), heading, parent=stack[-1])
            stack[-1].children.append(node)
            stack.append(node)
        slot = _Slot.of(p)
        for node in stack:
            node.passages.append(slot)
    _gather(root, sorted(texts, key=lambda t: (t.first_seq, -t.last_seq)))
    _number(root)
    return root


def _body_seq(node: _Node) -> int:
    return next((p.seq for p in node.passages if p.kind not in HEADING_KINDS), node.first_seq)


def _stem(title: str) -> str:
    """A heading or a title without its number and its ``sutta``/``suttaṃ``: ``5. Anaṅgaṇasuttaṃ`` → ``anangana``."""
    return re.sub(r"(sutta|suttam|suttanta|suttantam|vagga|vaggo)$", "", fold(re.sub(r"[\W\d_]+", "", title)))


def _starting(node: _Node, texts: list[TextRecord]) -> TextRecord | None:
    """The longest named text that begins with this node (between its heading and its first body text)
    and bears its name, where the text has a Pali title."""
    k, body, heading = bisect_left(texts, node.first_seq, key=lambda t: t.first_seq), _body_seq(node), _stem(node.title)
    found = []
    for t in texts[k:]:
        if t.first_seq > body:
            break
        name = _stem(t.pali_title)
        if not name or not heading or name[:5] == heading[:5] or name in heading or heading in name:
            found.append(t)
    return max(found, key=lambda t: t.last_seq - t.first_seq, default=None)


def _gather(node: _Node, texts: list[TextRecord]) -> None:
    """Mark the nodes that are a named text, and gather the runs of sibling nodes that one named text
    spans under a node of their own."""
    kids, out, i = node.children, [], 0
    while i < len(kids):
        text, j = _starting(kids[i], texts), i
        starts_here = text is not None
        if starts_here and text.last_seq > kids[i].last_seq:
            while j + 1 < len(kids) and kids[j + 1].first_seq <= text.last_seq:
                j += 1
        if j > i:
            group = _Node((), kids[i].title, [p for k in kids[i : j + 1] for p in k.passages], kids[i : j + 1], node)
            for k in group.children:
                k.parent = group
            group.sutta = text.label
            out.append(group)
        else:
            if starts_here and text.last_seq >= kids[i].last_seq:
                kids[i].sutta = text.label
            out.append(kids[i])
        i = j + 1
    node.children = out
    for child in node.children:
        if not child.sutta:
            _gather(child, texts)


def _number(node: _Node) -> None:
    """Keys: a chapter keeps its chapter number (as the ``chapter`` aggregation counts), deeper nodes their
    place among their siblings."""
    taken: set[int] = set()
    for place, child in enumerate(node.children, 1):
        number = child.key[0] if node.parent is None and child.key and child.key[0] >= 1 else place
        while number in taken:
            number += 1
        taken.add(number)
        child.key = (*node.key, number)
        _number(child)


class OutlineVerbs:
    """Needs ``store``, ``resolve``, ``named``."""

    _outlines: dict[tuple[str, str], tuple[_Node, str]]  # (corpus, book) → its tree, the channel read
    _summaries: dict[tuple[str, str, tuple[int, ...]], tuple[str | None, str | None]]
    _named_texts: list[TextRecord] | None  # every named text of the index, read once
    _descriptions: dict[tuple[str, str], dict[tuple[int, ...], Description]]  # (corpus, book) → node key → its

    def outline(self, coordinate: str, summaries: bool = True) -> OutlineResult:
        """The node a coordinate names, its parents and its children, with sizes (and summaries)."""
        coordinate = coordinate.strip().rstrip("/")
        if "/" not in coordinate and coordinate in {r.info.corpus for r in self.store.books(channel=None).values()}:
            return self._corpus_outline(coordinate)
        corpus, book, node = self._locate(coordinate)
        tree = node
        while tree.parent is not None:
            tree = tree.parent
        chain = []
        up = node.parent
        while up is not None:
            chain.insert(0, up)
            up = up.parent
        show = self._shower(corpus, book, summaries)
        return OutlineResult(
            node=show(node, True),
            parents=[show(n, False) for n in chain],
            children=[show(c, summaries) for c in node.children],
        )

    # --- the tree of a book --------------------------------------------------------------------

    def _book_tree(self, corpus: str, book: str) -> tuple[_Node, str]:
        """The tree of a book and the channel it was read from: the original, else an English one (a Bible
        book is sized and summarised from the KJV, not the Chinese), else the first."""
        cache = self._outlines
        if (corpus, book) not in cache:
            records = self.store.channels(corpus, book)
            if not records:
                raise SearchError("not_found", f"no book {corpus}/{book} in the index")
            english = (r for r in records if r.channel.language.partition("-")[0] == "en")
            record = next((r for r in records if r.channel.type == "original"), next(english, records[0]))
            passages = self.store.book_passages(corpus, book, record.channel.name)
            if len(cache) >= MAX_BOOKS:
                cache.pop(next(iter(cache)))
            if self._named_texts is None:
                self._named_texts = self.store.texts()
            texts = [t for t in self._named_texts if t.corpus == corpus and t.book == book]
            tree = build_tree(record.info.title, passages, texts)
            cache[(corpus, book)] = (tree, record.channel.name)
        return cache[(corpus, book)]

    def _locate(self, coordinate: str) -> tuple[str, str, _Node]:
        """The book and node a coordinate, a node coordinate or a reference names."""
        if m := NODE.match(coordinate):
            corpus, book = m.group("book").split("/")
            tree, _ = self._book_tree(corpus, book)
            key = tuple(int(k) for k in m.group("key").split("."))
            found = next((n for n in tree.walk() if n.key == key), None)
            if found is None:
                raise SearchError("not_found", f"no node {coordinate} (see `outline {corpus}/{book}`)")
            return corpus, book, found
        if coordinate.count("/") == 1 and not self.named(coordinate):
            corpus, book = coordinate.split("/")
            return corpus, book, self._book_tree(corpus, book)[0]
        if record := self.named(coordinate):
            corpus, book, span = record.corpus, record.book, (record.first_seq, record.last_seq)
        else:
            c = self.resolve(coordinate)
            corpus, book, _ = c.split("/", 2)
            tree, channel = self._book_tree(corpus, book)
            p = self.store.get([c], channel).get(c)
            if p is None:
                raise SearchError("not_found", f"no such coordinate: {c}")
            span = (p.seq, p.seq)
        tree, _ = self._book_tree(corpus, book)
        node = tree
        while inner := next((c for c in node.children if c.first_seq <= span[0] and span[1] <= c.last_seq), None):
            node = inner
        return corpus, book, node

    # --- presenting ----------------------------------------------------------------------------

    def _shower(self, corpus: str, book: str, summaries: bool):  # type: ignore[no-untyped-def]
        tree, channel = self._book_tree(corpus, book)
        topics = {t.chapter: t for t in self.store.topics(corpus, book)}

        def show(node: _Node, with_summary: bool) -> OutlineNode:
            path, up = [], node
            while up is not None and up.parent is not None:
                path.insert(0, up.title)
                up = up.parent
            summary, source, by = None, None, None
            if with_summary and summaries:
                summary, source, by = self._shown_summary(corpus, book, node, channel)
            described = self.node_description(corpus, book, node)
            return OutlineNode(
                coordinate=node_coordinate(corpus, book, node),
                level=node_level(node),
                title=node.title or tree.title,
                path=path,
                first=node.passages[0].coordinate if node.passages else None,
                last=node.passages[-1].coordinate if node.passages else None,
                paragraphs=len(node.passages),
                characters=sum(p.chars for p in node.passages),
                children=len(node.children),
                sutta=node.sutta,
                summary=summary,
                summary_channel=source,
                summary_by=by,
                title_zh=described.chinese or None if described else None,
                **_topic(topics.get(node.key[0] if node.key else 0)),  # a section: its chapter's
            )

        return show

    def node_description(self, corpus: str, book: str, node: _Node) -> Description | None:
        """SuttaCentral's description of a node (its blurb, its Chinese name), where it has one."""
        if (corpus, book) not in self._descriptions:
            tree, _ = self._book_tree(corpus, book)
            texts = {t.label: t.uid for t in self._named_texts or [] if t.corpus == corpus and t.book == book}
            nodes = [(n.key, n.title or tree.title, n.sutta) for n in tree.walk()]
            self._descriptions[(corpus, book)] = match(nodes, self.store.descriptions(), texts, book)
        return self._descriptions[(corpus, book)].get(node.key)

    def _shown_summary(
        self, corpus: str, book: str, node: _Node, channel: str
    ) -> tuple[str | None, str | None, str | None]:
        """The summary a node shows, the channel it was drawn from and who wrote it: SuttaCentral's blurb where
        it has one, else a model's where one is stored (``gantha summarize``), else the extractive one."""
        described = self.node_description(corpus, book, node)
        if described is not None and described.blurb:
            return described.blurb, "en", "suttacentral"
        summary, source = self._summary(corpus, book, node, channel)
        record = self.store.node_summaries(corpus, book).get(node_coordinate(corpus, book, node))
        if record is not None and not record.method.endswith(":extractive"):
            return record.text, source, record.method.split(":", 1)[1]
        return summary, source, "extractive" if summary else None

    def _summary(self, corpus: str, book: str, node: _Node, channel: str) -> tuple[str | None, str | None]:
        """The node's extractive summary and the channel it comes from (of a long node, from an even
        sample of :data:`SAMPLE` of its paragraphs)."""
        if (corpus, book, node.key) in self._summaries:
            return self._summaries[(corpus, book, node.key)]
        body = [p for p in node.passages if p.kind not in HEADING_KINDS]
        if len(body) > SAMPLE:
            body = [body[i * len(body) // SAMPLE] for i in range(SAMPLE)]
        present = {r.channel.name for r in self.store.channels(corpus, book)}
        texts, source = [], channel
        for other in [*(c for c in SUMMARY_CHANNELS if c in present and channel == "pali"), channel]:
            found = self.store.get([p.coordinate for p in body], other)
            texts = [found[p.coordinate].text for p in body if p.coordinate in found]
            if texts:
                source = other
                break
        sentences = [s for t in texts for s in split(t)]
        result = (" ".join(central(sentences)) or None, source) if sentences else (None, None)
        self._summaries[(corpus, book, node.key)] = result
        return result

    def _corpus_outline(self, corpus: str) -> OutlineResult:
        topics = {t.book: t for t in self.store.topics(corpus) if t.chapter == 0}
        records = sorted(self.store.books(corpus, channel=None).values(), key=lambda r: r.info.book)
        seen: dict[str, OutlineNode] = {}
        for r in records:
            if r.info.book not in seen:
                seen[r.info.book] = OutlineNode(
                    coordinate=f"{corpus}/{r.info.book}",
                    level="book",
                    title=r.info.title,
                    path=list(r.info.group_path),
                    paragraphs=r.passages,
                    **_topic(topics.get(r.info.book)),
                )
        books = list(seen.values())
        node = OutlineNode(
            coordinate=corpus,
            level="corpus",
            title=corpus,
            paragraphs=sum(b.paragraphs for b in books),
            children=len(books),
        )
        return OutlineResult(node=node, children=books)


def _topic(record: TopicRecord | None) -> dict:
    """The topic fields of an outline node (a book or a chapter) from its stored topic."""
    if record is None:
        return {}
    return {"topic": record.topic, "topic_confidence": record.confidence, "topic_tags": record.tags}
