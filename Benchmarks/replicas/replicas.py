#!/usr/bin/env python3
"""The replica harness's programs (python3 standard library only), driven by Benchmarks/replicas/run.

    replicas.py load OUTDIR      purchases (Benchmarks/chaos's load, plus proofs presented again on purpose), store
                                 notifications (refunds and renewals at the sandbox store, delivered by it to the
                                 gateway) and reads (customer info, catalog, content manifest), until the run's
                                 kills are over (OUTDIR/kills-done) and every purchase has its final answer
    replicas.py check OUTDIR     Benchmarks/chaos's checks from the database, plus: every notification the sandbox
                                 sent delivered and processed once, refunds and renewals applied once, balances
                                 equal to the distinct transactions credited minus the units spent, proofs presented
                                 again answered 200 without a second grant, and reads answered in every kill window

The settings come from the environment (see `run`). The purchase load, the webhook receiver and the checks it
shares with the crash harness are imported from Benchmarks/chaos/chaos.py.
"""

import json
import os
import random
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "chaos"))
import chaos  # noqa: E402
from chaos import env, now, percentile, psql, request  # noqa: E402


# ---------------------------------------------------------------------------------------------------------------
# load


class ReplicaLoad(chaos.Load):
    """The crash harness's purchases, plus: a share of acknowledged proofs presented again by their buyer (an app
    relaunched before it finished the transaction), refunds and renewals made at the sandbox store while the load
    runs (the store notifies the gateway), and readers that record every answer."""

    def __init__(self, outdir):
        super().__init__(outdir)
        self.repeat_share = float(env("REPEAT", "0.2"))
        self.notify_interval = float(env("NOTIFY_INTERVAL", "0.4"))
        self.readers = int(env("READERS", "4"))
        self.read_interval = float(env("READ_INTERVAL", "0.05"))
        self.done_file = os.path.join(outdir, "kills-done")
        self.repeat_out = open(os.path.join(outdir, "repeats.jsonl"), "w", buffering=1)
        self.store_out = open(os.path.join(outdir, "store-changes.jsonl"), "w", buffering=1)
        self.acknowledged = []  # (item, bought) of purchases answered 200 with nothing else pending on them
        self.stop = threading.Event()

    def after_buyer(self, item, bought, record):
        if record["final_status"] == 200 and not item["second"] and self.random.random() < self.repeat_share:
            self.repeat(item, bought)

    def after_purchase(self, item, bought, record):
        if record["final_status"] == 200 and not item["second"]:
            with self.lock:
                self.acknowledged.append((item, bought))

    def repeat(self, item, bought):
        """The buyer presents the same proof again, the same body: 200 again, nothing granted twice."""
        record = {"transaction_id": bought["transaction_id"], "presenter": item["buyer"],
                  "product_id": item["product"][0], "attempts": [], "final_status": None}
        body = {"app_user_id": item["buyer"], "device_id": f"device-{item['buyer']}", "app_version": "2.0",
                "signed_transaction": bought["signed_transaction"]}
        headers = {"Authorization": f"Bearer {self.public_key}"}
        self.send_until_final(item["buyer"], "/v1/purchases", body, headers, record, counted=False)
        with self.lock:
            self.repeat_out.write(json.dumps(record) + "\n")

    # -- store changes: refunds of non-consumables and non-renewing subscriptions, renewals of subscriptions

    def notifier(self):
        refunded = set()
        while not self.stop.is_set():
            time.sleep(self.notify_interval)
            with self.lock:
                candidates = [(i, b) for i, b in self.acknowledged if b["transaction_id"] not in refunded]
            if not candidates:
                continue
            item, bought = self.random.choice(candidates)
            kind = item["product"][3]
            if kind == "consumable":
                continue  # its units may be spent already; refunds of consumables are the store tests' business
            if kind == "auto_renewable":
                body = {"bundle_id": self.bundle, "product_id": f"{self.bundle}.{item['product'][1]}",
                        "type": item["product"][2], "original_transaction_id": bought["original_transaction_id"],
                        "period": "P1M"}
                answer = request(self.sandbox, "POST", "/sandbox/apple/transactions", body, timeout=30)
                change = {"kind": "renewal", "original_transaction_id": bought["original_transaction_id"],
                          "status": answer.status, "t": now()}
                if answer.status == 201:
                    change["transaction_id"] = answer.json().get("transaction_id")
            else:
                refunded.add(bought["transaction_id"])
                path = f"/sandbox/apple/transactions/{bought['transaction_id']}/refund"
                answer = request(self.sandbox, "POST", path, {}, timeout=30)
                change = {"kind": "refund", "transaction_id": bought["transaction_id"],
                          "original_transaction_id": bought["original_transaction_id"], "status": answer.status,
                          "t": now()}
            with self.lock:
                self.store_out.write(json.dumps(change) + "\n")

    # -- reads: customer info, the catalog, a content pack's manifest; no retries (the load balancer's job)

    def reader(self, number):
        rng = random.Random(self.seed * 1000 + number)
        headers = {"Authorization": f"Bearer {self.public_key}"}
        with open(os.path.join(self.outdir, f"reads-{number}.log"), "w", buffering=1) as log:
            while not self.stop.is_set():
                user = rng.choice(self.users)
                roll = rng.random()
                if roll < 0.6:
                    kind, path, expected = "customer", f"/v1/customers/{user}", (200,)
                elif roll < 0.8:
                    kind, path, expected = "catalog", "/v1/catalog?platform=app_store&app_version=2.0", (200,)
                else:
                    query = urllib.parse.urlencode({"app_user_id": user, "device_id": f"device-{user}"})
                    kind, path, expected = "content", f"/v1/content/seeds_tulip?{query}", (200, 403)
                started = now()
                answer = request(self.gateway, "GET", path, None, headers, timeout=10)
                ok = answer.status in expected
                log.write(f"{started:.3f} {kind} {answer.status} {answer.seconds:.3f} {int(ok)} "
                          f"{'-' if ok else (answer.code() or '-').replace(' ', '_')}\n")
                time.sleep(max(0.0, self.read_interval - answer.seconds))

    def run(self):
        helpers = [threading.Thread(target=self.notifier, daemon=True)]
        helpers += [threading.Thread(target=self.reader, args=(n,), daemon=True) for n in range(self.readers)]
        for thread in helpers:
            thread.start()
        super().run()
        while not os.path.exists(self.done_file) and now() < self.deadline:
            time.sleep(0.5)
        self.stop.set()
        for thread in helpers:
            thread.join(timeout=15)


# ---------------------------------------------------------------------------------------------------------------
# check


class ReplicaCheck(chaos.Check):
    def run(self):
        self.checks()
        self.replica_checks()
        return self.report()

    def replica_checks(self):
        self.repeats()
        self.store_changes()
        self.notifications()
        self.balances()
        self.reads()
        self.balancer()

    def repeats(self):
        repeats = [json.loads(line) for line in open(os.path.join(self.outdir, "repeats.jsonl"))]
        wrong = [r for r in repeats if r["final_status"] != 200]
        self.row("proofs presented again by their buyer (same body): answered other than 200",
                 f"{len(wrong)} of {len(repeats)}", not wrong)
        self.detail("proofs presented again not answered 200", wrong)

    def store_changes(self):
        changes = [json.loads(line) for line in open(os.path.join(self.outdir, "store-changes.jsonl"))]
        refunds = [c for c in changes if c["kind"] == "refund"]
        renewals = [c for c in changes if c["kind"] == "renewal"]
        refused = [c for c in changes if c["status"] not in (200, 201)]
        self.row("store changes made (refunds / renewals; refused by the sandbox)",
                 f"{len(refunds)} / {len(renewals)}; {len(refused)}", not refused)
        self.detail("store changes refused by the sandbox", refused)
        # A refund: the purchase revoked, one refund event.
        revoked = {row[0]: row[1] for row in psql(
            self.db, "SELECT original_transaction_id, revoked_at IS NOT NULL FROM entitlements.purchases")}
        refund_events = {row[0]: int(row[1]) for row in psql(
            self.db, "SELECT payload->>'original_transaction_id', count(*) FROM entitlements.events "
                     "WHERE type = 'refund' GROUP BY 1")}
        bad = []
        for c in refunds:
            if c["status"] != 200:
                continue
            original = c["original_transaction_id"]
            if revoked.get(original) != "t" or refund_events.get(original, 0) != 1:
                bad.append(f"tx {c['transaction_id']}: revoked {revoked.get(original)}, "
                           f"{refund_events.get(original, 0)} refund events")
        self.row("refunds not applied exactly once (purchase revoked, one refund event)", len(bad), not bad)
        self.detail("refunds not applied exactly once", bad)
        # A renewal: its transaction applied once by entitlements and by subscriptions, one renewal event.
        applied = {row[0] for row in psql(self.db, "SELECT transaction_id FROM entitlements.transactions")}
        periods = {row[0] for row in psql(self.db, "SELECT transaction_id FROM subscriptions.periods")}
        renewal_events = {}
        for tx, count in psql(self.db, "SELECT coalesce(payload->>'transaction_id', ''), count(*) "
                                       "FROM entitlements.events WHERE type = 'renewal' GROUP BY 1"):
            renewal_events[tx] = int(count)
        bad = []
        for c in renewals:
            tx = c.get("transaction_id")
            if c["status"] != 201 or not tx:
                continue
            events = renewal_events.get(tx, 0)
            if tx not in applied or tx not in periods or events > 1:
                bad.append(f"renewal {tx} of {c['original_transaction_id']}: entitlements {tx in applied}, "
                           f"subscriptions {tx in periods}, {events} renewal events")
        self.row("renewals not applied exactly once (entitlements and subscriptions rows; at most one renewal event)",
                 len(bad), not bad)
        self.detail("renewals not applied exactly once", bad)

    def notifications(self):
        sandbox = env("SANDBOX_URL", "")
        answer = request(sandbox, "GET", "/sandbox/notifications?store=apple", timeout=60)
        deliveries = answer.json().get("deliveries", []) if answer.status == 200 else []
        # Deliveries still being retried by the sandbox: wait (bounded) until each one is delivered or given up.
        deadline = now() + float(env("DRAIN_TIMEOUT", "120"))
        while any(not d.get("delivered") and d.get("attempts", 0) < int(env("NOTIFICATION_ATTEMPTS", "10"))
                  for d in deliveries) and now() < deadline:
            time.sleep(1)
            answer = request(sandbox, "GET", "/sandbox/notifications?store=apple", timeout=60)
            deliveries = answer.json().get("deliveries", []) if answer.status == 200 else deliveries
        states = {row[0].lower(): row[1] for row in psql(
            self.db, "SELECT notification_id, state FROM verifier.notifications WHERE store = 'app_store'")}
        undelivered = [d for d in deliveries if not d.get("delivered")]
        missing = [d["id"] for d in deliveries if d.get("delivered") and d["id"].lower() not in states]
        unprocessed = [f"{i}: {states[i]}" for i in (d["id"].lower() for d in deliveries) if states.get(i) not in
                       (None, "processed")]
        retried = [d for d in deliveries if d.get("attempts", 0) > 1]
        types = {}
        for d in deliveries:
            key = d["type"] + (f"/{d['subtype']}" if d.get("subtype") else "")
            types[key] = types.get(key, 0) + 1
        self.row("store notifications sent by the sandbox (by type)",
                 f"{len(deliveries)}: " + ", ".join(f"{k} {v}" for k, v in sorted(types.items())),
                 answer.status == 200 and len(deliveries) > 0)
        self.row("notifications never acknowledged by the gateway (lost)", len(undelivered), not undelivered)
        self.detail("notifications never acknowledged", [f"{d['id']} {d['type']} last {d.get('last_status')}"
                                                         for d in undelivered])
        self.row("notifications acknowledged but not recorded by the verifier", len(missing), not missing)
        self.detail("notifications acknowledged but not recorded", missing)
        self.row("notifications recorded but not processed", len(unprocessed), not unprocessed)
        self.detail("notifications not processed", unprocessed)
        self.row("notifications that needed a store retry (not 2xx at the first attempt)", len(retried))
        self.detail("notifications retried by the store", [f"{d['id']} {d['type']} attempts {d['attempts']}"
                                                           for d in retried])

    def balances(self):
        """Each customer's fertilizer balance: 10 per distinct consumable transaction applied to them (counted from
        entitlements.transactions, not from the ledger's purchase lines), plus their other ledger lines (units spent,
        moved by a transfer or a merge)."""
        product = f"{env('BUNDLE_ID', 'com.shopkeeper.demo.garden')}.fertilizer_10"
        rows = psql(self.db, f"""
            SELECT c.customer_id, coalesce(b.balance, 0),
                   10 * (SELECT count(DISTINCT t.transaction_id) FROM entitlements.transactions t
                         WHERE t.customer_id = c.customer_id AND t.store_product_id = '{product}'),
                   (SELECT coalesce(-sum(delta), 0) FROM entitlements.ledger l
                    WHERE l.customer_id = c.customer_id AND l.product_id = 'fertilizer_10' AND l.reason <> 'purchase')
            FROM entitlements.customers c
            LEFT JOIN entitlements.balances b ON b.customer_id = c.customer_id AND b.product_id = 'fertilizer_10'""")
        consumes = [json.loads(line) for line in open(os.path.join(self.outdir, "consumes.jsonl"))]
        spent_answered = 10 * sum(1 for c in consumes if c["final_status"] == 200)
        spent_ledger = -sum(int(n) for n, in psql(
            self.db, "SELECT coalesce(sum(delta), 0) FROM entitlements.ledger WHERE reason = 'consume'"))
        wrong = [f"customer {c}: balance {b}, 10 x transactions {t}, spent or moved {s}" for c, b, t, s in rows
                 if int(b) != int(t) - int(s)]
        total = sum(int(r[1]) for r in rows)
        self.row("fertilizer balances different from 10 x distinct transactions applied, less units spent or moved",
                 f"{len(wrong)} of {len(rows)} customers (balances total {total})", not wrong)
        self.detail("balances different from their transactions", wrong)
        self.row("units spent: consumes answered 200 x 10 / consume ledger lines", f"{spent_answered} / {spent_ledger}",
                 spent_answered == spent_ledger)

    def reads(self):
        reads = []
        for name in sorted(os.listdir(self.outdir)):
            if name.startswith("reads-") and name.endswith(".log"):
                for line in open(os.path.join(self.outdir, name)):
                    parts = line.split()
                    if len(parts) == 6:
                        reads.append((float(parts[0]), parts[1], int(parts[2]), float(parts[3]), parts[4] == "1",
                                      parts[5]))
        reads.sort()
        windows = kill_windows(os.path.join(self.outdir, "kills.log"), float(env("SETTLE", "3")))
        limit = float(env("MAX_FAILED_READS", "0.001"))
        failed_all = [r for r in reads if not r[4]]
        self.row("reads (customer info, catalog, content manifest): sent / failed (no answer, 5xx, 429 or other "
                 "than expected)", f"{len(reads)} / {len(failed_all)}", len(reads) > 0)
        by_kind = {}
        for r in reads:
            total, bad, seconds = by_kind.get(r[1], (0, 0, []))
            seconds.append(r[3])
            by_kind[r[1]] = (total + 1, bad + (0 if r[4] else 1), seconds)
        self.row("reads by kind: sent, failed, p50 / p99 / max", "; ".join(
            f"{k} {t}, {b}, {percentile(s, 50) * 1000:.0f} / {percentile(s, 99) * 1000:.0f} / "
            f"{max(s) * 1000:.0f} ms" for k, (t, b, s) in sorted(by_kind.items())))
        self.detail("failed reads", [f"{t:.3f} {k} {s} {sec:.3f} s {code}" for t, k, s, sec, _, code in failed_all],
                    limit=100)
        worst = 0.0
        empty = []
        for window in windows:
            inside = [r for r in reads if window["start"] <= r[0] < window["end"]]
            bad = [r for r in inside if not r[4]]
            share = len(bad) / len(inside) if inside else 0.0
            worst = max(worst, share)
            if not inside:
                empty.append(window["name"])
            self.row(f"  reads while {window['name']} was {window['how']} and restarting "
                     f"({window['end'] - window['start']:.1f} s; ready after {window['ready']:.1f} s)",
                     f"{len(inside)} sent, {len(bad)} failed ({100 * share:.2f} %)",
                     bool(inside) and share <= limit)
        self.row(f"kill windows (worst failed-read share; target <= {100 * limit:.2f} %)",
                 f"{len(windows)} windows, worst {100 * worst:.2f} %", len(windows) > 0 and worst <= limit)
        expected = len(env("KILL_TARGETS", "").split()) * int(env("ROUNDS", "2"))
        self.row("replicas killed and restarted (each service once per round)", f"{len(windows)} of {expected}",
                 len(windows) == expected)
        self.detail("kill windows without reads", empty)

    def balancer(self):
        """HAProxy's counters: how often it retried a request or sent it to the other replica."""
        stats = env("HAPROXY_STATS", "")
        if not stats:
            return
        answer = request(stats, "GET", "/;csv", timeout=10)
        if answer.status != 200:
            self.row("HAProxy statistics", f"unavailable ({answer.status})")
            return
        lines = answer.body.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        figures = []
        for line in lines[1:]:
            values = dict(zip(header, line.split(",")))
            if values.get("svname") != "BACKEND" or values.get("pxname") == "stats":
                continue
            retries, redispatches = int(values.get("wretr") or 0), int(values.get("wredis") or 0)
            errors = int(values.get("econ") or 0) + int(values.get("eresp") or 0)
            if retries or redispatches or errors:
                figures.append(f"{values['pxname']} {retries}/{redispatches}/{errors}")
        self.row("load balancer retries / redispatches / connection+response errors, by backend",
                 ", ".join(figures) or "none")


def kill_windows(path, settle):
    """Each kill in kills.log: from the kill until SETTLE s after the replica answered ready again."""
    windows = []
    if not os.path.exists(path):
        return windows
    open_windows = {}
    for line in open(path):
        parts = line.split()
        if len(parts) < 3:
            continue
        t, event, name = float(parts[0]), parts[1], parts[2]
        if event == "kill":
            how = "killed (kill -9)" if parts[3] == "KILL" else "stopped (SIGTERM)"
            open_windows[name] = {"name": name, "how": how, "start": t}
        elif event == "ready" and name in open_windows:
            window = open_windows.pop(name)
            window["ready"] = t - window["start"]
            window["end"] = t + settle
            windows.append(window)
    return windows


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    command, outdir = sys.argv[1], sys.argv[2]
    if command == "load":
        ReplicaLoad(outdir).run()
        return 0
    if command == "check":
        return ReplicaCheck(outdir).run()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
