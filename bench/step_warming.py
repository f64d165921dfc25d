"""How a step's rate moved over its seconds, per config and round: whether a
read step measured a warm cache or a cache still warming.

Usage: python3 bench/step_warming.py RESULT_DIR STEP [WINDOW]
Prints a markdown table: per config and round, the step's rate (ops/s) over
each WINDOW seconds (default 10) from its 1-second intervals, and the last
window against the first.
"""
import json
import sys


def main(result_dir, step_name, window):
    r = json.load(open(f"{result_dir}/result.json"))
    rows = []
    for c in r["configs"]:
        s = next((s for s in c.get("steps", []) if s["name"] == step_name), None)
        if s is None:
            continue
        ops = {}
        for by_type in s.get("ops_by_type", []):
            for i in by_type["intervals"]:
                ops[i["index"]] = ops.get(i["index"], 0) + i["ops"]
        if not ops:
            continue
        # Whole seconds and windows only: a step's last second is partial.
        seconds = int(s["wall_s"])
        windows = [sum(ops.get(t, 0) for t in range(w, w + window)) / window
                   for w in range(0, seconds - window + 1, window)]
        rows.append((c["name"], c.get("repeat") or 1, s["ops_s"], windows))
    if not rows:
        sys.exit(f"no step {step_name} with 1-second intervals in {result_dir}")
    width = max(len(w) for *_, w in rows)
    print(f"{step_name}: ops/s over each {window} s of the step, from its 1-second intervals.\n")
    head = " | ".join(f"{i * window}-{(i + 1) * window} s" for i in range(width))
    print(f"| config | round | step ops/s | {head} | last / first |")
    print("|---|---:|---:|" + "---:|" * width + "---:|")
    for name, rd, rate, w in rows:
        cells = " | ".join(f"{x:,.0f}" for x in w) + " | -" * (width - len(w))
        trend = f"{w[-1] / w[0]:.2f}" if w and w[0] else "-"
        print(f"| {name} | {rd} | {rate:,.0f} | {cells} | {trend} |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10)
