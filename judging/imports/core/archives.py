"""Many files in one import: several uploaded files are bundled into one zip (one upload, one job, one report),
and a .zip or .tar.gz upload is opened into its files. Members are read safely: no absolute paths, no "..", no
links, directories skipped, and their total size bounded by the upload limit, so an archive cannot write outside
its folder or fill the disk. Pure: no Django."""

from __future__ import annotations

import contextlib
import re
import tarfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
MAX_MEMBERS = 1000


class ArchiveRefused(ValueError):
    """An archive that cannot be opened safely; the message names the archive and why."""


def is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def bundle_name(count: int) -> str:
    """The name of the zip several uploaded files are bundled into (one upload, one job)."""
    return f"{count} files.zip"


def is_bundle(name: str) -> bool:
    """Whether `name` is a bundle the workbench made of files chosen one by one: its members are named as chosen."""
    return re.fullmatch(r"\d+ files\.zip", name) is not None


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
    ArchiveRefused for an unsafe, empty, corrupt or oversized archive, for more than MAX_MEMBERS files (counted as
    the headers are read, never reading past the limit) and for two members of one name (which would otherwise
    import as one, the later winning). The archive is closed whatever happens."""
    try:
        with _opened(archive, name) as members:
            listed = _listed(members, name, max_bytes)
            return _written(listed, name, folder, max_bytes)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as error:
        raise ArchiveRefused(f"{name}: not a readable .zip or .tar.gz archive ({error})") from error


def _listed(members: Iterator, name: str, max_bytes: int) -> list:
    listed, seen, total = [], set(), 0
    for raw, size, read in members:
        member = _member_name(raw)
        if member in seen:
            raise ArchiveRefused(f"{name}: two files are named {member}; rename one and upload again")
        if len(listed) == MAX_MEMBERS:
            raise ArchiveRefused(f"{name}: more than {MAX_MEMBERS} files; at most {MAX_MEMBERS} in one import")
        seen.add(member)
        total += size
        if total > max_bytes:
            raise ArchiveRefused(f"{name}: its files hold more than the limit of {max_bytes:,} bytes")
        listed.append((member, read))
    if not listed:
        raise ArchiveRefused(f"{name}: the archive holds no file")
    return listed


def _written(listed: list, name: str, folder: Path, max_bytes: int) -> list[tuple[Path, str]]:
    extracted = []
    for index, (member, read) in enumerate(sorted(listed, key=lambda m: m[0])):
        path = folder / f"member-{index}"
        with open(path, "wb") as out:
            written = 0
            for chunk in read():
                written += len(chunk)
                if written > max_bytes:  # a size the header understated
                    raise ArchiveRefused(f"{name}: {member} is larger than its header says")
                out.write(chunk)
        # A problem names the file the user chose: a member of a bundle we made by its own name, of their archive
        # by archive/member.
        extracted.append((path, member if is_bundle(name) else f"{name}/{member}"))
    return extracted


def _chunks(stream, size: int = 1 << 20):
    with stream:
        while chunk := stream.read(size):
            yield chunk


@contextlib.contextmanager
def _opened(archive: Path, name: str) -> Iterator[Iterator]:
    """(member name, size, reader) for each file of the archive, read one header at a time, inside the archive's
    own `with`."""
    if zipfile.is_zipfile(archive):
        _zip_count_checked(archive, name)
        with zipfile.ZipFile(archive) as opened:
            yield (
                (info.filename, info.file_size, lambda info=info: _chunks(opened.open(info)))
                for info in opened.infolist()
                if not info.is_dir()
            )
    else:
        with tarfile.open(archive) as opened:
            yield _tar_members(opened, name)


def _zip_count_checked(archive: Path, name: str) -> None:
    """Refuses a zip whose end record declares more than MAX_MEMBERS entries before its central directory is read
    (ZipFile reads every entry's header at once, a million of them into memory)."""
    with open(archive, "rb") as raw:
        record = zipfile._EndRecData(raw)  # the standard library's own reader of the end record
    if record and record[zipfile._ECD_ENTRIES_TOTAL] > MAX_MEMBERS:
        raise ArchiveRefused(f"{name}: more than {MAX_MEMBERS} files; at most {MAX_MEMBERS} in one import")


def _tar_members(opened: tarfile.TarFile, name: str) -> Iterator:
    for info in opened:  # TarFile reads a header at a time as it is iterated
        if info.isdir():
            continue
        if not info.isfile():
            raise ArchiveRefused(f"{name}: {info.name!r}: links and devices are not imported")
        _member_name(info.name)
        try:  # what extraction with filter="data" would refuse (absolute paths, odd modes), by the same rule
            tarfile.data_filter(info, "/nonexistent-destination")
        except tarfile.FilterError as refused:
            raise ArchiveRefused(f"{name}: {info.name!r}: {refused}") from refused
        yield info.name, info.size, lambda info=info: _chunks(opened.extractfile(info))
