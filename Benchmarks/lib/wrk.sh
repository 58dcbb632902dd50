# shellcheck shell=bash
# Reading wrk's output, for the benchmarks that measure with it (Benchmarks/http/run, customers/run, offerings/run).
#
#   to_ms LATENCY          wrk's latency (`830.00us`, `12.5ms`, `1.02s`) in milliseconds, two decimals
#   wrk_figures OUTPUT     "requests_per_second p99_ms non2xx requests" of one wrk run (`--latency`)

to_ms() {
    case "$1" in
        *us) awk -v v="${1%us}" 'BEGIN {printf "%.2f", v/1000}' ;;
        *ms) awk -v v="${1%ms}" 'BEGIN {printf "%.2f", v}' ;;
        *s) awk -v v="${1%s}" 'BEGIN {printf "%.2f", v*1000}' ;;
        *) echo "$1" ;;
    esac
}

wrk_figures() {
    local requests rps p99 non2xx
    requests=$(echo "$1" | awk '/requests in/ {print $1}')
    rps=$(echo "$1" | awk '/Requests\/sec/ {print $2}')
    p99=$(echo "$1" | awk '$1=="99%" {print $2}')
    non2xx=$(echo "$1" | awk '/Non-2xx/ {print $5}')
    echo "$rps $(to_ms "$p99") ${non2xx:-0} $requests"
}
