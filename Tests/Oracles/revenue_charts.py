#!/usr/bin/env python3
"""Prints the churn, refund rate and realized LTV charts the charts' tests expect, computed independently from the
history the test seeded (Tests/EntitlementsTests/ChartHistory.swift), by the definitions of docs/charts.md: amounts
in each currency as paid or converted to one reporting currency at the loaded rates of the right UTC day (the latest
loaded on or before it). Reads {"chart", "from", "to", "group_by", "environment", "now", "currency"?, "base",
"rates", "durations", "periods"} as JSON on standard input (times in seconds since 1970), writes the rows as JSON, in
the API's order. Run: python3 Tests/Oracles/revenue_charts.py < history.json (standard library only)."""
import json
import re
import sys
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal, getcontext

getcontext().prec = 60
query = json.load(sys.stdin)
first, last = date.fromisoformat(query["from"]), date.fromisoformat(query["to"])
group_by, reporting, base = query["group_by"], query.get("currency"), query["base"]
rates = sorted((date.fromisoformat(r["day"]), r["currency"], r["rate"]) for r in query["rates"])


def utc(seconds):
    return datetime.fromtimestamp(seconds, timezone.utc)


def midnight(day):
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


as_of = min(utc(query["now"]), midnight(last + timedelta(days=1)))


def rate(currency, day):
    """The rate of `currency` against the base on `day` and its note, or 1 and none for the base itself."""
    if currency == base:
        return Decimal(1), None
    known = [(d, text) for d, c, text in rates if c == currency and d <= day]
    if not known:
        raise SystemExit(f"no {currency} rate on or before {day}")
    d, text = known[-1]
    return Decimal(text), f"{currency}/{base}={text}@{d}"


def convert(amount, currency, day, per_year=1, twelve_count=1):
    """`amount` (times per_year / twelve_count) in the reporting currency, rounded half up, and the rates used."""
    amount = Decimal(amount)
    if not reporting or currency == reporting:
        return int((amount * per_year / twelve_count).quantize(Decimal(1), rounding=ROUND_HALF_UP)), currency, set()
    source, source_note = rate(currency, day)
    target, target_note = rate(reporting, day)
    value = amount * target * per_year / (source * twelve_count)
    return (int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP)), reporting,
            {note for note in (source_note, target_note) if note})


def bucket(day):
    """The first day of the row `day` falls in."""
    if "month" in group_by:
        return max(day.replace(day=1), first).isoformat()
    if "day" in group_by:
        return day.isoformat()
    return first.isoformat()


def dimension(name, value):
    return value if name in group_by else None


def order(key):
    """PostgreSQL's ascending order: nulls last."""
    return tuple((value is None, value or "") for value in key)


def row(first_column, key, figures, notes):
    out = {}
    if "month" in group_by or "day" in group_by:
        out[first_column] = key[0]
    for name, value, shown in (("product_id", key[1], "product"), ("store", key[2], "store"),
                               ("storefront", key[3], "storefront")):
        if shown in group_by:
            out[name] = value
    out["currency"] = key[4]
    out.update(figures)
    if reporting:
        out["rates"] = ";".join(sorted(notes)) if notes else None
    return out


periods = [p for p in query["periods"] if p["environment"] == query["environment"]]
latest_product = {}
for p in sorted(periods, key=lambda p: p["starts_at"]):
    latest_product[(p["store"], p["otid"])] = p["product"]

rows = []
if query["chart"] == "churn":
    units = []
    for p in periods:
        if p["period_type"] == "trial" or not p.get("price_milliunits") or not p.get("currency"):
            continue
        count, unit = re.fullmatch(r"P(\d+)([YMWD])", query["durations"][p["product"]]).groups()
        per_year = {"Y": 1, "M": 12, "W": 52, "D": 365}[unit]
        start = utc(p["starts_at"])
        end = utc(p["ends_at"]) if p.get("revoked_at") is None else min(utc(p["ends_at"]), utc(p["revoked_at"]))
        amount, currency, notes = convert(p["price_milliunits"], p["currency"], start.date(), per_year, 12 * int(count))
        key = (p["store"], p["otid"], dimension("product", p["product"]), dimension("storefront", p.get("storefront")),
               currency)
        group = (dimension("product", p["product"]), dimension("store", p["store"]),
                 dimension("storefront", p.get("storefront")), currency)
        units.append({"unit": key, "group": group, "sub": (p["store"], p["otid"]), "start": start, "end": end,
                      "amount": amount, "notes": notes})
    buckets = {}
    day = first
    while day <= last and midnight(day) < as_of:
        low, high = buckets.get(bucket(day), (midnight(day), None))
        buckets[bucket(day)] = (low, min(midnight(day + timedelta(days=1)), as_of))
        day += timedelta(days=1)
    cells = {}
    for name, (low, high) in buckets.items():
        at_start, at_end = {}, set()
        for u in units:
            if u["start"] <= low < u["end"]:
                mrr, notes, group, sub = at_start.get(u["unit"], (0, set(), u["group"], u["sub"]))
                at_start[u["unit"]] = (mrr + u["amount"], notes | u["notes"], group, sub)
            if u["start"] <= high < u["end"]:
                at_end.add(u["unit"])
        for unit, (mrr, notes, group, sub) in at_start.items():
            cell = cells.setdefault((name,) + group, {"active": set(), "churned": set(), "mrr": 0, "lost": 0,
                                                      "notes": set()})
            cell["active"].add(sub)
            cell["mrr"] += mrr
            cell["notes"] |= notes
            if unit not in at_end:
                cell["churned"].add(sub)
                cell["lost"] += mrr
    for key in sorted(cells, key=order):
        c = cells[key]
        rows.append(row("period_start", key, {
            "active_at_start": len(c["active"]), "churned": len(c["churned"]), "mrr_at_start_milliunits": c["mrr"],
            "churned_mrr_milliunits": c["lost"]}, c["notes"]))
else:
    transactions = []
    for p in periods:
        bought = utc(p["starts_at"])
        if not p.get("price_milliunits") or not p.get("currency") or bought >= as_of:
            continue
        amount, currency, notes = convert(p["price_milliunits"], p["currency"], bought.date())
        refunded = p.get("revoked_at") is not None and utc(p["revoked_at"]) < as_of
        transactions.append(dict(p, bought=bought, amount=amount, out=currency, notes=notes, refunded=refunded,
                                 product_id=latest_product[(p["store"], p["otid"])]))
    if query["chart"] == "refunds":
        cells = {}
        for t in transactions:
            if not midnight(first) <= t["bought"] < midnight(last + timedelta(days=1)):
                continue
            key = (bucket(t["bought"].date()), dimension("product", t["product_id"]), dimension("store", t["store"]),
                   dimension("storefront", t.get("storefront")), t["out"])
            cell = cells.setdefault(key, {"transactions": 0, "refunds": 0, "revenue_milliunits": 0,
                                          "refunded_milliunits": 0, "notes": set()})
            cell["transactions"] += 1
            cell["revenue_milliunits"] += t["amount"]
            cell["notes"] |= t["notes"]
            if t["refunded"]:
                cell["refunds"] += 1
                cell["refunded_milliunits"] += t["amount"]
        for key in sorted(cells, key=order):
            notes = cells[key].pop("notes")
            rows.append(row("period_start", key, cells[key], notes))
    elif query["chart"] == "ltv":
        firsts = {}
        for t in sorted(transactions, key=lambda t: (t["bought"], t["store"], t["tid"])):
            firsts.setdefault(t["customer"], t)
        cells = {}
        for t in transactions:
            f = firsts[t["customer"]]
            if not midnight(first) <= f["bought"] < midnight(last + timedelta(days=1)):
                continue
            key = (bucket(f["bought"].date()), dimension("product", f["product_id"]), dimension("store", f["store"]),
                   dimension("storefront", f.get("storefront")), t["out"])
            cell = cells.setdefault(key, {"customers": set(), "revenue": 0, "refunded": 0, "notes": set()})
            cell["customers"].add(t["customer"])
            cell["notes"] |= t["notes"]
            cell["refunded" if t["refunded"] else "revenue"] += t["amount"]
        for key in sorted(cells, key=order):
            c = cells[key]
            customers = len(c["customers"])
            ltv = (Decimal(c["revenue"]) / customers).quantize(Decimal(1), rounding=ROUND_HALF_UP)
            rows.append(row("cohort", key, {"customers": customers, "revenue_milliunits": c["revenue"],
                                            "refunded_milliunits": c["refunded"], "ltv_milliunits": int(ltv)},
                            c["notes"]))
    else:
        raise SystemExit(f"unknown chart {query['chart']}")

json.dump(rows, sys.stdout, sort_keys=True)
