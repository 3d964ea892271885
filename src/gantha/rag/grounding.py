"""Check an answer's citations against the sources it was given.

A citation ``[n]`` passes when ``n`` numbers a source actually given, and every quotation of Pali or
Chinese in the sentence that carries it ("…", “…”, 「…」, *…*) occurs in that source (compared
folded: case, diacritics and traditional/simplified Chinese do not matter). A quotation counts as
Pali or Chinese when it has a letter beyond ASCII or is a single word; English phrases in quotes
(a gloss, a paraphrase) are not checked. A number that names no source is
dropped from the text; a citation whose quotation is not in the source is marked ``[n?]``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from gantha.text.chinese import to_simplified
from gantha.text.pali import fold

CITATION = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")
QUOTE = re.compile(r"\"([^\"]{3,})\"|“([^”]{3,})”|「([^」]{2,})」|『([^』]{2,})』|\*([^*\n]{3,})\*")
SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+(?:\s*\[[\d,;\s]+\])*|\n|$)")  # with citations after the stop


class CitationCheck(BaseModel):
    n: int
    ok: bool
    reason: str  # ok | no_such_source | quote_not_in_source
    quote: str | None = None


class Grounding(BaseModel):
    answer: str  # with failing citations dropped or marked
    checks: list[CitationCheck]
    cited: list[int]  # source numbers cited and verified
    uncited_sentences: int  # sentences of the answer that cite nothing


def _norm(text: str) -> str:
    return " ".join(fold(to_simplified(text)).split())


def _quotes(sentence: str) -> list[str]:
    """The Pali or Chinese quotations of a sentence."""
    found = [next(g for g in m.groups() if g).strip() for m in QUOTE.finditer(sentence)]
    return [q for q in found if not q.isascii() or len(q.split()) == 1]


def check(answer: str, sources: dict[int, str]) -> Grounding:
    """Verify every ``[n]`` of ``answer`` against ``sources`` (number → the text given to the model)."""
    normed = {n: _norm(text) for n, text in sources.items()}
    checks: list[CitationCheck] = []
    out: list[str] = []
    uncited = 0
    for m in SENTENCE.finditer(answer):
        sentence = m.group(0)
        quotes = _quotes(sentence)
        if not CITATION.search(sentence) and len(sentence.strip()) > 20:
            uncited += 1

        def verify(cm: re.Match[str], quotes: list[str] = quotes) -> str:
            kept = []
            for raw in re.split(r"\s*[,;]\s*", cm.group(1)):
                n = int(raw)
                if n not in normed:
                    checks.append(CitationCheck(n=n, ok=False, reason="no_such_source"))
                    continue
                missing = next((q for q in quotes if _norm(q) not in normed[n]), None)
                if missing is not None:
                    checks.append(CitationCheck(n=n, ok=False, reason="quote_not_in_source", quote=missing))
                    kept.append(f"{n}?")
                else:
                    checks.append(CitationCheck(n=n, ok=True, reason="ok"))
                    kept.append(str(n))
            return f"[{', '.join(kept)}]" if kept else ""

        out.append(CITATION.sub(verify, sentence))
    cited = sorted({c.n for c in checks if c.ok})
    return Grounding(answer="".join(out), checks=checks, cited=cited, uncited_sentences=uncited)
