#!/usr/bin/env bash
# Is a PostgreSQL client's CPU per point read a small part of the server's?
# The peer's figure against rumbench's, one client each, Unix socket, the
# same Debian PostgreSQL 15:
#   pgbench -S -M prepared: one primary-key SELECT per transaction, against a
#     server started here (trust auth, private socket dir, 1 GB shared
#     buffers); client CPU from /usr/bin/time, server CPU from /proc (the
#     postmaster, its live children and its reaped ones);
#   rumbench ycsb-c: one primary-key SELECT per operation, against the
#     server rumbench starts; client and server CPU per operation from
#     result.json.
# With PROFILE=1 a second table splits each client's CPU, from system-wide
# perf samples (`perf record -a`) over a window inside the read phase:
# user mode (the client's own code and its libraries) and kernel (socket
# sends and receives, sleeping and waking for each reply), each against
# the server's samples (comm postgres). rumbench's window starts 10 s into
# its run and is checked to lie inside its ycsb-c step.
# Usage: [PROFILE=1] bench/pgbench_client_cpu.sh [SECONDS] [REPEATS]   (default 10 3; as root)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SECONDS_PER_RUN=${1:-10}
REPEATS=${2:-3}
PGBIN=/usr/lib/postgresql/15/bin
[ "$(id -u)" = 0 ] || { echo "run as root (PostgreSQL runs as user postgres)" >&2; exit 1; }
[ -x "$PGBIN/pgbench" ] || { echo "PostgreSQL 15 is not installed: scripts/install-servers.sh" >&2; exit 1; }
WORK=$(mktemp -d /tmp/pgbench-cpu.XXXXXX)
chown postgres "$WORK"
stop() { runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/db" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap stop EXIT
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/db" -A trust -U postgres --no-sync >"$WORK/initdb.log" 2>&1
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/db" -l "$WORK/server.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories=$WORK -c shared_buffers=1GB" start >/dev/null
PG=(-h "$WORK" -U postgres)
"$PGBIN/pgbench" -i -q -s 10 "${PG[@]}" postgres >"$WORK/init.log" 2>&1

server_ticks() {   # CPU ticks of the postmaster, its live children and those it reaped
    local pm; pm=$(head -1 "$WORK/db/postmaster.pid")
    { awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat"
      for c in $(pgrep -P "$pm"); do awk '{print $14 + $15}' "/proc/$c/stat" 2>/dev/null || true; done
    } | awk '{s += $1} END {print s}'
}
TICK_US=$((1000000 / $(getconf CLK_TCK)))

PROFILE=${PROFILE:-0}
if [ "$PROFILE" = 1 ]; then command -v perf >/dev/null || { echo "PROFILE=1 needs perf (apt install linux-perf)" >&2; exit 1; }; fi
profile_rows=()
# perf_split DATA CLIENT_COMM LABEL RUN: a markdown row of the client's user
# and kernel samples, each as a share of the server's.
perf_split() {
    perf report -i "$1" --sort comm,dso --stdio -q 2>/dev/null | python3 -c '
import sys
client, label, run = sys.argv[1:4]
user = kernel = server = 0.0
for line in sys.stdin:
    f = line.split()
    if len(f) < 3 or not f[0].endswith("%"):
        continue
    pct, comm, dso = float(f[0][:-1]), f[1], f[2]
    if comm == "postgres":
        server += pct
    elif comm == client:
        if dso.startswith("[kernel"):
            kernel += pct
        else:
            user += pct
print(f"| {run} | {label} | {user:.2f}% | {kernel:.2f}% | {server:.2f}% | {100 * user / server:.1f}% | {100 * kernel / server:.1f}% |")
' "$2" "$3" "$4"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | client | ops/s | client us/op | server us/op | client / server |"
echo "|---|---|---:|---:|---:|---:|"
for i in $(seq "$REPEATS"); do
    before=$(server_ticks)
    /usr/bin/time -f "%U %S" -o "$WORK/time" "$PGBIN/pgbench" -S -M prepared -c 1 -T "$SECONDS_PER_RUN" -n "${PG[@]}" postgres >"$WORK/pgbench.log" 2>&1
    sleep 1   # the backend has exited: let the postmaster reap it (its CPU moves to cutime)
    after=$(server_ticks)
    tx=$(awk '/number of transactions actually processed/ {print $NF}' "$WORK/pgbench.log")
    read -r user sys <"$WORK/time"
    python3 -c "
tx, cli, srv = $tx, ($user + $sys) * 1e6, ($after - $before) * $TICK_US
print(f'| $i | pgbench -S | {tx / $SECONDS_PER_RUN:.0f} | {cli / tx:.2f} | {srv / tx:.2f} | {100 * cli / srv:.1f}% |')"
    if [ "$PROFILE" = 1 ]; then   # a second, profiled run: perf's own CPU stays out of the figures above
        perf record -q -a -F 999 -o "$WORK/pgbench.perf" -- "$PGBIN/pgbench" -S -M prepared -c 1 -T "$SECONDS_PER_RUN" -n "${PG[@]}" postgres >/dev/null 2>&1
        profile_rows+=("$(perf_split "$WORK/pgbench.perf" pgbench "pgbench -S" "$i")")
    fi

    out="$SCRATCH/pgbench-cpu-rb"; rm -rf "$out"
    "$RUMBENCH" run -e postgres -s ycsb-load,ycsb-c --records 100000 --seconds "$SECONDS_PER_RUN" --progress off --no-history -d "$out" >/dev/null 2>&1
    rate=$(jget "$out" 'step("ycsb-c")["ops_s"]')
    cli=$(jget "$out" 'step("ycsb-c")["metrics"]["client_cpu_us_op"]')
    srv=$(jget "$out" 'step("ycsb-c")["metrics"]["srv_cpu_us_op"]')
    python3 -c "print(f'| $i | rumbench ycsb-c | {$rate:.0f} | {$cli:.2f} | {$srv:.2f} | {100 * $cli / $srv:.1f}% |')"
    if [ "$PROFILE" = 1 ]; then
        out="$SCRATCH/pgbench-cpu-rb-perf"; rm -rf "$out"
        "$RUMBENCH" run -e postgres -s ycsb-load,ycsb-c --records 20000 --seconds $((SECONDS_PER_RUN + 14)) --progress off --no-history -d "$out" >/dev/null 2>&1 &
        rb=$!
        sleep 10
        from=$(date +%s)
        perf record -q -a -F 999 -o "$WORK/rumbench.perf" -- sleep "$SECONDS_PER_RUN" >/dev/null 2>&1
        to=$(date +%s)
        wait "$rb"
        started=$(jget "$out" 'int(__import__("datetime").datetime.fromisoformat(step("ycsb-c")["started_at"]).timestamp())')
        wall=$(jget "$out" 'step("ycsb-c")["wall_s"]')
        if python3 -c "import sys; sys.exit(0 if $from >= $started and $to <= $started + $wall else 1)"; then
            profile_rows+=("$(perf_split "$WORK/rumbench.perf" rumbench "rumbench ycsb-c" "$i")")
        else
            profile_rows+=("| $i | rumbench ycsb-c | (perf window $from-$to outside the step, $started + $wall s: not counted) | | | | |")
        fi
    fi
done
echo
if [ "$PROFILE" = 1 ]; then
    echo "Where the client's CPU goes (perf record -a, samples of all CPUs):"
    echo
    echo "| run | client | client user | client kernel | server | user / server | kernel / server |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    printf '%s\n' "${profile_rows[@]}"
    echo
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
