"""Writing results: every file is written to a temporary file beside its target and renamed into
place, so an interrupted or failed run never leaves a half-written output."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    import pandas as pd


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


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


def write_request_log(frame: pd.DataFrame, path: Path) -> None:
    """CSV, or Parquet when the name ends in .parquet."""
    path = Path(path)
    if path.suffix == ".parquet":
        import io

        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        atomic_write_bytes(path, buf.getvalue())
    else:
        atomic_write_text(path, frame.to_csv(index=False, lineterminator="\n"))
