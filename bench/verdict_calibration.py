#!/usr/bin/env python3
"""Judge rumbench's verdicts on runs made with --repeat: for every run
directory given, take subsets of its rounds (N rounds each, disjoint), run
`rumbench compare` on each subset (every config against the first) and count
verdicts.

  verdict_calibration.py aa   --rumbench BIN --n 1,3,5 DIR...    A/A runs: false verdicts
  verdict_calibration.py power --rumbench BIN --n 3,5,10 --metrics cpu_us_op DIR...
  verdict_calibration.py trials --rumbench BIN DIR...

`trials`: each run (configs base, aa, plus5, plus10) compared whole, every
metric: base -> aa with any REGRESSION, improvement or changed verdict is a
false verdict; base -> plus5/plus10 counts REGRESSION on ops/s and on cpu/op
per step, and the smallest detectable changes compare printed.

`aa`: every pair is an A/A comparison (identical configs); a pair with any
REGRESSION, improvement or changed verdict is a false verdict.
`power`: config 0 is the base, the others carry a known slowdown (their
names end in the slowdown, e.g. plus20); a pair is detected when the
readrandom step's cpu/op line says REGRESSION.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict


def subset(run, rounds):
    """The run with only the repeats of these rounds."""
    out = dict(run)
    # compare takes the first config it meets as the base: the run's first (rounds rotate).
    base = run["rounds"][0][0]
    kept = [c for c in run["configs"] if c.get("repeat") in rounds]
    out["configs"] = [c for c in kept if c["name"] == base] + [c for c in kept if c["name"] != base]
    out["rounds"] = [r for i, r in enumerate(run.get("rounds", []), 1) if i in rounds]
    return out


def by_pair(text):
    """((base, new), line) for each line of compare's text under a pair's header."""
    cur = None
    for line in text.splitlines():
        m = re.match(r"^(\S+) -> (\S+)$", line)
        if m:
            cur = (m.group(1), m.group(2))
            yield cur, None
        elif cur is not None and line:
            yield cur, line


def pairs_of(text):
    """{(base, new): [(step, metric, verdict, ratio)]} from compare's text."""
    pairs = {}
    for pair, line in by_pair(text):
        pairs.setdefault(pair, [])
        if line is None or line.startswith(("step ", "-----", "intervals:", "note:")):
            continue
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) >= 8:
            pairs[pair].append((cells[0], cells[1], cells[-1], cells[5]))
    return pairs


def detectable_of(text):
    """{(base, new): {step: "X% in ops/s, Y% in cpu/op us"}} from compare's text."""
    out = {}
    for pair, line in by_pair(text):
        out.setdefault(pair, {})
        m = re.match(r"^(\S+): could detect changes of (.*) or more$", line or "")
        if m:
            out[pair][m.group(1)] = m.group(2)
    return out


def trials(binary, dirs, steps):
    false_aa, examples = 0, []
    called = defaultdict(int)  # (new, step, metric) -> trials called REGRESSION
    mde = defaultdict(list)  # step -> detectable text of base -> aa, per trial
    for d in dirs:
        out = subprocess.run([binary, "compare", d], capture_output=True, text=True)
        if out.returncode not in (0, 1):
            sys.exit(f"compare failed: {out.stderr}")
        pairs = pairs_of(out.stdout)
        for (base, new), lines in pairs.items():
            if new == "aa":
                bad = [l for l in lines if l[2].startswith(("REGRESSION", "improvement", "changed"))]
                false_aa += bool(bad)
                if bad:
                    examples.append(f"{d}: {bad}")
            for step in steps:
                for metric, prefix in (("ops/s", "ops/s"), ("cpu/op", "cpu/op")):
                    hit = any(l[0] == step and l[1].startswith(prefix) and l[2] == "REGRESSION" for l in lines)
                    called[(new, step, metric)] += hit
        for step, text in detectable_of(out.stdout).get(("base", "aa"), {}).items():
            mde[step].append(text)
    n = len(dirs)
    print(f"| pair | step | REGRESSION on ops/s | on cpu/op |")
    print("|---|---|---:|---:|")
    for new in ("plus10", "plus5", "aa"):
        for step in steps:
            print(f"| base -> {new} | {step} | {called[(new, step, 'ops/s')]}/{n} | {called[(new, step, 'cpu/op')]}/{n} |")
    print()
    print(f"A/A trials (base -> aa) with any false verdict, every metric: {false_aa} of {n}")
    for e in examples[:5]:
        print(f"- {e}")
    print()
    print("Smallest detectable change of each A/A comparison (compare's line), per trial:")
    print()
    for step, texts in mde.items():
        print(f"- {step}: " + "; ".join(texts))


def compare(binary, run, metrics):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "result.json"), "w") as f:
            json.dump(run, f)
        cmd = [binary, "compare", d] + (["--metrics", metrics] if metrics else [])
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode not in (0, 1):
            sys.exit(f"compare failed: {out.stderr}")
        return pairs_of(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["aa", "power", "trials"])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--rumbench", required=True)
    ap.add_argument("--n", default="1,3,5")
    ap.add_argument("--metrics", default="")
    ap.add_argument("--steps", default="fillrandom,readrandom")
    a = ap.parse_args()
    if a.mode == "trials":
        return trials(a.rumbench, a.dirs, a.steps.split(","))
    ns = [int(x) for x in a.n.split(",")]
    # (n) -> [comparisons, with a false verdict] or (n, config) -> [trials, detected]
    tally = defaultdict(lambda: [0, 0])
    naive = defaultdict(lambda: [0, 0])
    examples = defaultdict(list)
    for d in a.dirs:
        run = json.load(open(os.path.join(d, "result.json")))
        total = len(run.get("rounds", []))
        for n in ns:
            for start in range(1, total - n + 2, n):
                rounds = set(range(start, start + n))
                for (base, new), lines in compare(a.rumbench, subset(run, rounds), a.metrics).items():
                    if a.mode == "aa":
                        bad = [l for l in lines if l[2].startswith(("REGRESSION", "improvement", "changed"))]
                        tally[n][0] += 1
                        tally[n][1] += bool(bad)
                        # What a one-run rule (ratio beyond +-5%) would have marked.
                        moved = [l for l in lines if re.match(r"^[0-9.]+$", l[3]) and abs(float(l[3]) - 1) > 0.05]
                        naive[n][0] += len(lines)
                        naive[n][1] += len(moved)
                        if bad:
                            examples[n].append(f"{d} rounds {min(rounds)}-{max(rounds)} {base}->{new}: {bad}")
                    else:
                        hit = any(l[0] == "readrandom" and l[1].startswith("cpu/op") and l[2] == "REGRESSION" for l in lines)
                        tally[(n, new)][0] += 1
                        tally[(n, new)][1] += hit
    if a.mode == "aa":
        print("| repeats N | A/A comparisons | with a false verdict | rate | metric lines with the ratio beyond +-5% (a one-run rule's marks) |")
        print("|---:|---:|---:|---:|---:|")
        for n in ns:
            c, b = tally[n]
            lines, moved = naive[n]
            print(f"| {n} | {c} | {b} | {100.0 * b / c if c else 0:.0f}% | {moved} of {lines} |")
        for n in ns:
            for e in examples[n][:5]:
                print(f"- N={n}: {e}")
    else:
        configs = sorted({k[1] for k in tally})
        print("| slowdown | " + " | ".join(f"N={n}" for n in ns) + " |")
        print("|---|" + "---:|" * len(ns))
        for c in configs:
            cells = []
            for n in ns:
                t, h = tally[(n, c)]
                cells.append(f"{h}/{t}" if t else "-")
            print(f"| {c} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
