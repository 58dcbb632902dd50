#!/usr/bin/env python3
"""Prints the cohort charts the charts' tests expect (trial conversion, subscription retention) and the daily
activity (active subscriptions and trials, new customers, new paying customers), computed
independently from the history the test seeded (Tests/EntitlementsTests/ChartHistory.swift), by the definitions of
docs/charts.md. Reads {"chart", "from", "to", "group_by", "environment", "now", "periods"} as JSON on standard input
(times in seconds since 1970), writes the rows as JSON, in the API's order.
Run: python3 Tests/Oracles/cohort_charts.py < history.json (standard library only)."""
import calendar
import json
import sys
from datetime import date, datetime, timedelta, timezone

query = json.load(sys.stdin)
first, last = date.fromisoformat(query["from"]), date.fromisoformat(query["to"])
group_by = query["group_by"]


def utc(seconds):
    return datetime.fromtimestamp(seconds, timezone.utc)


def midnight(day):
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


# Seen as of the end of `to`, or now when earlier.
as_of = min(utc(query["now"]), midnight(last + timedelta(days=1)))
range_start, range_end = midnight(first), midnight(last + timedelta(days=1))


def access_end(p):
    """A period's access ends at its end, or at its refund or revocation when earlier."""
    end = utc(p["ends_at"])
    if p.get("revoked_at") is not None:
        end = min(end, utc(p["revoked_at"]))
    return end


periods = []
for p in query["periods"]:
    if p["environment"] != query["environment"]:
        continue
    start, end = utc(p["starts_at"]), access_end(p)
    if end <= start:
        continue
    periods.append(dict(p, start=start, end=end))

by_subscription = {}
for p in periods:
    by_subscription.setdefault((p["store"], p["otid"]), []).append(p)


def cohort(moment):
    day = moment.date()
    if "month" in group_by:
        return day.replace(day=1).isoformat()
    if "day" in group_by:
        return day.isoformat()
    return None


def key(moment, p):
    return (cohort(moment), p["product"] if "product" in group_by else None,
            p["store"] if "store" in group_by else None, p.get("storefront") if "storefront" in group_by else None)


def dimensions(k):
    row = {}
    if "month" in group_by or "day" in group_by:
        row["cohort"] = k[0]
    for name, value, shown in (("product_id", k[1], "product"), ("store", k[2], "store"),
                               ("storefront", k[3], "storefront")):
        if shown in group_by:
            row[name] = value
    return row


def order(k):
    """PostgreSQL's ascending order: nulls last."""
    return tuple((value is None, value or "") for value in k)


def add_months(moment, n):
    """`n` calendar months later, a day past the month's end clamped to its last day (PostgreSQL's interval)."""
    month = moment.month - 1 + n
    year, month = moment.year + month // 12, month % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


rows = []
if query["chart"] == "trial-conversion":
    cells = {}
    for p in periods:
        if p["period_type"] != "trial" or not range_start <= p["start"] < range_end:
            continue
        paid = [q["start"] for q in by_subscription[(p["store"], p["otid"])]
                if q["period_type"] != "trial" and q["start"] >= p["start"]]
        converted = bool(paid) and min(paid) < as_of
        cell = cells.setdefault(key(p["start"], p), {"trials": 0, "converted": 0, "pending": 0})
        cell["trials"] += 1
        cell["converted"] += converted
        cell["pending"] += (not converted) and p["end"] > as_of
    for k in sorted(cells, key=order):
        rows.append(dict(dimensions(k), **cells[k]))
elif query["chart"] == "retention":
    cells, sizes = {}, {}
    for subscription, chain in by_subscription.items():
        paid = sorted((q for q in chain if q["period_type"] != "trial"), key=lambda q: (q["start"], q["product"]))
        if not paid or not range_start <= paid[0]["start"] < range_end:
            continue
        start = paid[0]["start"]
        k = key(start, paid[0])
        sizes[k] = sizes.get(k, 0) + 1
        n = 0
        while add_months(start, n) < as_of:
            low, high = add_months(start, n), min(add_months(start, n + 1), as_of)
            cell = cells.setdefault((k, n), {"reached": 0, "retained": 0})
            cell["reached"] += 1
            cell["retained"] += any(q["start"] < high and q["end"] > low for q in paid)
            n += 1
    for k, n in sorted(cells, key=lambda c: (order(c[0]), c[1])):
        rows.append(dict(dimensions(k), period=n, subscriptions=sizes[k], **cells[(k, n)]))
elif query["chart"] == "activity":
    # Customers are not kept per environment: first seen at their first period's start, whatever its environment.
    seen, paying = {}, {}
    for p in query["periods"]:
        seen[p["customer"]] = min(seen.get(p["customer"], p["starts_at"]), p["starts_at"])
    for p in periods:
        price = p.get("price_milliunits")
        if p["period_type"] != "trial" and (price is None or price > 0):
            paying[p["customer"]] = min(paying.get(p["customer"], p["start"]), p["start"])
    day = first
    while day <= last:
        at = midnight(day + timedelta(days=1))
        active = {(p["store"], p["otid"], p["period_type"] == "trial") for p in periods if p["start"] <= at < p["end"]}
        rows.append({
            "day": day.isoformat(),
            "active_subscriptions": sum(1 for a in active if not a[2]),
            "active_trials": sum(1 for a in active if a[2]),
            "new_customers": sum(1 for t in seen.values() if utc(t).date() == day),
            "new_paying_customers": sum(1 for t in paying.values() if t.date() == day),
        })
        day += timedelta(days=1)
else:
    raise SystemExit(f"unknown chart {query['chart']}")

json.dump(rows, sys.stdout, sort_keys=True)
