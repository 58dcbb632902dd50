#!/usr/bin/env python3
"""Bursts of purchases of one customer, all at once, as an app sends every unfinished transaction at launch.

    burst.py GATEWAY_URL PUBLIC_KEY BODIES_JSONL BURSTS SIZE

Each burst takes SIZE new bodies, gives them to one new customer (`burst-<n>`), opens SIZE connections and sends them
all at once (a barrier releases the threads together). Prints every burst's statuses and the latency distribution of
all requests, and exits 1 when any answer is not 200.
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[index]


def main():
    gateway, key, bodies_path, bursts, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    url = urllib.parse.urlparse(gateway)
    with open(bodies_path) as handle:
        bodies = [line for line in handle if line.strip()]
    latencies, statuses, failures = [], {}, []
    for burst in range(bursts):
        user = f"burst-{int(time.time())}-{burst}"
        chunk = bodies[burst * size:(burst + 1) * size]
        if len(chunk) < size:
            sys.exit(f"not enough bodies for {bursts} bursts of {size}")
        barrier = threading.Barrier(size)
        results = [None] * size

        def send(index, body):
            document = json.loads(body)
            document["app_user_id"] = user
            payload = json.dumps(document)
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
            connection.connect()
            barrier.wait()
            start = time.monotonic()
            try:
                connection.request("POST", "/v1/purchases", body=payload, headers={
                    "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
                response = connection.getresponse()
                text = response.read()
                results[index] = (response.status, time.monotonic() - start, text[:200])
            except Exception as error:  # noqa: BLE001 - a benchmark reports every failure
                results[index] = (0, time.monotonic() - start, str(error).encode())
            finally:
                connection.close()

        threads = [threading.Thread(target=send, args=(i, b)) for i, b in enumerate(chunk)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        burst_statuses = {}
        for status, seconds, text in results:
            latencies.append(seconds)
            statuses[status] = statuses.get(status, 0) + 1
            burst_statuses[status] = burst_statuses.get(status, 0) + 1
            if status != 200:
                failures.append(f"{status}: {text[:200]!r}")
        slowest = max(seconds for _, seconds, _ in results)
        print(f"burst {burst + 1}: {size} purchases of {user} at once: {burst_statuses}, slowest {slowest:.3f} s",
              flush=True)
    print(f"all {len(latencies)} requests: statuses {statuses}; latency p50 {percentile(latencies, 50) * 1000:.0f} ms, "
          f"p99 {percentile(latencies, 99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    for failure in failures[:5]:
        print("  " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
