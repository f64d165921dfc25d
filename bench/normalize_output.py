"""An output of rumbench with what a run cannot repeat masked (see
bench/same_output.sh): measured figures, times, paths, the build's identity.
result.json is walked as JSON (floats masked, volatile fields dropped);
every other file as text (numbers masked)."""
import json
import re
import sys

# Fields whose values differ between any two runs or builds.
VOLATILE = {
    "started_at", "finished_at", "rumbench_version", "git_commit", "command_line", "db_dir", "dir",
    "system", "device", "generated_at", "histogram", "unix_s", "scheduled_unix_s",
    # The engines' own statistics (text with timings and addresses), and
    # figures present only when the machine reported them.
    "engine_stats", "host_steal_pct",
    # Which figures a short step gets, and why the others are missing, is
    # timing: a step of a few milliseconds is below /proc's resolution in one
    # run and above it in the next; so is what else wrote to the device.
    "missing", "device_writes_by_others", "rates", "ceilings",
}
# Warnings and notes about the machine around the run, not the run.
ENVIRONMENT = ("other processes wrote to the data dir's device", "other processes read from the data dir's device")
# Provenance and option entries (pairs) that name the build or the place.
VOLATILE_PAIRS = re.compile(r"^(build\.rumbench_source|build\.git_commit|build\.rumbench|path|DBOptions\.db_host_id|.*identity.*)$", re.I)
# Subtrees whose whole figures (integers too) come from timing or the machine.
MEASURED = {"metrics", "ceilings", "rates", "intervals", "engine_stats", "writer", "scaling", "start", "latency", "service_time", "ibench", "write_debt"}
NUMBER = re.compile(r"\d+(\.\d+)?(e[+-]?\d+)?")
PATHS = re.compile(r"/tmp/[^\s\"'<>),;]*")


HEX = re.compile(r"0x[0-9a-fA-F]+")


def text(s):
    return NUMBER.sub("#", HEX.sub("<hex>", PATHS.sub("<path>", s)))


def table_text(s):
    """A rendered table or text: numbers masked, column padding collapsed,
    and a '-' cell (not measured this time: too short a step for a figure)
    counted as a number, since which figures a short step gets is timing."""
    out = []
    for line in text(s).split("\n"):
        cells = line.split()
        cells = ["#" if c == "-" else ("---" if set(c) == {"-"} else c) for c in cells]
        out.append(" ".join(cells))
    return "\n".join(out)


def walk(v, measured=False):
    if isinstance(v, dict):
        return {k: walk(x, measured or k in MEASURED) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        if len(v) == 2 and isinstance(v[0], str) and VOLATILE_PAIRS.match(v[0]):
            return [v[0], "<volatile>"]
        return [walk(x, measured) for x in v if not (isinstance(x, str) and x.startswith(ENVIRONMENT))]
    if isinstance(v, float) or (measured and (v is None or (isinstance(v, int) and not isinstance(v, bool)))):
        return "<number>"
    if isinstance(v, str):
        return text(v)
    return v


path = sys.argv[1]
try:
    raw = open(path, encoding="utf-8", errors="replace").read()
except FileNotFoundError:
    print("<missing>")
    sys.exit(0)
if path.endswith(".json"):
    print(json.dumps(walk(json.loads(raw)), indent=1, sort_keys=True))
else:
    print(table_text(raw))
