#!/usr/bin/env python3
"""Compares two renderings of a kustomization (tools/render.py's and `kubectl kustomize`'s) resource by resource.

    compare.py A.yaml B.yaml

Order does not matter: neither of resources nor of the items of lists that Kubernetes merges by a key (containers,
env, volumes, ...). Exits 1 and prints the first differences when the resources differ.
"""

import json
import sys

import yaml


def normalize(value):
    if isinstance(value, dict):
        return {key: normalize(item) for key, item in value.items()}
    if isinstance(value, list):
        items = [normalize(item) for item in value]
        if items and all(isinstance(item, dict) for item in items):
            for key in ("name", "mountPath", "containerPort"):
                if all(key in item for item in items):
                    return sorted(items, key=lambda item: str(item[key]))
        return items
    return value


def load(path):
    with open(path, encoding="utf-8") as handle:
        resources = {}
        for document in yaml.safe_load_all(handle):
            if document:
                meta = document.get("metadata", {})
                resources[(document["kind"], meta.get("namespace", ""), meta["name"])] = normalize(document)
        return resources


def main(first, second):
    a, b = load(first), load(second)
    problems = [f"only in {first}: {key}" for key in sorted(set(a) - set(b))]
    problems += [f"only in {second}: {key}" for key in sorted(set(b) - set(a))]
    for key in sorted(set(a) & set(b)):
        if a[key] != b[key]:
            problems.append(f"{key} differs:\n  {json.dumps(a[key], sort_keys=True)}\n  {json.dumps(b[key], sort_keys=True)}")
    for problem in problems[:5]:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
