#!/usr/bin/env bash
# A sharded rumbench run from the machines listed in a hosts file, reached by
# ssh: shard i of N runs on the i-th host (N = the number of hosts), every
# shard starts its first step at one START_AT, each shard's result dir is
# copied back here, and the shards are merged into one run.
#
#   deploy/ssh/run-shards.sh --target postgres://bench@db.example:5432/bench hosts.txt
#
# hosts.txt: one ssh destination a line (host, user@host or a Host alias of
# ~/.ssh/config); blank lines and lines starting with # are skipped. A line
# `localhost` (or 127.0.0.1, ::1) runs that shard here, without ssh: a hosts
# file of two `localhost` lines is a two-shard run on this machine. The script
# connects to nothing but the hosts in the file; the database is contacted by
# rumbench only.
#
# Needs: rumbench on PATH here (for the merge, and the localhost shards) and
# on every host (--remote-rumbench otherwise), ssh access without a password
# prompt (keys, an agent: ssh runs with BatchMode), and clocks in sync
# (chrony/NTP: deploy/README.md). Results: OUT/shard-<i> (each shard's run),
# OUT/logs/shard-<i>.log (its output), OUT/merged (the merged run).
#
# The same with GNU parallel (a sketch, not run here: parallel is not installed
# on the machine this was written on). parallel runs one job at a time on each
# host of the file (--jobs 1 is per host), so the N jobs start at once, one a
# host; --env passes the target to the hosts and --return copies each shard's
# dir back (into ./results/shard-I):
#
#   export RUMBENCH_TARGET=postgres://bench@db.example:5432/bench
#   N=$(grep -c -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' hosts.txt)
#   START_AT=$(date -u -d '+60 sec' +%Y-%m-%dT%H:%M:%SZ)
#   seq 0 $((N - 1)) | parallel --sshloginfile hosts.txt --jobs 1 --env RUMBENCH_TARGET \
#     --return results/shard-{} --line-buffer --tag \
#     rumbench run --target '"$RUMBENCH_TARGET"' -s ycsb-load,ycsb-a,ycsb-c \
#       --records 1000000 --seconds 60 --threads 8 --shard {}/"$N" \
#       --start-at "$START_AT" -d results/shard-{} --no-history
#   rumbench merge $(seq -f 'results/shard-%g' 0 $((N - 1))) -d results/merged
#
# (In an --sshloginfile, ":" is this machine; "localhost" is reached by ssh.)
set -euo pipefail

usage() {
  cat <<'EOF'
usage: run-shards.sh --target URL [options] HOSTS_FILE [-- RUMBENCH_RUN_ARGS...]

  --target URL            the database (rumbench run --target); default $RUMBENCH_TARGET
  -s, --steps LIST        steps (default ycsb-load,ycsb-a,ycsb-c)
  --records N             records (default 1000000)
  --seconds S             seconds a timed step (default 60)
  --threads T             threads a shard (default 8)
  --lead SECONDS          START_AT = now + SECONDS, after the hosts are checked (default 30)
  --start-at TIME         START_AT itself (RFC 3339 or epoch seconds), instead of --lead
  -d, --out DIR           where shards are collected and merged (default results/shards-<UTC time>)
  --remote-dir DIR        the shards' working dir on each host, relative to the remote
                          home (default rumbench-runs/<UTC time>)
  --rumbench CMD          rumbench here: localhost shards and the merge (default rumbench)
  --remote-rumbench CMD   rumbench on the ssh hosts (default rumbench)
  --rsync                 copy back with rsync instead of scp
  --dry-run               print what would run, run nothing
  -h, --help              this text

Arguments after -- are added to every shard's `rumbench run`.
EOF
}

TARGET="${RUMBENCH_TARGET:-}"
STEPS=ycsb-load,ycsb-a,ycsb-c
RECORDS=1000000
SECONDS_PER_STEP=60
THREADS=8
LEAD=30
START_AT=""
RUN_ID="$(date -u +%Y%m%dT%H%M%SZ)"
OUT=""
REMOTE_DIR=""
RUMBENCH=rumbench
REMOTE_RUMBENCH=rumbench
COPY=scp
DRY_RUN=0
HOSTS_FILE=""
EXTRA=()

die() {
  echo "run-shards: $*" >&2
  exit 2
}

need_value() {
  if [ "$#" -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value"; fi
}

while [ "$#" -gt 0 ]; do
  case "$1" in
    --target) need_value "$@"; TARGET="$2"; shift 2 ;;
    -s | --steps) need_value "$@"; STEPS="$2"; shift 2 ;;
    --records) need_value "$@"; RECORDS="$2"; shift 2 ;;
    --seconds) need_value "$@"; SECONDS_PER_STEP="$2"; shift 2 ;;
    --threads) need_value "$@"; THREADS="$2"; shift 2 ;;
    --lead) need_value "$@"; LEAD="$2"; shift 2 ;;
    --start-at) need_value "$@"; START_AT="$2"; shift 2 ;;
    -d | --out) need_value "$@"; OUT="$2"; shift 2 ;;
    --remote-dir) need_value "$@"; REMOTE_DIR="$2"; shift 2 ;;
    --rumbench) need_value "$@"; RUMBENCH="$2"; shift 2 ;;
    --remote-rumbench) need_value "$@"; REMOTE_RUMBENCH="$2"; shift 2 ;;
    --rsync) COPY=rsync; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    -*) usage >&2; die "unknown option $1" ;;
    *)
      [ -z "$HOSTS_FILE" ] || die "one hosts file only (got $HOSTS_FILE and $1)"
      HOSTS_FILE="$1"; shift ;;
  esac
done

[ -n "$HOSTS_FILE" ] || { usage >&2; die "no hosts file"; }
[ -f "$HOSTS_FILE" ] || die "$HOSTS_FILE: no such file"
[ -n "$TARGET" ] || die "no --target (nor RUMBENCH_TARGET)"
[[ "$LEAD" =~ ^[0-9]+$ ]] || die "--lead $LEAD: not a number of seconds"
OUT="${OUT:-results/shards-$RUN_ID}"
REMOTE_DIR="${REMOTE_DIR:-rumbench-runs/$RUN_ID}"

HOSTS=()
while IFS= read -r line || [ -n "$line" ]; do
  line="${line%%#*}"                       # comments
  line="${line#"${line%%[![:space:]]*}"}"  # leading blanks
  line="${line%"${line##*[![:space:]]}"}"  # trailing blanks
  [ -n "$line" ] || continue
  case "$line" in
    -*) die "$HOSTS_FILE: '$line' is not a host" ;;
    *[[:space:]]*) die "$HOSTS_FILE: '$line': one host a line" ;;
  esac
  HOSTS+=("$line")
done <"$HOSTS_FILE"
N=${#HOSTS[@]}
[ "$N" -ge 1 ] || die "$HOSTS_FILE: no host"

is_local() {
  case "$1" in localhost | 127.0.0.1 | ::1) return 0 ;; *) return 1 ;; esac
}

# One word quoted for a POSIX shell (the remote login shell ssh hands the command to).
shquote() {
  printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# A command line, quoted: the words of "$@".
shjoin() {
  local out="" w
  for w in "$@"; do out="$out${out:+ }$(shquote "$w")"; done
  printf '%s' "$out"
}

SSH=(ssh -n -o BatchMode=yes -o ConnectTimeout=10)

# Runs "$@", or prints it with --dry-run.
run() {
  if [ "$DRY_RUN" = 1 ]; then
    echo "+ $(shjoin "$@")"
  else
    "$@"
  fi
}

epoch_of() {  # RFC 3339 UTC text of epoch seconds $1 (GNU date, else BSD date)
  date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$1" +%Y-%m-%dT%H:%M:%SZ
}

# 1. Every ssh host answers and has rumbench; its clock is compared with this
#    one's (to the second: a coarse check; chrony/NTP does the real work).
echo "run-shards: $N shard(s): ${HOSTS[*]}" >&2
if [ "$DRY_RUN" = 0 ]; then
  command -v "$RUMBENCH" >/dev/null 2>&1 || die "$RUMBENCH not found here (--rumbench)"
fi
for host in "${HOSTS[@]}"; do
  is_local "$host" && continue
  [ "$DRY_RUN" = 0 ] || continue
  before=$(date -u +%s)
  remote=$("${SSH[@]}" "$host" "command -v $(shquote "$REMOTE_RUMBENCH") >/dev/null && date -u +%s") \
    || die "$host: ssh failed, or $REMOTE_RUMBENCH is not on its PATH (--remote-rumbench)"
  after=$(date -u +%s)
  if [ "$remote" -lt $((before - 1)) ] || [ "$remote" -gt $((after + 1)) ]; then
    echo "run-shards: WARNING: $host's clock is $((remote - after)) s off this one's: sync the clocks (chrony) or the shards do not start together" >&2
  fi
done

# 2. One start time for every shard.
if [ -z "$START_AT" ]; then
  START_AT=$(epoch_of $(($(date -u +%s) + LEAD)))
fi
echo "run-shards: start at $START_AT; results in $OUT" >&2
run mkdir -p "$OUT/logs"

# 3. Every shard at once, each in the background; their output to OUT/logs.
pids=()
stop_all() {
  [ "${#pids[@]}" -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  exit 130
}
trap stop_all INT TERM
for i in $(seq 0 $((N - 1))); do
  host="${HOSTS[$i]}"
  args=(run --target "$TARGET" -s "$STEPS" --records "$RECORDS" --seconds "$SECONDS_PER_STEP"
        --threads "$THREADS" --shard "$i/$N" --start-at "$START_AT")
  if is_local "$host"; then
    cmd=("$RUMBENCH" "${args[@]}" -d "$OUT/shard-$i" --no-history ${EXTRA[@]+"${EXTRA[@]}"})
  else
    remote="mkdir -p $(shquote "$REMOTE_DIR") && cd $(shquote "$REMOTE_DIR") && exec $(shjoin "$REMOTE_RUMBENCH" "${args[@]}" -d "results/shard-$i" --no-history ${EXTRA[@]+"${EXTRA[@]}"})"
    cmd=("${SSH[@]}" "$host" "$remote")
  fi
  if [ "$DRY_RUN" = 1 ]; then
    run "${cmd[@]}"
  else
    "${cmd[@]}" >"$OUT/logs/shard-$i.log" 2>&1 &
    pids+=("$!")
  fi
done

failed=()
if [ "$DRY_RUN" = 0 ]; then
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("$i")
  done
fi
trap - INT TERM

# 4. The remote shards' result dirs, copied back (a failed shard's too, when there).
for i in $(seq 0 $((N - 1))); do
  host="${HOSTS[$i]}"
  is_local "$host" && continue
  src="$host:$REMOTE_DIR/results/shard-$i"
  if [ "$COPY" = rsync ]; then
    run rsync -a -e "ssh -o BatchMode=yes" "$src/" "$OUT/shard-$i/" || echo "run-shards: copying shard $i from $host failed" >&2
  else
    run scp -rq -o BatchMode=yes "$src" "$OUT/" || echo "run-shards: copying shard $i from $host failed" >&2
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  for i in "${failed[@]}"; do
    echo "run-shards: shard $i/$N (${HOSTS[$i]}) failed: $OUT/logs/shard-$i.log" >&2
    tail -n 5 "$OUT/logs/shard-$i.log" >&2 || true
  done
  echo "run-shards: not merged: ${#failed[@]} of $N shard(s) failed" >&2
  exit 1
fi

# 5. One run of all the shards.
shards=()
for i in $(seq 0 $((N - 1))); do
  [ "$DRY_RUN" = 1 ] || [ -d "$OUT/shard-$i" ] || die "$OUT/shard-$i is missing"
  shards+=("$OUT/shard-$i")
done
run "$RUMBENCH" merge "${shards[@]}" -d "$OUT/merged"
[ "$DRY_RUN" = 1 ] || echo "run-shards: merged run in $OUT/merged" >&2
