# shellcheck shell=bash
# PgBouncer (Debian's package, 1.18 on bookworm) in transaction mode in front of a PostgreSQL, for tests and local
# runs (scripts/with-postgres, Benchmarks/replicas/run).
#
# Source this file from bash after scripts/lib/postgres.sh (for sk_apt_install and the run-as-postgres helpers); it
# defines:
#   sk_ensure_pgbouncer_installed       find pgbouncer (install Debian's `pgbouncer` when missing); exports PGBOUNCER
#   sk_pgbouncer_start DIR PORT URL     wipe DIR, write a configuration there and start PgBouncer on 127.0.0.1:PORT in
#                                       front of the PostgreSQL at URL (postgres://user[:password]@host:port/db;
#                                       every database of that server is reachable through it); waits until it
#                                       answers; exports SK_PGBOUNCER_URL (URL with PgBouncer's host and port)
#   sk_pgbouncer_stop DIR               stop the PgBouncer started in DIR (no error when it is not running)
#
# Settings (environment, read by sk_pgbouncer_start):
#   SK_PGBOUNCER_POOL_SIZE     server connections per database and user (default_pool_size), default 20
#   SK_PGBOUNCER_MAX_CLIENTS   client connections accepted (max_client_conn), default 1000
#
# The services then take DATABASE_URL=$SK_PGBOUNCER_URL, SHOPKEEPER_DB_POOLER=transaction, and
# DATABASE_DIRECT_URL=URL for entitlements' LISTEN (docs/architecture.md, "Connection budget"). The server
# connections set the services' default timeouts themselves (connect_query), as deploy/compose/pgbouncer/pgbouncer.ini does.
#
# PgBouncer refuses to run as root: when run as root it runs as the `postgres` user, in DIR or, when `postgres`
# cannot reach DIR, in a directory under /tmp that DIR/pgroot names (as scripts/lib/postgres.sh does).

_sk_pgb_log() { printf '%s\n' "[pgbouncer] $*" >&2; }

sk_ensure_pgbouncer_installed() {
    local found
    if [ -n "${PGBOUNCER:-}" ] && [ -x "$PGBOUNCER" ]; then
        export PGBOUNCER
        return 0
    fi
    found=$(command -v pgbouncer 2>/dev/null || true)
    [ -n "$found" ] || [ ! -x /usr/sbin/pgbouncer ] || found=/usr/sbin/pgbouncer
    if [ -z "$found" ]; then
        _sk_pgb_log "pgbouncer not found; installing Debian's pgbouncer package"
        sk_apt_install pgbouncer || { _sk_pgb_log "could not install pgbouncer"; return 1; }
        found=$(command -v pgbouncer 2>/dev/null || echo /usr/sbin/pgbouncer)
        [ -x "$found" ] || { _sk_pgb_log "pgbouncer installed but not found"; return 1; }
    fi
    PGBOUNCER=$found
    export PGBOUNCER
}

# Stop whatever PgBouncer runs from DIR; never fails.
sk_pgbouncer_stop() {
    local dir=${1:?usage: sk_pgbouncer_stop DIR} root pid tries=0
    root=$(_sk_pg_root "$dir")
    [ -f "$root/pgbouncer.pid" ] || return 0
    pid=$(cat "$root/pgbouncer.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        # SIGTERM: immediate shutdown (1.18); clients are disconnected.
        kill -TERM "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null && [ $tries -lt 100 ]; do
            sleep 0.1
            tries=$((tries + 1))
        done
    fi
    rm -f "$root/pgbouncer.pid"
    return 0
}

sk_pgbouncer_start() {
    local dir=${1:?usage: sk_pgbouncer_start DIR PORT URL} port=${2:?usage: sk_pgbouncer_start DIR PORT URL}
    local url=${3:?usage: sk_pgbouncer_start DIR PORT URL}
    local pool=${SK_PGBOUNCER_POOL_SIZE:-20} clients=${SK_PGBOUNCER_MAX_CLIENTS:-1000}
    local rest userinfo hostport database user password host upstream_port root auth tries=0 psql_bin

    sk_ensure_pgbouncer_installed || return 1
    # postgres://user[:password]@host[:port]/database
    rest=${url#*://}
    if [ "$rest" = "$url" ] || [ "${rest#*@}" = "$rest" ]; then
        _sk_pgb_log "URL must look like postgres://user[:password]@host:port/database, got $url"
        return 1
    fi
    userinfo=${rest%%@*}
    rest=${rest#*@}
    hostport=${rest%%/*}
    database=${rest#*/}
    database=${database%%\?*}
    user=${userinfo%%:*}
    password=""
    [ "$userinfo" = "$user" ] || password=${userinfo#*:}
    host=${hostport%%:*}
    upstream_port=5432
    [ "$hostport" = "$host" ] || upstream_port=${hostport#*:}

    sk_pgbouncer_stop "$dir"
    mkdir -p "$(dirname "$dir")"
    dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
    # PG_BIN is only needed there to stop a PostgreSQL left in DIR; a PgBouncer directory holds none.
    root=$(PG_BIN=${PG_BIN:-/nonexistent} _sk_pg_prepare_root "$dir") || return 1

    if [ -n "$password" ]; then
        auth=scram-sha-256
    else
        auth=trust
    fi
    _sk_pg_run tee "$root/userlist.txt" >/dev/null <<EOF
"$user" "$password"
EOF
    _sk_pg_run chmod 600 "$root/userlist.txt"
    _sk_pg_run tee "$root/pgbouncer.ini" >/dev/null <<EOF
; Written by scripts/lib/pgbouncer.sh: transaction pooling in front of $host:$upstream_port.
[databases]
; Every database of the server; the server connections set the services' default timeouts (PgBouncer 1.18 refuses
; them as startup parameters).
* = host=$host port=$upstream_port connect_query='SET lock_timeout = 5000; SET statement_timeout = 30000; SET idle_in_transaction_session_timeout = 10000'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = $auth
auth_file = $root/userlist.txt
stats_users = $user
pool_mode = transaction
default_pool_size = $pool
reserve_pool_size = 0
max_client_conn = $clients
logfile = $root/pgbouncer.log
pidfile = $root/pgbouncer.pid
log_connections = 0
log_disconnections = 0
EOF

    if ! _sk_pg_run "$PGBOUNCER" -d "$root/pgbouncer.ini" >"$dir/start.log" 2>&1; then
        _sk_pgb_log "PgBouncer did not start on 127.0.0.1:$port:"
        cat "$dir/start.log" >&2
        tail -n 20 "$root/pgbouncer.log" >&2 2>/dev/null || true
        return 1
    fi

    SK_PGBOUNCER_URL="postgres://$userinfo@127.0.0.1:$port/$database"
    psql_bin=""
    if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/psql" ]; then
        psql_bin=$PG_BIN/psql
    else
        psql_bin=$(command -v psql 2>/dev/null || true)
    fi
    # Ready when a statement goes through to the server (or, without psql, when the port accepts connections).
    while [ $tries -lt 100 ]; do
        if [ -n "$psql_bin" ]; then
            if "$psql_bin" "$SK_PGBOUNCER_URL" -XAtqc 'SELECT 1' >/dev/null 2>&1; then break; fi
        elif (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            break
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
    if [ $tries -ge 100 ]; then
        _sk_pgb_log "PgBouncer on 127.0.0.1:$port does not answer; its log ($root/pgbouncer.log):"
        tail -n 20 "$root/pgbouncer.log" >&2 2>/dev/null || true
        sk_pgbouncer_stop "$dir"
        return 1
    fi
    export SK_PGBOUNCER_URL
    _sk_pgb_log "PgBouncer (transaction mode, $pool server connections per database) at $SK_PGBOUNCER_URL"
}
