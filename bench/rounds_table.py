"""Markdown tables of a run's rounds, for the bench scripts that repeat reads
on loaded databases (bench/kept_db.sh and the scripts that source it).

Usage: python3 bench/rounds_table.py RESULT_DIR COMPARE_TXT STEP...
RESULT_DIR is a run with --repeat, or DIR1,DIR2,... one run per round.
Prints, per step, every round's ops/s and storage reads per query for each
config (the cached check), each config's medians (ops/s, host CPU per
operation, database size), then `rumbench compare`'s lines for those steps.
"""
import json
import re
import statistics
import sys


def main(result_dirs, compare_txt, steps):
    dirs = result_dirs.split(",")
    rounds = {}  # config -> round -> {step name: step}
    for i, result_dir in enumerate(dirs):
        r = json.load(open(f"{result_dir}/result.json"))
        for c in r["configs"]:
            rd = (c.get("repeat") or 1) if len(dirs) == 1 else i + 1
            if c["status"] != "completed":
                print(f"- {c['name']} round {rd}: {c['status']}: {c.get('error')}")
                continue
            rounds.setdefault(c["name"], {})[rd] = {s["name"]: s for s in c["steps"]}
    names = list(rounds)
    every = sorted({rd for v in rounds.values() for rd in v})
    for step in steps:
        print(f"{step}, per round: ops/s and storage reads per query (rpq).\n")
        print("| round | " + " | ".join(f"{n} ops/s | rpq" for n in names) + " |")
        print("|---:|" + "---:|---:|" * len(names))
        for rd in every:
            cells = []
            for n in names:
                s = rounds[n].get(rd, {}).get(step)
                rpq = ((s or {}).get("metrics", {}).get("io") or {}).get("rpq")
                cells += [f"{s['ops_s']:,.0f}" if s else "-", "-" if rpq is None else f"{rpq:.3f}"]
            print(f"| {rd} | " + " | ".join(cells) + " |")
        print()
        for n in names:
            got = [rs[step] for rs in rounds[n].values() if step in rs]
            cpu = [x for x in (s["metrics"].get("host_cpu_us_op") for s in got) if x is not None]
            size = [x for x in (s["metrics"].get("db_size_bytes") for s in got) if x is not None]
            print(f"- {n}: median {statistics.median(s['ops_s'] for s in got):,.0f} ops/s, "
                  f"host CPU per operation {f'{statistics.median(cpu):.2f} us' if cpu else 'not measured'}, "
                  f"database {f'{statistics.median(size) / 1e9:.2f} GB' if size else 'size not measured'}")
        print()
    print("`rumbench compare` (each config against the first; the ratio is new / base):\n")
    print("```")
    wanted = re.compile(r"(%s)\s+(ops/s|cpu/op us|host cpu/op us|rpq)\s" % "|".join(map(re.escape, steps)))
    pair = None
    for line in open(compare_txt):
        if "->" in line and not line.startswith(" "):
            pair = line.strip()
            print(pair)
        elif pair and (line.startswith("step ") or wanted.match(line)):
            print(line.rstrip())
    print("```")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
