#!/usr/bin/env bash
# rumbench's sysbench steps beside sysbench 1.0.20 itself (issue 68's goal):
# point-query and read-write on the same PostgreSQL and MariaDB (InnoDB)
# server instances, alternating runs, queries/s and client CPU per query.
# Target: rumbench's client CPU per query at most sysbench's (median of the
# pairs).
#
# The servers are started by the script as rumbench starts its own
# (bench/sql_servers.sh), one per engine; sysbench's prepare makes the
# tables once (--tables=$TABLES --table-size=$TABLE_SIZE) and both tools use
# them: rumbench through --target, which uses sysbench tables it finds as
# they are. Each (repeat, step) cell is a pair of runs, one process each:
# rumbench first on odd repeats, sysbench first on even ones.
#
# rumbench: `run --target URL -s STEP --tables T --table-size N --threads C
#   --seconds S`; its client CPU per query is metrics.client_cpu_us_op (per
#   event) over the queries per event its notes give (its process's CPU
#   over the step, connecting and preparing included, start and exit not).
# sysbench: Debian's stock scripts with the options that make mdcallag's
#   microbenchmark (point-query: oltp_point_select --point-selects=1
#   --skip-trx, one SELECT per event as mytools' script; read-write:
#   oltp_read_write --range-size=10), --rand-type=uniform --db-ps-mode=auto;
#   its client CPU is the process's user+sys CPU (wait4's rusage, start and
#   exit included) over its queries ("queries:" in its report).
#
# Usage: bench/sysbench_client_cpu.sh [REPEATS=5] [STEP_SECONDS=10] [THREADS=1]
#        [STEPS="point-query read-write"] [ENGINES="postgres mariadb-innodb"]
#        [TABLES=1] [TABLE_SIZE=100000] [PAUSE=1] [OUT=...]
# Needs root (PostgreSQL runs as user postgres) and scripts/install-servers.sh.
set -euo pipefail
for a in "$@"; do export "${a?}"; done
REPEATS=${REPEATS:-5}; STEP_SECONDS=${STEP_SECONDS:-10}; THREADS=${THREADS:-1}
STEPS=${STEPS:-"point-query read-write"}; ENGINES=${ENGINES:-"postgres mariadb-innodb"}
TABLES=${TABLES:-1}; TABLE_SIZE=${TABLE_SIZE:-100000}; PAUSE=${PAUSE:-1}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT=${OUT:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/results/sysbench_client_cpu-$(date +%Y%m%d-%H%M).md}
WORK=$SCRATCH/sysbench_client_cpu
PGBIN=/usr/lib/postgresql/15/bin
unset MYSQL_PWD PGPASSWORD RUMBENCH_TARGET_PASSWORD
[ "$(id -u)" = 0 ] || { echo "run as root (PostgreSQL runs as user postgres)" >&2; exit 1; }
command -v sysbench >/dev/null || { echo "sysbench is not installed: scripts/install-servers.sh" >&2; exit 1; }
SB_VERSION=$(sysbench --version)
rm -rf "$WORK"; mkdir -p "$WORK"; chmod a+rx "$SCRATCH" "$WORK"
RUNS=$WORK/runs.tsv
printf 'engine\trepeat\tstep\ttool\tposition\tevents\tqueries\tqueries_s\tclient_cpu_us_query\tserver_cpu_us_query\tpsi\n' >"$RUNS"
source "$(dirname "${BASH_SOURCE[0]}")/sql_servers.sh"

sysbench_args() {   # STEP: sysbench's script and options for it
    case $1 in
        point-query) echo "oltp_point_select --point-selects=1 --skip-trx" ;;
        read-write) echo "oltp_read_write --range-size=10" ;;
        *) echo "no sysbench equivalent here for $1" >&2; exit 1 ;;
    esac
}

run_rumbench() {   # ENGINE REPEAT STEP POSITION
    local e=$1 r=$2 st=$3 pos=$4 d="$WORK/rb-$1-r$2-$3" s0 s1 cpu code psi name
    s0=$(server_cpu "$SERVER_PID")
    read -r cpu code psi < <(timed "$d.log" "$RUMBENCH" run --target "$URL" -s "$st" --tables "$TABLES" --table-size "$TABLE_SIZE" \
        --threads "$THREADS" --seconds "$STEP_SECONDS" --progress off --no-history -d "$d")
    s1=$(server_cpu "$SERVER_PID")
    name=$(jget "$d" 'r["configs"][0]["steps"][0]["name"]')
    [ "$code" = 0 ] && [ "$(jget "$d" "step('$name')['status']")" = completed ] || { echo "rumbench failed ($d.log):" >&2; tail -20 "$d.log" >&2; exit 1; }
    python3 - "$d/result.json" "$e" "$r" "$st" "$pos" "$s0" "$s1" "$psi" >>"$RUNS" <<'PY'
import json, re, sys
f, e, r, st, pos, s0, s1, psi = sys.argv[1:]
s = json.load(open(f))["configs"][0]["steps"][0]
note = next(n for n in s["notes"] if n.startswith("sysbench "))
qpe = float(re.search(r"([\d.]+) queries and", note).group(1))
events = s["ops"]; queries = events * qpe
print("\t".join(map(str, [e, r, st, "rumbench", pos, events, round(queries), queries / s["wall_s"],
    s["metrics"]["client_cpu_us_op"] / qpe, 1e6 * (float(s1) - float(s0)) / queries, psi])))
PY
}

run_sysbench() {   # ENGINE REPEAT STEP POSITION
    local e=$1 r=$2 st=$3 pos=$4 log="$WORK/sb-$1-r$2-$3.log" s0 s1 cpu code psi
    s0=$(server_cpu "$SERVER_PID")
    # shellcheck disable=SC2046
    read -r cpu code psi < <(timed "$log" sysbench $(sysbench_args "$st") "${SB_DB[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" \
        --threads="$THREADS" --time="$STEP_SECONDS" --rand-type=uniform --db-ps-mode=auto --report-interval=0 run)
    s1=$(server_cpu "$SERVER_PID")
    [ "$code" = 0 ] || { echo "sysbench failed ($log):" >&2; tail -20 "$log" >&2; exit 1; }
    python3 - "$log" "$e" "$r" "$st" "$pos" "$cpu" "$s0" "$s1" "$psi" >>"$RUNS" <<'PY'
import re, sys
f, e, r, st, pos, cpu, s0, s1, psi = sys.argv[1:]
text = open(f).read()
queries, qps = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec", text).groups()
events = int(re.search(r"transactions:\s+(\d+)", text).group(1))
queries = int(queries)
print("\t".join(map(str, [e, r, st, "sysbench", pos, events, queries, qps, 1e6 * float(cpu) / queries, 1e6 * (float(s1) - float(s0)) / queries, psi])))
PY
}

n_s=$(wc -w <<<"$STEPS"); n_e=$(wc -w <<<"$ENGINES")
echo "sysbench_client_cpu: about $(( n_e * (30 + REPEATS * n_s * 2 * (STEP_SECONDS + 3 + PAUSE)) / 60 )) min; output $OUT" >&2
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg); STARTED=$(date -u +%Y-%m-%dT%H:%MZ)
SERVERS=()
for e in $ENGINES; do
    case $e in
        postgres) start_pg ;;
        mariadb-innodb) start_mariadb ;;
        *) echo "unknown engine $e (postgres or mariadb-innodb)" >&2; exit 1 ;;
    esac
    SERVERS+=("$e: $SERVER_VERSION")
    echo "$e: $SERVER_VERSION on 127.0.0.1:$PORT; preparing $TABLES table(s) of $TABLE_SIZE rows with sysbench" >&2
    sysbench oltp_read_write "${SB_DB[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" prepare >"$WORK/sb-$e-prepare.log" 2>&1
    for r in $(seq "$REPEATS"); do
        for st in $STEPS; do
            if (( r % 2 )); then
                run_rumbench "$e" "$r" "$st" 1; sleep "$PAUSE"; run_sysbench "$e" "$r" "$st" 2
            else
                run_sysbench "$e" "$r" "$st" 1; sleep "$PAUSE"; run_rumbench "$e" "$r" "$st" 2
            fi
            sleep "$PAUSE"
            echo "  $e repeat $r $st: $(tail -2 "$RUNS" | awk -F'\t' '{printf "%s %.0f q/s %.2f us/q  ", $4, $8, $9}')" >&2
        done
    done
    case $e in postgres) stop_pg ;; mariadb-innodb) stop_mariadb ;; esac
done
END_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

{
echo "# rumbench's sysbench steps vs sysbench 1.0.20 ($STARTED)"
echo
echo "Command: \`bench/sysbench_client_cpu.sh REPEATS=$REPEATS STEP_SECONDS=$STEP_SECONDS THREADS=$THREADS STEPS=\"$STEPS\" ENGINES=\"$ENGINES\" TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE\`"
echo
echo "- rumbench: $("$RUMBENCH" --version) (\`$RUMBENCH\`, sha256 $(sha256sum "$RUMBENCH" | cut -c1-16))"
echo "- $SB_VERSION (Debian package $(dpkg-query -W -f='${Version}' sysbench 2>/dev/null || echo '?'))"
for s in "${SERVERS[@]}"; do echo "- server $s"; done
echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -r); shared"
echo "- load average at start: $START_LOAD; at end: $END_LOAD"
echo
echo "Both tools on the same server instance per engine, over TCP 127.0.0.1, $THREADS connection(s), the tables sysbench's prepare made. Client CPU per query: rumbench's client_cpu_us_op over its queries per event; sysbench's process CPU (its start and exit included) over its queries. Ratios are per pair (same engine, repeat and step), then median (min..max)."
echo
} >"$OUT"
python3 - "$RUNS" >>"$OUT" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
med = statistics.median
def rng(v, fmt):
    return f"{fmt.format(med(v))} ({fmt.format(min(v))}..{fmt.format(max(v))})"
print("| engine | step | rumbench queries/s | sysbench queries/s | rumbench client CPU us/query | sysbench client CPU us/query | ratio rb/sb | target <= 1 |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for e in dict.fromkeys(r["engine"] for r in rows):
    for st in dict.fromkeys(r["step"] for r in rows if r["engine"] == e):
        by = {}
        for r in rows:
            if r["engine"] == e and r["step"] == st:
                by.setdefault(r["repeat"], {})[r["tool"]] = r
        pairs = [p for p in by.values() if len(p) == 2]
        q = lambda tool: [float(p[tool]["queries_s"]) for p in pairs]
        c = lambda tool: [float(p[tool]["client_cpu_us_query"]) for p in pairs]
        ratio = [a / b for a, b in zip(c("rumbench"), c("sysbench"))]
        ok = sum(x <= 1 for x in ratio)
        verdict = "holds" if med(ratio) <= 1 else "**does not hold**"
        print(f"| {e} | {st} | {rng(q('rumbench'), '{:.0f}')} | {rng(q('sysbench'), '{:.0f}')} | {rng(c('rumbench'), '{:.2f}')} | {rng(c('sysbench'), '{:.2f}')} | {rng(ratio, '{:.2f}')} | {verdict} ({ok} of {len(ratio)} pairs) |")
print("\n## Every run\n")
print("| engine | repeat | step | tool | order | events | queries | queries/s | client CPU us/query | server CPU us/query | CPU wait |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['engine']} | {r['repeat']} | {r['step']} | {r['tool']} | {r['position']} | {r['events']} | {r['queries']} | {float(r['queries_s']):.0f} | {float(r['client_cpu_us_query']):.2f} | {float(r['server_cpu_us_query']):.1f} | {r['psi']}% |")
PY
echo "written: $OUT" >&2
cat "$OUT"
