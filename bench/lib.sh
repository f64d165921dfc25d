# Shared by the bench/*.sh scripts: where the binary is, and a JSON field reader.
RUMBENCH=${RUMBENCH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/release/rumbench}
[ -x "$RUMBENCH" ] || { echo "build first: cargo build --release" >&2; exit 1; }
SCRATCH=${SCRATCH:-/tmp/rumbench-scratch}
mkdir -p "$SCRATCH"

# jget RESULT_DIR PYTHON_EXPR: evaluate an expression over the parsed result (as r).
jget() {
  python3 - "$1/result.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def step(name, config=0):
    return next(s for s in r["configs"][config]["steps"] if s["name"] == name)
v = eval(sys.argv[2])
print("-" if v is None else (f"{v:.3f}" if isinstance(v, float) else v))
PY
}
export XDG_DATA_HOME="$SCRATCH/xdg"   # keep benchmark runs out of the user's history

# logged LOG COMMAND...: print the command, run it with its output in LOG;
# on failure show LOG's tail and exit.
logged() {
  local log=$1; shift
  echo "# $*" >&2
  "$@" >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
}

# keep_configs SUITE_TOML NAMES: keep only the [[config]] tables whose name is
# in NAMES (comma separated); the settings and [[step]]s stay. Empty NAMES: all.
keep_configs() {
  [ -n "$2" ] || return 0
  python3 - "$1" "$2" <<'PY'
import re, sys
path, keep = sys.argv[1], set(sys.argv[2].split(","))
text = open(path).read()
head, *tables = re.split(r"(?m)^(?=\[\[(?:config|step)\]\])", text)
names = {re.search(r'(?m)^name = "([^"]*)"', t).group(1) for t in tables if t.startswith("[[config]]")}
unknown = keep - names
if unknown:
    sys.exit(f"CONFIGS names {', '.join(sorted(unknown))}: not a config of {path} ({', '.join(sorted(names))})")
kept = [t for t in tables if not t.startswith("[[config]]")
        or re.search(r'(?m)^name = "([^"]*)"', t).group(1) in keep]
open(path, "w").write(head + "".join(kept))
PY
}

# TOML pieces for the scripts that write their own suites:
#   toml_config NAME ENGINE [OPTIONS]  a [[config]] (OPTIONS: the inline table's body)
#   toml_step NAME [LINE]              a [[step]], with one more line (e.g. "ops = 5")
toml_config() {
  printf '[[config]]\nname = "%s"\nengine = "%s"\n' "$1" "$2"
  [ -z "${3:-}" ] || printf 'options = { %s }\n' "$3"
  echo
}
toml_step() { printf '[[step]]\nname = "%s"\n%s\n' "$1" "${2:+$2
}"; }
