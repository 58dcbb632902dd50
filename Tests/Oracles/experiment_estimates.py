#!/usr/bin/env python3
"""Prints the expected figures of ExperimentEstimatesTests from SciPy and NumPy, an independent computation of what
Shopkeeper's experiment results show (Beta posterior credible intervals, chance to be best, normal intervals of a
mean). Run: python3 Tests/Oracles/experiment_estimates.py (needs scipy)."""
import numpy as np
from scipy import integrate, stats

for k, n in [(0, 0), (3, 10), (120, 1000), (4800, 50000), (49990, 50000)]:
    d = stats.beta(1 + k, 1 + n - k)
    print("beta", k, n, d.mean(), d.ppf(0.025), d.ppf(0.975), d.cdf(0.1), d.pdf(d.mean()))

posteriors = [stats.beta(1 + k, 1 + n - k) for k, n in [(100, 1000), (120, 1000), (110, 1000)]]
for i, d in enumerate(posteriors):
    others = [e for j, e in enumerate(posteriors) if j != i]
    f = lambda x, d=d, others=others: d.pdf(x) * np.prod([e.cdf(x) for e in others])
    print("best", i, integrate.quad(f, 0, 1, points=[0.1, 0.12], limit=500)[0])

means = [stats.norm(1.9, 0.2), stats.norm(2.1, 0.25)]
for i in range(2):
    print("mean best", i, integrate.quad(lambda x: means[i].pdf(x) * means[1 - i].cdf(x), -5, 10, limit=500)[0])

values = np.array([0] * 90 + [499] * 7 + [999] * 3, dtype=float)
z = stats.norm.ppf(0.975)
error = values.std(ddof=1) / np.sqrt(len(values))
print("revenue", values.mean(), error, values.mean() - z * error, values.mean() + z * error, z)
print("sums", values.sum(), (values**2).sum())
