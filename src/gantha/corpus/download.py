"""Download the public upstream of a corpus, for users who have no local copy.

The CST text comes from the VipassanaTech ``tipitaka-xml`` repository as one archive; its ``romn/``
folder (Roman script, one UTF-16 file per book) is extracted. The download goes to a ``.part``
file and the extraction to a temporary folder renamed into place, so an interrupted download
leaves nothing that looks complete.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx

Progress = Callable[[int, int | None], None]  # (bytes so far, total bytes or None)


class DownloadError(RuntimeError):
    """The upstream could not be fetched or was not the expected archive."""


def fetch(url: str, dest: Path, progress: Progress | None = None, timeout: float = 60.0) -> Path:
    """Stream ``url`` into ``dest`` (via ``dest.part``); return ``dest``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    try:
        with httpx.stream("GET", url, follow_redirects=True, timeout=timeout) as r:
            if r.status_code != 200:
                raise DownloadError(f"{url}: HTTP {r.status_code}")
            total = int(r.headers["content-length"]) if "content-length" in r.headers else None
            done = 0
            with part.open("wb") as out:
                for chunk in r.iter_bytes(1 << 20):
                    out.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done, total)
    except httpx.HTTPError as exc:
        raise DownloadError(f"{url}: {exc}") from exc
    part.replace(dest)
    return dest


def extract_folder(archive: Path, folder: str, target: Path) -> int:
    """Extract the files under ``*/<folder>/`` of a zip archive into ``target``; return how many."""
    try:
        zf = zipfile.ZipFile(archive)
    except zipfile.BadZipFile as exc:
        raise DownloadError(f"{archive}: not a zip archive ({exc})") from exc
    tmp = Path(tempfile.mkdtemp(prefix=".extract-", dir=target.parent))
    count = 0
    with zf:
        for info in zf.infolist():
            parts = Path(info.filename).parts
            if info.is_dir() or folder not in parts[:-1]:
                continue
            name = parts[-1]
            with zf.open(info) as src, (tmp / name).open("wb") as dst:
                shutil.copyfileobj(src, dst)
            count += 1
    if count == 0:
        shutil.rmtree(tmp)
        raise DownloadError(f"{archive}: no files under a {folder}/ folder")
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    return count


def download_cst(url: str, downloads: Path, progress: Progress | None = None) -> Path:
    """Fetch the CST archive and extract its Roman-script books; return the folder of XML files."""
    target = downloads / "cst"
    if target.is_dir() and any(target.iterdir()):
        return target
    archive = fetch(url, downloads / "tipitaka-xml.zip", progress)
    extract_folder(archive, "romn", target)
    archive.unlink()
    return target


def download_agama(base: str, downloads: Path, progress: Progress | None = None) -> Path:
    """Fetch the four Āgamas of the edition's repository (``<base>/agm-lca/agm?-lca.md`` and the plain text with
    the editor's parallels, ``<base>/raw/agm?-lca.txt``) into a folder laid out like the project's data."""
    target = downloads / "agama"
    tmp = Path(tempfile.mkdtemp(prefix=".agama-", dir=downloads if downloads.is_dir() else None))
    try:
        for letter in "dmsu":
            fetch(f"{base.rstrip('/')}/agm-lca/agm{letter}-lca.md", tmp / f"agm{letter}-lca.md", progress)
            fetch(f"{base.rstrip('/')}/raw/agm{letter}-lca.txt", tmp / "raw" / f"agm{letter}-lca.txt", progress)
    except DownloadError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    return target
