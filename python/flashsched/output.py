"""Writing results: every file is written to a temporary file beside its target and renamed into
place, so an interrupted or failed run never leaves a half-written output."""

from __future__ import annotations

import os
from contextlib import contextmanager, suppress
from pathlib import Path

TYPE_CHECKING = False  # `typing` only for type checkers (CLI start-up; see api.py)
if TYPE_CHECKING:
    from typing import IO, Any, Iterator, Mapping


@contextmanager
def _atomic_file(path: Path) -> Iterator[IO[bytes]]:
    """A binary file that replaces ``path`` when the block ends, or is removed if it fails."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _exclusive_temp(path)
    try:
        with os.fdopen(fd, "wb") as f:
            # A file replaced keeps its permissions (a new one gets 0o666 less the umask).
            with suppress(FileNotFoundError):
                os.chmod(tmp, os.stat(path).st_mode & 0o7777)
            yield f
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _exclusive_temp(path: Path) -> tuple[int, str]:
    """A new hidden file beside ``path``, opened for writing: what ``tempfile.mkstemp`` does, without
    importing ``tempfile`` (which pulls in ``shutil``, ``random``, ``bz2`` and ``lzma``: 8 ms of the
    CLI's start-up)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            # 0o666 less the umask, as any new file gets (mkstemp's 0o600 left results unreadable to
            # a user's group).
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{path.parent}: no free temporary name for {path.name}")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with _atomic_file(path) as f:
        f.write(data)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def summary_csv(summary: Mapping[str, Any]) -> str:
    """Header line and one value line (the same columns a sweep's table has)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(summary.keys())
    w.writerow(["" if v is None else v for v in summary.values()])
    return buf.getvalue()


@contextmanager
def streamed_request_log(path: Path | None) -> Iterator[Path | None]:
    """A hidden CSV file beside ``path`` for the simulator to stream the request log to during the
    run (the simulator writes it atomically too); :func:`commit_request_log` then puts it in place.
    The hidden file is removed whatever happens, so an error or Ctrl-C leaves nothing behind and
    ``path`` untouched. None gives None."""
    if path is None:
        yield None
        return
    path = Path(path)
    # The simulator checks the path it writes, the hidden file: check this one before the run too.
    if path.is_dir():
        raise IsADirectoryError(f"cannot write {path}: it is a directory")
    csv = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.csv")
    try:
        yield csv
    finally:
        csv.unlink(missing_ok=True)


def commit_request_log(csv: Path, path: Path) -> None:
    """Move the streamed CSV log to ``path``, or convert it to Parquet there when the name ends in
    .parquet (written atomically)."""
    path = Path(path)
    if path.suffix != ".parquet":
        os.replace(csv, path)
        return
    with _atomic_file(path) as out:
        _csv_to_parquet(Path(csv), out)


# Bytes of CSV per Parquet row group (about 11,000 rows). pyarrow's own streaming CSV reader reads
# ahead: its memory grew with the file (20 MiB for the reference run's 18 MB log, 40 MiB for four
# times that), so the file is cut into blocks here and each is parsed on its own (3 MiB peak);
# larger blocks cost more memory than they save time.
_PARQUET_BLOCK = 1 << 20


def _csv_to_parquet(csv: Path, out: Any) -> None:
    """The request log as Parquet, one row group per block of the CSV: memory stays bounded."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    with csv.open("rb") as f:
        columns = f.readline().decode().strip().split(",")
        # Explicit types: a block is parsed without the others, and a log without rows has none.
        types = {c: pa.string() if c == "op" else pa.int64() for c in columns}
        read = pacsv.ReadOptions(column_names=columns, use_threads=False)
        convert = pacsv.ConvertOptions(column_types=types)
        with pq.ParquetWriter(out, pa.schema([(c, types[c]) for c in columns])) as w:
            rest = b""
            while block := f.read(_PARQUET_BLOCK):
                block = rest + block
                cut = block.rfind(b"\n") + 1
                rest = block[cut:]
                if cut:
                    w.write_table(pacsv.read_csv(pa.py_buffer(block[:cut]), read_options=read, convert_options=convert))
            if rest:
                raise ValueError(f"{csv}: the request log ends without a newline")
