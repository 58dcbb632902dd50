# shellcheck shell=bash
# Shared pieces of the benchmarks that run every service themselves and kill them (Benchmarks/chaos/run,
# Benchmarks/replicas/run). Source after scripts/lib/postgres.sh; the caller sets ROOT, and for the functions that
# use them STATE, LOGS, PIDDIR, BIN, OUT.
#
#   bench_pick_port                     PORT_PICKED=a free loopback port below the ephemeral range, never picked before
#   bench_alive PID                     alive and not a zombie
#   bench_stop_leftovers DIR            kill -9 the processes named by DIR/* (pid files) that run from $ROOT
#   bench_stop_pidfiles DIR             SIGTERM them, wait up to 10 s, then SIGKILL; removes the pid files
#   bench_wait_ready NAME URL PID [LOG] wait (120 s at most) for URL/health/ready to answer 200, or exit 1
#   bench_seed_shop GATEWAY SANDBOX OPERATOR_KEY BUNDLE WEBHOOK_URL
#                                       the demo shop, its sandbox credentials, an auto-renewable pro_monthly, the
#                                       webhook; sources $STATE/keys.env (SHOPKEEPER_SECRET_KEY, _PUBLIC_KEY, ...)

bench_say() { printf '%s %s\n' "[${BENCH_NAME:-bench} $(date +%H:%M:%S)]" "$*" >&2; }
bench_epoch() { date +%s.%N | cut -c1-14; }

# Ports below the ephemeral range (ip_local_port_range), so that no outbound connection (thousands of them during
# a run) can take the port of a killed service before it is started again.
_BENCH_EPHEMERAL_LOW=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
_BENCH_PICKED=" "
bench_pick_port() { # sets PORT_PICKED (call it in the current shell, not a subshell, so the pick is remembered)
    local candidate
    while :; do
        candidate=$((10000 + RANDOM % (_BENCH_EPHEMERAL_LOW - 10000)))
        (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null && continue # something listens there
        [[ "$_BENCH_PICKED" == *" $candidate "* ]] && continue
        _BENCH_PICKED="$_BENCH_PICKED$candidate "
        # shellcheck disable=SC2034  # read by the caller
        PORT_PICKED=$candidate
        return 0
    done
}

bench_alive() { # one read of /proc/PID/stat: the process may be reaped between two looks
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    [[ "$stat" != *") Z "* ]]
}

bench_stop_leftovers() {
    local dir=$1 file pid
    [ -d "$dir" ] || return 0
    for file in "$dir"/*; do
        [ -f "$file" ] || continue
        pid=$(cat "$file")
        if [ -n "$pid" ] && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null || true)" = "$ROOT" ]; then
            bench_say "stopping $(basename "$file") (pid $pid) left by an earlier run"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
}

bench_stop_pidfiles() {
    local dir=$1 file pid alive
    for file in "$dir"/*; do
        [ -f "$file" ] || continue
        pid=$(cat "$file")
        if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; fi
    done
    for _ in $(seq 1 50); do
        alive=0
        for file in "$dir"/*; do
            [ -f "$file" ] || continue
            pid=$(cat "$file")
            if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then alive=1; fi
        done
        [ "$alive" = 1 ] || break
        sleep 0.2
    done
    for file in "$dir"/*; do
        [ -f "$file" ] || continue
        pid=$(cat "$file")
        if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
        rm -f "$file"
    done
}

bench_wait_ready() {
    local name=$1 target="$2/health/ready" pid=$3 log=${4:-$LOGS/$1.log}
    local deadline=$((SECONDS + 120))
    while [ "$SECONDS" -lt "$deadline" ]; do
        bench_alive "$pid" || { bench_say "$name exited; last lines of $log:"; tail -n 30 "$log" >&2; exit 1; }
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$target" || true)" = "200" ] && return 0
        sleep 0.2
    done
    bench_say "$name not ready after 120 s: $target; last lines of $log:"
    tail -n 30 "$log" >&2
    exit 1
}

bench_seed_shop() {
    local gateway=$1 sandbox=$2 operator_key=$3 bundle=$4 webhook=$5
    "$BIN/shopkeeper" seed demo --gateway-url "$gateway" --operator-key "$operator_key" --env-file "$STATE/keys.env" \
        >"$LOGS/seed.log" 2>&1 || { cat "$LOGS/seed.log" >&2; exit 1; }
    # shellcheck disable=SC1091
    . "$STATE/keys.env"
    "$BIN/shopkeeper" sandbox connect --gateway-url "$gateway" --secret-key "$SHOPKEEPER_SECRET_KEY" \
        --sandbox-url "$sandbox" --bundle-id "$bundle" >"$LOGS/connect.log" 2>&1 \
        || { cat "$LOGS/connect.log" >&2; exit 1; }
    _bench_admin "$gateway" POST /v1/admin/products '{"product_id":"pro_monthly","type":"auto_renewable",
        "entitlements":["pro"],"review_state":"approved","cleared_for_sale":true,"default_locale":"en","group":"pro",
        "store_product_ids":{"app_store":"'"$bundle"'.pro_monthly","play_store":"pro_monthly"},
        "localizations":{"en":{"name":"Pro","description":"Pro, monthly"}}}'
    _bench_admin "$gateway" PUT /v1/admin/entitlements/settings "{\"webhook_url\":\"$webhook\"}"
}

_bench_admin() { # GATEWAY METHOD PATH BODY -> exits unless 2xx
    local status
    status=$(curl -s -o "$OUT/admin.json" -w '%{http_code}' -X "$2" "$1$3" \
        -H "Authorization: Bearer $SHOPKEEPER_SECRET_KEY" -H 'Content-Type: application/json' -d "$4")
    case $status in 2??) ;; *) bench_say "$2 $3 failed ($status): $(cat "$OUT/admin.json")"; exit 1 ;; esac
}
