#!/usr/bin/env bash
# Starting and stopping a whole local stack (scripts/run on free ports, in a temporary state directory) for the
# clients' end-to-end tests (Clients/ShopkeeperKit/Scripts/test-with-stack, Clients/shopkeeper-web/test-with-stack).
#
#   . scripts/lib/stack.sh
#   finish() { local status=$?; sk_stack_stop "$status" "$STATE" "[kit]"; rm -rf "$STATE"; exit "$status"; }
#   trap finish EXIT
#   sk_stack_start "$STATE" "[kit]"        # then "$SK_STACK_ENV" is the stack's local.env
#
# One client sends every request of such tests, so the per-client rate limits are lifted: they are not what the
# tests are about (and a 429 retried by a client would change the statuses the tests list).

SK_STACK_PID=""
SK_STACK_ENV=""

# Starts scripts/run with its state in <state dir>/state, every service on a free port, and waits (up to 15 minutes:
# scripts/run may build) until it says it is running. Sets SK_STACK_PID and SK_STACK_ENV; exits on failure.
sk_stack_start() {
    local state=$1 label=$2 root port_name deadline
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    sk_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
    export SHOPKEEPER_STATE_DIR="$state/state"
    SHOPKEEPER_PG_PORT=$(sk_free_port)
    export SHOPKEEPER_PG_PORT
    for port_name in GATEWAY CATALOG VERIFIER ENTITLEMENTS SUBSCRIPTIONS CONTENT SANDBOX_STORE GATEWAY_METRICS SHOP; do
        export "SHOPKEEPER_${port_name}_PORT=$(sk_free_port)"
    done
    export SHOPKEEPER_RATE_LIMIT_PUBLIC=100000/200000 SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT=100000/200000
    export SHOPKEEPER_RATE_LIMIT_SECRET=100000/200000
    printf '%s\n' "$label starting the system (scripts/run, log in $state/run.log)" >&2
    bash "$root/scripts/run" >"$state/run.log" 2>&1 &
    SK_STACK_PID=$!
    deadline=$((SECONDS + 900))
    until grep -q "Shopkeeper is running" "$state/run.log" 2>/dev/null; do
        if ! kill -0 "$SK_STACK_PID" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
            printf '%s\n' "$label the system did not start:" >&2
            tail -n 40 "$state/run.log" >&2
            exit 1
        fi
        sleep 1
    done
    SK_STACK_ENV="$SHOPKEEPER_STATE_DIR/local.env"
}

# Stops the stack sk_stack_start started (if any); after a failure (<status> not 0) prints the last lines of each
# service's log.
sk_stack_stop() {
    local status=$1 state=$2 label=$3 log
    if [ -n "$SK_STACK_PID" ] && kill -0 "$SK_STACK_PID" 2>/dev/null; then
        kill -TERM "$SK_STACK_PID" 2>/dev/null || true
        wait "$SK_STACK_PID" 2>/dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ -d "$state/state/logs" ]; then
        for log in "$state"/state/logs/*.log; do
            printf '%s\n' "$label last lines of $(basename "$log"):" >&2
            tail -n 10 "$log" >&2 || true
        done
    fi
}
