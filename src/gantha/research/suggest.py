"""The verb ``suggest``: completions of a Pali word (by frequency), a Chinese term, or a page reference."""

from __future__ import annotations

import re

from pydantic import BaseModel

from gantha.text.pali import fold, normalize_query_text
from gantha.text.refs import parse_page_ref

CJK = re.compile(r"[\u3400-\u9fff]")


class Suggestion(BaseModel):
    text: str
    kind: str  # pali | dictionary | page_ref
    count: int = 0
    note: str | None = None
    pali: str | None = None  # the Pali word (the original API's fields)
    romanized: str | None = None  # the Pali word without diacritics
    frequency: int | None = None  # paragraphs holding it


class SuggestResult(BaseModel):
    q: str
    type: str
    suggestions: list[Suggestion]


class SuggestVerbs:
    """Needs ``store``, ``lexicon``, ``lemmas``."""

    def suggest(self, q: str, type: str = "term", limit: int = 10, language: str | None = None) -> SuggestResult:
        """Completions: Pali forms with diacritics by frequency, Chinese dictionary terms, page refs.
        ``language`` zh: the Chinese renderings of the Pali words completed (or found by their Chinese)."""
        q = q.strip()
        out: list[Suggestion] = []
        if not q:
            return SuggestResult(q=q, type=type, suggestions=[])
        chinese_wanted = (language or "").startswith("zh")
        if type == "page_ref":
            out = self._suggest_page_ref(q, limit)
        elif CJK.search(q):
            for word, meaning in self.lexicon.headwords_by_meaning(q, limit):
                text = meaning if chinese_wanted else word
                out.append(Suggestion(text=text, kind="dictionary", note=meaning, pali=word, romanized=fold(word)))
        else:
            text, _ = normalize_query_text(q)
            words = text.split()
            if words:
                head = " ".join(words[:-1])
                for folded, form, count in self.store.vocabulary(words[-1], limit * (3 if chinese_wanted else 1)):
                    found = Suggestion(
                        text=f"{head} {form}".strip(), kind="pali", count=count, pali=form, romanized=folded
                    )
                    if chinese_wanted:  # the word's Chinese meaning, when a dictionary gives one
                        lemma = next((c.lemma for c in self.lemmas(form)), form)
                        if not (meaning := self.lexicon.chinese_meaning(lemma)):
                            continue
                        found.text, found.note, found.kind = meaning, lemma, "dictionary"
                    out.append(found)
        for s in out:
            s.frequency = s.count
        return SuggestResult(q=q, type=type, suggestions=out[:limit])

    def _suggest_page_ref(self, q: str, limit: int) -> list[Suggestion]:
        try:
            ref = parse_page_ref(q)
            key = ref.key
        except ValueError:
            m = re.match(r"^([MVPTO])\s?(\d{1,2})(?:\.(\d{0,4}))?$", q.strip(), re.IGNORECASE)
            if not m:
                return []
            key = f"{m.group(1).upper()}{int(m.group(2))}." + (m.group(3) or "")
        return [Suggestion(text=k, kind="page_ref", count=n) for k, n in self.store.page_keys(key, limit)]
