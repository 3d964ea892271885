"""Rebuild the web fonts the pages ship (src/gantha/api/web/fonts/) from pinned Fontsource packages.

    python scripts/fonts.py                      # download the pinned tarballs from the npm registry
    python scripts/fonts.py --tarballs DIR       # or read NAME-VERSION.tgz from DIR (checked all the same)

Each tarball is checked against the registry's sha512 integrity before anything is read from it.
Kept: the woff2 files of the script's own subset (Noto Sans SC: its unicode-range chunks, so a
browser fetches only the chunks a page's characters need), weights 400 and 700 (CJK: 400 only;
browsers embolden it), each family's OFL licence, and fonts.css with one @font-face per file. Each
unicode-range is cut to the script's own blocks, so Roman text (Pali with diacritics, English,
punctuation) keeps the page's ordinary font. Only the standard library is used.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import re
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "gantha" / "api" / "web" / "fonts"
REGISTRY = "https://registry.npmjs.org"
JOINERS = [(0x200C, 0x200D), (0x25CC, 0x25CC)]  # ZWNJ, ZWJ and the dotted circle a lone vowel sign sits on


@dataclass(frozen=True)
class Font:
    package: str  # npm name without the @fontsource/ scope
    version: str
    integrity: str  # the registry's dist.integrity of that version
    family: str
    subsets: str  # regular expression over the keys of the package's unicode.json
    weights: tuple[int, ...]
    blocks: tuple[tuple[int, int], ...]  # code points this family may render


FONTS = (
    Font(
        "noto-sans-myanmar",
        "5.3.0",
        "sha512-/ja/Fbmtv4TRpd8LgnVFvDRFIzR0bvYaVCwGNK6Hnn5uBGccCfGFnZ7wRPG1/IyMnScVIjrnOmN+2jOL0b8tRQ==",
        "Noto Sans Myanmar",
        r"myanmar",
        (400, 700),
        ((0x1000, 0x109F), (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F), (0x116D0, 0x116FF), *JOINERS),
    ),
    Font(
        "noto-sans-sinhala",
        "5.3.0",
        "sha512-g52kQSjsB3vHmFbp6zrPfumJxZADhsssOHd3fMkN+hCK1JrpKvSudtJMAAGuVUcrC7r9dqNmmslj7I9VU1dzbw==",
        "Noto Sans Sinhala",
        r"sinhala",
        (400, 700),
        ((0x0964, 0x0965), (0x0D80, 0x0DFF), (0x1CF2, 0x1CF2), (0x111E0, 0x111FF), *JOINERS),
    ),
    Font(
        "noto-sans-thai",
        "5.3.0",
        "sha512-ngqUyvDukkZUHypQbUJvUdAeYa2aYZsyeDTsdqMudf7GK2F2TK19OZ5kbo+37qsBtkNpmAMhEObQnWnzPqzKUw==",
        "Noto Sans Thai",
        r"thai",
        (400, 700),
        ((0x0E00, 0x0E7F), *JOINERS),
    ),
    Font(
        "noto-sans-devanagari",
        "5.3.0",
        "sha512-7khYmipS/5KAUUmrO1DKir8yL8XI00d0+ZE9BqbS8XF1jzObv6CpPOk3UeYxF+Pvi8bx9bBvprBCOcbx/eQWTQ==",
        "Noto Sans Devanagari",
        r"devanagari",
        (400, 700),
        ((0x0900, 0x097F), (0x1CD0, 0x1CFF), (0xA830, 0xA83F), (0xA8E0, 0xA8FF), (0x11B00, 0x11B5F), *JOINERS),
    ),
    Font(
        "noto-sans-sc",
        "5.3.0",
        "sha512-HeqIlGm0+ohOKxZLuHj1qW6r6avHH0OWdKERAcSDI0RQ+MXrteuLKA+M+5eOA8rYy0MFvOR5AT0fQo2rUkye0Q==",
        "Noto Sans SC",
        r"\[\d+\]",  # the unicode-range chunks (the whole "chinese-simplified" subset is one 1.1 MB file)
        (400,),
        # CJK radicals, punctuation, kana, ideographs (and extension A), compatibility ideographs,
        # vertical and half/full-width forms, enclosed ideographs, the supplementary ideograph planes
        (
            (0x2E80, 0x2FDF),
            (0x2FF0, 0x31FF),
            (0x3200, 0x9FFF),
            (0xF900, 0xFAFF),
            (0xFE10, 0xFE1F),
            (0xFE30, 0xFE4F),
            (0xFF00, 0xFFEF),
            (0x1F200, 0x1F2FF),
            (0x20000, 0x3FFFF),
        ),
    ),
)


def parse_ranges(text: str) -> list[tuple[int, int]]:
    """``U+0900-097F,U+25CC`` → [(0x900, 0x97f), (0x25cc, 0x25cc)]."""
    ranges = []
    for part in text.split(","):
        lo, _, hi = part.strip().removeprefix("U+").removeprefix("u+").partition("-")
        ranges.append((int(lo, 16), int(hi or lo, 16)))
    return ranges


def clip(ranges: list[tuple[int, int]], blocks: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """The parts of ``ranges`` inside ``blocks``, sorted and merged."""
    cut = sorted((max(a, c), min(b, d)) for a, b in ranges for c, d in blocks if max(a, c) <= min(b, d))
    merged: list[tuple[int, int]] = []
    for a, b in cut:
        if merged and a <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def css_ranges(ranges: list[tuple[int, int]]) -> str:
    return ",".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in ranges)


def face_rule(family: str, weight: int, file: str, ranges: list[tuple[int, int]]) -> str:
    return (
        f'@font-face {{ font-family: "{family}"; font-style: normal; font-weight: {weight}; font-display: swap; '
        f'src: url("{file}") format("woff2"); unicode-range: {css_ranges(ranges)}; }}'
    )


def tarball(font: Font, folder: Path | None) -> bytes:
    """The package's tarball, from ``folder`` or the registry, checked against its pinned integrity."""
    name = f"{font.package}-{font.version}.tgz"
    if folder and (folder / name).is_file():
        data = (folder / name).read_bytes()
    else:
        url = f"{REGISTRY}/@fontsource/{font.package}/-/{name}"
        with urllib.request.urlopen(url, timeout=300) as response:
            data = response.read()
    algorithm, _, digest = font.integrity.partition("-")
    if base64.b64encode(hashlib.new(algorithm, data).digest()).decode() != digest:
        raise SystemExit(f"{name}: {algorithm} integrity mismatch, nothing written")
    return data


def build(folder: Path | None, out: Path) -> None:
    tarballs = {font: tarball(font, folder) for font in FONTS}  # all checked before anything is replaced
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("*.woff2"), *out.glob("OFL-*.txt")]:
        old.unlink()
    faces = [
        "/* Generated by scripts/fonts.py from pinned Fontsource packages (SIL Open Font License 1.1): do not edit. */"
    ]
    for font in FONTS:
        with tarfile.open(fileobj=io.BytesIO(tarballs[font]), mode="r:gz") as tar:

            def read(member: str) -> bytes:
                f = tar.extractfile(f"package/{member}")
                assert f is not None, member
                return f.read()

            (out / f"OFL-{font.package}.txt").write_bytes(read("LICENSE"))
            subsets = json.loads(read("unicode.json"))
            keys = sorted((k for k in subsets if re.fullmatch(font.subsets, k)), key=lambda k: (len(k), k))
            for key in keys:
                ranges = clip(parse_ranges(subsets[key]), font.blocks)
                if not ranges:  # a chunk of emoji or symbols only: Roman text keeps its font for those
                    continue
                for weight in font.weights:
                    file = f"{font.package}-{key.strip('[]')}-{weight}-normal.woff2"
                    (out / file).write_bytes(read(f"files/{file}"))
                    faces.append(face_rule(font.family, weight, file, ranges))
    (out / "fonts.css").write_text("\n".join(faces) + "\n", encoding="utf-8")
    sizes = {f.package: sum(p.stat().st_size for p in out.glob(f"{f.package}-*.woff2")) for f in FONTS}
    for package, size in sizes.items():
        print(f"{package}: {size / 1024:,.0f} KiB")
    print(f"total {sum(p.stat().st_size for p in out.iterdir()) / 1024:,.0f} KiB in {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tarballs", type=Path, help="a folder holding NAME-VERSION.tgz files already downloaded")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    build(args.tarballs, args.out)


if __name__ == "__main__":
    main()
