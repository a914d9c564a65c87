from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


def require_shared(why: str) -> Path:
    """The shared trace folder; under CI (``CI`` set) its absence fails the test, elsewhere it
    skips it, so that CI never counts a test as passed that did not run."""
    if not (SHARED / "traces").is_dir():
        if os.environ.get("CI", "") not in ("", "0", "false"):
            pytest.fail(f"../shared/traces not found beside the clone ({SHARED}): CI needs it")
        pytest.skip(f"../shared/traces not found ({why})")
    return SHARED


@pytest.fixture
def shared() -> Path:
    return require_shared("CI has it beside the clone")


def cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user would, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "flashsched", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})


def write_trace(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


SYNTH = ["--set", "workload.kind=synthetic", "--set", "workload.synthetic.requests=2000"]
