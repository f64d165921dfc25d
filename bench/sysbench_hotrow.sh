#!/usr/bin/env bash
# Peer side by side for the hot-row step (issue 13): rumbench's `hotrow`
# against sysbench 1.0.20's oltp_update_non_index with --table-size=1, on
# the same PostgreSQL and MariaDB (InnoDB) server instances, at 1, 2, 4 and 8
# clients on one table. Targets: rumbench's updates/s at least sysbench's at
# every client count, and rumbench's client CPU per update lower.
#
# The script starts ONE server per engine itself, with the settings rumbench
# writes for the servers it starts (src/server/postgres.rs, mariadb.rs:
# Debian's binaries, a private data dir under $SCRATCH, listening on
# 127.0.0.1 only, the engines' default durability), and points both tools at
# it over TCP 127.0.0.1 (rumbench through --target, which has no Unix-socket
# form). Each (repeat, client count) cell is a pair of runs, one process
# each: rumbench then sysbench on odd repeats, sysbench then rumbench on even
# ones. The servers are stopped by a trap on every exit path. On a shared
# 2-CPU machine the load changes within tens of seconds: many short pairs,
# each tool's run right next to the other's, give steadier medians than a few
# long ones (hence 8 repeats of 5 s by default).
#
# rumbench: `run --target URL -s hotrow --hot-tables 1 --threads N
#   --hot-rows 1` (every op `UPDATE hot1 SET counter = counter + 1 WHERE id
#   = 1`, autocommit, prepared, one connection per client); its updates/s is
#   the step's ops_s, its client CPU per update metrics.client_cpu_us_op
#   (its process's CPU over the step, connections and the 1-row table's
#   creation included, process start and exit not).
# sysbench: `oltp_update_non_index --tables=1 --table-size=1 --threads=N
#   --time=S --db-ps-mode=auto run` (every event one autocommit prepared
#   `UPDATE sbtest1 SET c=? WHERE id=?`, id always 1); prepared once per
#   server (not timed); its updates/s is "transactions ... per sec." (checked
#   equal to "write:" queries), its client CPU the process's user+sys CPU
#   (getrusage of the child, startup and exit included) over its updates.
#
# Usage: bench/sysbench_hotrow.sh [REPEATS=8] [STEP_SECONDS=5] [THREADS="1 2 4 8"]
#        [ENGINES="postgres mariadb-innodb"] [PAUSE=1] [OUT=...]
# Needs root (it runs PostgreSQL as user postgres, and installs the Debian
# package sysbench if it is missing).
set -euo pipefail
for a in "$@"; do export "${a?}"; done
REPEATS=${REPEATS:-8}; STEP_SECONDS=${STEP_SECONDS:-5}; THREADS=${THREADS:-"1 2 4 8"}
ENGINES=${ENGINES:-"postgres mariadb-innodb"}; PAUSE=${PAUSE:-1}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT=${OUT:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/results/sysbench_hotrow-$(date +%Y%m%d-%H%M).md}
WORK=$SCRATCH/sysbench_hotrow
PGBIN=/usr/lib/postgresql/15/bin
unset MYSQL_PWD PGPASSWORD RUMBENCH_TARGET_PASSWORD

[ "$(id -u)" = 0 ] || { echo "run as root (PostgreSQL runs as user postgres; sysbench may need installing)" >&2; exit 1; }
if ! command -v sysbench >/dev/null; then
    echo "installing the Debian package sysbench" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y sysbench >/dev/null
fi
SB_VERSION=$(sysbench --version)
[ "$SB_VERSION" = "sysbench 1.0.20" ] || echo "warning: $SB_VERSION, the issue names sysbench 1.0.20" >&2
[ -x "$PGBIN/pg_ctl" ] || { echo "PostgreSQL 15 is not installed: scripts/install-servers.sh" >&2; exit 1; }
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || { echo "MariaDB is not installed: scripts/install-servers.sh" >&2; exit 1; }

rm -rf "$WORK"; mkdir -p "$WORK"; chmod a+rx "$SCRATCH" "$WORK"
RUNS=$WORK/runs.tsv
printf 'engine\trepeat\tclients\ttool\tposition\tupdates\tupdates_s\tclient_cpu_us\tprocess_cpu_us\tserver_cpu_us\tload1\tpsi\n' >"$RUNS"

source "$(dirname "${BASH_SOURCE[0]}")/sql_servers.sh"


run_rumbench() {   # ENGINE REPEAT CLIENTS POSITION
    local e=$1 r=$2 t=$3 pos=$4 d="$WORK/rb-$1-r$2-t$3" l s0 s1 cpu code psi
    l=$(load1); s0=$(server_cpu "$SERVER_PID")
    read -r cpu code psi < <(timed "$d.log" "$RUMBENCH" run --target "$URL" -s hotrow --hot-tables 1 --threads "$t" --hot-rows 1 \
        --seconds "$STEP_SECONDS" --progress off --no-history -d "$d")
    s1=$(server_cpu "$SERVER_PID")
    [ "$code" = 0 ] && [ "$(jget "$d" "step('hotrow@T1@t$t')['status']")" = completed ] || { echo "rumbench failed ($d.log):" >&2; tail -20 "$d.log" >&2; exit 1; }
    python3 - "$d/result.json" "$e" "$r" "$t" "$pos" "$cpu" "$s0" "$s1" "$l" "$psi" >>"$RUNS" <<'PY'
import json, sys
f, e, r, t, pos, cpu, s0, s1, l, psi = sys.argv[1:]
s = next(s for s in json.load(open(f))["configs"][0]["steps"] if s["name"] == f"hotrow@T1@t{t}")
n = s["ops"]
print("\t".join(map(str, [e, r, t, "rumbench", pos, n, s["ops_s"], s["metrics"]["client_cpu_us_op"], 1e6 * float(cpu) / n, 1e6 * (float(s1) - float(s0)) / n, l, psi])))
PY
}

run_sysbench() {   # ENGINE REPEAT CLIENTS POSITION
    local e=$1 r=$2 t=$3 pos=$4 log="$WORK/sb-$1-r$2-t$3.log" l s0 s1 cpu code psi
    l=$(load1); s0=$(server_cpu "$SERVER_PID")
    read -r cpu code psi < <(timed "$log" sysbench oltp_update_non_index "${SB_DB[@]}" --tables=1 --table-size=1 \
        --threads="$t" --time="$STEP_SECONDS" --db-ps-mode=auto --report-interval=0 run)
    s1=$(server_cpu "$SERVER_PID")
    [ "$code" = 0 ] || { echo "sysbench failed ($log):" >&2; tail -20 "$log" >&2; exit 1; }
    python3 - "$log" "$e" "$r" "$t" "$pos" "$cpu" "$s0" "$s1" "$l" "$psi" >>"$RUNS" <<'PY'
import re, sys
f, e, r, t, pos, cpu, s0, s1, l, psi = sys.argv[1:]
text = open(f).read()
writes = int(re.search(r"write:\s+(\d+)", text).group(1))
total = int(re.search(r"queries:\s+(\d+)", text).group(1))
txn, rate = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", text).groups()
errors = int(re.search(r"ignored errors:\s+(\d+)", text).group(1))
if writes != int(txn) or total != writes or errors:
    sys.exit(f"{f}: expected one UPDATE per event and no errors: {writes} writes, {total} queries, {txn} events, {errors} errors")
print("\t".join(map(str, [e, r, t, "sysbench", pos, writes, rate, 1e6 * float(cpu) / writes, 1e6 * float(cpu) / writes, 1e6 * (float(s1) - float(s0)) / writes, l, psi])))
PY
}

# ---- the run ----
n_t=$(wc -w <<<"$THREADS"); n_e=$(wc -w <<<"$ENGINES")
est=$(( n_e * (15 + 5 * n_t + REPEATS * n_t * 2 * (STEP_SECONDS + 2 + PAUSE)) ))
echo "sysbench_hotrow: about $(( est / 60 )) min ($n_e engines x $REPEATS repeats x $n_t client counts x 2 tools x $STEP_SECONDS s); output $OUT" >&2
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg); STARTED=$(date -u +%Y-%m-%dT%H:%MZ)
SERVERS=()
FIXED=$WORK/fixed.tsv; : >"$FIXED"
for e in $ENGINES; do
    case $e in
        postgres) start_pg ;;
        mariadb-innodb) start_mariadb ;;
        *) echo "unknown engine $e (postgres or mariadb-innodb)" >&2; exit 1 ;;
    esac
    SERVERS+=("$e: $SERVER_VERSION (pid $SERVER_PID, port $PORT)")
    echo "$e: $SERVER_VERSION on 127.0.0.1:$PORT" >&2
    sysbench oltp_update_non_index "${SB_DB[@]}" --tables=1 --table-size=1 prepare >"$WORK/sb-$e-prepare.log" 2>&1
    # sysbench's fixed cost (start, connections, statement preparation, exit):
    # a run of one event per client.
    for t in $THREADS; do
        read -r cpu _ < <(timed "$WORK/sb-$e-fixed-t$t.log" sysbench oltp_update_non_index "${SB_DB[@]}" --tables=1 --table-size=1 \
            --threads="$t" --events="$t" --time=0 --db-ps-mode=auto run)
        printf '%s\t%s\t%s\n' "$e" "$t" "$cpu" >>"$FIXED"
    done
    for r in $(seq "$REPEATS"); do
        for t in $THREADS; do
            if (( r % 2 )); then
                run_rumbench "$e" "$r" "$t" 1; sleep "$PAUSE"; run_sysbench "$e" "$r" "$t" 2
            else
                run_sysbench "$e" "$r" "$t" 1; sleep "$PAUSE"; run_rumbench "$e" "$r" "$t" 2
            fi
            sleep "$PAUSE"
            echo "  $e repeat $r, $t clients: $(tail -2 "$RUNS" | awk -F'\t' '{printf "%s %.0f/s %.1f us  ", $4, $7, $8}')" >&2
        done
    done
    case $e in postgres) stop_pg ;; mariadb-innodb) stop_mariadb ;; esac
done
END_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the report ----
{
echo "# rumbench hotrow vs sysbench oltp_update_non_index, --table-size=1 ($STARTED)"
echo
echo "Command: \`bench/sysbench_hotrow.sh REPEATS=$REPEATS STEP_SECONDS=$STEP_SECONDS THREADS=\"$THREADS\" ENGINES=\"$ENGINES\" PAUSE=$PAUSE\`"
echo
echo "- rumbench: $("$RUMBENCH" --version) (git $(jget "$(ls -d "$WORK"/rb-*-r1-t* | head -1)" 'r["git_commit"][:10]'), \`$RUMBENCH\`, sha256 $(sha256sum "$RUMBENCH" | cut -c1-16))"
echo "- $SB_VERSION (Debian package $(dpkg-query -W -f='${Version}' sysbench 2>/dev/null || echo '?')), LuaJIT"
for s in "${SERVERS[@]}"; do echo "- server $s"; done
echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -r); shared"
echo "- load average at start: $START_LOAD; at end: $END_LOAD"
echo
echo "Both tools against the same server instance per engine, over TCP 127.0.0.1, one connection per client, one table, autocommit, prepared statements."
echo "rumbench: \`rumbench run --target URL -s hotrow --hot-tables 1 --threads N --hot-rows 1 --seconds $STEP_SECONDS\` (\`UPDATE hot1 SET counter = counter + 1 WHERE id = 1\`; --hot-rows 1 matches sysbench's --table-size=1)."
echo "sysbench: \`sysbench oltp_update_non_index --tables=1 --table-size=1 --threads=N --time=$STEP_SECONDS --db-ps-mode=auto run\` (each event one \`UPDATE sbtest1 SET c=? WHERE id=?\`, c a new random 119-character string, id 1)."
echo "Each (repeat, clients) cell is a pair of runs, rumbench first on odd repeats, sysbench first on even ones."
echo
} >"$OUT"
python3 - "$RUNS" "$FIXED" >>"$OUT" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
fixed = {(e, t): float(c) for e, t, c in (l.split("\t") for l in open(sys.argv[2]).read().splitlines())}
med = statistics.median
def rng(v, fmt):
    return f"{fmt.format(med(v))} ({fmt.format(min(v))}..{fmt.format(max(v))})"
engines = list(dict.fromkeys(r["engine"] for r in rows))
def pairs_of(e, t):
    """The (repeat -> {tool: row}) pairs of one engine and client count that have both tools."""
    by = {}
    for r in rows:
        if r["engine"] == e and r["clients"] == t:
            by.setdefault(r["repeat"], {})[r["tool"]] = r
    return [p for p in by.values() if len(p) == 2]
for e in engines:
    print(f"## {e}\n")
    print("Median over repeats, (min..max) in brackets; ratios are per pair (same repeat and client count), then median (min..max); CPU wait: median share of the runs' time in which some task waited for a CPU (see Every run).\n")
    print("| clients | rumbench updates/s | sysbench updates/s | ratio rb/sb | target >= 1 | rumbench client CPU us/update | sysbench client CPU us/update | ratio rb/sb | target < 1 | CPU wait rb / sb |")
    print("|---:|---:|---:|---:|---|---:|---:|---:|---|---:|")
    for t in dict.fromkeys(r["clients"] for r in rows if r["engine"] == e):
        pairs = pairs_of(e, t)
        rb_u = [float(p["rumbench"]["updates_s"]) for p in pairs]; sb_u = [float(p["sysbench"]["updates_s"]) for p in pairs]
        rb_c = [float(p["rumbench"]["client_cpu_us"]) for p in pairs]; sb_c = [float(p["sysbench"]["client_cpu_us"]) for p in pairs]
        ru = [a / b for a, b in zip(rb_u, sb_u)]; rc = [a / b for a, b in zip(rb_c, sb_c)]
        def verdict(v, ok):
            if all(ok(x) for x in v): return "holds (every pair)"
            if ok(med(v)): return f"holds at the median ({sum(map(ok, v))} of {len(v)} pairs)"
            return f"**does not hold** ({sum(map(ok, v))} of {len(v)} pairs)"
        print(f"| {t} | {rng(rb_u, '{:.0f}')} | {rng(sb_u, '{:.0f}')} | {rng(ru, '{:.2f}')} | {verdict(ru, lambda x: x >= 1)} "
              f"| {rng(rb_c, '{:.1f}')} | {rng(sb_c, '{:.1f}')} | {rng(rc, '{:.2f}')} | {verdict(rc, lambda x: x < 1)} "
              f"| {med([float(p['rumbench']['psi']) for p in pairs]):.0f}% / {med([float(p['sysbench']['psi']) for p in pairs]):.0f}% |")
    print()
print("## Whole-process client CPU\n")
print("The same comparison with rumbench's whole process (its start, config process, result and report writing included, as sysbench's figure includes its own start and exit): process CPU per update, median (min..max), ratio per pair.\n")
print("| engine | clients | rumbench process CPU us/update | sysbench process CPU us/update | ratio rb/sb |")
print("|---|---:|---:|---:|---:|")
for e in engines:
    for t in dict.fromkeys(r["clients"] for r in rows if r["engine"] == e):
        pairs = pairs_of(e, t)
        a = [float(p["rumbench"]["process_cpu_us"]) for p in pairs]; b = [float(p["sysbench"]["process_cpu_us"]) for p in pairs]
        print(f"| {e} | {t} | {rng(a, '{:.1f}')} | {rng(b, '{:.1f}')} | {rng([x / y for x, y in zip(a, b)], '{:.2f}')} |")
print()
print("## sysbench's fixed cost\n")
print("CPU of a sysbench run of one event per client (start, connecting, preparing, exiting); its share of the per-update figure above is this over a run's updates.\n")
print("| engine | clients | CPU ms | share of a median run's us/update |")
print("|---|---:|---:|---:|")
for (e, t), c in fixed.items():
    u = [int(r["updates"]) for r in rows if r["engine"] == e and r["clients"] == t and r["tool"] == "sysbench"]
    print(f"| {e} | {t} | {1e3 * c:.1f} | {1e6 * c / med(u):.2f} us |" if u else f"| {e} | {t} | {1e3 * c:.1f} | - |")
print("\n## Every run\n")
print("client CPU: rumbench's metrics.client_cpu_us_op, sysbench's process CPU per update; process CPU: the whole process (rumbench's start, config process, result and report writing included); server CPU: the server process tree's CPU over the run, per update; load: 1-minute load average as the run began; CPU wait: share of the run's wall time in which some task on the machine waited for a CPU (PSI cpu \"some\"; the benchmark's own client and server tasks count too).\n")
print("| engine | repeat | clients | tool | order | updates | updates/s | client CPU us/update | process CPU us/update | server CPU us/update | load | CPU wait |")
print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['engine']} | {r['repeat']} | {r['clients']} | {r['tool']} | {r['position']} | {r['updates']} | {float(r['updates_s']):.0f} | {float(r['client_cpu_us']):.2f} | {float(r['process_cpu_us']):.2f} | {float(r['server_cpu_us']):.1f} | {r['load1']} | {r['psi']}% |")
PY
echo "written: $OUT" >&2
cat "$OUT"
