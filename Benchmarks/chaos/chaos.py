#!/usr/bin/env python3
"""The crash-and-concurrency harness's programs (python3 standard library only), driven by Benchmarks/chaos/run.

    chaos.py webhook PORT LOG            receive webhook deliveries, log each one's event id (JSON lines)
    chaos.py probe URL LOG STOPFILE      GET URL every 0.2 s, log "epoch status seconds" until STOPFILE exists
    chaos.py load OUTDIR                 buy at the sandbox store and present the proofs as apps would
    chaos.py check OUTDIR                check the database, the webhook log and the PostgreSQL log; print a table

The load and the check read their settings from the environment (see `run`).
"""

import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The namespace of Shopkeeper app user ids (Shared/ShopkeeperCore/AppAccountToken.swift): an appAccountToken
# names a customer when it is uuid5(NAMESPACE, app_user_id).
APP_ACCOUNT_NAMESPACE = uuid.UUID("6f9e2b43-1c5d-4a8e-9b17-3e52a4c0d961")


def env(name, default):
    return os.environ.get(name, default)


def now():
    return time.time()


# ---------------------------------------------------------------------------------------------------------------
# HTTP


class Answer:
    def __init__(self, status, headers, body, seconds, error=None):
        self.status = status  # 0 when nothing answered
        self.headers = headers
        self.body = body
        self.seconds = seconds
        self.error = error

    def json(self):
        try:
            return json.loads(self.body)
        except Exception:
            return {}

    def code(self):
        """The problem's code (or type's last part), or the transport error."""
        if self.status == 0:
            return self.error or "no answer"
        data = self.json()
        if isinstance(data, dict):
            code = data.get("code") or (data.get("type") or "").rsplit("/", 1)[-1]
            if code:
                return str(code)
        return ""


def request(base, method, path, body=None, headers=None, timeout=30.0):
    """One request on a new connection (a crashed server's pooled connection is an app's problem, not ours)."""
    url = urllib.parse.urlsplit(base)
    started = now()
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    try:
        data = None
        all_headers = dict(headers or {})
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=all_headers)
        response = connection.getresponse()
        payload = response.read()
        return Answer(response.status, dict(response.getheaders()), payload, now() - started)
    except Exception as error:  # refused, reset, timeout: the app retries
        return Answer(0, {}, b"", now() - started, error=type(error).__name__)
    finally:
        connection.close()


def retry_after(answer):
    value = answer.headers.get("Retry-After") or answer.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def retryable(answer):
    """As an app would: nothing answered, 5xx (503 included) and 429 are tried again later; other 4xx are final."""
    return answer.status == 0 or answer.status >= 500 or answer.status == 429


# ---------------------------------------------------------------------------------------------------------------
# webhook receiver


def webhook(port, log_path):
    lock = threading.Lock()
    log = open(log_path, "a", buffering=1)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            event_id = self.headers.get("Shopkeeper-Event-ID")
            try:
                parsed = json.loads(body)
                body_id = parsed.get("id")
                event_type = parsed.get("type")
            except Exception:
                body_id, event_type = None, None
            record = {
                "t": now(),
                "event_id": event_id or body_id,
                "body_id": body_id,
                "type": event_type or self.headers.get("Shopkeeper-Event-Type"),
                "attempt": self.headers.get("Shopkeeper-Delivery-Attempt"),
            }
            with lock:
                log.write(json.dumps(record) + "\n")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", int(port)), Handler)
    server.daemon_threads = True
    server.serve_forever()


# ---------------------------------------------------------------------------------------------------------------
# readiness probe


def probe(url, log_path, stop_file):
    parsed = urllib.parse.urlsplit(url)
    with open(log_path, "a", buffering=1) as log:
        while not os.path.exists(stop_file):
            started = now()
            answer = request(f"{parsed.scheme}://{parsed.netloc}", "GET", parsed.path, timeout=3.0)
            log.write(f"{started:.3f} {answer.status} {answer.seconds:.3f}\n")
            time.sleep(max(0.0, 0.2 - answer.seconds))


# ---------------------------------------------------------------------------------------------------------------
# load


# (catalog product id, store product id suffix, Apple type, kind); on Google Play the product id is the suffix, and only
# the auto-renewable one is a subscription (the others are one-time products).
PRODUCTS = [
    ("fertilizer_10", "fertilizer_10", "Consumable", "consumable"),
    ("extra_garden", "extra_garden", "Non-Consumable", "non_consumable"),
    ("seeds_tulip", "seeds_tulip", "Non-Consumable", "non_consumable"),
    ("service_year", "service_year", "Non-Renewing Subscription", "non_renewing"),
    ("pro_monthly", "pro_monthly", "Auto-Renewable Subscription", "auto_renewable"),
]
# How often each kind is bought.
WEIGHTS = {"fertilizer_10": 40, "extra_garden": 15, "seeds_tulip": 15, "service_year": 10, "pro_monthly": 20}


class Load:
    def __init__(self, outdir, record_files=True):
        self.outdir = outdir
        self.gateway = env("GATEWAY_URL", "")
        self.sandbox = env("SANDBOX_URL", "")
        self.public_key = env("PUBLIC_KEY", "")
        self.bundle = env("BUNDLE_ID", "com.shopkeeper.demo.garden")
        self.purchases = int(env("PURCHASES", "1000"))
        self.customers = int(env("CUSTOMERS", "20"))
        self.in_flight = int(env("IN_FLIGHT", "32"))
        self.duration = float(env("DURATION", "60"))
        self.seed = int(env("SEED", "1"))
        self.shared_share = float(env("SHARED", "0.1"))
        self.token_share = float(env("TOKENS", "0.5"))
        self.consume_share = float(env("CONSUME", "0.3"))
        self.refund_share = float(env("REFUNDS", "0"))
        self.google_share = float(env("GOOGLE", "0"))
        self.silent_share = float(env("GOOGLE_SILENT", "0.25"))
        self.deadline = now() + float(env("LOAD_TIMEOUT", "300"))
        self.request_timeout = float(env("REQUEST_TIMEOUT", "30"))
        self.max_backoff = float(env("MAX_BACKOFF", "8"))
        self.random = random.Random(self.seed)
        self.users = [f"user{n:02d}" for n in range(self.customers)]
        self.slots = {user: threading.Semaphore(self.in_flight) for user in self.users}
        self.lock = threading.Lock()
        self.presentations = []  # every proof presentation, with its attempts and final answer
        self.consumes = []
        self.started = 0
        self.finished = 0
        self.attempts = 0
        self.statuses = {}
        suffix = "" if record_files else ".canary"
        self.out = open(os.path.join(outdir, "presentations.jsonl" + suffix), "w", buffering=1)
        self.consume_out = open(os.path.join(outdir, "consumes.jsonl" + suffix), "w", buffering=1)
        self.refund_out = open(os.path.join(outdir, "refunds.jsonl" + suffix), "w", buffering=1)
        self.load_started = now()
        self.progress_file = os.path.join(outdir, "progress")

    def plan(self):
        """Each customer's purchases in bursts of 1..IN_FLIGHT at random times within DURATION."""
        names = [p[0] for p in PRODUCTS]
        weights = [WEIGHTS[n] for n in names]
        by_user = {user: [] for user in self.users}
        for index in range(self.purchases):
            buyer = self.users[index % self.customers]
            chosen = self.random.choices(names, weights)[0]
            product = next(p for p in PRODUCTS if p[0] == chosen)
            token = self.random.random() < self.token_share
            second = None
            if self.customers > 1 and self.random.random() < self.shared_share:
                second = self.random.choice([u for u in self.users if u != buyer])
            item = {"index": index, "buyer": buyer, "product": product, "token": token, "second": second,
                    "consume": self.random.random() < self.consume_share}
            # Drawn only when refunds are on, so that REFUNDS=0 keeps the plan of every SEED as it was.
            if self.refund_share > 0 and self.random.random() < self.refund_share:
                item["refund_at"] = self.random.uniform(0, self.duration)
            # Likewise for Google Play (GOOGLE > 0): the share bought on Play, and of their refunds the share made
            # without the real-time notification (as when Google's push is lost: only the voided-purchases list has it).
            item["store"] = "apple"
            if self.google_share > 0 and self.random.random() < self.google_share:
                item["store"] = "google"
                item["silent"] = self.random.random() < self.silent_share
            by_user[buyer].append(item)
        bursts = []
        for user, items in by_user.items():
            self.random.shuffle(items)
            position = 0
            while position < len(items):
                size = self.random.randint(1, self.in_flight)
                bursts.append((self.random.uniform(0, self.duration), user, items[position:position + size]))
                position += size
        bursts.sort(key=lambda b: b[0])
        return bursts

    def count(self, status):
        with self.lock:
            self.attempts += 1
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def buy(self, item):
        """Buys at the sandbox store until it answers (or the load's deadline); the proof as the app would send it."""
        if item.get("store") == "google":
            return self.buy_google(item)
        catalog_id, suffix, apple_type, kind = item["product"]
        body = {"bundle_id": self.bundle, "product_id": f"{self.bundle}.{suffix}", "type": apple_type}
        if kind == "auto_renewable":
            body["period"] = "P1M"
        if item["token"]:
            body["app_account_token"] = str(uuid.uuid5(APP_ACCOUNT_NAMESPACE, item["buyer"]))
        delay = 0.2
        while now() < self.deadline:
            answer = request(self.sandbox, "POST", "/sandbox/apple/transactions", body, timeout=self.request_timeout)
            if answer.status == 201:
                bought = answer.json()
                bought["proof"] = {"signed_transaction": bought["signed_transaction"]}
                return bought
            time.sleep(delay)
            delay = min(self.max_backoff, delay * 2)
        return None

    def buy_google(self, item):
        """A Play purchase (`POST /sandbox/google/purchases`, which also pushes its notification), with the buyer's
        account token as obfuscatedAccountId when the item has a token. Its order id is the transaction id Shopkeeper
        records (the subscription's first order its original one); the proof is the purchase token."""
        catalog_id, suffix, _, kind = item["product"]
        subscription = kind == "auto_renewable"
        body = {"package_name": self.bundle, "product_id": suffix, "type": "subscription" if subscription else "product"}
        if subscription:
            body["period"] = "P1M"
        if item["token"]:
            body["obfuscated_account_id"] = str(uuid.uuid5(APP_ACCOUNT_NAMESPACE, item["buyer"]))
        delay = 0.2
        while now() < self.deadline:
            answer = request(self.sandbox, "POST", "/sandbox/google/purchases", body, timeout=self.request_timeout)
            if answer.status == 201:
                created = answer.json()
                return {"transaction_id": created["order_id"], "original_transaction_id": created["order_id"],
                        "purchase_token": created["purchase_token"],
                        "proof": {"purchase_token": created["purchase_token"], "product_id": suffix,
                                  "purchase_kind": "subscription" if subscription else "product"}}
            time.sleep(delay)
            delay = min(self.max_backoff, delay * 2)
        return None

    def present(self, item, bought, presenter, role):
        """POSTs the proof until a final answer (or the load's deadline); records it."""
        record = {
            "index": item["index"], "role": role, "presenter": presenter, "buyer": item["buyer"],
            "product_id": item["product"][0], "kind": item["product"][3], "token": item["token"],
            "store": item.get("store", "apple"),
            "transaction_id": bought["transaction_id"], "original_transaction_id": bought["original_transaction_id"],
            "attempts": [], "final_status": None, "final_code": None, "started": now(),
        }
        body = {"app_user_id": presenter, "device_id": f"device-{presenter}", "app_version": "2.0", **bought["proof"]}
        headers = {"Authorization": f"Bearer {self.public_key}"}
        self.send_until_final(presenter, "/v1/purchases", body, headers, record, counted=True)
        record["finished"] = now()
        record["seconds"] = round(record["finished"] - record["started"], 3)
        with self.lock:
            self.presentations.append(record)
            self.finished += 1
            self.out.write(json.dumps(record) + "\n")
        return record

    def consume(self, item, presenter):
        key = str(uuid.uuid4())
        record = {"presenter": presenter, "key": key, "quantity": 10, "attempts": [], "final_status": None,
                  "transaction_id": item.get("transaction_id")}
        headers = {"Authorization": f"Bearer {self.public_key}", "Idempotency-Key": key}
        path = f"/v1/customers/{presenter}/consumables/fertilizer_10/consume"
        self.send_until_final(presenter, path, {"quantity": 10}, headers, record, counted=False)
        with self.lock:
            self.consumes.append(record)
            self.consume_out.write(json.dumps(record) + "\n")

    def send_until_final(self, presenter, path, body, headers, record, counted):
        """POSTs `body` as an app's payment queue would until a final answer (or the load's deadline): no answer,
        5xx and 429 are sent again, the same request, after a bounded backoff honouring Retry-After. Each attempt
        goes to `record["attempts"]`, the final answer to `final_status` and `final_code`."""
        delay = 0.25
        while True:
            with self.slots[presenter]:
                answer = request(self.gateway, "POST", path, body, headers, timeout=self.request_timeout)
            if counted:
                self.count(answer.status)
            record["attempts"].append([round(now() - answer.seconds, 3), round(answer.seconds, 3), answer.status,
                                       answer.code()])
            if not retryable(answer):
                record["final_status"] = answer.status
                record["final_code"] = answer.code()
                return
            if now() >= self.deadline:
                record["final_code"] = f"unfinished (last {answer.status} {answer.code()})"
                return
            wait = retry_after(answer)
            wait = min(self.max_backoff, wait if wait is not None else delay) * self.random.uniform(0.75, 1.25)
            delay = min(self.max_backoff, delay * 2)
            time.sleep(min(wait, max(0.0, self.deadline - now())))

    def purchase(self, item):
        bought = self.buy(item)
        if bought is None:
            with self.lock:
                self.presentations.append({"index": item["index"], "role": "buyer", "final_status": None,
                                           "final_code": "not bought at the sandbox store"})
            return
        item["transaction_id"] = bought["transaction_id"]
        threads = []
        if item["second"]:
            # Another customer presents the same proof (a copied receipt, a shared device), at about the same time.
            def second():
                time.sleep(random.uniform(0, 1.5))
                self.present(item, bought, item["second"], "second")
            thread = threading.Thread(target=second, daemon=True)
            thread.start()
            threads.append(thread)
        record = self.present(item, bought, item["buyer"], "buyer")
        self.after_buyer(item, bought, record)
        if record["final_status"] == 200 and item["product"][3] == "consumable" and item["consume"]:
            self.consume(item, item["buyer"])
        for thread in threads:
            thread.join()
        self.after_purchase(item, bought, record)
        if "refund_at" in item and record["final_status"] == 200 and not (
                item["product"][3] == "consumable" and item["consume"]):
            self.refund(item, bought)

    def refund(self, item, bought):
        """The customer gets a refund from the store at the item's planned time (at once when it has passed): the
        sandbox store's refund control, retried while the store is down. Apple: 409 already_revoked means an earlier
        attempt refunded it and its answer was lost. Google Play: the purchase is voided (listed by the
        voided-purchases API), with its notification or, for a `silent` item, without; a 409 invalid_purchase_state
        is an earlier attempt's when the store shows the purchase voided. Recorded in refunds.jsonl with when it was
        made."""
        time.sleep(max(0.0, self.load_started + item["refund_at"] - now()))
        google = item.get("store") == "google"
        record = {"transaction_id": bought["transaction_id"], "original_transaction_id": bought["original_transaction_id"],
                  "product_id": item["product"][0], "kind": item["product"][3], "token": item["token"],
                  "buyer": item["buyer"], "store": "google" if google else "apple", "status": None, "attempts": 0}
        if google:
            record["notified"] = not item.get("silent", False)
            path = f"/sandbox/google/purchases/{bought['purchase_token']}"
            body = {"voided_reason": 1, "voided_source": 0, "notify": record["notified"]}
        else:
            path = f"/sandbox/apple/transactions/{bought['transaction_id']}"
            body = {"reason": 1}
        delay = 0.2
        while now() < self.deadline:
            answer = request(self.sandbox, "POST", path + "/refund", body, timeout=self.request_timeout)
            record["attempts"] += 1
            if answer.status in (200, 201) or (answer.status == 409 and answer.code() == "already_revoked"):
                record["status"] = answer.status
                break
            if google and answer.status == 409 and answer.code() == "invalid_purchase_state":
                shown = request(self.sandbox, "GET", path, timeout=self.request_timeout)
                if shown.status == 200 and shown.json().get("voided") is True:
                    record["status"] = answer.status
                    break
            time.sleep(delay)
            delay = min(self.max_backoff, delay * 2)
        record["at"] = now()
        with self.lock:
            self.refund_out.write(json.dumps(record) + "\n")

    def after_buyer(self, item, bought, record):
        """Hook: the buyer's presentation is final (before any consume). Benchmarks/replicas adds its repeats here."""

    def after_purchase(self, item, bought, record):
        """Hook: every presentation of the purchase is final."""

    def progress(self, expected):
        with self.lock:
            line = (f"{self.finished}/{expected} presentations final, {self.attempts} requests, statuses "
                    + " ".join(f"{k}:{v}" for k, v in sorted(self.statuses.items())))
            fraction = self.finished / expected if expected else 1.0
        with open(self.progress_file + ".tmp", "w") as f:
            f.write(f"{int(fraction * 100)}\n")
        os.replace(self.progress_file + ".tmp", self.progress_file)
        return line

    def run(self):
        threading.stack_size(512 * 1024)
        bursts = self.plan()
        expected = sum(len(items) + sum(1 for i in items if i["second"]) for _, _, items in bursts)
        print(f"[load] {self.purchases} purchases by {self.customers} customers in {len(bursts)} bursts over "
              f"{self.duration:.0f} s, {expected} presentations", flush=True)
        start = now()
        self.load_started = start
        threads = []
        last_report = start
        pending = list(bursts)
        while pending or any(t.is_alive() for t in threads):
            while pending and pending[0][0] <= now() - start:
                _, _, items = pending.pop(0)
                for item in items:
                    thread = threading.Thread(target=self.purchase, args=(item,), daemon=True)
                    thread.start()
                    threads.append(thread)
            if now() - last_report >= 5:
                print(f"[load] {now() - start:5.0f} s: {self.progress(expected)}", flush=True)
                last_report = now()
            else:
                self.progress(expected)
            if now() > self.deadline + 30:
                print("[load] deadline passed with threads still running", flush=True)
                break
            threads = [t for t in threads if t.is_alive()]
            time.sleep(0.2)
        print(f"[load] done in {now() - start:.0f} s: {self.progress(expected)}", flush=True)
        summary = {"expected": expected, "finished": self.finished, "requests": self.attempts,
                   "statuses": self.statuses, "seconds": round(now() - start, 1)}
        with open(os.path.join(self.outdir, "load-summary.json"), "w") as f:
            json.dump(summary, f)


def watch(database, log_path, stop_file):
    """Every 2 s: sessions waiting on a lock, the longest such wait's transaction age, sessions in all."""
    sql = ("SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'), "
           "coalesce(extract(epoch FROM max(now() - xact_start) FILTER (WHERE wait_event_type = 'Lock')), 0), "
           "count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
    with open(log_path, "a", buffering=1) as log:
        while not os.path.exists(stop_file):
            try:
                rows = psql(database, sql)
                log.write(f"{now():.3f} {rows[0][0]} {float(rows[0][1]):.1f} {rows[0][2]}\n")
            except Exception:
                log.write(f"{now():.3f} - - -\n")
            time.sleep(2)


def canary(outdir):
    """One new consumable bought and presented by a new customer right after the chaos: how long until its 200."""
    load = Load(outdir, record_files=False)
    load.deadline = now() + 120
    item = {"index": -1, "buyer": "canary", "product": PRODUCTS[0], "token": False, "second": None, "store": "apple"}
    load.slots["canary"] = threading.Semaphore(1)
    started = now()
    bought = load.buy(item)
    record = load.present(item, bought, "canary", "canary") if bought else {"final_status": None}
    result = {"started": started, "finished": now(), "status": record.get("final_status"),
              "attempts": record.get("attempts", [])}
    with open(os.path.join(outdir, "canary.json"), "w") as f:
        json.dump(result, f)
    print(f"[canary] a new purchase after the chaos: {result['status']} in {result['finished'] - started:.2f} s, "
          f"{len(result['attempts'])} attempts", flush=True)


# ---------------------------------------------------------------------------------------------------------------
# checks


def psql(database, sql):
    """Rows of a query as lists of strings (psql's unaligned output, tab separated)."""
    result = subprocess.run(["psql", database, "-X", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"psql failed: {result.stderr.strip()}\n{sql}")
    return [line.split("\t") for line in result.stdout.splitlines() if line != ""]


def scalar(database, sql):
    rows = psql(database, sql)
    return rows[0][0] if rows else None


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


class Check:
    def __init__(self, outdir):
        self.outdir = outdir
        self.db = env("DATABASE_URL", "")
        self.app_id = env("APP_ID", "")
        self.rows = []  # (check, figure, verdict)
        self.failed = False
        self.details = open(os.path.join(outdir, "check-details.txt"), "w")

    def row(self, name, figure, ok=None):
        verdict = "" if ok is None else ("PASS" if ok else "FAIL")
        if ok is False:
            self.failed = True
        self.rows.append((name, str(figure), verdict))

    def detail(self, title, items, limit=20):
        items = list(items)
        if not items:
            return
        self.details.write(f"== {title} ({len(items)})\n")
        for item in items[:limit]:
            self.details.write(f"  {item}\n")
        if len(items) > limit:
            self.details.write(f"  ... {len(items) - limit} more\n")

    def wait_for(self, label, sql, timeout):
        """Waits (bounded) until the query answers 0; returns the last count and the seconds waited."""
        start = now()
        count = None
        while True:
            try:
                count = int(scalar(self.db, sql) or 0)
            except RuntimeError:
                count = None
            if count == 0 or now() - start >= timeout:
                break
            time.sleep(1)
        print(f"[check] {label}: {count} after {now() - start:.0f} s", flush=True)
        return count, now() - start

    def run(self):
        self.checks()
        return self.report()

    def checks(self):
        """Adds the rows of every check (Benchmarks/replicas adds its own before the report)."""
        presentations = [json.loads(line) for line in open(os.path.join(self.outdir, "presentations.jsonl"))]
        consumes = [json.loads(line) for line in open(os.path.join(self.outdir, "consumes.jsonl"))]
        summary = json.load(open(os.path.join(self.outdir, "load-summary.json")))

        # -- the client's side
        self.row("proof presentations (buyer + second presenter)", f"{len(presentations)} of {summary['expected']}",
                 len(presentations) == summary["expected"])
        self.row("requests sent (retries included)", summary["requests"])
        self.row("answers by status (all attempts)",
                 " ".join(f"{k}:{v}" for k, v in sorted(summary["statuses"].items(), key=lambda kv: int(kv[0]))))
        unfinished = [p for p in presentations if p.get("final_status") is None]
        self.row("presentations without a final answer", len(unfinished), not unfinished)
        self.detail("presentations without a final answer", unfinished)
        # The buyer's proof is genuine: it ends 200, unless a second presenter got it first, which the money rules
        # allow once: a consumable's units stay with whoever presented it first, and a purchase request never moves
        # a purchase back to a customer it left; the one who does not get it gets 409 already_owned_by_other_customer.
        # A proof bought with the buyer's appAccountToken is the buyer's: a second presenter gets 403. Every
        # transaction ends 200 for at least one of its presenters (checked with the owners below).
        shared = {}
        for p in presentations:
            if p.get("transaction_id"):
                shared[p["transaction_id"]] = shared.get(p["transaction_id"], 0) + 1
        wrong = []
        for p in presentations:
            if p.get("final_status") is None:
                continue
            expected = {200}
            if p["role"] == "second" and p["token"]:
                expected = {403}
            elif shared.get(p.get("transaction_id"), 0) > 1:
                expected = {200, 409}
            if p["final_status"] not in expected or (p["final_status"] == 409
                                                     and p.get("final_code") != "already_owned_by_other_customer"):
                wrong.append(p)
        self.row("final answers other than expected (200; 409 owned for a shared proof; 403 with a token)",
                 len(wrong), not wrong)
        self.detail("unexpected final answers", [
            f"{p['role']} {p['presenter']} {p['product_id']} tx {p.get('transaction_id')}: {p['final_status']} "
            f"{p['final_code']} attempts {p['attempts'][-5:]}" for p in wrong])
        finals = {}
        for p in presentations:
            key = f"{p.get('final_status')} {p.get('final_code') or ''}".strip()
            finals[key] = finals.get(key, 0) + 1
        self.row("final answers", ", ".join(f"{k} x{v}" for k, v in sorted(finals.items())))
        retried = [p for p in presentations if len(p.get("attempts", [])) > 1]
        self.row("presentations that needed retries", len(retried))
        done = [p["seconds"] for p in presentations if p.get("final_status") == 200]
        self.row("time to a final 200 (retries included) p50 / p99 / max",
                 f"{percentile(done, 50):.2f} / {percentile(done, 99):.2f} / {max(done or [0]):.2f} s")

        # -- drain: nothing pending in the verifier, webhooks delivered
        drain = float(env("DRAIN_TIMEOUT", "120"))
        pending, waited = self.wait_for(
            "verifier.transactions pending", "SELECT count(*) FROM verifier.transactions WHERE apply_state = 'pending'",
            drain)
        self.row(f"verifier.transactions still pending (waited {waited:.0f} s, at most {drain:.0f})",
                 pending, pending == 0)
        notifications, _ = self.wait_for(
            "verifier.notifications pending", "SELECT count(*) FROM verifier.notifications WHERE state = 'pending'",
            max(5.0, drain - waited))
        failed_notifications = int(scalar(self.db, "SELECT count(*) FROM verifier.notifications WHERE state = 'failed'"))
        self.row("store notifications pending / failed", f"{notifications} / {failed_notifications}",
                 notifications == 0)
        hooks, _ = self.wait_for(
            "webhook deliveries pending",
            "SELECT count(*) FROM entitlements.webhook_deliveries WHERE state = 'pending'", 60)

        # -- every proof granted exactly once, to a customer who presented it
        by_tx = {}
        for p in presentations:
            if p.get("transaction_id"):
                by_tx.setdefault(p["transaction_id"], []).append(p)
        aliases = {user: customer for _, user, customer in psql(
            self.db, "SELECT app_id, app_user_id, customer_id FROM entitlements.aliases")}
        customer_users = {}
        for user, customer in aliases.items():
            customer_users.setdefault(customer, set()).add(user)
        purchases = {row[0]: row for row in psql(
            self.db, "SELECT original_transaction_id, customer_id, product_type, revoked_at IS NOT NULL "
                     "FROM entitlements.purchases")}
        lost, wrong_owner, token_owner = [], [], []
        for tx, group in by_tx.items():
            original = group[0]["original_transaction_id"]
            row = purchases.get(original)
            if row is None:
                lost.append(f"tx {tx} ({group[0]['product_id']}) presented by "
                            f"{[(p['presenter'], p['final_status']) for p in group]}: no entitlements.purchases row")
                continue
            owners = customer_users.get(row[1], set())
            # The owner is one who was answered 200 (a customer answered 409 or 403 was told it is someone else's).
            presenters = {p["presenter"] for p in group if p.get("final_status") in (200, None)}
            if not owners & presenters:
                wrong_owner.append(f"tx {tx}: owned by {sorted(owners) or row[1]}, presented by {sorted(presenters)}")
            if group[0]["token"] and group[0]["buyer"] not in owners:
                token_owner.append(f"tx {tx}: bought with {group[0]['buyer']}'s appAccountToken, owned by "
                                   f"{sorted(owners)}")
        self.row("proofs sent (distinct transactions)", len(by_tx))
        self.row("proofs with no entitlements.purchases row (lost)", len(lost), not lost)
        self.detail("lost purchases", lost)
        self.row("purchases owned by a customer who did not present them", len(wrong_owner), not wrong_owner)
        self.detail("purchases owned by a non-presenter", wrong_owner)
        self.row("appAccountToken purchases not owned by the token's customer", len(token_owner), not token_owner)
        self.detail("token purchases with another owner", token_owner)
        sent = {p["original_transaction_id"] for p in presentations if p.get("original_transaction_id")}
        canary_log = os.path.join(self.outdir, "presentations.jsonl.canary")
        if os.path.exists(canary_log):  # the purchase made after the chaos
            sent |= {json.loads(line).get("original_transaction_id") for line in open(canary_log)}
        extra = [o for o in purchases if o not in sent]
        self.row("entitlements.purchases rows for proofs never sent", len(extra), not extra)

        # consumables: one purchase ledger line per transaction
        credits = {}
        for tx, count, total in psql(
                self.db, "SELECT transaction_id, count(*), sum(delta) FROM entitlements.ledger "
                         "WHERE reason = 'purchase' GROUP BY transaction_id"):
            credits[tx] = (int(count), int(total))
        consumable_txs = [tx for tx, group in by_tx.items() if group[0]["kind"] == "consumable"]
        not_credited = [tx for tx in consumable_txs if tx not in credits]
        credited_twice = [f"tx {tx}: {credits[tx][0]} purchase lines, {credits[tx][1]} units" for tx in consumable_txs
                          if tx in credits and (credits[tx][0] != 1 or credits[tx][1] != 10)]
        self.row("consumable transactions sent", len(consumable_txs))
        self.row("consumables not credited (no purchase ledger line)", len(not_credited), not not_credited)
        self.detail("consumables not credited", not_credited)
        self.row("consumables credited more than once (or not 10 units)", len(credited_twice), not credited_twice)
        self.detail("consumables credited more than once", credited_twice)

        # balances equal their ledger sums, none negative
        mismatched = psql(self.db, """
            SELECT coalesce(b.customer_id, l.customer_id), coalesce(b.product_id, l.product_id), b.balance, l.total
            FROM entitlements.balances b
            FULL JOIN (SELECT customer_id, product_id, sum(delta) AS total FROM entitlements.ledger
                       GROUP BY customer_id, product_id) l
              ON l.customer_id = b.customer_id AND l.product_id = b.product_id
            WHERE b.balance IS DISTINCT FROM l.total AND NOT (b.balance = 0 AND l.total IS NULL)""")
        self.row("balances that differ from their ledger sum", len(mismatched), not mismatched)
        self.detail("balances that differ from their ledger sum", mismatched)
        negative = psql(self.db, "SELECT customer_id, product_id, balance FROM entitlements.balances WHERE balance < 0")
        self.row("negative balances", len(negative), not negative)
        self.detail("negative balances", [
            f"{sorted(customer_users.get(c, {c}))} {prod}: {bal}" for c, prod, bal in negative])
        reasons = dict((r, (int(n), int(s))) for r, n, s in psql(
            self.db, "SELECT reason, count(*), sum(delta) FROM entitlements.ledger GROUP BY reason"))
        self.row("ledger lines by reason (lines, units)",
                 ", ".join(f"{r} {n}/{s}" for r, (n, s) in sorted(reasons.items())))
        bought_units = 10 * len([tx for tx in consumable_txs if tx in credits])
        spent = -reasons.get("consume", (0, 0))[1]
        self.row("units spent / units bought (spent may not exceed bought)", f"{spent} / {bought_units}",
                 spent <= bought_units)
        # consumes exactly once per idempotency key
        lines_by_key = dict((k, int(n)) for k, n in psql(
            self.db, "SELECT idempotency_key, count(*) FROM entitlements.ledger WHERE reason = 'consume' "
                     "GROUP BY idempotency_key"))
        bad_consumes = []
        for c in consumes:
            lines = lines_by_key.get(c["key"], 0)
            if (c["final_status"] == 200 and lines != 1) or (c["final_status"] not in (200, None) and lines != 0) \
                    or lines > 1:
                bad_consumes.append(f"{c['presenter']} key {c['key']}: answered {c['final_status']} "
                                    f"{c.get('final_code')}, {lines} consume lines")
        consume_finals = {}
        for c in consumes:
            key = f"{c['final_status']} {c.get('final_code') or ''}".strip()
            consume_finals[key] = consume_finals.get(key, 0) + 1
        self.row("consumes (spend 10 after a consumable's 200): final answers",
                 ", ".join(f"{k} x{v}" for k, v in sorted(consume_finals.items())) or "none")
        self.row("consumes whose ledger lines differ from the answer (200: 1 line, else 0)", len(bad_consumes),
                 not bad_consumes)
        self.detail("consumes not applied exactly once", bad_consumes)

        # ownership changes (transfers) per purchase: one per real transfer at most
        transfers = dict((o, int(n)) for o, n in psql(
            self.db, "SELECT payload->>'original_transaction_id', count(*) / 2 FROM entitlements.events "
                     "WHERE type = 'transfer' GROUP BY 1"))
        bouncing = [f"{o}: {n} transfers" for o, n in transfers.items() if n > 1]
        shared = sum(1 for group in by_tx.values() if len({p['presenter'] for p in group}) > 1)
        self.row("proofs presented by two customers / purchases transferred", f"{shared} / {len(transfers)}")
        self.row("purchases that changed owner more than once", len(bouncing), not bouncing)
        self.detail("purchases that changed owner more than once", bouncing)

        # verifier and entitlements agree
        verifier = psql(self.db, "SELECT transaction_id, apply_state, coalesce(app_user_id, '') "
                                 "FROM verifier.transactions")
        applied = {row[0] for row in psql(self.db, "SELECT transaction_id FROM entitlements.transactions")}
        states = {}
        disagree = []
        unpresented = []
        for tx, state, user in verifier:
            states[state] = states.get(state, 0) + 1
            if state == "refused" and tx in applied:
                disagree.append(f"tx {tx}: verifier says refused (presenter {user}), entitlements applied it")
            if state == "applied" and tx not in applied:
                if tx not in by_tx and not user:
                    # Bought at the store, answer lost when the store was killed, never presented (the load bought
                    # again): known only from its notification, with no customer to apply it to.
                    unpresented.append(tx)
                    continue
                disagree.append(f"tx {tx}: verifier says applied (presenter {user}), entitlements has no row")
        self.row("verifier.transactions by apply_state", ", ".join(f"{k} {v}" for k, v in sorted(states.items())))
        self.row("verifier and entitlements disagree (refused but applied, applied but absent)", len(disagree),
                 not disagree)
        self.detail("verifier and entitlements disagree", disagree)
        if unpresented:
            self.row("store purchases never presented (answer lost to a store kill), known from notifications",
                     len(unpresented))
        missing_tx = [tx for tx in by_tx if tx not in applied]
        self.row("proofs sent with no entitlements.transactions row", len(missing_tx), not missing_tx)

        # purchase events: one per transaction
        purchase_events = {}
        for tx, n in psql(self.db, "SELECT payload->>'transaction_id', count(*) FROM entitlements.events WHERE type IN "
                                   "('initial_purchase', 'non_renewing_purchase', 'consumable_purchase') "
                                   "GROUP BY 1"):
            purchase_events[tx] = int(n)
        twice = [f"tx {tx}: {n} purchase events" for tx, n in purchase_events.items() if n > 1]
        for original, n in psql(self.db, "SELECT payload->>'original_transaction_id', count(*) FROM entitlements.events "
                                         "WHERE type = 'subscription_started' GROUP BY 1 HAVING count(*) > 1"):
            twice.append(f"subscription {original}: {n} subscription_started events")
        self.row("transactions with more than one purchase (or subscription_started) event", len(twice), not twice)
        self.detail("transactions with more than one purchase event", twice)

        self.refund_checks()

        # webhooks: every event delivered exactly once (at least once, and duplicates counted)
        events = {row[0]: row[1] for row in psql(self.db, "SELECT event_id, type FROM entitlements.events")}
        event_types = {}
        for t in events.values():
            event_types[t] = event_types.get(t, 0) + 1
        deliveries = dict((s, int(n)) for s, n in psql(
            self.db, "SELECT state, count(*) FROM entitlements.webhook_deliveries GROUP BY state"))
        received = {}
        log_path = os.path.join(self.outdir, "webhook.jsonl")
        if os.path.exists(log_path):
            for line in open(log_path):
                try:
                    event_id = json.loads(line)["event_id"]
                except Exception:
                    continue
                received[event_id] = received.get(event_id, 0) + 1
        not_received = [e for e in events if e not in received]
        duplicates = {e: n for e, n in received.items() if n > 1}
        unknown = [e for e in received if e not in events]
        self.row("events written (by type)", f"{len(events)}: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(event_types.items())))
        self.row("webhook deliveries by state", ", ".join(f"{k} {v}" for k, v in sorted(deliveries.items())),
                 hooks == 0 and deliveries.get("dead", 0) == 0)
        self.row("events never received by the webhook (lost)", len(not_received), not not_received)
        self.detail("events never received", not_received)
        strict = env("STRICT_WEBHOOKS", "0") == "1"
        self.row("events received more than once (extra deliveries)" + ("" if strict else
                 "; documented at-least-once, deduplicated by id"),
                 f"{len(duplicates)} events, {sum(duplicates.values()) - len(duplicates)} extra",
                 (not duplicates) if strict else None)
        self.row("events received exactly once after dedup by id", f"{len(events) - len(not_received)} of {len(events)}",
                 not not_received)
        self.row("deliveries of unknown event ids", len(unknown), not unknown)

        # deadlocks and lock waits in the PostgreSQL log
        pg_log = env("PG_LOG", "")
        deadlocks = waits = 0
        statements = {}
        if pg_log and os.path.exists(pg_log):
            in_deadlock = False
            for line in open(pg_log, errors="replace"):
                if "deadlock detected" in line:
                    deadlocks += 1
                    in_deadlock = True
                    continue
                if "still waiting for" in line:
                    waits += 1
                match = re.match(r"\s+Process \d+: (.*)", line)
                if in_deadlock and match:
                    statement = re.sub(r"\s+", " ", match.group(1))[:160]
                    statements[statement] = statements.get(statement, 0) + 1
                elif not line.startswith("\t") and "DETAIL" not in line:
                    in_deadlock = False
        self.detail("statements in deadlocks (each deadlock names two or more)",
                    [f"{n:5d}  {st}" for st, n in sorted(statements.items(), key=lambda kv: -kv[1])])
        max_deadlocks = int(env("MAX_DEADLOCKS", "0"))
        self.row("deadlocks in the PostgreSQL log", deadlocks, deadlocks <= max_deadlocks)
        self.row("lock waits over deadlock_timeout (log_lock_waits)", waits)
        watch_log = os.path.join(self.outdir, "locks.log")
        if os.path.exists(watch_log):
            samples = [line.split() for line in open(watch_log)]
            samples = [(int(a), float(b)) for _, a, b, _ in samples if a != "-"]
            if samples:
                self.row("sessions waiting on a lock (sampled every 2 s): peak; longest transaction among them",
                         f"{max(a for a, _ in samples)}; {max(b for _, b in samples):.0f} s")

        # chaos and readiness
        kills = []
        chaos_log = os.path.join(self.outdir, "chaos.log")
        if os.path.exists(chaos_log):
            for line in open(chaos_log):
                parts = line.split()
                if len(parts) >= 3 and parts[1] == "kill":
                    kills.append((float(parts[0]), parts[2]))
        restarts = {}
        started_at = {}
        if os.path.exists(chaos_log):
            for line in open(chaos_log):
                parts = line.split()
                if len(parts) >= 4 and parts[1] == "start":
                    started_at[parts[3]] = float(parts[0])
                if len(parts) >= 4 and parts[1] == "ready" and parts[3] in started_at:
                    restarts.setdefault(parts[2], []).append(float(parts[0]) - started_at[parts[3]])
        if restarts:
            self.row("restarted service ready after (p50 / max, restarts that got ready)", ", ".join(
                f"{k} {percentile(v, 50):.1f} / {max(v):.1f} s ({len(v)})" for k, v in sorted(restarts.items())))
        by_target = {}
        for _, target in kills:
            by_target[target] = by_target.get(target, 0) + 1
        self.row("kills (kill -9; postgres: immediate stop)",
                 f"{len(kills)}: " + ", ".join(f"{k} {v}" for k, v in sorted(by_target.items())) if kills else "0")
        if env("CHAOS", "1") != "0":
            self.row("PostgreSQL kills", by_target.get("postgres", 0), by_target.get("postgres", 0) >= 2)
        samples = []
        probe_log = os.path.join(self.outdir, "ready.log")
        if os.path.exists(probe_log):
            for line in open(probe_log):
                parts = line.split()
                if len(parts) == 3:
                    samples.append((float(parts[0]), int(parts[1])))
        limit = float(env("READY_LIMIT", "10"))
        if kills:
            last = max(t for t, _ in kills)
            after = [(t, s) for t, s in samples if t >= last]
            not_ready = [t for t, s in after if s != 200]
            if not after:
                self.row("gateway /health/ready after the last kill", "no samples", False)
            elif after[-1][1] != 200:
                self.row(f"gateway ready (and stays ready) within {limit:.0f} s of the last kill",
                         f"not ready at the end ({after[-1][0] - last:.1f} s after it)", False)
            else:
                ready_at = next(t for t, s in after if s == 200 and t > max(not_ready or [last]))
                self.row(f"gateway ready (and stays ready) within {limit:.0f} s of the last kill",
                         f"{ready_at - last:.1f} s (probed every 0.2 s for {after[-1][0] - last:.0f} s)",
                         ready_at - last <= limit)
        canary_path = os.path.join(self.outdir, "canary.json")
        if kills and os.path.exists(canary_path):
            result = json.load(open(canary_path))
            last = max(t for t, _ in kills)
            self.row("a new purchase right after the chaos (new customer): answer, time, after the last kill",
                     f"{result['status']} in {result['finished'] - result['started']:.2f} s "
                     f"({len(result['attempts'])} attempts), {result['finished'] - last:.1f} s after it",
                     result["status"] == 200)
        if samples:
            slow = [s for s in samples if s[1] != 200]
            self.row("readiness probes not 200 during the run", f"{len(slow)} of {len(samples)}")

    def refund_checks(self):
        """REFUNDS: every refund made at the store (App Store refund, Google Play voided purchase) applied exactly once
        with no manual call, within RECOVERY_WAIT of the check's start: the refunded transaction revoked in
        entitlements and its purchase too, one `refund` event, the customer's refund count up by one; and no
        revocation, refund event or refund count for a transaction that was not refunded."""
        path = os.path.join(self.outdir, "refunds.jsonl")
        refunds = [json.loads(line) for line in open(path)] if os.path.exists(path) else []
        if not refunds:
            return
        for r in refunds:
            r.setdefault("store", "apple")
        made = [r for r in refunds if r.get("status") is not None]

        def split(rows):
            """`apple N (token T, none U), google M (token T, none U)`: per store, with and without account binding."""
            parts = []
            for store in ("apple", "google"):
                of = [r for r in rows if r["store"] == store]
                bound = sum(1 for r in of if r["token"])
                parts.append(f"{store} {len(of)} ({bound} with {'appAccountToken' if store == 'apple' else 'obfuscatedAccountId'}, "
                             f"{len(of) - bound} without)")
            return ", ".join(parts)

        self.row("refunds asked at the store / made", f"{len(refunds)} / {len(made)}: {split(made)}",
                 len(made) == len(refunds))
        google = [r for r in made if r["store"] == "google"]
        if google:
            silent = sum(1 for r in google if not r.get("notified", True))
            self.row("Google refunds made without their notification (only the voided-purchases list has them)",
                     f"{silent} of {len(google)}")
        self.detail("refunds the store never answered", [r for r in refunds if r.get("status") is None])
        ids = [r["transaction_id"] for r in made]
        # Apple transaction ids are digits, Play order ids GPA.dddd-dddd-dddd-ddddd: nothing to quote in either.
        listed = ",".join(f"'{i}'" for i in ids if re.fullmatch(r"[A-Za-z0-9.\-]+", i))
        wait = float(env("RECOVERY_WAIT", "60"))
        last = max(r["at"] for r in made) if made else now()
        missing, waited = self.wait_for(
            "refunds not applied yet",
            f"SELECT count(*) FROM unnest(ARRAY[{listed}]::text[]) AS r(id) WHERE NOT EXISTS (SELECT 1 FROM "
            "entitlements.transactions t WHERE t.transaction_id = r.id AND t.revocation_date IS NOT NULL)", wait)
        self.row(f"refunds not applied (waited {waited:.0f} s, at most {wait:.0f}; last refund made "
                 f"{max(0.0, now() - waited - last):.0f} s before the wait)", missing, missing == 0)
        revoked = {row[0] for row in psql(
            self.db, "SELECT transaction_id FROM entitlements.transactions WHERE revocation_date IS NOT NULL")}
        never = [r for r in made if r["transaction_id"] not in revoked]
        self.row("refunds never applied, by store", split(never), not never)
        self.detail("refunds never applied", never)
        # The purchase itself is revoked (its grants end), not only the transaction.
        purchases = {row[0]: row[1] == "t" for row in psql(
            self.db, "SELECT original_transaction_id, revoked_at IS NOT NULL FROM entitlements.purchases")}
        still = [f"{r['store']} tx {r['transaction_id']} ({r['kind']}): purchase "
                 f"{'missing' if r['original_transaction_id'] not in purchases else 'not revoked'}"
                 for r in made if r["transaction_id"] in revoked and not purchases.get(r["original_transaction_id"])]
        self.row("refunded transactions whose purchase is not revoked", len(still), not still)
        self.detail("refunded transactions whose purchase is not revoked", still)
        events = dict((tx, int(n)) for tx, n in psql(
            self.db, "SELECT payload->>'transaction_id', count(*) FROM entitlements.events WHERE type = 'refund' "
                     "GROUP BY 1"))
        not_once = [f"{r['store']} tx {r['transaction_id']} ({r['kind']}, token {r['token']}): "
                    f"{events.get(r['transaction_id'], 0)} refund events"
                    for r in made if events.get(r["transaction_id"], 0) != 1]
        once = [r for r in made if events.get(r["transaction_id"], 0) == 1 and r["transaction_id"] in revoked]
        self.row("refunds applied exactly once (revoked, one refund event), by store", split(once),
                 len(once) == len(made))
        self.row("refunds without exactly one refund event", len(not_once), not not_once)
        self.detail("refunds without exactly one refund event", not_once)
        asked = set(ids)
        unasked = [f"tx {tx}: {n} refund events" for tx, n in events.items() if tx not in asked]
        unasked += [f"tx {tx}: revoked in entitlements.transactions" for tx in revoked if tx not in asked]
        self.row("refund events or revocations of transactions never refunded", len(unasked), not unasked)
        self.detail("refund events or revocations of transactions never refunded", unasked)
        # Each refund counts once on its owner: a customer's refund_count is the number of its refunded purchases.
        counts = psql(self.db, """
            SELECT c.customer_id, c.refund_count, count(p.original_transaction_id)
            FROM entitlements.customers c
            LEFT JOIN entitlements.purchases p ON p.customer_id = c.customer_id AND p.revoked_at IS NOT NULL
            GROUP BY c.customer_id, c.refund_count
            HAVING c.refund_count <> count(p.original_transaction_id)""")
        self.row("customers whose refund count differs from their revoked purchases", len(counts), not counts)
        self.detail("customers whose refund count differs from their revoked purchases", counts)
        found = {}
        for notification_type, n in psql(
                self.db, "SELECT type, count(*) FROM verifier.notifications WHERE type IN ('REFUND') GROUP BY 1"):
            found[notification_type] = int(n)
        lookups = scalar(self.db, "SELECT coalesce(sum(refunds), 0) || ' refunds in ' || count(*) || ' lookups' "
                                  "FROM verifier.refund_lookups")
        recovered = scalar(self.db, "SELECT coalesce(sum(recovered), 0) FROM verifier.notification_recovery")
        self.row("Apple: REFUND notifications recorded / recovered from history (all types) / refund lookups",
                 f"{found.get('REFUND', 0)} / {recovered} / {lookups}")
        if google:
            pushed = int(scalar(self.db, "SELECT count(*) FROM verifier.notifications WHERE store = 'play_store' "
                                         "AND notification_id NOT LIKE 'voidedpurchases:%' "
                                         "AND payload LIKE '%voidedPurchaseNotification%'") or 0)
            polled = {row[0] for row in psql(
                self.db, "SELECT substr(notification_id, length('voidedpurchases:') + 1) FROM verifier.notifications "
                         "WHERE store = 'play_store' AND notification_id LIKE 'voidedpurchases:%'")}
            by_poll = [r for r in google if r["transaction_id"] in polled]
            silent_by_poll = sum(1 for r in by_poll if not r.get("notified", True))
            cursor = psql(self.db, "SELECT found, coalesce(last_error, '-') FROM verifier.google_voided_cursors")
            self.row("Google: voided notifications pushed and recorded / refunds found by polling (of them made "
                     "silently) / poller's found, last error",
                     f"{pushed} / {len(by_poll)} ({silent_by_poll}) / "
                     + ("; ".join(f"{f}, {e}" for f, e in cursor) or "no cursor"))

    def report(self):
        """Prints the table and the verdict (and figures.md); 1 when a check failed."""
        width = max(len(r[0]) for r in self.rows)
        print()
        print(f"{'check'.ljust(width)} | {'figure'} | verdict")
        for name, figure, verdict in self.rows:
            print(f"{name.ljust(width)} | {figure} | {verdict}")
        print()
        print("RESULT: " + ("FAIL" if self.failed else "PASS") + f" (details: {self.details.name})")
        self.details.close()
        with open(os.path.join(self.outdir, "figures.md"), "w") as f:
            f.write("| check | figure | verdict |\n| --- | --- | --- |\n")
            for name, figure, verdict in self.rows:
                f.write(f"| {name} | {figure} | {verdict} |\n")
        return 1 if self.failed else 0


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    command = sys.argv[1]
    if command == "webhook":
        webhook(sys.argv[2], sys.argv[3])
    elif command == "probe":
        probe(sys.argv[2], sys.argv[3], sys.argv[4])
    elif command == "load":
        Load(sys.argv[2]).run()
    elif command == "watch":
        watch(sys.argv[2], sys.argv[3], sys.argv[4])
    elif command == "canary":
        canary(sys.argv[2])
    elif command == "check":
        return Check(sys.argv[2]).run()
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
