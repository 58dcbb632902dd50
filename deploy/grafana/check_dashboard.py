#!/usr/bin/env python3
"""Checks the Grafana dashboard: valid JSON in the shape Grafana imports, a Prometheus data source variable that every
panel uses, and every metric name a query reads one that the services emit (a string literal in Services/ or Shared/,
as swift-prometheus names it: dots become underscores; a Timer's series add _bucket, _sum and _count).

    deploy/grafana/check_dashboard.py [ROOT]

The end-to-end test ObservabilityEndToEndTests also holds the dashboard to a scrape of the running services.
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
DASHBOARD = ROOT / "deploy" / "grafana" / "shopkeeper-dashboard.json"
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
PROMQL_WORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset",
}

problems = []


def metric_names(expr):
    """The metric names a PromQL expression reads: identifiers outside label matchers, ranges and groupings that are
    not function calls or keywords."""
    text = re.sub(r"\{[^}]*\}", " ", expr)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", text):
        name = match.group(0)
        rest = text[match.end():].lstrip()
        if rest.startswith("(") or name in PROMQL_WORDS:
            continue
        names.add(name)
    return names


def emitted_names():
    """Every metric name the Swift sources declare, as Prometheus sees it."""
    names = set()
    for folder in ("Services", "Shared"):
        for path in (ROOT / folder).rglob("*.swift"):
            for literal in re.findall(r'"((?:shopkeeper_|hb\.|http\.server\.)[a-z0-9_.]+)"', path.read_text()):
                names.add(literal.replace(".", "_"))
    return names


def main():
    try:
        dashboard = json.loads(DASHBOARD.read_text())
    except (OSError, ValueError) as error:
        print(f"{DASHBOARD}: not valid JSON: {error}")
        return 1
    for key in ("title", "uid", "panels", "templating", "schemaVersion"):
        if key not in dashboard:
            problems.append(f"missing top-level {key!r}")
    variables = {v.get("name"): v for v in dashboard.get("templating", {}).get("list", [])}
    source = variables.get("datasource")
    if not source or source.get("type") != "datasource" or source.get("query") != "prometheus":
        problems.append("no `datasource` variable of type datasource for Prometheus")
    emitted = emitted_names()
    ids = set()
    queried = set()
    for panel in dashboard.get("panels", []):
        title = panel.get("title", "?")
        if panel.get("id") in ids:
            problems.append(f"{title}: duplicate panel id {panel.get('id')}")
        ids.add(panel.get("id"))
        if not isinstance(panel.get("gridPos"), dict):
            problems.append(f"{title}: no gridPos")
        if panel.get("type") == "row":
            continue
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"{title}: does not use the ${{datasource}} variable")
        targets = panel.get("targets") or []
        if not targets:
            problems.append(f"{title}: no queries")
        for target in targets:
            expr = target.get("expr", "")
            if not expr:
                problems.append(f"{title}: a target without expr")
            if target.get("datasource", {}).get("uid") != "${datasource}":
                problems.append(f"{title}: a target does not use the ${{datasource}} variable")
            for name in metric_names(expr):
                queried.add(name)
                base = name
                for suffix in HISTOGRAM_SUFFIXES:
                    if name.endswith(suffix) and name[: -len(suffix)] in emitted:
                        base = name[: -len(suffix)]
                if base not in emitted:
                    problems.append(f"{title}: queries {name}, which no service emits")
    for problem in problems:
        print(f"{DASHBOARD.relative_to(ROOT)}: {problem}")
    if problems:
        return 1
    print(f"  {DASHBOARD.relative_to(ROOT)}: {len(ids)} panels, {len(queried)} metrics, every one emitted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
