#!/usr/bin/env python3
"""Pool the paired runs of one or more bench/dbbench_compare.sh results per step.

Each repeat of a (num, threads, step) row is a pair: db_bench and rumbench run
one after the other. On a noisy machine one pair's ratio moves by 10% or more,
so a single row's median ratio says little; pooling every pair of a step
(over sizes, thread counts and runs) gives the geometric mean of the ratios
rumbench / db_bench and a 95% interval (normal approximation on log ratios).

Usage: bench/pool_pairs.py RESULT.tsv [RESULT.tsv ...]
"""
import collections
import csv
import math
import statistics
import sys


def pair_ratios(paths):
    runs = collections.defaultdict(dict)
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(f, delimiter="\t"):
                key = (path, r["num"], r["threads"], r["step"], r["repeat"])
                runs[key][r["tool"]] = float(r["ops_s"]) if r["ops_s"] not in ("", "NA") else None
    by_step = collections.defaultdict(list)
    for (_, _, _, step, _), ops in runs.items():
        if ops.get("db_bench") and ops.get("rumbench"):
            by_step[step].append(ops["rumbench"] / ops["db_bench"])
    return by_step


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 2
    by_step = pair_ratios(sys.argv[1:])
    print("| step | pairs | geometric mean | 95% interval | lowest pair | highest pair |")
    print("|---|---:|---:|---:|---:|---:|")
    for step in ("fillseq", "fillrandom", "readrandom", "fwdrange", "readwhilewriting"):
        ratios = by_step.get(step)
        if not ratios:
            continue
        logs = [math.log(x) for x in ratios]
        mean = statistics.mean(logs)
        half = 1.96 * statistics.stdev(logs) / math.sqrt(len(logs)) if len(logs) > 1 else float("nan")
        print(f"| {step} | {len(ratios)} | {math.exp(mean):.3f} | {math.exp(mean - half):.3f} to "
              f"{math.exp(mean + half):.3f} | {min(ratios):.3f} | {max(ratios):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
