#!/usr/bin/env python3
"""Holds a rendered overlay's NetworkPolicies to the call tree the code and the architecture describe.

    check_policies.py ROOT RENDERED.yaml OVERLAY      (OVERLAY: production or dev)

1. Which service calls which over HTTP is read from the code: a service calls another where its settings read that
   one's URL (`SHOPKEEPER_<SERVICE>_URL` in Services/<Name>/<Name>Settings.swift).
2. Those calls must lie within the call tree of docs/architecture.md ("Calls go one way (...)").
3. Each Deployment must point each URL it reads at that service's Service and port, and set no other.
4. The NetworkPolicies, evaluated as Kubernetes does (a pod selected by no policy of a direction is open in that
   direction; otherwise a connection needs a rule of the source's egress and one of the destination's ingress), must
   allow exactly those calls between the pods, plus, in the dev overlay, the sandbox store's, the demo Job's and the
   throwaway PostgreSQL's. From outside the namespace only the gateway's API port (and, from the `monitoring`
   namespace, the metrics ports) are reachable; every service reaches PostgreSQL on an outside address; only the
   verifier (HTTPS) and entitlements (webhooks) reach public addresses, and nothing reaches private ones.
"""

import ipaddress
import itertools
import os
import re
import sys

import yaml

SERVICES = ["gateway", "catalog", "verifier", "entitlements", "subscriptions", "content"]
FOLDERS = {name: name.capitalize() for name in SERVICES}
PUBLIC_ADDRESS = "203.0.113.10"  # TEST-NET-3: stands for any public address (a store, a webhook, PostgreSQL)
PRIVATE_ADDRESS = "10.20.30.40"
METRICS_PORTS = {9080, 8081, 8082, 8083, 8084, 8085}


class Failure(Exception):
    pass


# ---- what the code and the architecture say ------------------------------------------------------------------

def code_calls(root):
    """{(caller, callee)} from the URL variables each service's settings read."""
    calls = set()
    pattern = re.compile(r'"SHOPKEEPER_(' + "|".join(n.upper() for n in SERVICES) + r')_URL"')
    for name in SERVICES:
        path = os.path.join(root, "Services", FOLDERS[name], f"{FOLDERS[name]}Settings.swift")
        with open(path, encoding="utf-8") as handle:
            for callee in set(pattern.findall(handle.read())):
                if callee.lower() != name:
                    calls.add((name, callee.lower()))
    return calls


def architecture_calls(root):
    """{(caller, callee)} of docs/architecture.md's "Calls go one way (a -> b, c; ...)"."""
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as handle:
        text = " ".join(handle.read().split())
    match = re.search(r"Calls go one way \(([^)]*)\)", text)
    if not match:
        raise Failure('docs/architecture.md: no "Calls go one way (...)" sentence')
    calls = set()
    for clause in match.group(1).split(";"):
        caller, _, callees = clause.partition("->")
        caller = caller.strip()
        targets = [c.strip() for c in callees.split(",")]
        if caller not in SERVICES:
            raise Failure(f"docs/architecture.md: unknown caller {caller!r} in the call tree")
        for target in targets:
            for callee in (SERVICES if target == "any service" else [target]):
                if callee not in SERVICES:
                    raise Failure(f"docs/architecture.md: unknown callee {callee!r} in the call tree")
                if callee != caller:
                    calls.add((caller, callee))
    return calls


# ---- the rendered manifests -------------------------------------------------------------------------------------

class Pod:
    def __init__(self, workload):
        template = workload["spec"]["template"]
        self.name = workload["metadata"]["name"]
        self.namespace = workload["metadata"].get("namespace", "default")
        self.labels = template["metadata"].get("labels", {})
        self.containers = template["spec"]["containers"]
        self.ports = {p["containerPort"] for c in self.containers for p in c.get("ports", [])}


class Outside:
    """A peer that is not a pod of the overlay: an address, or a pod in another namespace."""

    def __init__(self, address=None, namespace=None, labels=None):
        self.address = address
        self.namespace = namespace
        self.labels = labels or {}
        self.name = address or f"a pod in namespace {namespace}"


def selects(selector, labels):
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values", [])
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and labels.get(key) in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


def peer_matches(peer, policy_namespace, other):
    if "ipBlock" in peer:
        if not getattr(other, "address", None):
            return False
        address = ipaddress.ip_address(other.address)
        block = peer["ipBlock"]
        network = ipaddress.ip_network(block["cidr"])
        if address.version != network.version or address not in network:
            return False
        return not any(address in ipaddress.ip_network(e) for e in block.get("except", [])
                       if ipaddress.ip_network(e).version == address.version)
    if getattr(other, "address", None):
        return False  # pod and namespace selectors never match an address outside the cluster
    namespace_labels = {"kubernetes.io/metadata.name": other.namespace}
    if "namespaceSelector" in peer:
        if not selects(peer["namespaceSelector"], namespace_labels):
            return False
    elif other.namespace != policy_namespace:
        return False
    return "podSelector" not in peer or selects(peer["podSelector"], other.labels)


def port_matches(rule_ports, port):
    if not rule_ports:
        return True
    return any(p.get("protocol", "TCP") == "TCP" and (p.get("port") is None or p.get("port") == port
               or (p.get("endPort") and p["port"] <= port <= p["endPort"])) for p in rule_ports)


def direction_allows(policies, pod, other, port, direction):
    kind, key, peers = ("Egress", "egress", "to") if direction == "egress" else ("Ingress", "ingress", "from")
    applying = [p for p in policies
                if p["metadata"].get("namespace", "default") == pod.namespace
                and selects(p["spec"]["podSelector"], pod.labels)
                and kind in p["spec"].get("policyTypes", ["Ingress"])]
    if not applying:
        return True
    for policy in applying:
        for rule in policy["spec"].get(key) or []:
            rule_peers = rule.get(peers)
            if (not rule_peers or any(peer_matches(peer, pod.namespace, other) for peer in rule_peers)) \
                    and port_matches(rule.get("ports"), port):
                return True
    return False


def allowed(policies, source, destination, port):
    egress = not isinstance(source, Pod) or direction_allows(policies, source, destination, port, "egress")
    ingress = not isinstance(destination, Pod) or direction_allows(policies, destination, source, port, "ingress")
    return egress and ingress


# ---- the checks -------------------------------------------------------------------------------------------------

def check(root, rendered, overlay):
    problems = []
    with open(rendered, encoding="utf-8") as handle:
        resources = [d for d in yaml.safe_load_all(handle) if d]
    policies = [r for r in resources if r["kind"] == "NetworkPolicy"]
    pods = {p.name: p for p in (Pod(r) for r in resources if r["kind"] in {"Deployment", "Job"})}
    services = {r["metadata"]["name"]: r for r in resources if r["kind"] == "Service"}
    missing = [s for s in SERVICES if s not in pods]
    if missing:
        raise Failure(f"no Deployment for {', '.join(missing)}")

    calls = code_calls(root)
    tree = architecture_calls(root)
    for call in sorted(calls - tree):
        problems.append(f"{call[0]} calls {call[1]} (its settings read the URL), outside docs/architecture.md's tree")

    # Each Deployment points the URLs its service reads at the right Service, and sets no other.
    port_of = {}
    for name in SERVICES:
        service = services.get(name)
        if not service:
            problems.append(f"no Service named {name}")
            continue
        port_of[name] = service["spec"]["ports"][0]["port"]
        if port_of[name] not in pods[name].ports:
            problems.append(f"Service {name} port {port_of[name]} is not a port of its pods")
    for name in SERVICES:
        env = {e["name"]: e.get("value") for c in pods[name].containers for e in c.get("env", [])}
        for callee in SERVICES:
            variable = f"SHOPKEEPER_{callee.upper()}_URL"
            if (name, callee) in calls:
                expected = f"http://{callee}:{port_of.get(callee)}"
                if env.get(variable) != expected:
                    problems.append(f"{name}: {variable} is {env.get(variable)!r}, expected {expected!r}")
            elif variable in env:
                problems.append(f"{name}: sets {variable}, which its settings do not read")

    # Between the overlay's pods: exactly the expected connections.
    expected = {(caller, callee, port_of[callee]) for caller, callee in calls}
    if overlay == "dev":
        expected |= {("verifier", "sandbox-store", 8090), ("sandbox-store", "gateway", 8080),
                     ("demo", "gateway", 8080), ("demo", "sandbox-store", 8090)}
        expected |= {(name, "postgres", 5432) for name in SERVICES}
    actual = set()
    for source, destination in itertools.permutations(pods.values(), 2):
        for port in sorted(destination.ports):
            if allowed(policies, source, destination, port):
                actual.add((source.name, destination.name, port))
    for edge in sorted(actual - expected):
        problems.append(f"allowed but not in the call tree: {edge[0]} -> {edge[1]}:{edge[2]}")
    for edge in sorted(expected - actual):
        problems.append(f"in the call tree but not allowed: {edge[0]} -> {edge[1]}:{edge[2]}")

    # From outside: only the gateway's API port; the monitoring namespace: only metrics ports.
    outsiders = [Outside(address=PUBLIC_ADDRESS), Outside(namespace="ingress-nginx", labels={"app": "ingress"})]
    for outsider, pod in itertools.product(outsiders, pods.values()):
        for port in sorted(pod.ports):
            if allowed(policies, outsider, pod, port) != (pod.name == "gateway" and port == 8080):
                problems.append(f"{outsider.name} -> {pod.name}:{port} is "
                                f"{'allowed' if allowed(policies, outsider, pod, port) else 'refused'}")
    monitoring = Outside(namespace="monitoring", labels={"app": "prometheus"})
    for pod in pods.values():
        for port in sorted(pod.ports):
            expected_open = (pod.name == "gateway" and port == 8080) or (pod.name in SERVICES and port in METRICS_PORTS)
            if allowed(policies, monitoring, pod, port) != expected_open:
                problems.append(f"monitoring -> {pod.name}:{port} is "
                                f"{'allowed' if not expected_open else 'refused'}")

    # Out of the cluster: PostgreSQL for every service; stores and webhooks on public addresses only.
    public, private = Outside(address=PUBLIC_ADDRESS), Outside(address=PRIVATE_ADDRESS)
    for pod in pods.values():
        rules = {
            (public, 5432): pod.name in SERVICES,
            (public, 443): pod.name in {"verifier", "entitlements"},
            (public, 8443): pod.name == "entitlements",
            (public, 80): pod.name == "entitlements",
            (private, 443): False,
            (private, 8443): False,
        }
        for (destination, port), expected_open in rules.items():
            if allowed(policies, pod, destination, port) != expected_open:
                problems.append(f"{pod.name} -> {destination.name}:{port} is "
                                f"{'allowed' if not expected_open else 'refused'}")

    # Default deny: a pod nothing names is closed both ways.
    stranger = Pod({"metadata": {"name": "stranger", "namespace": pods["gateway"].namespace},
                    "spec": {"template": {"metadata": {"labels": {"app.kubernetes.io/name": "stranger"}},
                                          "spec": {"containers": [{"ports": [{"containerPort": 8080}]}]}}}})
    for pod in pods.values():
        if allowed(policies, stranger, pod, 8080) and pod.name != "gateway":
            problems.append(f"an unlisted pod reaches {pod.name}")
        if allowed(policies, pod, stranger, 8080):
            problems.append(f"{pod.name} reaches an unlisted pod")
    if allowed(policies, stranger, Outside(address=PUBLIC_ADDRESS), 443):
        problems.append("an unlisted pod reaches the internet")
    if direction_allows(policies, stranger, Outside(address=PUBLIC_ADDRESS), 8080, "ingress"):
        problems.append("an unlisted pod is reachable from anywhere: no default deny of ingress")
    return problems, calls, actual


def main(arguments):
    if len(arguments) != 3 or arguments[2] not in {"production", "dev"}:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        problems, calls, actual = check(*arguments)
    except Failure as failure:
        print(f"check_policies.py: {failure}", file=sys.stderr)
        return 1
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"  {len(calls)} service calls from the code, all in the architecture's tree; "
          f"{len(actual)} pod-to-pod connections allowed, each one expected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
