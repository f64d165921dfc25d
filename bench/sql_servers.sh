# The servers and measurements bench/sysbench_hotrow.sh and
# bench/sysbench_client_cpu.sh share: a PostgreSQL and a MariaDB started as
# rumbench starts its own (Debian's binaries, a private data dir under
# $WORK, 127.0.0.1 only), stopped by the sourcing script's trap on every
# exit path; the server's CPU, a command's CPU and the machine's CPU wait.
# Sourced after bench/lib.sh, with WORK and PGBIN set; needs root and python3.

# ---- servers: started as rumbench starts its own, stopped on every exit path ----
PG_DIR=$WORK/pg; MY_DIR=$WORK/mariadb; PG_UP=0; MY_PID=
stop_pg() {
    [ "$PG_UP" = 1 ] || return 0
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_DIR" -m fast -w -t 60 stop >/dev/null 2>&1 || {
        local pid; pid=$(head -1 "$PG_DIR/postmaster.pid" 2>/dev/null || true)
        [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null || true
    }
    PG_UP=0
}
stop_mariadb() {
    [ -n "$MY_PID" ] || return 0
    mariadb-admin --no-defaults --socket="$MY_DIR/mysqld.sock" -uroot --connect-timeout=5 shutdown >/dev/null 2>&1 || kill -TERM "$MY_PID" 2>/dev/null || true
    for _ in $(seq 120); do kill -0 "$MY_PID" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$MY_PID" 2>/dev/null && kill -KILL "$MY_PID" 2>/dev/null
    wait "$MY_PID" 2>/dev/null || true
    MY_PID=
}
cleanup() { stop_pg; stop_mariadb; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_pg() {   # sets PORT, URL, SB_DB, SERVER_PID, SERVER_VERSION
    mkdir -p "$PG_DIR"; chown postgres:postgres "$PG_DIR"
    PORT=$(free_port)
    runuser -u postgres -- "$PGBIN/initdb" -D "$PG_DIR" -A trust -U postgres -E UTF8 --locale=C --no-sync >"$WORK/pg-initdb.log" 2>&1
    printf "\n# ---- as rumbench writes it: loopback only, private socket ----\nlisten_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\n" "$PORT" "$PG_DIR" >>"$PG_DIR/postgresql.conf"
    PG_UP=1
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_DIR" -l "$PG_DIR/server.log" -w -t 60 -o "-c listen_addresses=127.0.0.1 -c port=$PORT" start >/dev/null
    "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c "CREATE DATABASE rumbench"
    SERVER_VERSION=$("$PGBIN/psql" -X -A -t -h 127.0.0.1 -p "$PORT" -U postgres -d rumbench -c "SELECT version()")
    SERVER_PID=$(head -1 "$PG_DIR/postmaster.pid")
    URL=postgres://postgres@127.0.0.1:$PORT/rumbench
    SB_DB=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$PORT" --pgsql-user=postgres --pgsql-db=rumbench)
}

start_mariadb() {
    mkdir -p "$MY_DIR/data" "$MY_DIR/tmp"
    PORT=$(free_port)
    mariadb-install-db --no-defaults --user=root --datadir="$MY_DIR/data" --auth-root-authentication-method=normal --skip-test-db --tmpdir="$MY_DIR/tmp" >"$MY_DIR/install-db.log" 2>&1
    printf '[mariadbd]\ntmpdir=%s\n' "$MY_DIR/tmp" >"$MY_DIR/my.cnf"
    # Its own session, as rumbench starts it in its own process group: a
    # terminal's Ctrl-C reaches the script, whose trap shuts it down.
    setsid mariadbd --defaults-file="$MY_DIR/my.cnf" --datadir="$MY_DIR/data" --socket="$MY_DIR/mysqld.sock" --port="$PORT" \
        --bind-address=127.0.0.1 --pid-file="$MY_DIR/mariadbd.pid" --log-error="$MY_DIR/error.log" --user=root \
        </dev/null >>"$MY_DIR/error.log" 2>&1 &
    MY_PID=$!
    for _ in $(seq 300); do
        mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
        kill -0 "$MY_PID" 2>/dev/null || { tail -5 "$MY_DIR/error.log" >&2; exit 1; }
        sleep 0.2
    done
    mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot -e 'CREATE DATABASE IF NOT EXISTS rumbench'
    SERVER_VERSION=$(mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot -N -e 'SELECT version()')
    SERVER_PID=$MY_PID
    URL=mysql://root@127.0.0.1:$PORT/rumbench
    SB_DB=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root --mysql-db=rumbench)
}

# ---- measuring ----
# CPU seconds of the server: the process and its direct children (PostgreSQL's
# backends; exited ones are in the postmaster's cutime/cstime).
server_cpu() {
    python3 - "$1" <<'PY'
import os, sys
pid = sys.argv[1]; tck = os.sysconf("SC_CLK_TCK")
def cpu(p):
    try:
        f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0, None
    return sum(int(x) for x in f[11:15]), f[1]
total = cpu(pid)[0]
for p in os.listdir("/proc"):
    if p.isdigit() and p != pid:
        t, ppid = cpu(p)
        if ppid == pid:
            total += t
print(total / tck)
PY
}
# timed LOG CMD...: run CMD (output to LOG), print its CPU seconds (user+sys
# from wait4's rusage, children included), its exit code, and the share of
# its wall time in which some task on this machine waited for a CPU (PSI
# /proc/pressure/cpu "some"; 0 when the kernel has no PSI): how busy the
# shared machine was during the run.
timed() {
    python3 - "$@" <<'PY'
import os, subprocess, sys, time
def stalled_us():
    try:
        return int(open("/proc/pressure/cpu").readline().split("total=")[1])
    except (OSError, IndexError, ValueError):
        return None
p0, t0 = stalled_us(), time.monotonic()
with open(sys.argv[1], "w") as log:
    p = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
p1, wall = stalled_us(), time.monotonic() - t0
psi = 100 * (p1 - p0) / 1e6 / wall if p0 is not None and p1 is not None else 0
print(f"{ru.ru_utime + ru.ru_stime:.6f} {os.waitstatus_to_exitcode(status)} {psi:.0f}")
PY
}
load1() { cut -d' ' -f1 /proc/loadavg; }
