"""Makes COUNT App Store purchases at the sandbox store over CONNECTIONS keep-alive connections and prints the rate
of each tenth of the run (Benchmarks/sandbox/run).

    purchases.py http://127.0.0.1:PORT COUNT CONNECTIONS     (COUNT 0: only wait until the store is ready)
"""

import http.client
import json
import sys
import threading
import time
import urllib.parse
import uuid

url = urllib.parse.urlparse(sys.argv[1])
count, connections = int(sys.argv[2]), int(sys.argv[3])

deadline = time.monotonic() + 120
while True:
    try:
        probe = http.client.HTTPConnection(url.hostname, url.port, timeout=2)
        probe.request("GET", "/health/ready")
        if probe.getresponse().status == 200:
            break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit("the sandbox store did not become ready")
    time.sleep(0.02)
if count == 0:
    sys.exit(0)

lock = threading.Lock()
next_index = 0
finished = []  # monotonic time of each purchase answered, in order of completion
errors = []


def worker():
    global next_index
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    while True:
        with lock:
            if next_index >= count:
                return
            index = next_index
            next_index += 1
        body = {
            "bundle_id": "com.example.bench", "product_id": "seeds", "type": "Consumable",
            "app_account_token": str(uuid.uuid4()),
        }
        if index % 10 == 0:  # some subscriptions too: their purchases also write a renewal schedule
            body.update({"product_id": "monthly", "type": "Auto-Renewable Subscription", "period": "P1M"})
        connection.request("POST", "/sandbox/apple/transactions", json.dumps(body),
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        with lock:
            if response.status != 201:
                errors.append(response.status)
            finished.append(time.monotonic())


began = time.monotonic()
threads = [threading.Thread(target=worker) for _ in range(connections)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
if errors:
    sys.exit(f"{len(errors)} purchases failed: {sorted(set(errors))}")

tenth = count // 10
previous = began
rates = []
for part in range(10):
    end = finished[(part + 1) * tenth - 1]
    rates.append(tenth / (end - previous))
    print(f"purchases {part * tenth + 1:6d}-{(part + 1) * tenth:6d}: {rates[-1]:7.0f}/s")
    previous = end
print(f"all {count}: {count / (finished[-1] - began):.0f}/s; last tenth / first tenth = {rates[-1] / rates[0]:.2f}")
