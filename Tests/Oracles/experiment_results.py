#!/usr/bin/env python3
"""Prints the expected figures of ExperimentResultsTests from SciPy and NumPy: an independent computation of an
experiment's results (GET /v1/admin/reports/experiments/{id}) over the seeded data set below, which
ExperimentResultsTests builds alike. Run: python3 Tests/Oracles/experiment_results.py (needs scipy).

Per variant, each group is (customers, purchases each, refunds each, trial started, trial converted, revenue by
currency in thousandths); customers exposed are the sum of the groups."""
import numpy as np
from scipy import integrate, stats

DATA = {
    "a": [
        (300, 0, 0, False, False, {}),
        (30, 1, 0, True, True, {"USD": 4990}),
        (6, 2, 0, False, False, {"USD": 9980}),
        (3, 1, 1, True, False, {}),
        (5, 1, 0, False, False, {"EUR": 4490}),
        (20, 0, 0, True, False, {}),
    ],
    "b": [
        (280, 0, 0, False, False, {}),
        (52, 1, 0, True, True, {"USD": 4990}),
        (2, 1, 1, False, False, {}),
        (8, 1, 0, False, False, {"EUR": 4490}),
        (1, 2, 1, True, True, {"USD": 4990, "EUR": 4490}),
        (30, 0, 0, True, False, {}),
    ],
}
Z = stats.norm.ppf(0.975)
currencies = sorted({c for groups in DATA.values() for g in groups for c in g[5]})
posteriors, samplings = [], {c: [] for c in currencies}
for key, groups in DATA.items():
    n = sum(g[0] for g in groups)
    purchases = sum(g[0] * g[1] for g in groups)
    refunds = sum(g[0] * g[2] for g in groups)
    paying = sum(g[0] for g in groups if any(v > 0 for v in g[5].values()))
    trials = sum(g[0] for g in groups if g[3])
    converted = sum(g[0] for g in groups if g[4])
    d = stats.beta(1 + paying, 1 + n - paying)
    posteriors.append(d)
    print("variant", key, n, purchases, paying, refunds, trials, converted)
    print("conversion", key, d.mean(), d.ppf(0.025), d.ppf(0.975))
    for c in currencies:
        values = np.concatenate([np.full(g[0], g[5].get(c, 0) / 1000) for g in groups])
        error = values.std(ddof=1) / np.sqrt(len(values))
        samplings[c].append(stats.norm(values.mean(), error))
        print("revenue", key, c, values.sum(), values.mean(), values.mean() - Z * error, values.mean() + Z * error)
for i, d in enumerate(posteriors):
    others = [e for j, e in enumerate(posteriors) if j != i]
    f = lambda x, d=d, others=others: d.pdf(x) * np.prod([e.cdf(x) for e in others])
    print("best", i, integrate.quad(f, 0, 1, points=[p.mean() for p in posteriors], limit=500)[0])
for c in currencies:
    ds = samplings[c]
    for i, d in enumerate(ds):
        others = [e for j, e in enumerate(ds) if j != i]
        f = lambda x, d=d, others=others: d.pdf(x) * np.prod([e.cdf(x) for e in others])
        lo = min(e.ppf(1e-10) for e in ds)
        hi = max(e.ppf(1 - 1e-10) for e in ds)
        print("revenue best", c, i, integrate.quad(f, lo, hi, points=[e.mean() for e in ds], limit=500)[0])
