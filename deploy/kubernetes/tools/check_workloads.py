#!/usr/bin/env python3
"""Holds a rendered overlay's workloads to what deploy/kubernetes/README.md promises.

    check_workloads.py ROOT RENDERED.yaml

For each service (gateway, catalog, verifier, entitlements, subscriptions, content):
- a Deployment with at least 2 replicas, or with a HorizontalPodAutoscaler of at least 2 (gateway, verifier and
  entitlements must have one), and a PodDisruptionBudget selecting its pods;
- probes on the service's own endpoints: readiness `/health/ready`, liveness and startup `/health/live`, on the port
  it listens on (`SHOPKEEPER_PORT`);
- CPU and memory requests and limits;
- from the Secret, exactly the secrets its settings read (of DATABASE_URL and the four SHOPKEEPER_ secrets), each
  key present in the rendered Secret.
"""

import os
import re
import sys

import yaml

SERVICES = ["gateway", "catalog", "verifier", "entitlements", "subscriptions", "content"]
AUTOSCALED = {"gateway", "verifier", "entitlements"}
SECRETS = ["SHOPKEEPER_INTERNAL_SECRET", "SHOPKEEPER_OPERATOR_KEY", "SHOPKEEPER_MASTER_KEY",
           "SHOPKEEPER_CONTENT_URL_SECRET"]


def secrets_read(root, name):
    """The secrets a service's code reads: its own folder's, plus what every database service reads."""
    found = {"DATABASE_URL", "SHOPKEEPER_INTERNAL_SECRET"}  # ServiceSettings, for every service with a database
    folder = os.path.join(root, "Services", name.capitalize())
    for directory, _, files in os.walk(folder):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(directory, file), encoding="utf-8") as handle:
                    text = handle.read()
                found |= {s for s in SECRETS if re.search(r'"' + s + r'"', text)}
    return found


def selects(selector, labels):
    return all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items())


def check(root, rendered):
    with open(rendered, encoding="utf-8") as handle:
        resources = [d for d in yaml.safe_load_all(handle) if d]
    by_kind = {}
    for resource in resources:
        by_kind.setdefault(resource["kind"], []).append(resource)
    secret_keys = {}
    for secret in by_kind.get("Secret", []):
        secret_keys[secret["metadata"]["name"]] = set(secret.get("data", {})) | set(secret.get("stringData", {}))
    problems = []
    for name in SERVICES:
        deployment = next((d for d in by_kind.get("Deployment", []) if d["metadata"]["name"] == name), None)
        if deployment is None:
            problems.append(f"{name}: no Deployment")
            continue
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        hpa = next((h for h in by_kind.get("HorizontalPodAutoscaler", [])
                    if h["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}),
                   None)
        if name in AUTOSCALED and hpa is None:
            problems.append(f"{name}: no HorizontalPodAutoscaler")
        minimum = hpa["spec"].get("minReplicas", 1) if hpa else deployment["spec"].get("replicas", 1)
        if minimum < 2:
            problems.append(f"{name}: fewer than 2 replicas ({minimum})")
        if hpa and "replicas" in deployment["spec"]:
            problems.append(f"{name}: sets replicas although an autoscaler owns the count")
        if not any(selects(p["spec"]["selector"], labels) for p in by_kind.get("PodDisruptionBudget", [])):
            problems.append(f"{name}: no PodDisruptionBudget")

        container = deployment["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e for e in container.get("env", [])}
        port = int(env.get("SHOPKEEPER_PORT", {}).get("value", 0))
        named = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
        for probe, path in (("readinessProbe", "/health/ready"), ("livenessProbe", "/health/live"),
                            ("startupProbe", "/health/live")):
            get = container.get(probe, {}).get("httpGet", {})
            probe_port = named.get(get.get("port"), get.get("port"))
            if get.get("path") != path or probe_port != port:
                problems.append(f"{name}: {probe} is {get.get('path')} on {probe_port}, expected {path} on {port}")
        for part in ("requests", "limits"):
            for resource in ("cpu", "memory"):
                if resource not in container.get("resources", {}).get(part, {}):
                    problems.append(f"{name}: no {resource} {part}")

        given = set()
        for variable, entry in env.items():
            ref = entry.get("valueFrom", {}).get("secretKeyRef")
            if ref:
                given.add(variable)
                if ref["key"] not in secret_keys.get(ref["name"], set()):
                    problems.append(f"{name}: {variable} refers to {ref['name']}/{ref['key']}, which is not rendered")
        needed = secrets_read(root, name)
        if given != needed:
            problems.append(f"{name}: gets secrets {sorted(given)}, its code reads {sorted(needed)}")
    return problems


def main(arguments):
    if len(arguments) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(*arguments)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"  {len(SERVICES)} services: replicas, disruption budgets, autoscalers, probes, resources and secrets as "
          "promised")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
