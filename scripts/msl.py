#!/usr/bin/env python3
"""scripts/msl.py -- `make msl`: mdae analyze over every Base Modelica file of
a folder (default ../shared/msl), one row per model and the totals (issue 11).

Each model runs as `mdae analyze FILE --json` (import + complete analysis +
JSON, what a user runs) with MDAE_STATS=1, which makes the CLI print the
front-end's time and the peak BDD node count on stderr. A row is

  analysed  unknowns equations mode-variables log10(valid modes) singular? seconds peak-nodes
            single-mode (issue 38)
  error     the first located error (FILE:LINE:COL: error: ...)
  limit     the limit that stopped it (BDD node limit, time limit, a configured
            limit of the analysis such as the dependency graph's size)

The single-mode column says whether a single-mode analysis, as Modelica tools
do (RR-9459 section 3.1: `mdae approx FILE --json`, run on every analysed
model and on those stopped at a limit, after the table row), is wrong in some valid mode: "ok", or "wrong:N (kind n, ...)" with N
findings by kind (pivot: zero in some modes; offsets: not the exact ones;
singular: modes it accepts though singular; refused: it finds no perfect
matching though modes are solvable), or "-" when it did not run (its reason
is printed after the table). The totals end with the count and the list of
those models.

Usage: scripts/msl.py [--mdae build/clients/mdae] [--timeout 60] [DIR]
"""
import argparse
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time


def log10_modes(v):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return float("nan")
    return math.log10(v) if v > 0 else float("-inf")


def run(mdae, path, timeout):
    env = dict(os.environ, MDAE_STATS="1")
    t0 = time.monotonic()
    try:
        p = subprocess.run([mdae, "analyze", path, "--json"], capture_output=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"kind": "limit", "what": "time limit (%d s)" % timeout,
                "seconds": time.monotonic() - t0}
    sec = time.monotonic() - t0
    err = p.stderr.decode("utf-8", "replace")
    row = {"seconds": sec}
    m = re.search(r"mdae-stats: parse_bytes (\d+) parse_seconds ([0-9.]+)", err)
    if m:
        row["bytes"] = int(m.group(1))
        row["parse_seconds"] = float(m.group(2))
    m = re.search(r"mdae-stats: peak_nodes (\d+)", err)
    if m:
        row["peak"] = int(m.group(1))
    if p.returncode == 0:
        d = json.loads(p.stdout)
        row.update(kind="analysed", unknowns=len(d.get("variables", [])),
                   equations=len(d.get("equations", [])),
                   modes=len(d.get("modeVariables", [])),
                   valid=log10_modes(d.get("validModes")),
                   singular=d.get("status") != "nonsingular")
    elif p.returncode == 3:
        row.update(kind="limit", what="BDD node limit")
    elif p.returncode == 1 and ("(limit " in err or "exceeds a configured limit" in err):
        # a stated limit names itself in a located error (issue 36)
        first = next((l for l in err.splitlines() if "(limit " in l), None) or next(
            (l for l in err.splitlines() if ": error: " in l), "a configured limit")
        row.update(kind="limit", what=first.split(": error: ", 1)[-1][:160])
    elif p.returncode == 1:
        first = next((l for l in err.splitlines() if ": error: " in l), "model errors")
        row.update(kind="error", what=first.split("/")[-1][:160])
    else:
        first = next((l for l in err.splitlines() if "error" in l), "exit %d" % p.returncode)
        row.update(kind="failure", what="exit %d: %s" % (p.returncode, first[:160]))
    if p.returncode < 0:
        row.update(kind="failure", what="killed by signal %d" % -p.returncode)
    return row


def approx(mdae, path, timeout):
    """`mdae approx FILE --json`: {"findings": n, "wrong": modes wrong,
    "kinds": {kind: n}, "seconds": s} or {"what": why it did not run}."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([mdae, "approx", path, "--json"], capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"what": "time limit (%d s)" % timeout}
    sec = time.monotonic() - t0
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace")
        first = next((l for l in err.splitlines() if "error" in l), "exit %d" % p.returncode)
        return {"what": first.split(": error: ", 1)[-1][:160]}
    d = json.loads(p.stdout)
    kinds = {}
    for f in d.get("findings", []):
        kinds[f.get("kind")] = kinds.get(f.get("kind"), 0) + 1
    return {"findings": len(d.get("findings", [])), "kinds": kinds, "seconds": sec,
            "wrong": (d.get("wrong_modes") or {}).get("count", 0)}


def approx_cell(r):
    a = r.get("approx")
    if a is None or "what" in a:
        return "-"
    if not a["findings"]:
        return "ok"
    return "wrong:%d (%s)" % (a["findings"], ", ".join(
        "%s %d" % (k, n) for k, n in sorted(a["kinds"].items())))


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, int(math.ceil(q * len(xs))) - 1))
    return xs[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                            "shared", "msl"))
    ap.add_argument("--mdae", default="build/clients/mdae")
    ap.add_argument("--timeout", type=int, default=10)  # the issue: none over 10 s
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.dir, "*.bmo")))
    if not files:
        print("msl: no .bmo files in %s: nothing to do" % a.dir)
        return 0
    rows = []
    print("%-74s %-8s %6s %6s %5s %7s %4s %8s %10s %s" % ("model", "result", "unkn", "eqns",
                                                             "modes", "log10", "sing", "seconds",
                                                             "peak", "single-mode"))
    for f in files:
        r = run(a.mdae, f, a.timeout)
        r["name"] = os.path.basename(f)[:-4]
        rows.append(r)
        name = r["name"]
        if len(name) > 74:
            name = "..." + name[-71:]
        if r["kind"] == "analysed":
            r["approx"] = approx(a.mdae, f, a.timeout)
            print("%-74s %-8s %6d %6d %5d %7.1f %4s %8.3f %10d %s" % (
                name, "analysed", r["unknowns"], r["equations"], r["modes"], r["valid"],
                "yes" if r["singular"] else "no", r["seconds"], r.get("peak", 0),
                approx_cell(r)))
        elif r["kind"] == "limit":
            # the approximate analysis needs the exact one, not the
            # dependency graph that often is the limit: run it all the same
            r["approx"] = approx(a.mdae, f, a.timeout)
            print("%-74s %-8s %s (%.2f s) single-mode: %s" % (name, r["kind"], r["what"],
                                                               r["seconds"], approx_cell(r)))
        else:
            print("%-74s %-8s %s (%.2f s)" % (name, r["kind"], r["what"], r["seconds"]))
        sys.stdout.flush()
    n = len(rows)
    by = {k: [r for r in rows if r["kind"] == k] for k in ("analysed", "error", "limit",
                                                           "failure")}
    secs = [r["seconds"] for r in rows]
    asecs = [r["seconds"] for r in by["analysed"]]
    pb = sum(r.get("bytes", 0) for r in rows if "parse_seconds" in r)
    ps = sum(r.get("parse_seconds", 0) for r in rows)
    print()
    print("totals: %d models: %d analysed (%.1f %%), %d located errors, %d limits, %d failures"
          % (n, len(by["analysed"]), 100.0 * len(by["analysed"]) / n, len(by["error"]),
             len(by["limit"]), len(by["failure"])))
    print("seconds per model (all): median %.3f, p90 %.3f, max %.3f; analysed: median %.3f, "
          "p90 %.3f" % (statistics.median(secs), pct(secs, 0.9), max(secs),
                        statistics.median(asecs) if asecs else float("nan"), pct(asecs, 0.9)))
    print("singular in some mode: %d of %d analysed" % (
        sum(1 for r in by["analysed"] if r["singular"]), len(by["analysed"])))
    tried = by["analysed"] + by["limit"]
    ran = [r for r in tried if approx_cell(r) != "-"]
    wrong = [r for r in ran if approx_cell(r) != "ok"]
    kinds = {}
    for r in wrong:
        for k in r["approx"]["kinds"]:
            kinds[k] = kinds.get(k, 0) + 1
    print("single-mode analysis (as Modelica tools do) wrong in some valid mode: %d of the %d "
          "models it ran on%s%s" % (len(wrong), len(ran),
                            " (models with findings of each kind: %s)" % ", ".join(
                                "%s %d" % kn for kn in sorted(kinds.items())) if kinds else "",
                            (": " + ", ".join(r["name"] for r in wrong)) if wrong else ""))
    for r in tried:
        if approx_cell(r) == "-":
            print("single-mode analysis did not run on %s: %s" % (
                r["name"], r.get("approx", {}).get("what", "?")))
    if ps > 0:
        print("front-end: %.1f MB in %.3f s = %.1f MB/s" % (pb / 1e6, ps, pb / 1e6 / ps))
    return 1 if by["failure"] else 0


if __name__ == "__main__":
    sys.exit(main())
