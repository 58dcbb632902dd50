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
- only the TLS proxy is published on every interface; the rest, if at all, on 127.0.0.1.
"""

import re
import sys

import yaml

PROFILES = {"dev": {"sandbox-store", "demo"}, "production": {"tls"}}
SHOPKEEPER = {"gateway", "catalog", "verifier", "entitlements", "subscriptions", "content"}


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
