"""What folding variant characters adds on the Āgamas: for each variant of ``gantha.text.chinese.VARIANTS``, how
many paragraphs write it, so that a search typed with the standard character would miss them without the fold.

    .venv/bin/python eval/chinese_variants.py [DATA]

Prints one line per variant (variant → standard, paragraphs holding it, paragraphs holding the standard too)
and the total of paragraphs the fold makes findable; OpenCC's traditional→simplified already makes one of
爲/為, 卽/即 … where it maps both to the same character (those are counted under "by OpenCC").
"""

from __future__ import annotations

import sys
from pathlib import Path

from gantha.corpus import agama
from gantha.text.chinese import VARIANTS, to_simplified

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data"
    paragraphs = [t for f in agama.files(data / "agama") for s in agama.read_book(f).sutras for _, t in s.paragraphs]
    folded_by_us, by_opencc, reached = 0, 0, set()
    for code, standard in sorted(VARIANTS.items()):
        variant = chr(code)
        holding = [i for i, t in enumerate(paragraphs) if variant in t]
        if to_simplified(variant) == standard:
            by_opencc += len(holding)
            continue
        folded_by_us += len(holding)
        reached.update(holding)
        print(f"{variant} → {standard}: {len(holding):,} paragraphs")
    print(
        f"{len(paragraphs):,} paragraphs; the fold beyond OpenCC reaches {len(reached):,} of them "
        f"({len(reached) / len(paragraphs):.1%}); {by_opencc:,} holdings OpenCC already folds alike"
    )


if __name__ == "__main__":
    main()
