#!/usr/bin/env python3
"""Checks what each profile of docker-compose.yml starts, from `docker-compose config` (interpolated and merged).

    check_profiles.py CONFIG.yaml

`docker-compose config` validates the file's syntax but not what a profile leaves running together, so for each
profile (dev, production) this checks:
- the services it starts: those without a profile plus its own; dev has the sandbox store and the demo, production
  the TLS proxy; exactly one container answers to each service name another one calls;
- every `depends_on` of a started service is started too (Compose refuses to start a project otherwise);
- every http://HOST:PORT a started service is given names a started service (or alias) and a port it listens on;
- the demo's and the verifier's stores: dev's verifier calls the sandbox store and trusts its root, production's calls
  none and runs in production mode; every other Shopkeeper service runs in production mode in both;
- only the TLS proxy is published on every interface; the rest, if at all, on 127.0.0.1;
- the database: every Shopkeeper service reaches PostgreSQL through PgBouncer in transaction mode
  (`SHOPKEEPER_DB_POOLER=transaction`), entitlements' LISTEN straight through `DATABASE_DIRECT_URL`, every postgres://
  URL names a started service on the port it listens on, and the connection budget holds (docs/architecture.md,
  "Connection budget"): the pools together within PgBouncer's `max_client_conn`, PgBouncer's server connections
  plus the direct ones within PostgreSQL's `max_connections` less its 3 superuser slots.
"""

import configparser
import re
import sys

import yaml

PROFILES = {"dev": {"sandbox-store", "demo"}, "production": {"tls"}}
SHOPKEEPER = {"gateway", "catalog", "verifier", "entitlements", "subscriptions", "content"}
POSTGRES_URL = re.compile(r"postgres(?:ql)?://[^@/]*@([a-z0-9-]+):(\d+)/")
# PostgreSQL's defaults: max_connections 100, of which superuser_reserved_connections 3.
POSTGRES_MAX_CONNECTIONS = 100 - 3


def listen_port(service):
    env = service.get("environment") or {}
    return {int(env["SHOPKEEPER_PORT"])} if "SHOPKEEPER_PORT" in env else set()


def names(name, service):
    aliases = set()
    for network in (service.get("networks") or {}).values():
        aliases |= set((network or {}).get("aliases") or [])
    return {name} | aliases


def check(config):
    services = config["services"]
    problems = []
    for profile, own in PROFILES.items():
        started = {n: s for n, s in services.items() if not s.get("profiles") or profile in s["profiles"]}
        for name in own:
            if name not in started:
                problems.append(f"{profile}: does not start {name}")
        for other, other_own in PROFILES.items():
            for name in other_own - own:
                if other != profile and name in started:
                    problems.append(f"{profile}: starts {name}, which belongs to {other}")
        answering = {}
        for name, service in started.items():
            for alias in names(name, service):
                answering.setdefault(alias, []).append(name)
        for name in SHOPKEEPER:
            if len(answering.get(name, [])) != 1:
                problems.append(f"{profile}: {len(answering.get(name, []))} containers answer to {name!r}")
        for name, service in started.items():
            for dependency in service.get("depends_on") or {}:
                if dependency not in started:
                    problems.append(f"{profile}: {name} depends on {dependency}, which the profile does not start")
            env = service.get("environment") or {}
            for variable, value in env.items():
                for host, port in re.findall(r"http://([a-z0-9-]+):(\d+)", str(value)):
                    if host == "127.0.0.1" or variable.startswith("HOST_"):
                        continue
                    targets = answering.get(host, [])
                    if len(targets) != 1:
                        problems.append(f"{profile}: {name}'s {variable} calls {host}, which no started service is")
                    elif int(port) not in listen_port(started[targets[0]]):
                        problems.append(f"{profile}: {name}'s {variable} calls {host}:{port}, which listens on "
                                        f"{sorted(listen_port(started[targets[0]]))}")
            for mapping in service.get("ports") or []:
                published = mapping.get("host_ip", "") if isinstance(mapping, dict) else str(mapping)
                if name != "tls" and not str(published).startswith("127.0.0.1"):
                    problems.append(f"{profile}: {name} is published beyond 127.0.0.1 ({mapping})")
        problems += check_database(profile, started, answering)
        verifier = started[answering["verifier"][0]] if len(answering.get("verifier", [])) == 1 else None
        if verifier:
            env = verifier.get("environment") or {}
            sandbox = any("sandbox-store" in str(v) for v in env.values())
            if profile == "dev" and not (sandbox and env.get("SHOPKEEPER_ENV") == "development"
                                         and "SHOPKEEPER_APPLE_ROOT_CERTIFICATES" in env):
                problems.append("dev: the verifier does not use and trust the sandbox store")
            if profile == "production" and (sandbox or env.get("SHOPKEEPER_ENV") != "production"):
                problems.append("production: the verifier is not in production mode with the real stores")
        for name in SHOPKEEPER - {"verifier"}:
            for container in answering.get(name, []):
                if (started[container].get("environment") or {}).get("SHOPKEEPER_ENV") != "production":
                    problems.append(f"{profile}: {container} is not in production mode")
    return problems


def pgbouncer_settings(service):
    """PgBouncer's [pgbouncer] section, from the pgbouncer.ini the service mounts."""
    for volume in service.get("volumes") or []:
        source, target = (volume.get("source"), volume.get("target")) if isinstance(volume, dict) \
            else volume.split(":")[:2]
        if target == "/etc/pgbouncer/pgbouncer.ini":
            parser = configparser.ConfigParser(interpolation=None)
            with open(source, encoding="utf-8") as handle:
                parser.read_file(handle)
            return parser["pgbouncer"]
    return None


def check_database(profile, started, answering):
    problems = []
    listening = {"postgres": 5432}
    bouncer = pgbouncer_settings(started["pgbouncer"]) if "pgbouncer" in started else None
    if bouncer is None:
        return [f"{profile}: no pgbouncer with a mounted /etc/pgbouncer/pgbouncer.ini"]
    if bouncer.get("pool_mode") != "transaction":
        problems.append(f"{profile}: pgbouncer's pool_mode is {bouncer.get('pool_mode')}, not transaction")
    listening["pgbouncer"] = int(bouncer.get("listen_port", "6432"))
    clients = direct = 0
    for name, service in started.items():
        env = service.get("environment") or {}
        for variable, value in env.items():
            for host, port in POSTGRES_URL.findall(str(value)):
                if len(answering.get(host, [])) != 1:
                    problems.append(f"{profile}: {name}'s {variable} names {host}, which no started service is")
                elif listening.get(host) != int(port):
                    problems.append(f"{profile}: {name}'s {variable} names {host}:{port}, which is not its port")
        if not names(name, service) & SHOPKEEPER:
            continue
        url = POSTGRES_URL.findall(str(env.get("DATABASE_URL", "")))
        if [host for host, _ in url] != ["pgbouncer"] or env.get("SHOPKEEPER_DB_POOLER") != "transaction":
            problems.append(f"{profile}: {name} does not reach PostgreSQL through pgbouncer in transaction mode")
        clients += int(env.get("SHOPKEEPER_DB_POOL_SIZE", "10"))
        if names(name, service) & {"gateway"}:
            # The stored customer reads' connections, beside the pool.
            clients += int(env.get("SHOPKEEPER_GATEWAY_STORED_READS", "4"))
        if names(name, service) & {"entitlements"}:
            direct_url = POSTGRES_URL.findall(str(env.get("DATABASE_DIRECT_URL", "")))
            if [host for host, _ in direct_url] != ["postgres"]:
                problems.append(f"{profile}: {name} has no DATABASE_DIRECT_URL to postgres for its LISTEN")
            direct += 1
    servers = int(bouncer.get("max_db_connections", "0")) or int(bouncer.get("default_pool_size", "20"))
    servers += int(bouncer.get("reserve_pool_size", "0"))
    if clients > int(bouncer.get("max_client_conn", "100")):
        problems.append(f"{profile}: the pools open {clients} connections, past pgbouncer's max_client_conn")
    if servers + direct > POSTGRES_MAX_CONNECTIONS:
        problems.append(f"{profile}: pgbouncer's {servers} and {direct} direct connections pass PostgreSQL's "
                        f"{POSTGRES_MAX_CONNECTIONS}")
    return problems


def main(arguments):
    if len(arguments) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(arguments[0], encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    problems = check(config)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"  profiles {', '.join(PROFILES)}: each starts a complete system, dependencies and calls resolved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
