"""Regenerate the docs generated from code: ``python -m flashsched.gendocs`` (``make docs``), run
from the repository's root (the package is installed from a wheel, so it does not know where the
repository is).

A test (python/tests/test_docs.py) fails when the committed copies are stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import _core



def generated(root: Path) -> dict[Path, str]:
    """The generated files under the repository `root`, with the text each should hold."""
    return {
        root / "docs" / "reference" / "config.md": _core.config_reference(),
        root / "docs" / "config.schema.json": _core.json_schema(),
        root / "docs" / "reference" / "policies.md": _core.policies_reference(),
    }


def main() -> int:
    root = Path.cwd()
    if not ((root / "Cargo.toml").is_file() and (root / "docs").is_dir()):
        print(f"error: {root} is not flashsched's repository (no Cargo.toml and docs/): run `make docs` "
              "from the repository's root", file=sys.stderr)
        return 2
    for path, text in generated(root).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path.relative_to(root)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
