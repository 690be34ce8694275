"""Many files in one import: several uploaded files are bundled into one zip (one upload, one job, one report),
and a .zip or .tar.gz upload is opened into its files. Members are read safely: no absolute paths, no "..", no
links, directories skipped, and their total size bounded by the upload limit, so an archive cannot write outside
its folder or fill the disk. Pure: no Django."""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
MAX_MEMBERS = 1000


class ArchiveRefused(ValueError):
    """An archive that cannot be opened safely; the message names the archive and why."""


def is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def bundle(files: Iterable[tuple[str, Iterable[bytes]]], target) -> None:
    """Writes (name, chunks) pairs into one zip at `target` (a path or a binary file)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, chunks in files:
            with archive.open(_member_name(name), "w") as out:
                for chunk in chunks:
                    out.write(chunk)


def _member_name(name: str) -> str:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not name or name.startswith("/") or ".." in parts or any(":" in part for part in parts[:1]):
        raise ArchiveRefused(f"{name!r}: a member may not leave the archive's folder")
    return str(PurePosixPath(*parts))


def extract(archive: Path, name: str, folder: Path, *, max_bytes: int) -> list[tuple[Path, str]]:
    """The archive's files, extracted into `folder`, as (path, name inside the archive) in name order. Raises
    ArchiveRefused for an unsafe, empty, corrupt or oversized archive."""
    try:
        members = _zip_members(archive) if zipfile.is_zipfile(archive) else _tar_members(archive)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as error:
        raise ArchiveRefused(f"{name}: not a readable .zip or .tar.gz archive ({error})") from error
    if not members:
        raise ArchiveRefused(f"{name}: the archive holds no file")
    if len(members) > MAX_MEMBERS:
        raise ArchiveRefused(f"{name}: {len(members)} files; at most {MAX_MEMBERS} in one import")
    if sum(size for _, size, _ in members) > max_bytes:
        raise ArchiveRefused(f"{name}: its files hold more than the limit of {max_bytes:,} bytes")
    extracted = []
    for index, (member, _, read) in enumerate(sorted(members, key=lambda m: m[0])):
        path = folder / f"member-{index}"
        with open(path, "wb") as out:
            written = 0
            for chunk in read():
                written += len(chunk)
                if written > max_bytes:  # a size the header understated
                    raise ArchiveRefused(f"{name}: {member} is larger than its header says")
                out.write(chunk)
        extracted.append((path, f"{name}/{member}"))
    return extracted


def _chunks(stream, size: int = 1 << 20):
    with stream:
        while chunk := stream.read(size):
            yield chunk


def _zip_members(archive: Path) -> list:
    opened = zipfile.ZipFile(archive)
    found = []
    for info in opened.infolist():
        if info.is_dir():
            continue
        member = _member_name(info.filename)
        found.append((member, info.file_size, lambda info=info: _chunks(opened.open(info))))
    return found


def _tar_members(archive: Path) -> list:
    opened = tarfile.open(archive)  # noqa: SIM115 (read lazily by the members' readers)
    found = []
    for info in opened.getmembers():
        if info.isdir():
            continue
        if not info.isfile():
            raise ArchiveRefused(f"{info.name!r}: links and devices are not imported")
        member = _member_name(info.name)
        found.append((member, info.size, lambda info=info: _chunks(opened.extractfile(info))))
    return found
