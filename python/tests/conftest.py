from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared() -> Path:
    if not (SHARED / "traces").is_dir():
        pytest.skip("../shared/traces not found (CI has it beside the clone)")
    return SHARED


def cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user would, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "flashsched", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})


def write_trace(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


SYNTH = ["--set", "workload.kind=synthetic", "--set", "workload.synthetic.requests=2000"]
