# Shared by bench/build_dbbench.sh and bench/rocksdb_optlevel_compile.sh: one
# compiler command as the cc crate logs it into a build script's output
# (.cargo/config.toml turns the log on):
#   running: "c++" "-O3" ... "-o" "/.../X.o" "-c" "rocksdb/db/Y.cc"
# (env "NAME=value" words may come before the compiler).

# cc_log_command LINE: sets CXX (the compiler), FLAGS (its flags, without -o
# and -c and the files after them) and SOURCE (the file after -c).
cc_log_command() {
    local words=() w after=""
    mapfile -t words < <(printf '%s\n' "${1#*running: }" | grep -o '"[^"]*"' | sed 's/^"//; s/"$//')
    CXX=""; FLAGS=(); SOURCE=""
    for w in "${words[@]}"; do
        case "$after" in
            -o) after=""; continue ;;
            -c) after=""; SOURCE=$w; continue ;;
        esac
        case "$w" in
            -o|-c) after=$w ;;
            *=*) [ -z "$CXX" ] && continue || FLAGS+=("$w") ;;   # env assignments before the compiler
            *) if [ -z "$CXX" ]; then CXX=$w; else FLAGS+=("$w"); fi ;;
        esac
    done
}
