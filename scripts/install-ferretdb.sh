#!/usr/bin/env bash
# Build rumbench's MongoDB wire-protocol stand-in: FerretDB 1.24.2 embedded in
# tools/ferretdb (a small Go program of rumbench's own), into a cache dir.
# Idempotent: builds only when the binary is missing or tools/ferretdb changed.
#
#   scripts/install-ferretdb.sh              # prints the binary's path on stdout
#   scripts/install-ferretdb.sh --with-cli   # also FerretDB's own `ferretdb`
#                                            # command (SCRAM: --test-enable-new-auth)
#
# Needs Go >= 1.24 (no toolchain download: GOTOOLCHAIN=local) and the Go module
# proxy for the first build (about 190 modules, ~30 s). The SQLite backend is
# pure Go (modernc.org/sqlite): CGO_ENABLED=0, static binary, no C compiler.
# Cache: $RUMBENCH_CACHE_DIR or ${XDG_CACHE_HOME:-~/.cache}/rumbench, subdir
# ferretdb-1.24.2. Set RUMBENCH_HEAVY_LOCK=/tmp/rumbench-heavy.lock to run the
# go build under flock (one heavy build at a time); unset, no lock is taken.
set -euo pipefail

VERSION=1.24.2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=$ROOT/tools/ferretdb
CACHE=${RUMBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rumbench}/ferretdb-$VERSION
BIN=$CACHE/rumbench-ferretdb
CLI=$CACHE/ferretdb

with_cli=0
for a in "$@"; do
    case $a in
        --with-cli) with_cli=1 ;;
        *) echo "install-ferretdb.sh: unknown argument $a" >&2; exit 2 ;;
    esac
done

log() { echo "install-ferretdb.sh: $*" >&2; }

export GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0

if ! command -v go >/dev/null 2>&1; then
    log "go not found (Go >= 1.24 is needed)"; exit 1
fi
gov=$(go env GOVERSION)          # go1.26.8
IFS=. read -r major minor _ <<<"${gov#go}"
if (( major < 1 || (major == 1 && minor < 24) )); then
    log "$gov is too old: FerretDB $VERSION needs Go >= 1.24"; exit 1
fi
if ! grep -q "github.com/FerretDB/FerretDB v$VERSION\$" "$SRC/go.mod"; then
    log "$SRC/go.mod does not require FerretDB v$VERSION"; exit 1
fi

heavy() {
    if [[ -n ${RUMBENCH_HEAVY_LOCK:-} ]]; then flock "$RUMBENCH_HEAVY_LOCK" "$@"; else "$@"; fi
}

# What the binary is built from: its sources, the Go version and the flags.
stamp=$( { cat "$SRC/main.go" "$SRC/go.mod" "$SRC/go.sum"; echo "$gov $GOFLAGS CGO_ENABLED=$CGO_ENABLED -trimpath -s -w"; } | sha256sum | cut -d' ' -f1)

mkdir -p "$CACHE"
if [[ -x $BIN && -f $BIN.stamp && $(cat "$BIN.stamp") == "$stamp" ]]; then
    log "$BIN is up to date"
else
    log "building $BIN with $gov (a few minutes the first time)"
    start=$SECONDS
    tmp=$BIN.tmp.$$
    (cd "$SRC" && heavy go build -trimpath -ldflags="-s -w" -o "$tmp" .)
    "$tmp" -h >/dev/null 2>&1 # smoke test: -h prints the flags and exits 0
    mv -f "$tmp" "$BIN"
    echo "$stamp" >"$BIN.stamp"
    log "built in $((SECONDS - start)) s: $(du -h "$BIN" | cut -f1)"
fi

if (( with_cli )); then
    # FerretDB's own command, built from the module's source with
    # build/version/version.txt written in (the module zip lacks it, so
    # `go install .../cmd/ferretdb@v1.24.2` panics at start).
    if [[ -x $CLI && "$("$CLI" --version 2>/dev/null | head -1)" == "version: v$VERSION" ]]; then
        log "$CLI is up to date"
    else
        moddir=$(cd "$SRC" && go mod download github.com/FerretDB/FerretDB && go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)
        [[ -d $moddir ]] || { log "FerretDB module not found"; exit 1; }
        work=$CACHE/cli-src
        rm -rf "$work"
        cp -r "$moddir" "$work"
        chmod -R u+w "$work"
        echo "v$VERSION" >"$work/build/version/version.txt"
        log "building $CLI"
        (cd "$work" && heavy go build -trimpath -ldflags="-s -w" -o "$CLI.tmp.$$" ./cmd/ferretdb)
        mv -f "$CLI.tmp.$$" "$CLI"
        rm -rf "$work"
    fi
fi

echo "$BIN"
