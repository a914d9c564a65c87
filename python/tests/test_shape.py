"""The code's shape, checked: imports run one way between the Rust crate's modules (no cycle),
and no source file is over 800 lines (a file that long holds more than one concern)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 800


def test_no_import_cycle_between_modules() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "import_cycles.py")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The check can fail: two modules that import each other are a cycle."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import import_cycles as ic
    finally:
        sys.path.pop(0)
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod a;\npub mod b;\n")
    (src / "a" / "mod.rs").write_text("use crate::b::Thing;\npub struct Other;\n")
    (src / "b.rs").write_text("use crate::a::Other;\npub struct Thing;\n")
    monkeypatch.setattr(ic, "SRC", src)
    found = ic.cross_module(ic.cycles())
    assert [sorted(p.relative_to(src).as_posix() for p in c) for c in found] == [["a/mod.rs", "b.rs"]]


def test_no_source_file_is_over_800_lines() -> None:
    files = list((ROOT / "crates").glob("*/src/**/*.rs")) + list((ROOT / "python").rglob("*.py"))
    long = {str(f.relative_to(ROOT)): n for f in files if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"
