#!/usr/bin/env python3
"""Tabulate bench/duet_power.sh's trials: per load and mode, how often
base -> plus10 is called REGRESSION on ops/s and on cpu/op, how often
base -> aa has any false verdict (REGRESSION, improvement or changed on
any metric), the rounds used, and the minimum detectable effect compare
states (medians over the trials).

  duet_power.py --rumbench BIN --work DIR --loads cpu --modes duet5,... --trials 10
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from verdict_calibration import by_pair, detectable_of, pairs_of  # noqa: E402

CHANGE = ("REGRESSION", "improvement", "changed")


THRESHOLD = "5%"


def compare(binary, *runs):
    out = subprocess.run([binary, "compare", "--threshold", THRESHOLD, *runs], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"compare {runs} failed: {out.stderr}")
    return out.stdout


def short(pair):
    """("d/base", "e/plus10") -> ("base", "plus10"): runs compared apart name configs by run."""
    return tuple(p.split("/")[-1] for p in pair)


def judged(binary, mode, dir_):
    """{new: (lines, detectable)} of base -> aa and base -> plus10 in one trial."""
    out = {}
    if mode.startswith("sequential"):
        for new in ("aa", "plus10"):
            text = compare(binary, os.path.join(dir_, "base"), os.path.join(dir_, new))
            lines = next(iter(pairs_of(text).values()), [])
            det = next(iter(detectable_of(text).values()), {})
            out[new] = (lines, det)
    else:
        text = compare(binary, dir_)
        pairs = {short(p): l for p, l in pairs_of(text).items()}
        dets = {short(p): d for p, d in detectable_of(text).items()}
        for new in ("aa", "plus10"):
            out[new] = (pairs.get(("base", new), []), dets.get(("base", new), {}))
    return out


def half_width(text, metric, threshold=0.05):
    """Half the width (in logarithms) of the interval behind compare's
    "could detect X% in METRIC": the noise the interval carries, whatever the
    threshold. The detectable change is (1 + T) e^h - 1 for a figure whose
    rise is the regression (cpu/op), 1 - (1 - T) e^-h for one whose fall is (ops/s)."""
    m = re.search(r"([0-9.]+)% in " + re.escape(metric), text or "")
    if not m:
        return None
    d = float(m.group(1)) / 100
    return math.log((1 - threshold) / (1 - d)) if metric == "ops/s" else math.log((1 + d) / (1 + threshold))


def mde(texts, metric):
    """Median of the detectable changes of `metric` ("ops/s", "cpu/op") in compare's lines."""
    vals = []
    for t in texts:
        m = re.search(r"([0-9.]+)% in " + re.escape(metric), t)
        if m:
            vals.append(float(m.group(1)))
    return f"{statistics.median(vals):.1f}%" if vals else "-"


def rounds_of(dir_):
    try:
        r = json.load(open(os.path.join(dir_, "result.json")))
    except OSError:
        return None
    a = r.get("adaptive")
    return a["rounds"] if a else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rumbench", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--loads", required=True)
    ap.add_argument("--modes", required=True)
    ap.add_argument("--trials", type=int, required=True)
    ap.add_argument("--threshold", default="5%", help="compare's --threshold (a verdict's smallest change)")
    a = ap.parse_args()
    global THRESHOLD
    THRESHOLD = a.threshold
    threshold = float(a.threshold.rstrip("%")) / (100 if a.threshold.endswith("%") else 1)
    print("| load | mode | +10% REGRESSION on ops/s | on cpu/op | on both | A/A with a false verdict | rounds (median, range) | could detect, ops/s | cpu/op | interval half-width, ops/s | cpu/op | load average (median) |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    examples = []
    for load in a.loads.split(","):
        for mode in a.modes.split(","):
            ops = cpu = both = false_aa = 0
            rounds, det_ops, det_cpu, loads = [], [], [], []
            half = {"ops/s": [], "cpu/op": []}
            n = 0
            for t in range(1, a.trials + 1):
                d = os.path.join(a.work, load, mode, f"trial-{t}")
                if not os.path.isdir(d):
                    continue
                n += 1
                j = judged(a.rumbench, mode, d)
                plus = j.get("plus10", ([], {}))[0]
                for metric in half:
                    v = half_width(j.get("plus10", ([], {}))[1].get("readrandom"), metric, threshold)
                    if v is not None:
                        half[metric].append(v)
                hit_ops = any(l[0] == "readrandom" and l[1].startswith("ops/s") and l[2] == "REGRESSION" for l in plus)
                hit_cpu = any(l[0] == "readrandom" and l[1].startswith("cpu/op") and l[2] == "REGRESSION" for l in plus)
                ops, cpu, both = ops + hit_ops, cpu + hit_cpu, both + (hit_ops and hit_cpu)
                bad = [l for l in j.get("aa", ([], {}))[0] if l[2].startswith(CHANGE)]
                false_aa += bool(bad)
                if bad:
                    examples.append(f"{load} {mode} trial {t}: {bad}")
                r = rounds_of(d)
                if r is not None:
                    rounds.append(r)
                for new in ("plus10",):
                    text = j.get(new, ([], {}))[1].get("readrandom")
                    if text:
                        det_ops.append(text)
                        det_cpu.append(text)
                try:
                    loads.append(float(open(d + ".loadavg").read().split()[0]))
                except (OSError, ValueError, IndexError):
                    pass
            if n == 0:
                continue
            rtext = f"{statistics.median(rounds):g} ({min(rounds)}-{max(rounds)})" if rounds else "5"
            la = f"{statistics.median(loads):.2f}" if loads else "-"
            hw = {m: (f"{100 * statistics.median(v):.2f}%" if v else "-") for m, v in half.items()}
            print(f"| {load} | {mode} | {ops}/{n} | {cpu}/{n} | {both}/{n} | {false_aa}/{n} | {rtext} | {mde(det_ops, 'ops/s')} | {mde(det_cpu, 'cpu/op')} | {hw['ops/s']} | {hw['cpu/op']} | {la} |")
    print()
    print(f"'could detect': the minimum detectable effect of base -> plus10 that compare states (at compare's {a.threshold} threshold it is never below {a.threshold}), median over the trials; 'interval half-width': half the width of that line's interval in logarithms (the noise it carries, whatever the threshold), median over the trials. An adaptive run's are at the round it stopped, with its intervals widened for the looks.")
    if examples:
        print()
        print("False verdicts:")
        for e in examples[:10]:
            print(f"- {e}")


if __name__ == "__main__":
    main()
