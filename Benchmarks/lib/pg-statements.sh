# Optional statement profiling for the benchmarks (STATEMENTS=1): PostgreSQL starts with pg_stat_statements, and
# the report lists the statements it spent its time on (execution + planning).
#
#   . Benchmarks/lib/pg-statements.sh
#   statements_configure              # before sk_pg_start
#   statements_enable "$DB"           # after it
#   statements_report "$DB"           # at the end

statements_configure() {
    [ "${STATEMENTS:-0}" = "1" ] || return 0
    export SK_PG_EXTRA_CONF="shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track_planning = on"
}

statements_enable() {
    [ "${STATEMENTS:-0}" = "1" ] || return 0
    psql "$1" -qc "CREATE EXTENSION pg_stat_statements"
}

statements_report() {
    [ "${STATEMENTS:-0}" = "1" ] || return 0
    echo
    echo "== statements by total time (ms: execution + planning)"
    # plans: how often it was planned (a prepared statement settles on one plan per connection after five runs; as
    # many plans as calls is a statement planned at every call), plan_ms: the planning's share of ms_per_call.
    psql "$1" -c "SELECT round((total_exec_time + total_plan_time)::numeric) AS total_ms, calls, plans,
        round(((total_exec_time + total_plan_time) / calls)::numeric, 3) AS ms_per_call,
        round((total_plan_time / calls)::numeric, 3) AS plan_ms,
        round(wal_bytes / calls) AS wal_per_call,
        left(regexp_replace(query, '\s+', ' ', 'g'), 100) AS statement
        FROM pg_stat_statements WHERE calls > 0 ORDER BY total_exec_time + total_plan_time DESC LIMIT 20"
}
