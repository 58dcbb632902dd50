#!/usr/bin/env python3
"""Renders a kustomization the way `kustomize build` does, for the subset of kustomize these manifests use.

CI machines have no kustomize (Debian bookworm does not package it), so deploy/kubernetes/validate renders each
overlay with this script, and, where a `kubectl` is installed, checks that `kubectl kustomize` renders the same
(tools/compare.py). Supported, and nothing else (anything else in a kustomization.yaml is refused):

- `resources`: files (one or more YAML documents) and directories holding a kustomization.yaml;
- `namespace`: set on every namespaced resource;
- `images`: `name` -> `newName` / `newTag` in containers and init containers;
- `secretGenerator`: `envs` and `literals`, with kustomize's content hash appended to the name and the references to
  it in pod templates (env, envFrom, volumes) renamed to match;
- `patches` with `path`: strategic merge patches, matched to a resource by kind and name, merging lists of
  containers, init containers, env, volumes (by `name`), volume mounts (by `mountPath`) and ports
  (by `containerPort`), replacing other lists.

    render.py DIR [--example-secrets] > rendered.yaml

`--example-secrets` reads `FILE.example` for a generator's `envs` file `FILE` that does not exist (CI has no real
secrets).
"""

import base64
import copy
import hashlib
import json
import os
import sys

import yaml

SUPPORTED_KEYS = {"apiVersion", "kind", "resources", "namespace", "images", "secretGenerator", "patches"}
# Kinds that have no namespace (of those a Shopkeeper manifest could hold).
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "StorageClass",
                  "CustomResourceDefinition", "PriorityClass", "IngressClass"}
# Strategic merge keys of the lists these manifests patch (Kubernetes' patchMergeKey).
MERGE_KEYS = {"containers": "name", "initContainers": "name", "env": "name", "volumes": "name",
              "volumeMounts": "mountPath", "ports": "containerPort", "envFrom": None}


class RenderError(Exception):
    pass


def load_documents(path):
    with open(path, encoding="utf-8") as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc is not None]


def merge(base, patch, key=None):
    """Kubernetes' strategic merge of `patch` into `base` (both plain YAML values)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        result = dict(base)
        for name, value in patch.items():
            result[name] = merge(base[name], value, name) if name in base else copy.deepcopy(value)
        return result
    if isinstance(base, list) and isinstance(patch, list) and MERGE_KEYS.get(key):
        merge_key = MERGE_KEYS[key]
        result = [copy.deepcopy(item) for item in base]
        added = []
        for item in patch:
            index = next((i for i, old in enumerate(result) if old.get(merge_key) == item.get(merge_key)), None)
            if index is None:
                added.append(copy.deepcopy(item))
            else:
                result[index] = merge(result[index], item, None)
        # kustomize puts the patch's new items first.
        return added + result
    return copy.deepcopy(patch)


def read_env_file(path, example_fallback):
    if not os.path.exists(path):
        if example_fallback and os.path.exists(path + ".example"):
            path = path + ".example"
        else:
            raise RenderError(f"{path}: no such file (a secretGenerator's envs)")
    values = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "=" not in line:
                raise RenderError(f"{path}:{number}: not KEY=value")
            name, value = line.split("=", 1)
            values[name] = value
    return values


def encode_base64(value):
    """kustomize's encoding of a generated value: base64, in lines of 70 characters each ending in a newline once
    there are 70 or more."""
    encoded = base64.b64encode(value.encode()).decode()
    if len(encoded) < 70:
        return encoded
    return "".join(encoded[i:i + 70] + "\n" for i in range(0, len(encoded), 70))


def kustomize_hash(secret):
    """kustomize's name suffix: sha256 of the Secret's canonical JSON, its first 10 hex digits mapped to letters.

    The name in that JSON is empty: kustomize (v5) looks `metadata/name` up as one key, which finds nothing."""
    encoded = json.dumps({"data": secret.get("data", {}), "kind": "Secret", "name": "",
                          "type": secret.get("type", "")}, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(encoded.encode()).hexdigest()[:10]
    return "".join({"0": "g", "1": "h", "3": "k", "a": "m", "e": "t"}.get(c, c) for c in digest)


def pod_specs(resource):
    spec = resource.get("spec", {})
    if resource["kind"] in {"Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet"}:
        yield spec.get("template", {}).get("spec", {})
    elif resource["kind"] == "CronJob":
        yield spec.get("jobTemplate", {}).get("spec", {}).get("template", {}).get("spec", {})
    elif resource["kind"] == "Pod":
        yield spec


def containers(pod_spec):
    return pod_spec.get("containers", []) + pod_spec.get("initContainers", [])


def rename_secret(resources, old, new):
    for resource in resources:
        for pod in pod_specs(resource):
            for container in containers(pod):
                for env in container.get("env", []):
                    ref = env.get("valueFrom", {}).get("secretKeyRef")
                    if ref and ref.get("name") == old:
                        ref["name"] = new
                for source in container.get("envFrom", []):
                    ref = source.get("secretRef")
                    if ref and ref.get("name") == old:
                        ref["name"] = new
            for volume in pod.get("volumes", []):
                if volume.get("secret", {}).get("secretName") == old:
                    volume["secret"]["secretName"] = new


def build(directory, example_secrets):
    path = os.path.join(directory, "kustomization.yaml")
    if not os.path.exists(path):
        raise RenderError(f"{directory}: no kustomization.yaml")
    kustomization = load_documents(path)[0]
    unknown = set(kustomization) - SUPPORTED_KEYS
    if unknown:
        raise RenderError(f"{path}: {', '.join(sorted(unknown))} not supported by tools/render.py")

    resources = []
    for entry in kustomization.get("resources", []):
        target = os.path.normpath(os.path.join(directory, entry))
        if os.path.isdir(target):
            resources += build(target, example_secrets)
        elif os.path.isfile(target):
            resources += load_documents(target)
        else:
            raise RenderError(f"{path}: resource {entry} not found")

    generated = []
    for generator in kustomization.get("secretGenerator", []):
        values = {}
        for env_file in generator.get("envs", []):
            values.update(read_env_file(os.path.join(directory, env_file), example_secrets))
        for literal in generator.get("literals", []):
            name, value = literal.split("=", 1)
            values[name] = value
        secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": generator["name"]}, "type": "Opaque",
                  "data": {k: encode_base64(v) for k, v in sorted(values.items())}}
        suffixed = f"{generator['name']}-{kustomize_hash(secret)}"
        secret["metadata"]["name"] = suffixed
        generated.append((generator["name"], suffixed, secret))

    for patch in kustomization.get("patches", []):
        if set(patch) != {"path"}:
            raise RenderError(f"{path}: only `patches` entries with a `path` are supported")
        for document in load_documents(os.path.join(directory, patch["path"])):
            kind, name = document["kind"], document["metadata"]["name"]
            matches = [i for i, r in enumerate(resources) if r["kind"] == kind and r["metadata"]["name"] == name]
            if len(matches) != 1:
                raise RenderError(f"{patch['path']}: {kind}/{name} matches {len(matches)} resources")
            resources[matches[0]] = merge(resources[matches[0]], document)

    for old, new, secret in generated:
        rename_secret(resources, old, new)
        resources.append(secret)

    for image in kustomization.get("images", []):
        for resource in resources:
            for pod in pod_specs(resource):
                for container in containers(pod):
                    reference = container.get("image", "")
                    bare = reference.split("@")[0].rsplit(":", 1)[0] if ":" in reference.split("/")[-1] else reference
                    if bare == image["name"]:
                        container["image"] = f"{image.get('newName', image['name'])}:{image.get('newTag', 'latest')}"

    namespace = kustomization.get("namespace")
    if namespace:
        for resource in resources:
            if resource["kind"] not in CLUSTER_SCOPED:
                resource.setdefault("metadata", {})["namespace"] = namespace
    return resources


def main(arguments):
    example_secrets = "--example-secrets" in arguments
    directories = [a for a in arguments if not a.startswith("--")]
    if len(directories) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        resources = build(directories[0], example_secrets)
    except RenderError as error:
        print(f"render.py: {error}", file=sys.stderr)
        return 1
    yaml.safe_dump_all(resources, sys.stdout, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
