"""Regenerate the docs generated from code: ``python -m flashsched.gendocs`` (``make docs``).

A test (python/tests/test_docs.py) fails when the committed copies are stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import _core

ROOT = Path(__file__).resolve().parents[2]


def generated() -> dict[Path, str]:
    return {
        ROOT / "docs" / "reference" / "config.md": _core.config_reference(),
        ROOT / "docs" / "config.schema.json": _core.json_schema(),
        ROOT / "docs" / "reference" / "policies.md": _core.policies_reference(),
    }


def main() -> int:
    for path, text in generated().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
