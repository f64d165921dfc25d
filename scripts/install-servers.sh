#!/usr/bin/env bash
# Install the database servers rumbench starts itself (PostgreSQL, MariaDB with
# InnoDB and MyRocks), and sysbench 1.0.20, the client rumbench's sysbench
# steps are checked and compared against (tests/fixtures/sysbench/record.sh,
# bench/sysbench_client_cpu.sh). Idempotent; runs as root on Debian 12.
#
# rumbench runs its own private instances (own data dir, loopback only, own
# port), so the packaged system services must not be left running: if apt
# started them (Debian's policy-rc.d usually prevents it), they are stopped.
set -euo pipefail

PACKAGES=(postgresql mariadb-server mariadb-plugin-rocksdb sysbench)

if [[ $(id -u) -ne 0 ]]; then
    echo "install-servers.sh: must run as root" >&2
    exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing+=("$p")
    fi
done

if [[ ${#missing[@]} -gt 0 ]]; then
    echo "install-servers.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${PACKAGES[@]}"
else
    echo "install-servers.sh: ${PACKAGES[*]} already installed"
fi

# Stop packaged services if anything started them. Our own instances run with
# a data dir we create, so they never match these system clusters.
stop_service() {
    local svc=$1
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
        systemctl stop "$svc" || true
    elif command -v service >/dev/null 2>&1; then
        service "$svc" stop >/dev/null 2>&1 || true
    fi
}
stop_service postgresql
stop_service mariadb

# Packaged PostgreSQL clusters (pg_ctlcluster) left running?
if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters -h 2>/dev/null | while read -r ver name _port status _rest; do
        if [[ $status == online* ]]; then
            pg_ctlcluster "$ver" "$name" stop || true
        fi
    done
fi

# Packaged MariaDB (system datadir /var/lib/mysql) still up?
if [[ -S /run/mysqld/mysqld.sock ]] && command -v mariadb-admin >/dev/null 2>&1; then
    mariadb-admin --socket=/run/mysqld/mysqld.sock -uroot shutdown 2>/dev/null || true
fi

# Sanity checks: the binaries rumbench uses.
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
for b in "$pgbin/initdb" "$pgbin/pg_ctl" "$pgbin/postgres"; do
    [[ -x $b ]] || { echo "install-servers.sh: missing $b" >&2; exit 1; }
done
for b in mariadbd mariadb-install-db mariadb-admin; do
    command -v "$b" >/dev/null 2>&1 || [[ -x /usr/sbin/$b ]] || { echo "install-servers.sh: missing $b" >&2; exit 1; }
done

if ! ls /usr/lib/mysql/plugin/ha_rocksdb.so >/dev/null 2>&1; then
    echo "install-servers.sh: ha_rocksdb.so not found in /usr/lib/mysql/plugin" >&2
    exit 1
fi
echo "install-servers.sh: ok (postgres: $pgbin, mariadbd: $(command -v mariadbd || echo /usr/sbin/mariadbd))"
