"""Import cycles between the Rust crate's source files (`python tools/import_cycles.py`).

Every `crate::a::b::...` path a file names (in `use` lines or inline) is resolved to the source
file of the longest module prefix that exists (`a/b.rs` or `a/b/mod.rs`, else `a.rs` or
`a/mod.rs`); `super::` paths and `use child::...` are resolved from the file's own module;
`mod` declarations are not edges. Test modules are left out. The strongly connected components
with more than one file are the cycles. A cycle between top-level modules (`config` and `workload`, say) breaks
the one-way data flow (config -> workload -> host -> device queue -> FTL -> TSU -> flash ->
report): the script prints those and exits 1 if there is any; `--all` also lists the cycles
inside one module (a `mod.rs` and the children that implement its trait).

python/tests/test_shape.py runs it, so that a cycle fails the tests.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "crates" / "flashsched" / "src"
PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
RELATIVE_USE = re.compile(r"\buse\s+(?:self::)?([a-z_][a-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)")
USE_GROUP = re.compile(r"\buse\s+(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\}\s*;", re.S)


def module_of(path: Path) -> list[str]:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def file_of(parts: list[str]) -> Path | None:
    """The source file of the longest prefix of `parts` that is a module."""
    for n in range(len(parts), 0, -1):
        base = SRC.joinpath(*parts[:n])
        for cand in (base.with_suffix(".rs"), base / "mod.rs"):
            if cand.is_file():
                return cand
    return None


def strip_comments(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def edges_of(path: Path) -> set[Path]:
    text = strip_comments(path.read_text())
    # Test modules import freely (tests of a module may use its callers); only the code counts.
    text = re.split(r"#\[cfg\(test\)\]\s*mod\s+tests\s*\{", text)[0]
    own = module_of(path)
    targets: list[list[str]] = []

    def resolve(root: str, rest: list[str]) -> list[str]:
        if root == "crate":
            return rest
        parent = own[:-1]  # the module's parent (`own` already names a mod.rs's directory)
        while rest and rest[0] == "super":
            parent, rest = parent[:-1], rest[1:]
        return parent + rest

    for m in USE_GROUP.finditer(text):
        prefix = [p for p in m.group(2).split("::") if p]
        for item in re.split(r",", m.group(3)):
            first = item.strip().split("::")[0].split(" ")[0].strip("{} ")
            if first and first != "self":
                targets.append(resolve(m.group(1), prefix + [first]))
            else:
                targets.append(resolve(m.group(1), prefix))
    for m in PATH.finditer(text):
        targets.append(resolve(m.group(1), [p for p in m.group(2).split("::") if p]))
    # `use child::...` and `use self::child::...`: a path relative to this module (a re-export of
    # a child's item, `pub use settings::Settings`, makes the parent depend on that child).
    here = own
    for m in RELATIVE_USE.finditer(text):
        parts = [p for p in m.group(1).split("::") if p and p != "self"]
        if parts and file_of(here + parts[:1]) not in (None, path) and (SRC.joinpath(*here, parts[0] + ".rs").is_file() or SRC.joinpath(*here, parts[0], "mod.rs").is_file()):
            targets.append(here + parts)
    out = set()
    for t in targets:
        f = file_of(t)
        if f is not None and f != path:
            out.add(f)
    return out


def cycles() -> list[list[Path]]:
    files = sorted(SRC.rglob("*.rs"))
    graph = {f: edges_of(f) for f in files}
    # Tarjan's strongly connected components, iteratively.
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    on: set[Path] = set()
    stack: list[Path] = []
    out: list[list[Path]] = []
    counter = 0
    for root in files:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def top(p: Path) -> str:
    """The top-level module of a source file (`ftl` for ftl/gc/greedy.rs)."""
    return p.relative_to(SRC).parts[0].removesuffix(".rs")


def cross_module(found: list[list[Path]]) -> list[list[Path]]:
    """The cycles between top-level modules: the ones that break the data flow. Inside one module,
    a `mod.rs` that builds its children and children that implement its trait refer to each other
    by design; those cycles are listed with --all only."""
    return [c for c in found if len({top(p) for p in c}) > 1]


def main() -> int:
    found = cycles()
    shown = found if "--all" in sys.argv[1:] else cross_module(found)
    for comp in shown:
        print(f"cycle of {len(comp)} files: " + " ".join(str(p.relative_to(SRC)) for p in comp))
    bad = cross_module(found)
    if not bad:
        print("no import cycle between modules")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
