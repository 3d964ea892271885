"""The Āgamas' Pali parallels from the editor's marks, resolved to the named texts of the index, both ways.

A mark names SuttaCentral uids in the editor's numbering (``an7.64``, ``sn22.12``, ``mn63``); each is resolved
to the named text holding it (a range file ``sn22.12-14``, or the text itself). The Aṅguttara numbers are the
PTS edition's, which SuttaCentral's differ from in some nipātas: :data:`AN_PTS_TO_SC` reconciles the ones the
editor uses (``eval/agama_an_numbers.py`` derives and checks it). Links are stored as kind ``editor`` from the
Āgama sūtra to the Pali text and back, the note naming the mark as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gantha.corpus.agama_marks import Mark
from gantha.model import ParallelRef, TextRecord
from gantha.store.base import Store
from gantha.store.links import LinkRow
from gantha.text.refs import covering_uid

KIND = "editor"
SOURCE = "Lin Chong-an's edition of the Āgamas"

# the editor's (PTS) Aṅguttara numbers whose sutta SuttaCentral numbers otherwise: candidates ranked by
# eval/agama_an_numbers.py (the Chinese against the English of nearby suttas), each confirmed by the sutta's
# title against the sūtra's subject (MA 1 善法經 = Dhammaññūsutta, MA 8 七日經 = Sattasūriyasutta …); the rest of
# the editor's Aṅguttara numbers agree with SuttaCentral's (MA 12 = AN 4.195 Vappa, MA 18 = AN 8.12 Sīha …)
AN_PTS_TO_SC: dict[str, str] = {
    "an3.99": "an3.100",  # MA 11 鹽喻經, Loṇakapalla
    "an7.20": "an7.22",  # MA 142 雨勢經, Vassakāra
    "an7.52": "an7.55",  # MA 6 善人往經, Purisagati
    "an7.58": "an7.61",  # MA 83 長老上尊睡眠經, Pacalāyamāna
    "an7.60": "an7.64",  # MA 129 怨家經, Kodhana
    "an7.61": "an7.65",  # MA 45, 46 慚愧經, Hirīottappa
    "an7.62": "an7.66",  # MA 8 七日經, Sattasūriya
    "an7.63": "an7.67",  # MA 3 城喻經, Nagaropama
    "an7.64": "an7.68",  # MA 1 善法經, Dhammaññū
    "an7.65": "an7.69",  # MA 2 晝度樹經, Pāricchattaka
    "an7.68": "an7.72",  # MA 5 木積喻經, Aggikkhandhopama
    "an7.69": "an7.73",  # MA 160 阿蘭那經, Sunetta
    "an7.70": "an7.74",  # MA 160 阿蘭那經, Araka
    "an10.207": "an10.217",  # MA 15 思經, Sañcetanika (1st)
    "an10.208": "an10.218",  # MA 15 思經, Sañcetanika (2nd)
}


@dataclass
class MarkReport:
    """Marks found, resolved and not, per collection; the unresolved forms as written."""

    found: dict[str, int] = field(default_factory=dict)
    resolved: dict[str, int] = field(default_factory=dict)
    none: dict[str, int] = field(default_factory=dict)  # marked as having no parallel (【--】)
    unresolved: list[tuple[str, str, str]] = field(default_factory=list)  # (sūtra, mark, why)

    def as_dict(self) -> dict:
        return {
            "found": self.found,
            "resolved": self.resolved,
            "none": self.none,
            "unresolved": [{"sutra": s, "mark": m, "reason": r} for s, m, r in self.unresolved],
        }


def text_index(texts: list[TextRecord]) -> dict[str, list[str]]:
    """The named texts' uids by prefix (``sn22.`` → …), for :func:`resolve_uid`."""
    by_prefix: dict[str, list[str]] = {}
    for t in texts:
        by_prefix.setdefault(re.sub(r"[\d.-]+$", "", t.uid), []).append(t.uid)
    return by_prefix


def resolve_uid(uid: str, by_prefix: dict[str, list[str]]) -> str | None:
    """The indexed text holding a SuttaCentral uid (``sn22.13`` → ``sn22.12-14`` where the range is one text)."""
    start = uid.split("-")[0] if re.search(r"\d-\d+$", uid) else uid
    return covering_uid(start, by_prefix.get(re.sub(r"[\d.-]+$", "", start), []))


def editor_links(marks: list[Mark], texts: list[TextRecord]) -> tuple[list[LinkRow], MarkReport]:
    """Rows both ways for every resolved mark of an indexed sūtra, and the report of what was resolved."""
    by_prefix = text_index(texts)
    known = {t.uid for t in texts}
    report = MarkReport()
    rows: dict[tuple[str, str], LinkRow] = {}
    for mark in marks:
        collection = re.sub(r"[\d.]+$", "", mark.sutra)
        report.found[collection] = report.found.get(collection, 0) + 1
        if mark.written.strip("-") == "":
            report.none[collection] = report.none.get(collection, 0) + 1
            continue
        if mark.sutra not in known:
            report.unresolved.append((mark.sutra, mark.written, "the Āgama sūtra is not indexed"))
            continue
        if not mark.uids:
            report.unresolved.append((mark.sutra, mark.written, "mark not understood"))
            continue
        targets = []
        for uid in mark.uids:
            found = resolve_uid(AN_PTS_TO_SC.get(uid, uid), by_prefix)
            if found is None:
                report.unresolved.append((mark.sutra, mark.written, f"{uid} is not among the indexed texts"))
            else:
                targets.append(found)
        if targets:
            report.resolved[collection] = report.resolved.get(collection, 0) + 1
        for target in dict.fromkeys(targets):
            note = f"parallel ({SOURCE}: 【{mark.written}】)"
            rows[(mark.sutra, target)] = LinkRow(KIND, mark.sutra, target, note=note)
            rows[(target, mark.sutra)] = LinkRow(KIND, target, mark.sutra, note=note)
    return list(rows.values()), report


def other_canon(store: Store, named: TextRecord) -> list[ParallelRef]:
    """The parallels of a named text in the other canon (the Āgamas for a sutta, the Pali for an Āgama sūtra),
    from the editor's marks and SuttaCentral's list, each named once."""
    out: list[ParallelRef] = []
    for r in store.links_from([named.uid], KIND) + store.links_from([named.uid], "curated"):
        other = store.text(r.dst.split("#")[0])
        if other is None or other.corpus == named.corpus or any(x.reference == other.label for x in out):
            continue
        title = other.zh_title or other.title if other.corpus == "agama" else other.pali_title or other.title
        out.append(
            ParallelRef(
                reference=other.label,
                coordinate=f"{other.corpus}/{other.book}/{other.first_para}",
                title=title or None,
                source="Lin Chong-an's edition" if r.kind == KIND else "SuttaCentral",
            )
        )
    return out
