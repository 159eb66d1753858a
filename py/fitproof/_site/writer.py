"""Writing the site into a directory, safely: a ``manifest.json`` of SHA-256 digests says
which files this tool wrote, and nothing else there is ever overwritten or deleted."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from .._base.atomic import replace_file, temporary_of
from .._base.errors import FitproofError
from .bundle import PACKAGE_DIR, cache_control, content_of, page_sources, site_map
from .compress import BUILD_LEVEL, compressible, gzipped

GENERATOR = "fitproof build-site"
MANIFEST = "manifest.json"


class TargetError(FitproofError):
    """The directory given to build-site cannot be used as it is (bad usage: exit 2)."""


def build_site(directory: Path, root: Path | None = None, force: bool = False, snapshot: bool = True) -> dict[str, str]:
    """Write the site into ``directory`` with a ``manifest.json`` of SHA-256 digests; return the digests.

    Never deletes or overwrites what this tool did not write: an earlier site is recognised
    by its manifest's ``generator``, and only the files that manifest lists, still holding
    the content it records, are replaced or (when a newer site no longer has them) removed.
    Anything else in the way is refused, unless ``force`` is given; even then only the new
    site's own file names are overwritten and nothing else is deleted.
    """
    files = site_map(root, snapshot)
    # The serve command's Cache-Control, per file, for static hosts that read a `_headers`
    # file (Netlify, Cloudflare Pages); other servers ignore it and the page works the same.
    files["_headers"] = "".join(f"/{url_path}\n  Cache-Control: {cache_control(url_path)}\n" for url_path in ["", *files]).encode()
    files.update(precompressed(files))
    sources = page_sources(root)
    source = sources.root
    for folder in (sources.web, sources.pyodide, sources.fixtures, source / "py", source / "node_modules", PACKAGE_DIR):
        if directory.resolve().is_relative_to(folder.resolve()):
            raise TargetError(f"{directory} is inside the page's own sources ({folder}): the next build would copy the site into itself")
    target = directory.resolve()
    if (
        target == source.resolve()
        or (target / "py" / "fitproof").is_dir()
        or any(isinstance(entry, Path) and (target / url_path).resolve() == entry.resolve() for url_path, entry in files.items())
    ):
        # Its site files (fixtures/index.json, py/fitproof-*.json) would land among the sources.
        raise TargetError(
            f"{directory} holds the page's sources (a fitproof checkout): the site would be written into them; give another directory"
        )
    previous = _plan_target(directory, files, force)
    digests = {url_path: hashlib.sha256(content_of(entry)).hexdigest() for url_path, entry in files.items()}
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # The manifest first: a build cut short (Ctrl+C, a full disk) leaves a site that the
        # next build recognises and finishes, even from other sources. A file the earlier site
        # had is listed with both digests (it holds one or the other, a rename being atomic).
        interim: dict = {name: digest for name, digest in previous.items() if name != MANIFEST}
        for name, digest in digests.items():
            interim[name] = sorted({*_as_list(interim[name]), digest}) if name in interim else digest
        _write_manifest(directory, interim)
        for url_path, entry in files.items():
            _replace_file(directory, url_path, content_of(entry))
        for url_path in sorted(set(previous) - set(files) - {MANIFEST}):
            _remove_stale(directory, url_path, previous[url_path])
        if previous:  # an earlier site of this tool: a build of it killed outright may have left its temporary files
            _remove_leftover_temporaries(directory, [*files, MANIFEST])
        _write_manifest(directory, digests)
    except OSError as error:
        raise TargetError(f"cannot write the site into {directory}: {error.strerror or error}") from None
    return digests


def precompressed(files: dict[str, Path | bytes]) -> dict[str, bytes]:
    """``NAME.gz`` beside each file that gains from gzip, for servers that send it in place of
    ``NAME`` to a browser that accepts gzip (nginx ``gzip_static``, Caddy ``precompressed``).
    Listed in the manifest like every other file, so a rebuild replaces or removes only its own."""
    siblings = {}
    for url_path, entry in files.items():
        data = content_of(entry)
        if url_path == "_headers" or not compressible(url_path, len(data)) or f"{url_path}.gz" in files:
            continue
        packed = gzipped(data, BUILD_LEVEL)
        if len(packed) < len(data):
            siblings[f"{url_path}.gz"] = packed
    return siblings


def _as_list(recorded: str | list[str] | None) -> list[str]:
    """A manifest's digests for a file: one, or (in the manifest of a build cut short) two."""
    if recorded is None:
        return []
    return [recorded] if isinstance(recorded, str) else list(recorded)


def _write_manifest(directory: Path, digests: dict) -> None:
    manifest = {"generator": GENERATOR, "files": digests}
    _replace_file(directory, MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())


def _plan_target(directory: Path, files: dict, force: bool) -> dict[str, str | list[str]]:
    """Refuse a directory that cannot be used; return the earlier site's digests (empty if none)."""
    if directory.is_symlink():
        raise TargetError(f"{directory} is a symbolic link: give the real directory")
    if directory.exists() and not directory.is_dir():
        raise TargetError(f"{directory} exists and is not a directory")
    if not directory.exists():
        return {}
    if not os.access(directory, os.W_OK | os.X_OK):
        raise TargetError(f"{directory} is not writable")
    try:
        present = any(directory.iterdir())
    except OSError as error:
        raise TargetError(f"cannot read {directory}: {error.strerror or error}") from None
    previous = _earlier_site(directory)
    if present and previous is None and not force:
        raise TargetError(
            f"{directory} is not empty and holds no earlier site of this tool (its {MANIFEST} with "
            f'"generator": "{GENERATOR}"): choose an empty directory, or add --force to write the site\'s '
            "own files there and delete nothing else"
        )
    previous = previous or {}
    conflicts = []
    for url_path in [*files, MANIFEST]:
        target = directory / url_path
        for parent in reversed(target.relative_to(directory).parents[:-1]):
            folder = directory / parent
            if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
                raise TargetError(f"{folder} is in the way of the site's folder {parent.as_posix()}/ (a file or a symbolic link)")
        if url_path == MANIFEST or not (target.exists() or target.is_symlink()):
            continue
        if not target.is_symlink() and not target.is_file():
            raise TargetError(f"{target} is in the way of the site's file {url_path} (not a regular file)")
        if not force and not _written_by_us(target, previous.get(url_path), files[url_path]):
            conflicts.append(url_path)
    if conflicts:
        shown = ", ".join(conflicts[:3]) + (f" and {len(conflicts) - 3} more" if len(conflicts) > 3 else "")
        raise TargetError(
            f"{directory} holds files this tool did not write or that changed since ({shown}): "
            "move them away, or add --force to overwrite them"
        )
    return previous


def _earlier_site(directory: Path) -> dict[str, str | list[str]] | None:
    """The file digests of the earlier site in ``directory``, or None if its manifest is not ours."""
    manifest = directory / MANIFEST
    if manifest.is_symlink() or not manifest.is_file():
        return None
    try:
        with open(manifest, "rb") as handle:  # never read whole: a foreign one may be of any size
            data = handle.read(50_000_001)
        if len(data) > 50_000_000:  # ours is far smaller
            return None
        value = json.loads(data)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or value.get("generator") != GENERATOR or not isinstance(value.get("files"), dict):
        return None
    listed = value["files"]

    def digests_ok(digest: object) -> bool:
        return isinstance(digest, str) or (
            isinstance(digest, list) and 0 < len(digest) <= 2 and all(isinstance(one, str) for one in digest)
        )

    if not all(isinstance(name, str) and digests_ok(digest) and _inside(name) for name, digest in listed.items()):
        return None
    return listed


def _inside(url_path: str) -> bool:
    """A relative path that stays inside the site (a manifest is data, never trusted with ``..``)."""
    parts = url_path.split("/")
    return bool(url_path) and "\\" not in url_path and "\0" not in url_path and all(part not in ("", ".", "..") for part in parts)


def _digest_of(path: Path) -> str | None:
    if path.is_symlink() or not path.is_file():
        return None
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _written_by_us(target: Path, recorded: str | list[str] | None, entry: Path | bytes) -> bool:
    """Whether overwriting ``target`` loses nothing: it holds what our manifest recorded, or the new content already."""
    current = _digest_of(target)
    if current is None:
        return False
    return current in _as_list(recorded) or current == hashlib.sha256(content_of(entry)).hexdigest()


def _replace_file(directory: Path, url_path: str, data: bytes) -> None:
    """Write through a fresh temporary file and rename it over the target (never through a symbolic link)."""
    target = directory / url_path
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, data, 0o644)


def _remove_leftover_temporaries(directory: Path, written: list[str]) -> None:
    """Remove the temporary files a killed build left beside the files this build wrote: only a
    regular file named as replace_file names them, for a file of this site, in a folder of it."""
    names: dict[Path, set[str]] = {}
    for url_path in written:
        parent, _, name = url_path.rpartition("/")
        names.setdefault(directory / parent if parent else directory, set()).add(name)
    for folder, known in names.items():
        for entry in os.scandir(folder):
            if temporary_of(entry.name) in known and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _remove_stale(directory: Path, url_path: str, recorded: str | list[str]) -> None:
    """Remove a file an earlier build wrote and a newer site no longer has, if it still holds what was written."""
    target = directory / url_path
    if any((directory / parent).is_symlink() for parent in Path(url_path).parents):
        return
    if _digest_of(target) not in _as_list(recorded):
        return
    target.unlink()
    for parent in Path(url_path).parents[:-1]:
        with contextlib.suppress(OSError):  # only a folder left empty goes
            (directory / parent).rmdir()
