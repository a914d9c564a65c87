"""Run the code blocks of the docs, so the examples users copy keep working."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_shared

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "docs" / "experiments.md", ROOT / "docs" / "guide.md", ROOT / "README.md"]


def blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(), re.S)


def test_shell_examples_in_order() -> None:
    """Every `flashsched` line of the ```sh blocks of docs/experiments.md, in order. Examples that
    need machines of the reader's (a cluster's scheduler) are in ```text blocks: never run here,
    so that no test sends traffic anywhere but this machine."""
    require_shared("the examples use a real trace")
    for block in blocks(DOCS[0], "sh"):
        for line in block.splitlines():
            line = line.strip()
            if not line.startswith("flashsched "):
                continue
            args = shlex.split(line)[1:]
            assert "--cluster" not in args, f"{line}: a cluster example belongs in a ```text block"
            r = subprocess.run([sys.executable, "-m", "flashsched", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, f"{line}\n{r.stderr}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_python_examples(doc: Path) -> None:
    for block in blocks(doc, "python"):
        code = compile(block, str(doc), "exec")
        exec(code, {"__name__": "__doc_example__"})  # noqa: S102 - our own docs
