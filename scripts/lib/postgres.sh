# shellcheck shell=bash
# Throwaway PostgreSQL clusters for tests and local runs.
#
# Source this file from bash; it defines:
#   sk_ensure_postgres_installed   find initdb/pg_ctl/postgres (install Debian's `postgresql` when
#                                  missing); exports PG_BIN
#   sk_pg_start DIR PORT           wipe DIR, create a cluster there, start it on 127.0.0.1:PORT and
#                                  create database `shopkeeper`; exports SK_PG_URL
#   sk_pg_stop DIR                 stop the cluster started in DIR (no error when it is not running)
#   sk_free_port                   print a free TCP port on 127.0.0.1
#
# PostgreSQL refuses to run as root: when run as root, the cluster belongs to the `postgres` user
# (created when missing) and every server-side command runs through runuser.
#
# Layout of DIR: data/ (PGDATA), log (server log), socket/ (unix socket). When the `postgres` user
# cannot reach DIR (a parent such as /root is closed to others), the cluster lives in a directory
# under /tmp instead and DIR/pgroot names it; the functions follow that pointer.

_sk_log() { printf '%s\n' "[postgres] $*" >&2; }

_sk_is_root() { [ "$(id -u)" -eq 0 ]; }

# Run a command with root rights (directly when root, else through sudo when there is one).
_sk_as_root() {
    if _sk_is_root; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        _sk_log "need root rights for: $* (not root and no sudo)"
        return 1
    fi
}

_sk_apt_updated=""
# Install Debian packages with apt-get (apt-get update once per shell first).
sk_apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        _sk_log "apt-get not found: install $* by hand"
        return 1
    fi
    if [ -z "$_sk_apt_updated" ]; then
        _sk_log "apt-get update"
        _sk_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
        _sk_apt_updated=1
    fi
    _sk_log "apt-get install $*"
    _sk_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" </dev/null
}

# Print the bin directory holding initdb, pg_ctl and postgres, or fail.
_sk_find_pg_bin() {
    local candidate dir
    if candidate=$(command -v initdb 2>/dev/null) && [ -n "$candidate" ]; then
        dir=$(dirname "$(readlink -f "$candidate")")
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
            printf '%s\n' "$dir"
            return 0
        fi
    fi
    # Newest version first.
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5 -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
            printf '%s\n' "$dir"
            return 0
        fi
    done
    return 1
}

sk_ensure_postgres_installed() {
    local dir
    if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] && [ -x "$PG_BIN/postgres" ]; then
        export PG_BIN
        return 0
    fi
    if ! dir=$(_sk_find_pg_bin); then
        _sk_log "PostgreSQL server binaries not found; installing Debian's postgresql package"
        sk_apt_install postgresql || { _sk_log "could not install postgresql"; return 1; }
        dir=$(_sk_find_pg_bin) || { _sk_log "postgresql installed but initdb still not found"; return 1; }
    fi
    PG_BIN=$dir
    export PG_BIN
}

# Run a server-side command as the cluster's owner (postgres when we are root).
_sk_pg_run() {
    if _sk_is_root; then
        # From / so that a working directory closed to postgres does not matter.
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

_sk_ensure_postgres_user() {
    if ! id -u postgres >/dev/null 2>&1; then
        _sk_log "creating system user postgres"
        useradd --system --user-group --home-dir /var/lib/postgresql --no-create-home \
            --shell /bin/sh postgres
    fi
}

# Where the cluster of DIR lives (DIR itself, or the directory DIR/pgroot names).
_sk_pg_root() {
    local dir=$1
    if [ -f "$dir/pgroot" ]; then
        cat "$dir/pgroot"
    else
        printf '%s\n' "$dir"
    fi
}

# Print a free TCP port on 127.0.0.1.
sk_free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()' && return 0
    fi
    # No python3: try random high ports until one has no listener.
    local port tries=0
    while [ $tries -lt 200 ]; do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            printf '%s\n' "$port"
            return 0
        fi
        tries=$((tries + 1))
    done
    _sk_log "could not find a free port"
    return 1
}

# Stop whatever cluster is running in DIR (fast shutdown); never fails.
sk_pg_stop() {
    local dir=${1:?usage: sk_pg_stop DIR} root
    root=$(_sk_pg_root "$dir")
    if [ -f "$root/data/postmaster.pid" ]; then
        if [ -z "${PG_BIN:-}" ]; then
            PG_BIN=$(_sk_find_pg_bin) || return 0
        fi
        _sk_pg_run "$PG_BIN/pg_ctl" -D "$root/data" -m fast -t 60 -w stop >/dev/null 2>&1 || true
    fi
    return 0
}

# Wipe DIR (and any cluster still running there) and create an empty directory postgres can use.
# Prints the cluster root (DIR, or a directory under /tmp when postgres cannot reach DIR).
_sk_pg_prepare_root() {
    local dir=$1 old_root fallback
    old_root=$(_sk_pg_root "$dir")
    if [ -f "$old_root/data/postmaster.pid" ]; then
        _sk_log "stopping a cluster left running in $old_root"
        _sk_pg_run "$PG_BIN/pg_ctl" -D "$old_root/data" -m immediate -t 30 -w stop >/dev/null 2>&1 || true
    fi
    if [ "$old_root" != "$dir" ]; then
        rm -rf "$old_root"
    fi
    rm -rf "$dir"
    mkdir -p "$dir"

    if ! _sk_is_root; then
        printf '%s\n' "$dir"
        return 0
    fi

    _sk_ensure_postgres_user || return 1
    chown postgres: "$dir"
    if runuser -u postgres -- test -w "$dir" -a -x "$dir" 2>/dev/null; then
        printf '%s\n' "$dir"
        return 0
    fi
    # A parent of DIR is closed to others (e.g. /root): keep the cluster under /tmp instead,
    # at a path derived from DIR so a later run wipes the same place.
    fallback="/tmp/shopkeeper-pg-$(printf '%s' "$dir" | cksum | cut -d' ' -f1)"
    _sk_log "postgres cannot reach $dir; using $fallback"
    rm -rf "$fallback"
    mkdir -p "$fallback"
    chown postgres: "$fallback"
    chmod 700 "$fallback"
    printf '%s\n' "$fallback" >"$dir/pgroot"
    printf '%s\n' "$fallback"
}

sk_pg_start() {
    local dir=${1:?usage: sk_pg_start DIR PORT} port=${2:?usage: sk_pg_start DIR PORT}
    local root socket_dir

    sk_ensure_postgres_installed || return 1
    mkdir -p "$(dirname "$dir")"
    dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
    root=$(_sk_pg_prepare_root "$dir") || return 1

    # Unix sockets have a path limit of about 107 bytes; without room, TCP only.
    socket_dir="$root/socket"
    if [ ${#socket_dir} -gt 90 ]; then
        socket_dir=""
    else
        _sk_pg_run mkdir -p "$socket_dir"
    fi

    if ! _sk_pg_run "$PG_BIN/initdb" -D "$root/data" --auth=trust -U postgres --encoding=UTF8 \
        --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
        _sk_log "initdb failed:"
        cat "$dir/initdb.log" >&2
        return 1
    fi

    _sk_pg_run tee -a "$root/data/postgresql.conf" >/dev/null <<EOF

# Throwaway cluster for Shopkeeper (scripts/lib/postgres.sh): speed over durability.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$socket_dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 1000
shared_buffers = 128MB
${SK_PG_EXTRA_CONF:-}
EOF

    if ! _sk_pg_run "$PG_BIN/pg_ctl" -D "$root/data" -w -t 60 -l "$root/log" start >/dev/null 2>&1; then
        _sk_log "PostgreSQL did not start on 127.0.0.1:$port; server log ($root/log):"
        tail -n 40 "$root/log" >&2 2>/dev/null || true
        sk_pg_stop "$dir"
        return 1
    fi

    if ! _sk_pg_createdb "$port" shopkeeper; then
        _sk_log "could not create database shopkeeper; server log ($root/log):"
        tail -n 20 "$root/log" >&2 2>/dev/null || true
        sk_pg_stop "$dir"
        return 1
    fi

    SK_PG_URL="postgres://postgres@127.0.0.1:$port/shopkeeper"
    export SK_PG_URL
    _sk_log "PostgreSQL running at $SK_PG_URL (cluster in $root)"
}

_sk_pg_createdb() {
    local port=$1 name=$2
    if [ -x "$PG_BIN/createdb" ]; then
        "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres "$name"
    elif [ -x "$PG_BIN/psql" ]; then
        "$PG_BIN/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qc "CREATE DATABASE $name"
    else
        # No client next to the server binaries: use whatever psql is on PATH.
        psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qc "CREATE DATABASE $name"
    fi
}
