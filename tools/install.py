"""Build flashsched's wheel and install it into a virtual environment (`make install`).

    python tools/install.py --venv .venv              # what `make install PGO=0` runs
    python tools/pgo.py --venv .venv                  # the profile-guided install, which calls this

The wheel is built with `maturin build` and installed with the environment's own pip, as two
separate steps. Not with `maturin develop`: that command runs pip (to install the dependencies)
and then cargo on the same terminal, and in a pseudo-terminal (`script`, tmux) cargo's probe of the
compiler has been seen to fail with pip's terminal output as its input. `maturin build` runs no
pip, and pip then installs a finished wheel; both are given /dev/null as standard input, since
neither needs any. The package is installed as a regular (not editable) install: `make install`
reinstalls it whenever a Rust or Python source changes.

The compiler flags go to cargo as `CARGO_ENCODED_RUSTFLAGS` (arguments separated by 0x1f), so that
a path with spaces stays one argument; the caller's `RUSTFLAGS` (or `CARGO_ENCODED_RUSTFLAGS`),
e.g. `-C target-cpu=native` from `make install NATIVE=1`, come first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The plain release build's target directory: cargo's default, shared with `cargo build --release`.
PLAIN_TARGET = ROOT / "target"


def say(msg: str) -> None:
    print(f"install: {msg}", flush=True)


def base_flags() -> list[str]:
    """The caller's compiler flags, as cargo itself would read them."""
    encoded = os.environ.get("CARGO_ENCODED_RUSTFLAGS")
    if encoded is not None:
        return [f for f in encoded.split("\x1f") if f]
    return os.environ.get("RUSTFLAGS", "").split()


def cargo_env(extra: list[str], target_dir: Path) -> dict[str, str]:
    env = dict(os.environ, CARGO_ENCODED_RUSTFLAGS="\x1f".join(base_flags() + extra), CARGO_TARGET_DIR=str(target_dir))
    env.pop("RUSTFLAGS", None)
    return env


def build_and_install(venv: Path, extra: list[str], target_dir: Path, extras: bool = True) -> Path:
    """Build the wheel in `target_dir` with these extra rustflags and install it into `venv`, with
    the test extras unless `extras` is false (a second build whose first installed them). Returns
    the wheel's path."""
    wheels = target_dir / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    python = venv / "bin" / "python"
    cmd = [str(venv / "bin" / "maturin"), "build", "--release", "--quiet", "--interpreter", str(python),
           "--out", str(wheels)]
    subprocess.run(cmd, cwd=ROOT, env=cargo_env(extra, target_dir), check=True, stdin=subprocess.DEVNULL)
    built = sorted(wheels.glob("flashsched-*.whl"))
    if len(built) != 1:
        raise OSError(f"maturin build left {len(built)} wheels in {wheels}, expected one")
    wheel = built[0]
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    env = dict(os.environ, VIRTUAL_ENV=str(venv))
    if extras:
        # The dependencies and the test extras (a no-op when they are there already) ...
        subprocess.run([*pip, f"{wheel}[test]"], env=env, check=True, stdin=subprocess.DEVNULL)
    # ... then the package itself, replaced even though its version number has not changed.
    subprocess.run([*pip, "--force-reinstall", "--no-deps", str(wheel)], env=env, check=True,
                   stdin=subprocess.DEVNULL)
    return wheel


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venv", type=Path, required=True, help="the virtual environment to install into")
    a = ap.parse_args()
    say("building the Rust core (release build in target/release: 1-3 minutes on 2 cores, "
        "more the first time, while crates download), then installing it with pip")
    try:
        build_and_install(a.venv.resolve(), [], PLAIN_TARGET)
    except (subprocess.CalledProcessError, OSError) as e:
        say(f"failed: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
