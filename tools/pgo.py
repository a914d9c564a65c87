"""Profile-guided build of flashsched's native module (`make install`, docs/performance.md).

Three steps, each printed as it runs:

1. build the module instrumented (`-C profile-generate`) in its own target directory and install
   it into the virtual environment;
2. train it: `flashsched run` on workloads this project generates (a synthetic trace written to
   a gzip file, so that decoding is trained too, and the synthetic generator), under every
   family of policies, so that no configuration is left to the compiler's guesses;
3. merge the counts with `llvm-profdata` and build the module again with them
   (`-C profile-use`), in `target/pgo-use` (where `make bench` builds the benchmark with them).

The build is the same code: profile-guided optimisation changes only how the compiler lays out
and inlines it (results are byte-identical; `benches/ab.py same` checks it on sixteen
configurations). It needs `llvm-profdata` from the Rust toolchain's `llvm-tools` component.
Without `--require`, a missing tool or any failed step (a build, a training run, the merge) makes
the script say so and exit with status 3, and the Makefile falls back to a plain release build,
which also replaces an instrumented module the failure left installed; with `--require` the same
is an error (status 1).

Each build is a wheel built by `maturin build` and installed with pip (tools/install.py, which
also says why not `maturin develop`); the profile's flags are added to the caller's `RUSTFLAGS`.

    python tools/pgo.py --venv .venv [--require]      # what `make install` runs
    python tools/pgo.py --bench [-- key=value ...]     # what `make bench` runs: bench8x8 with the profile
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PGO_DIR = ROOT / "target" / "pgo"
RAW_DIR = PGO_DIR / "raw"
MERGED = PGO_DIR / "merged.profdata"
# The profile is kept under a name with its digest, and this file names it: cargo rebuilds when
# RUSTFLAGS change but does not look into the file they name, so a new profile must be a new
# path (`make bench` reads the path from here).
PROFILE_PATH = PGO_DIR / "profile-path"
GEN_TARGET = ROOT / "target" / "pgo-gen"
# The optimised build's own target directory: `make bench` builds the benchmark there with the
# same flags (sharing its dependencies), and a developer's plain `cargo build --release` in
# `target/` is not rebuilt by every install (different flags rebuild everything).
USE_TARGET = ROOT / "target" / "pgo-use"

# Requests per training run: enough for every path to be counted many times, few enough that the
# instrumented build (about twice as slow) trains in well under a minute.
REQUESTS = 30_000

sys.path.insert(0, str(ROOT / "benches"))
from configs import CONFIGS  # noqa: E402  (benches/configs.py: the configurations benches/ab.py compares)
from install import build_and_install, cargo_env  # noqa: E402  (tools/install.py, beside this file)

# (preset, overrides): every policy slot on the large reference drive, then the papers' own drives.
TRAINING: list[tuple[str, list[str]]] = [("bench8x8", sets) for sets in CONFIGS.values()] + [
    (preset, []) for preset in ("vios2016", "rrwr2016", "slacker2017", "pattern2019", "pass2014")
]


def say(msg: str) -> None:
    print(f"pgo: {msg}", flush=True)


def host_triple() -> str:
    out = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    return next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("host:"))


def find_profdata(install: bool) -> Path | None:
    """`llvm-profdata` of the toolchain's own LLVM (a system one may read another profile format)."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], check=True, capture_output=True, text=True).stdout.strip()
    tool = Path(sysroot) / "lib" / "rustlib" / host_triple() / "bin" / "llvm-profdata"
    if tool.exists():
        return tool
    if install and shutil.which("rustup"):
        say("llvm-profdata not found; adding the toolchain's llvm-tools component (rustup component add llvm-tools)")
        r = subprocess.run(["rustup", "component", "add", "llvm-tools"], capture_output=True, text=True)
        if r.returncode != 0:
            say(f"rustup could not add llvm-tools: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else 'no message'}")
    return tool if tool.exists() else None


def bench(args: list[str]) -> int:
    """`make bench`: the reference benchmark built with the installed module's profile, in the
    same target directory as the module (they share their dependencies); without a profile (a
    plain install), the plain build."""
    profile = Path(PROFILE_PATH.read_text().strip()) if PROFILE_PATH.exists() else None
    cmd = ["cargo", "bench", "-p", "flashsched", "--bench", "bench8x8", "--", *args]
    if profile is None or not profile.exists():
        say("no profile from `make install` (PGO=0, or it fell back): the plain build")
        return subprocess.run(cmd, cwd=ROOT).returncode
    return subprocess.run(cmd, cwd=ROOT, env=cargo_env(["-C", f"profile-use={profile}"], USE_TARGET)).returncode


def train(venv: Path) -> None:
    cli = str(venv / "bin" / "flashsched")
    with tempfile.TemporaryDirectory(prefix="flashsched-pgo-") as tmp:
        plain = Path(tmp) / "train.trace"
        subprocess.run([cli, "trace", "synth", "vios2016/src", "--requests", str(REQUESTS), "--seed", "7", "-o", str(plain)],
                       check=True, stdout=subprocess.DEVNULL)
        trace = Path(tmp) / "train.trace.gz"
        with plain.open("rb") as src, gzip.open(trace, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out = str(Path(tmp) / "out.json")
        for i, (preset, sets) in enumerate(TRAINING):
            # Even runs replay the trace (decoding included), odd ones use the generator.
            if i % 2 == 0:
                workload = ["--trace", str(trace), "--set", "workload.fold=modulo"]
            else:
                workload = ["--set", "workload.kind=synthetic", "--set", f"workload.synthetic.requests={REQUESTS}"]
            args = [cli, "run", "--preset", preset, *workload, "-q", "-o", out]
            for s in sets:
                args += ["--set", s]
            t = time.monotonic()
            subprocess.run(args, check=True)
            say(f"trained {preset} {' '.join(sets) or '(defaults)'} in {time.monotonic() - t:.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venv", type=Path, help="the virtual environment to install into")
    ap.add_argument("--require", action="store_true", help="failing is an error (exit 1), not a fallback (exit 3)")
    ap.add_argument("--bench", action="store_true", help="run bench8x8 built with the installed profile")
    ap.add_argument("bench_args", nargs="*", help="--bench: key=value overrides for the benchmark")
    a = ap.parse_args()
    if a.bench:
        return bench(a.bench_args)
    if a.venv is None:
        ap.error("--venv is required (or --bench)")
    venv = a.venv.resolve()
    fail = 1 if a.require else 3
    PROFILE_PATH.unlink(missing_ok=True)
    tool = find_profdata(install=True)
    if tool is None:
        say("llvm-profdata is not available (install it with `rustup component add llvm-tools`)")
        return fail
    try:
        profile = build(venv, tool)
    except (subprocess.CalledProcessError, OSError) as e:
        say(f"failed: {e}")
        return fail
    if profile is None:
        return fail
    PROFILE_PATH.write_text(f"{profile}\n")
    return 0


def build(venv: Path, tool: Path) -> Path | None:
    """Steps 1-3; the profile's path, or None (said why) when the training wrote no counts."""
    shutil.rmtree(RAW_DIR, ignore_errors=True)
    say("building flashsched twice, profile-guided (instrumented, trained, optimised): about 4-7 minutes "
        "on 2 cores, more the first time, while crates download; `make install PGO=0` builds once")
    say("1/3 instrumented build (target/pgo-gen, 1-3 minutes), installed with pip")
    build_and_install(venv, ["-C", f"profile-generate={RAW_DIR}"], GEN_TARGET)
    # Build scripts ran instrumented too: only the training's counts are wanted.
    shutil.rmtree(RAW_DIR, ignore_errors=True)
    say(f"2/3 training: {len(TRAINING)} runs of {REQUESTS:,} requests")
    train(venv)
    raws = sorted(RAW_DIR.glob("*.profraw"))
    if not raws:
        say(f"the training wrote no profile into {RAW_DIR}")
        return None
    subprocess.run([str(tool), "merge", "-o", str(MERGED), *map(str, raws)], check=True)
    digest = hashlib.sha256(MERGED.read_bytes()).hexdigest()[:16]
    profile = PGO_DIR / f"flashsched-{digest}.profdata"
    for old in PGO_DIR.glob("flashsched-*.profdata"):
        old.unlink()
    MERGED.rename(profile)
    say(f"merged {len(raws)} profiles into {profile.relative_to(ROOT)}")
    say("3/3 optimised build (target/pgo-use, 1-3 minutes), installed with pip")
    build_and_install(venv, ["-C", f"profile-use={profile}"], USE_TARGET, extras=False)
    return profile


if __name__ == "__main__":
    sys.exit(main())
