#!/usr/bin/env python3
"""Prints the MRR report MRRReportTests expects, computed independently from the history the test seeded: every paid
period's price normalized to a month (a year is 12 months, a week 12/52 of one, a day 12/365), converted at the
exchange rates of the period's first UTC day (the latest loaded on or before it), MRR at each day's end (UTC) and the
day's movements per subscription. Reads the history as JSON on standard input, writes the rows as JSON.
Run: python3 Tests/Oracles/mrr_movements.py < history.json (standard library only)."""
import json
import re
import sys
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal, getcontext

getcontext().prec = 60
history = json.load(sys.stdin)
base, reporting = history["base"], history.get("currency")
first, last = date.fromisoformat(history["from"]), date.fromisoformat(history["to"])
rates = sorted((date.fromisoformat(r["day"]), r["currency"], r["rate"]) for r in history["rates"])


def rate(currency, day):
    """The rate of `currency` against the base on `day`: (Decimal, its text, its day), or 1 for the base itself."""
    if currency == base:
        return Decimal(1), None, None
    known = [(d, text) for d, c, text in rates if c == currency and d <= day]
    if not known:
        raise SystemExit(f"no {currency} rate on or before {day}")
    d, text = known[-1]
    return Decimal(text), text, d


def midnight(day):
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp()


periods = []
for p in history["periods"]:
    if p["trial"] or p["environment"] != "production" or not p["price_milliunits"]:
        continue
    count, unit = re.fullmatch(r"P(\d+)([YMWD])", history["durations"][p["product"]]).groups()
    per_year = {"Y": 1, "M": 12, "W": 52, "D": 365}[unit]
    end = p["ends_at"] if p["revoked_at"] is None else min(p["ends_at"], p["revoked_at"])
    day = datetime.fromtimestamp(p["starts_at"], timezone.utc).date()
    price = Decimal(p["price_milliunits"])
    notes = set()
    currency = p["currency"]
    if reporting and currency != reporting:
        source, source_text, source_day = rate(currency, day)
        target, target_text, target_day = rate(reporting, day)
        price = price * target / source
        if source_text:
            notes.add(f"{currency}/{base}={source_text}@{source_day}")
        if target_text:
            notes.add(f"{reporting}/{base}={target_text}@{target_day}")
        currency = reporting
    amount = (price * per_year / (12 * int(count))).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    unit_key = (p["store"], p["otid"], currency)
    periods.append({"unit": unit_key, "start": p["starts_at"], "end": end, "amount": int(amount), "notes": notes})

first_start = {}
for p in periods:
    first_start[p["unit"]] = min(first_start.get(p["unit"], p["start"]), p["start"])


def snapshot(day):
    """Per unit at the end of `day`: MRR and the rates its periods used."""
    at = midnight(day + timedelta(days=1))
    result = {}
    for p in periods:
        if p["start"] <= at < p["end"]:
            amount, notes = result.get(p["unit"], (0, set()))
            result[p["unit"]] = (amount + p["amount"], notes | p["notes"])
    return result


rows = []
day = first
previous = snapshot(first - timedelta(days=1))
while day <= last:
    current = snapshot(day)
    by_currency = {}
    for unit in set(previous) | set(current):
        before, before_notes = previous.get(unit, (0, set()))
        now, now_notes = current.get(unit, (0, set()))
        row = by_currency.setdefault(unit[2], {
            "day": day.isoformat(), "currency": unit[2], "mrr_milliunits": 0, "active_subscriptions": 0,
            "new_milliunits": 0, "expansion_milliunits": 0, "contraction_milliunits": 0, "churn_milliunits": 0,
            "reactivation_milliunits": 0, "notes": set()})
        row["mrr_milliunits"] += now
        row["notes"] |= before_notes | now_notes
        if now > 0:
            row["active_subscriptions"] += 1
        if before == 0 and now > 0:
            kind = "new" if first_start[unit] > midnight(day) else "reactivation"
            row[f"{kind}_milliunits"] += now
        elif before > 0 and now == 0:
            row["churn_milliunits"] -= before
        elif now > before:
            row["expansion_milliunits"] += now - before
        elif now < before:
            row["contraction_milliunits"] += now - before
    for currency in sorted(by_currency):
        row = by_currency[currency]
        row["arr_milliunits"] = row["mrr_milliunits"] * 12
        notes = sorted(row.pop("notes"))
        if reporting:
            row["rates"] = ";".join(notes) if notes else None
        rows.append(row)
    previous = current
    day += timedelta(days=1)

json.dump(rows, sys.stdout, sort_keys=True)
