# shellcheck shell=bash
# CPU time of the processes a benchmark measures, from /proc (utime + stime), in microseconds. Source after
# scripts/lib/postgres.sh.
#
#   bench_cpu_us PID              one process
#   bench_postgres_cpu_us DIR     the throwaway cluster started in DIR (sk_pg_start): its postmaster and every process
#                                 it forked (backends, WAL writer, checkpointer, autovacuum), and none of another
#                                 cluster on the machine (the other clusters of a shared machine are not counted)

bench_cpu_us() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) * 1000000 / hz}' "/proc/$1/stat"; }

bench_postgres_cpu_us() {
    local root postmaster total=0 pid
    root=$(_sk_pg_root "$1")
    postmaster=$(head -n 1 "$root/data/postmaster.pid" 2>/dev/null || true)
    [ -n "$postmaster" ] || { echo 0; return 0; }
    for pid in "$postmaster" $(pgrep -P "$postmaster"); do
        total=$(awk -v t="$total" -v v="$(bench_cpu_us "$pid" 2>/dev/null || echo 0)" 'BEGIN {print t + v}')
    done
    echo "$total"
}
