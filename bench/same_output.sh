#!/usr/bin/env bash
# Two rumbench builds, the same commands with fixed seeds: are their outputs
# the same where timing cannot make them differ? For changes that must not
# change behaviour (moving code):
# - rendered from one and the same result.json by both builds, byte for
#   byte (but the moment of writing): report.html, `compare`, and `export`
#   as markdown, tsv, csv and hdr-log;
# - each build's own run of the same command: result.json, summary.txt,
#   summary.md, report.tsv, report.html and what `run` printed, with every
#   measured figure (a float, any number inside a text), time stamp, path,
#   build identity and figure that timing decides (whether a short step's
#   CPU was above /proc's resolution, what else wrote to the device) masked
#   by bench/normalize_output.py; counts, names, settings, options,
#   parameters, notes and warnings (their words), statuses and the shape of
#   every table are compared. What is left can still be timing (a warning
#   that a step was shorter than the engine's flush cycle, one more second
#   in a series): read the difference it prints.
#
# Usage:  bench/same_output.sh OLD_BINARY NEW_BINARY
# e.g. the binary of a commit before the change:
#   git worktree add /tmp/before <commit> && (cd /tmp/before && cargo build --release)
#   bench/same_output.sh /tmp/before/target/release/rumbench target/release/rumbench
# Exit 0 when every output is the same, 1 with the differences otherwise.
set -euo pipefail
OLD=${1:?old binary}; NEW=${2:?new binary}
for bin in "$OLD" "$NEW"; do [[ -x $bin ]] || { echo "not an executable: $bin" >&2; exit 1; }; done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d /tmp/rumbench-same-output-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export XDG_DATA_HOME="$WORK/xdg"
# Each case: a name and rumbench's arguments after `run` (seeded; count
# steps, so that operation counts are exact).
CASES=(
  "kv|-e null,rocksdb,lmdb,sqlite,leveldb -s fillseq,fillrandom,overwrite,readrandom,fwdrange,deleterandom,flush,waitforcompaction -n 20000 --seed 7 -t 2"
  "ycsb|-e rocksdb,null -s ycsb-load,ycsb-a,ycsb-e --records 5000 --ops 8000 --seed 7"
  "ibench|-e lmdb -s l.i0,l.x,l.i1 --rows 4000 --insert-rows 800 --seed 7"
  "hotrow|-e sqlite -s hotrow -t 1,2 --ops 2000 --hot-rows 1000 --seed 7"
  "repeat|-e null,lmdb -s fillseq,readrandom -n 20000 --seed 7 --repeat 2"
)
status=0
for case in "${CASES[@]}"; do
  name=${case%%|*}; args=${case#*|}
  for side in old new; do
    bin=$OLD; [[ $side == new ]] && bin=$NEW
    dir="$WORK/$side/$name"
    mkdir -p "$WORK/$side"
    # shellcheck disable=SC2086
    "$bin" run --progress off --no-history $args --output-dir "$dir" > "$WORK/$side/$name.stdout" 2> "$WORK/$side/$name.stderr" || true
  done
  # The reports, exports and comparisons of one and the same run rendered
  # by both builds: these must be the same byte for byte (but the moment
  # of writing).
  for side in old new; do
    bin=$OLD; [[ $side == new ]] && bin=$NEW
    dir="$WORK/old/$name"
    "$bin" compare "$dir" > "$WORK/$side/$name.compare" 2>&1 || true
    for f in markdown tsv csv hdr-log; do "$bin" export "$dir" -f $f > "$WORK/$side/$name.export.$f" 2>&1 || true; done
    "$bin" report "$dir" -o "$WORK/$side/$name.report.html" > /dev/null 2>&1 || true
    # The moment it was written ("generated 2026-11-26T18:05:00+00:00").
    sed -i -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}[+-][0-9:]{5}/<when>/g' "$WORK/$side/$name.report.html"
  done
  for f in compare export.markdown export.tsv export.csv export.hdr-log report.html; do
    if ! cmp -s "$WORK/old/$name.$f" "$WORK/new/$name.$f"; then
      echo "DIFFERENT (same result.json): $name.$f"; diff "$WORK/old/$name.$f" "$WORK/new/$name.$f" | head -10; status=1
    else
      echo "same, byte for byte: $name.$f"
    fi
  done
  for f in result.json summary.txt summary.md report.tsv report.html; do
    if ! diff <(python3 "$HERE/normalize_output.py" "$WORK/old/$name/$f") <(python3 "$HERE/normalize_output.py" "$WORK/new/$name/$f") > "$WORK/diff" ; then
      echo "DIFFERENT: $name/$f"; head -20 "$WORK/diff"; status=1
    else
      echo "same: $name/$f"
    fi
  done
  for f in stdout; do
    if ! diff <(python3 "$HERE/normalize_output.py" "$WORK/old/$name.$f") <(python3 "$HERE/normalize_output.py" "$WORK/new/$name.$f") > "$WORK/diff"; then
      echo "DIFFERENT: $name.$f"; head -20 "$WORK/diff"; status=1
    else
      echo "same: $name.$f"
    fi
  done
done
exit $status
