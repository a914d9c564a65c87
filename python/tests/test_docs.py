"""Generated docs are up to date, and every config key and output field is documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

import flashsched
from flashsched import _core, gendocs

ROOT = Path(__file__).resolve().parents[2]


def test_generated_docs_are_fresh() -> None:
    for path, text in gendocs.generated(ROOT).items():
        assert path.exists(), f"{path} missing: run `make docs`"
        assert path.read_text() == text, f"{path} is stale: run `make docs`"


def test_every_output_field_is_documented() -> None:
    doc = (ROOT / "docs/reference/output.md").read_text()
    r = flashsched.simulate("tiny", {"kind": "synthetic", "synthetic": {"requests": 200}})
    missing = [k for k in r.json["ssd"] if f"`{k}`" not in doc]
    missing += [k for k in r.json["jobs"][0]["read"] if f"`{k}`" not in doc]
    missing += [k for k in r.summary if f"`{k}`" not in doc]
    missing += [k for k in r.json["flashsched"] if f"`{k}`" not in doc]
    assert not missing, f"undocumented output fields: {missing}"


def test_schema_covers_every_key() -> None:
    schema = json.loads(_core.json_schema())
    for path, *_ in _core.config_keys():
        node = schema
        for part in path.split("."):
            node = node["properties"][part]
        assert "description" in node and "default" in node


def test_readme_quick_start_is_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Quick start\n\n```sh\n(.*?)```", readme, re.S)
    assert block is not None
    commands = [l.split("#")[0].strip() for l in block.group(1).splitlines() if l.strip()]
    assert commands == ["make demo", "make test"]
