# Sourced by the bench scripts whose parameters are environment variables
# (bench/dbbench_compare.sh, splinterdb_compare.sh, splinterdb_version.sh).
#
# var_args SCRIPT ARG...: each VAR=value argument sets (and exports) VAR;
# -h or --help prints SCRIPT's header comment (from its second line up to
# `set -euo`) and exits 0; anything else is refused with exit code 2.
var_args() {
    local script=$1 arg
    shift
    for arg in "$@"; do
        case "$arg" in
            -h|--help) sed -n '2,/^set -euo/p' "$script" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
            *=*) export "${arg?}" ;;
            *) echo "unknown argument: $arg (use VAR=value; --help)" >&2; exit 2 ;;
        esac
    done
}
