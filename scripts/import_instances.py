#!/usr/bin/env python3
"""Regenerate instances/ (native TOML files, MANIFEST.toml, README.md) from ../shared.

    python scripts/import_instances.py [--shared PATH] [--out PATH] [--date YYYY-MM-DD] [--certify-times DIR ...]

Writes instances/solbat/ (the 39 MiniZinc solbat .dzn files), instances/variants/
(the 12 jolyonb puzzles) and instances/seeds/ (puzzles typed up from the seed texts),
then lists every *.toml under instances/ -- the hand-written smoke/ suite included --
in MANIFEST.toml and README.md.  Provenance comes from shared/external/SOURCES.md.
A file's ``imported`` date is kept when it is regenerated (unless --date is given), so
running the script twice changes nothing.  Every ``planted`` board is checked against
its instance with a small checker of its own; an instance is marked expected ``sat``
only when its planted board passes, and the script fails if a file that claims ``sat``
by a planted board does not.

``--certify-times DIR`` (default: ``reports/large-certify``, when it holds a results
store) reads a count-2 campaign's store: for each instance one of its pairs decided
completely (sat with a complete count, or unsat), the manifest records the fastest such
pair and its wall time (``certify_best_pair``, ``certify_best_s``, ``certify_from``); the
generator's own certificate (``[meta.certificate]``, a complete count-2 by one pair) counts
too, as ``certify_from = "generation"``, so that a puzzle no campaign certified within its
limit still has its time.
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness.core.paths import path_part  # noqa: E402
from harness.puzzle.board import Board  # noqa: E402
from harness.puzzle.formats import format_instance, parse_instance, read_instance  # noqa: E402
from harness.puzzle.instance import Hint, Instance  # noqa: E402

SUITES = {
    "smoke": "hand-written tiny instances (at most 6x6) for fast tests",
    "seeds": "puzzles typed up from the project's seed texts (shared/seeds/)",
    "solbat": "MiniZinc Challenge 2010-2016 `solbat` instances, no hints, many solutions",
    "variants": "Jolyon Bloomfield's test puzzles: unknown clues, non-square boards, hints",
    "classic": "certified-unique 10x10 puzzles, standard fleet, hint styles mixed (battlebench generate)",
    "unsat": "certified-unsat 10x10 puzzles, two of each cause (battlebench generate)",
    "large": "30x20 puzzles, default fleet: 5 hint-free, 15 with 60/120/240 random hints, 5 unique, and the "
             "minimal-hint ones made so far (`*` hints; 13 min to hours each); counts certified (battlebench generate)",
    "xl": "50x50 and 100x100 puzzles, default fleet, 60% (50x50) or 85% (100x100) of cells revealed, to show scaling (battlebench generate)",
}
GENERATED = ("classic", "unsat", "large", "xl")  # made by scripts/generate_suites.sh, listed here only
SOLBAT_LICENSE = "MIT (LICENSE of MiniZinc/minizinc-benchmarks, Copyright (c) 2016 MiniZinc (individual authors))"
SOLBAT_AUTHOR = "model sb.mzn by Peter Stuckey (2009); instances of the MiniZinc Challenge 2010-2016"
JOLYONB_LICENSE = "unknown (no licence file in jolyonb/puzzles)"
JOLYONB_AUTHOR = "Jolyon Bloomfield (2018)"


# ---------------------------------------------------------------- provenance
def read_sources(shared: Path) -> dict[str, tuple[str, str, str]]:
    """folder -> (repository, commit, source folder) from SOURCES.md's table."""
    out = {}
    for line in (shared / "external" / "SOURCES.md").read_text().splitlines():
        m = re.match(r"\|\s*`([^`]+)/`\s*\|\s*\d+\s*\|\s*`([^`]+)`\s*@\s*`([0-9a-f]{40})`\s*:\s*`([^`]+)`", line)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3), m.group(4).rsplit("/", 1)[0])
    for folder in ("minizinc-solbat", "jolyonb-puzzles"):
        if folder not in out:
            sys.exit(f"SOURCES.md: no provenance row for {folder}/")
    return out


def provenance(repo: str, commit: str, path: str) -> dict[str, str]:
    return {"source": f"{repo} @ {commit} : {path}", "source_repo": repo, "source_commit": commit,
            "source_path": path}


# ---------------------------------------------------------------- checking planted boards
def check_board(inst: Instance, rows: list[str]) -> str | None:
    """None when ``rows`` solves ``inst`` (shapes, fleet, sums, hints, no touching), else why not."""
    if len(rows) != inst.rows or any(len(r) != inst.cols for r in rows):
        return "wrong board size"
    cells = {(r, c) for r, line in enumerate(rows) for c, ch in enumerate(line) if ch != "."}
    if Board.from_cells(inst.rows, inst.cols, cells).rows != tuple(rows):
        return "pieces do not match the ship cells"
    seen: set[tuple[int, int]] = set()
    lengths: Counter[int] = Counter()
    for start in sorted(cells):
        if start in seen:
            continue
        comp, stack = set(), [start]
        while stack:  # 8-connected: ships that touch, even diagonally, merge into one blob
            r, c = stack.pop()
            if (r, c) in cells and (r, c) not in comp:
                comp.add((r, c))
                stack += [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
        seen |= comp
        rs, cs = {r for r, _ in comp}, {c for _, c in comp}
        if not (len(rs) == 1 or len(cs) == 1):
            return f"ship cells at {min(comp)} are not one straight, untouched ship"
        lengths[len(comp)] += 1
    if lengths != Counter({k: v for k, v in inst.fleet.items() if v}):
        return f"fleet {dict(sorted(lengths.items()))} differs"
    for r, clue in enumerate(inst.row_clues):
        if clue is not None and clue != sum((r, c) in cells for c in range(inst.cols)):
            return f"row {r} sum differs"
    for c, clue in enumerate(inst.col_clues):
        if clue is not None and clue != sum((r, c) in cells for r in range(inst.rows)):
            return f"column {c} sum differs"
    for (r, c), h in inst.hints.items():
        ch = rows[r][c]
        if (h is Hint.WATER) != (ch == ".") or (h.is_piece and ch != h.value):
            return f"hint ({r},{c}) {h.value!r} not respected"
    return None


# ---------------------------------------------------------------- sources
def imported_date(target: Path, forced: str | None) -> str:
    if forced:
        return forced
    if target.exists():
        old = tomllib.loads(target.read_text()).get("meta", {}).get("imported")
        if isinstance(old, str):
            return old
    return datetime.date.today().isoformat()


def with_meta(inst: Instance, target: Path, date: str | None, **meta) -> Instance:
    extra = {k: v for k, v in inst.meta.items()}
    meta["imported"] = imported_date(target, date)
    planted = extra.pop("planted", None)
    note = extra.pop("planted_note", None)
    if planted is not None:
        problem = check_board(inst, planted)
        if problem is None and "expected_status" not in meta:
            meta["expected_status"] = "sat"
            meta["expected_evidence"] = "the planted board solves it (checked by scripts/import_instances.py)"
        meta["planted"] = planted
        notes = [n for n in (note, problem and f"the planted board does not solve the instance: {problem}") if n]
        if notes:
            meta["planted_note"] = "; ".join(notes)
    return inst.replace(meta={**meta, **extra})


def import_solbat(shared: Path, out: Path, src: tuple[str, str, str], date: str | None) -> list[Path]:
    repo, commit, folder = src
    written = []
    for f in sorted((shared / "external" / "minizinc-solbat").glob("*.dzn")):
        inst = read_instance(f, "dzn")
        target = out / "solbat" / f"{path_part(inst.name)}.toml"
        meta = {"title": f"MiniZinc solbat {inst.name}", **provenance(repo, commit, f"{folder}/{f.name}"),
                "original_file": f.name, "author": SOLBAT_AUTHOR, "license": SOLBAT_LICENSE, "format": "dzn"}
        if inst.name == "sb_12_12_5_0":
            meta.update(expected_status="sat", expected_count=51,
                        expected_evidence="51 solutions per shared/external/SOURCES.md")
        if sum(inst.row_clues) != sum(inst.col_clues):
            meta.update(expected_status="unsat",
                        expected_evidence=f"row sums total {sum(inst.row_clues)} but column sums total "
                                          f"{sum(inst.col_clues)}")
        written.append(save(with_meta(inst, target, date, **meta), target))
    return written


def import_jolyonb(shared: Path, out: Path, src: tuple[str, str, str], date: str | None) -> list[Path]:
    repo, commit, folder = src
    written = []
    for f in sorted((shared / "external" / "jolyonb-puzzles").iterdir()):
        inst = read_instance(f, "jolyonb")
        target = out / "variants" / f"jolyonb_{path_part(inst.name)}.toml"
        inst = inst.replace(name=f"jolyonb_{inst.name}")
        meta = {"title": f"jolyonb battleships {f.name}", **provenance(repo, commit, f"{folder}/{f.name}"),
                "original_file": f.name, "author": JOLYONB_AUTHOR, "license": JOLYONB_LICENSE,
                "format": "jolyonb"}
        written.append(save(with_meta(inst, target, date, **meta), target))
    return written


def seed_meta(seed: str, title: str, author: str, fmt: str, notes: str) -> dict:
    return {"title": title, "source": f"battlebench shared/seeds/{seed}", "source_path": f"seeds/{seed}",
            "original_file": seed, "author": author, "license": "unknown", "format": fmt, "notes": notes}


def import_seeds(shared: Path, out: Path, date: str | None) -> list[Path]:
    seeds = shared / "seeds"
    written = []
    # seed-001: the ASCII puzzle (ships/across/down + grid) and the solution it prints.
    name = "seed-001-sat-encoding.txt"
    lines = (seeds / name).read_text().splitlines()
    s = next(i for i, ln in enumerate(lines) if "ships = '" in ln)
    e = next(i for i in range(s, len(lines)) if lines[i].rstrip().endswith('"""'))
    snippet = "\n".join([lines[s][lines[s].index("ships"):]] + lines[s + 1:e + 1])
    inst = parse_instance(snippet, "ascii", file=str(seeds / name), name="seed001_15x15")
    solution = [ln.replace(" ", "") for ln in map(str.strip, lines[e + 1:])
                if re.fullmatch(r"[.^v<>#O]( [.^v<>#O]){14}", ln)]
    target = out / "seeds" / "seed001_15x15.toml"
    meta = seed_meta(name, "seed-001 15x15 puzzle (Solving Battleships with SAT)",
                     "the text of 'Solving Battleships with SAT' (it mentions kmkeen.com)", "ascii",
                     "typed up from the seed's ships/across/down strings and ASCII grid; across = column "
                     "clues, down = row clues; planted = the solution the seed prints")
    written.append(save(with_meta(inst.replace(meta={"planted": solution[-15:]}), target, date, **meta), target))

    # seed-004: sb_12_12_5_0 as a formula; its MIP run prints one board.
    name = "seed-004-per-ship-mip-12x12.txt"
    text = (seeds / name).read_text()
    inst = Instance(rows=12, cols=12, fleet={1: 2, 2: 0, 3: 1, 4: 4, 5: 4},
                    row_clues=(6, 2, 2, 6, 1, 5, 1, 4, 4, 3, 4, 3),
                    col_clues=(1, 7, 3, 3, 7, 1, 1, 4, 5, 0, 9, 0), name="seed004_12x12")
    occ = text.split("Board occupancy (0: water, 1: ship):", 1)[1].split("\n\n\n", 1)[0].split("\n")
    cells = {(r, c) for r, ln in enumerate(x for x in occ if x.strip()) for c, v in enumerate(ln.split()) if v == "1"}
    target = out / "seeds" / "seed004_12x12.toml"
    meta = seed_meta(name, "seed-004 12x12 per-ship MIP instance (= MiniZinc solbat sb_12_12_5_0)", "unknown",
                     "text", "the same puzzle as solbat/sb_12_12_5_0: it has 51 solutions, so the seed's "
                     "'Expected Output' (a 14x14 padded board) is only one of them; planted = the board its "
                     "MIP run printed, another of the 51")
    meta.update(expected_status="sat", expected_count=51,
                expected_evidence="same puzzle as sb_12_12_5_0 (51 solutions per shared/external/SOURCES.md)")
    planted = list(Board.from_cells(12, 12, cells).rows)
    written.append(save(with_meta(inst.replace(meta={"planted": planted}), target, date, **meta), target))

    # seed-000: the 6x6 of the ship-based IP chapter, without its (unpublished) revealed squares.
    name = "seed-000-ship-based-ip-cpsat.txt"
    inst = Instance(rows=6, cols=6, fleet={1: 3, 2: 2, 3: 1}, row_clues=(3, 1, 2, 1, 1, 2),
                    col_clues=(4, 0, 2, 1, 1, 2), name="seed000_6x6")
    target = out / "seeds" / "seed000_6x6.toml"
    meta = seed_meta(name, "seed-000 6x6 (ship-based IP chapter)",
                     "Vamshi Jandhyala, 'Solving Puzzles through Mathematical Programming', ch. 24 (per the text)",
                     "text", "the seed reveals three squares (two water, one ship) that make the solution "
                     "unique, but the text does not say where they are; this instance has no hints and so "
                     "several solutions")
    written.append(save(with_meta(inst, target, date, **meta), target))
    return written


def save(inst: Instance, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    text = format_instance(inst, "native")
    back = parse_instance(text, "native", file=str(target))
    assert back.same_puzzle(inst) and dict(back.meta) == dict(inst.meta), target
    target.write_text(text)
    return target


# ---------------------------------------------------------------- manifest and README
DEFAULT_CERTIFY_TIMES = (REPO / "reports" / "large-certify",)


def _certified(task: str, status: str, complete: bool) -> bool:
    """A count-2 that decided completely: a certification (from a store's record or a certificate)."""
    return task == "count-2" and status in ("sat", "unsat") and bool(complete)


def certify_times(dirs: list[Path]) -> dict[str, dict]:
    """content hash -> the fastest complete count-2 among the stores in ``dirs`` (pair, wall s, store)."""
    from harness.store import ResultsStore

    best: dict[str, dict] = {}
    for d in dirs:
        if not ((d / "results.sqlite").exists() or (d / "results.sqlite.gz").exists()):  # plain or committed gzip
            continue
        with ResultsStore(d, create=False) as store:
            for r in store.records():
                if not _certified(r["question"], r["status"], r["complete"]):
                    continue
                seen = best.get(r["instance_hash"])
                if seen is None or r["wall_s"] < seen["certify_best_s"]:
                    best[r["instance_hash"]] = {"certify_best_pair": r["pair"],
                                                "certify_best_s": round(float(r["wall_s"]), 2),
                                                "certify_from": d.relative_to(REPO).as_posix()
                                                if d.is_relative_to(REPO) else str(d)}
    return best


def manifest_entry(out: Path, path: Path, times: dict[str, dict] | None = None) -> dict:
    inst = read_instance(path)
    meta = inst.meta
    if "planted" in meta:
        problem = check_board(inst, meta["planted"])
        if problem and meta.get("expected_status") == "sat":
            sys.exit(f"{path}: claims sat but its planted board does not solve it: {problem}")
        if not problem and meta.get("expected_status") == "unsat":
            sys.exit(f"{path}: claims unsat but its planted board solves it")
    entry = {
        "suite": path.relative_to(out).parts[0], "path": path.relative_to(out).as_posix(), "name": inst.name,
        "rows": inst.rows, "cols": inst.cols, "fleet": dict(inst.fleet), "ship_cells": inst.ship_cells,
        "hints": len(inst.hints),
        "unknown_clues": sum(v is None for v in inst.row_clues + inst.col_clues),
        "touching": inst.touching, "content_hash": inst.content_hash(),
        "provenance": (meta["command"].replace(" --out DIR", "") if "command" in meta  # generated
                       else meta.get("source", "hand-written for battlebench")),
    }
    for k in ("expected_status", "expected_count"):
        if k in meta:
            entry[k] = meta[k]
    best = (times or {}).get(entry["content_hash"])
    cert = meta.get("certificate") or {}
    if _certified(cert.get("task", ""), cert.get("status", ""), cert.get("complete", False)) \
            and (best is None or float(cert["wall_s"]) < best["certify_best_s"]):
        best = {"certify_best_pair": cert["pair"], "certify_best_s": round(float(cert["wall_s"]), 2),
                "certify_from": "generation"}  # the generator's own certification was the fastest known
    entry.update(best or {})
    return entry


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_manifest(out: Path, entries: list[dict]) -> None:
    lines = ["# Generated by scripts/import_instances.py -- do not edit by hand.",
             "# One [[instance]] per file under instances/.  fleet: ship length = number of ships.",
             "# expected_status / expected_count appear only where certain; the evidence is in the",
             "# file's [meta] (expected_evidence).", ""]
    for e in entries:
        lines.append("[[instance]]")
        lines += [f"{k} = {toml_value(v)}" for k, v in e.items()]
        lines.append("")
    (out / "MANIFEST.toml").write_text("\n".join(lines))
    tomllib.loads((out / "MANIFEST.toml").read_text())  # it must parse


def write_readme(out: Path, entries: list[dict], sources: dict[str, tuple[str, str, str]]) -> None:
    count = Counter(e["suite"] for e in entries)
    lines = ["# Instances", "",
             "Native TOML instances (format: `harness/puzzle/formats/native.py`), listed with sizes, fleets,",
             "provenance and expected results in `MANIFEST.toml`.  `solbat/`, `variants/` and `seeds/` are",
             "imported by `python scripts/import_instances.py` from `../shared`; `classic/`, `unsat/`, `large/` and `xl/` are",
             "made by `bash scripts/generate_suites.sh`.  Each imported file's `[meta]` records where it came",
             "from (`source` = repository @ commit : path), the original file and format, author, licence",
             "and the date imported.", "",
             "| suite | files | what |", "|---|---|---|"]
    lines += [f"| `{s}/` | {count[s]} | {what} |" for s, what in SUITES.items()]
    deployments = out / "deployments"
    if deployments.is_dir():  # counting instances, listed by scripts/make_deployments.py in their own manifest
        n = sum(1 for f in deployments.rglob("*.toml") if f.name != "MANIFEST.toml")
        lines.insert(-1, f"| `deployments/` | {n} | counting instances (square and hex boards, named pieces), not "
                         "puzzles: see [deployments/README.md](deployments/README.md) and its own `MANIFEST.toml` |")
    solbat, jolyonb = sources["minizinc-solbat"], sources["jolyonb-puzzles"]
    lines += ["", "## Provenance", "", "| suite | origin | author | licence |", "|---|---|---|---|",
              f"| `solbat/` | `{solbat[0]}` @ `{solbat[1]}` : `{solbat[2]}/sb_*.dzn` | {SOLBAT_AUTHOR} | "
              f"{SOLBAT_LICENSE} |",
              f"| `variants/` | `{jolyonb[0]}` @ `{jolyonb[1]}` : `{jolyonb[2]}/puzzle*` | {JOLYONB_AUTHOR} | "
              f"{JOLYONB_LICENSE} |",
              "| `seeds/` | the project's `shared/seeds/seed-00{0,1,4}-*.txt` | see each file's meta | unknown |",
              "| `smoke/` | hand-written for battlebench | battlebench | the project's |",
              "| `classic/`, `unsat/`, `large/`, `xl/` | `battlebench generate` (`bash scripts/generate_suites.sh`); each file's "
              "`meta.command` and `meta.seed` regenerate it | battlebench | the project's |",
              "", "## Expected results", "",
              "`expected_status = \"sat\"` is set only where a planted board (from the source's comments or",
              "text) was checked against the instance by the import script; `\"unsat\"` only with a proof",
              "in `expected_evidence` (e.g. `sb_13_13_5_5`: row sums 53, column sums 51).  `expected_count`",
              "only where documented (`sb_12_12_5_0` and `seed004_12x12`: 51).  The 12x12 and 13x13 solbat",
              "files print their planted solution transposed; `meta.planted` is stored re-oriented.",
              "Generated files carry their own evidence: a complete count-2 by the certifying pair",
              "(`meta.certificate`), `expected_count` 1 (unique: exactly the planted board) or `\"many\"`.", ""]
    (out / "README.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--out", type=Path, default=REPO / "instances")
    ap.add_argument("--date", help="the imported date to record (default: keep, or today)")
    ap.add_argument("--certify-times", type=Path, action="append", default=None, metavar="DIR",
                    help="a count-2 campaign's results directory: record each instance's fastest complete "
                         "certification (default: reports/large-certify)")
    args = ap.parse_args(argv)
    sources = read_sources(args.shared)
    import_solbat(args.shared, args.out, sources["minizinc-solbat"], args.date)
    import_jolyonb(args.shared, args.out, sources["jolyonb-puzzles"], args.date)
    import_seeds(args.shared, args.out, args.date)
    order = list(SUITES)
    paths = sorted((p for p in args.out.glob("*/*.toml") if p.parent.name not in ("deployments", "optimal")), key=lambda p: (order.index(p.parent.name)
                                                            if p.parent.name in order else 99, p.name))
    times = certify_times(args.certify_times or list(DEFAULT_CERTIFY_TIMES))
    entries = [manifest_entry(args.out, p, times) for p in paths]
    write_manifest(args.out, entries)
    write_readme(args.out, entries, sources)
    print(f"wrote {len(entries)} instances to {args.out}: "
          + ", ".join(f"{s} {n}" for s, n in Counter(e['suite'] for e in entries).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
