#!/usr/bin/env python3
"""Reference values for Tests/StatisticsTests, computed once with numpy/SciPy and committed.

    python3 scripts/stats-reference.py > Tests/StatisticsTests/Fixtures/reference.json

What each figure is (the Swift side must match these definitions):
  percentiles  numpy.percentile, method="linear" (Hyndman & Fan type 7, numpy's default)
  mean, sd     numpy.mean, numpy.std(ddof=1)
  mad          scipy.stats.median_abs_deviation(scale=1.0)  (unscaled)
  outliers     |x - median| > 3.5 * sigma, sigma = median_abs_deviation(scale="normal");
               when that is 0: sigma = sqrt(pi/2) * mean(|x - median|)  (see Sources/Statistics/Outliers.swift)
  mannwhitney  scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic",
               use_continuity=True); u is the statistic of the first sample
  bootstrap    percentile bootstrap (2.5 and 97.5 type-7 percentiles of the replicates) of the
               median, and of median(b)/median(a) - 1 with a and b resampled independently.
               The Swift code uses its own seeded generator and B = 2000, so the reference is the
               bootstrap distribution estimated with B = 200000 here, and each interval end comes
               with a tolerance: 0.35 x the replicates' standard deviation (about 6 Monte Carlo
               standard errors of a 2.5% quantile at B = 2000) plus the largest spacing of the
               replicate values around the end (the median of a resample only takes a few values).
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats

B = 200_000
rng = np.random.default_rng(20240601)


def r3(xs):
    return [round(float(x), 3) for x in xs]


samples = {
    "normal30": r3(rng.normal(1000, 80, 30)),
    "normal30Shifted": None,  # filled below: normal30's distribution, 10% slower
    "normal30Same": r3(rng.normal(1000, 80, 30)),
    "lognormal31": r3(rng.lognormal(6.0, 0.5, 31)),
    "small5": [3.1, 1.2, 9.9, 4.4, 2.0],
    "ties40": [float(x) for x in rng.integers(10, 20, 40)],
    "ties40b": [float(x) for x in rng.integers(11, 21, 40)],
    "withOutliers": r3(list(rng.normal(500, 20, 25)) + [900.0, 950.0, 50.0]),
    "constant": [7.0] * 10,
    "mostlyConstant": [10.0] * 8 + [11.0, 50.0],
    "single": [42.0],
    "two": [5.0, 9.0],
    "even100": r3(rng.gamma(4.0, 250.0, 100)),
}
samples["normal30Shifted"] = r3(rng.normal(1100, 88, 30))

PERCENTILES = [0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100]


def boot_medians(x, size):
    x = np.asarray(x)
    idx = rng.integers(0, len(x), size=(size, len(x)))
    return np.median(x[idx], axis=1)


def interval(replicates):
    lo, hi = np.percentile(replicates, [2.5, 97.5])
    spread = float(np.std(replicates))

    def tol(end):
        values = np.unique(replicates)
        i = int(np.searchsorted(values, end))
        around = values[max(i - 2, 0): i + 2]
        spacing = float(np.max(np.diff(around))) if len(around) > 1 else 0.0
        return 0.35 * spread + spacing

    return {"low": float(lo), "high": float(hi), "lowTolerance": tol(lo), "highTolerance": tol(hi)}


def outlier_flags(x):
    x = np.asarray(x)
    med = np.median(x)
    dev = np.abs(x - med)
    sigma = stats.median_abs_deviation(x, scale="normal")
    if sigma == 0:
        sigma = np.sqrt(np.pi / 2) * np.mean(dev)
    if sigma == 0:
        return [False] * len(x)
    return [bool(d > 3.5 * sigma) for d in dev]


out_samples = []
for name, x in samples.items():
    a = np.asarray(x)
    entry = {
        "name": name,
        "values": x,
        "percentiles": [[p, float(np.percentile(a, p))] for p in PERCENTILES],
        "mean": float(np.mean(a)),
        "sd": float(np.std(a, ddof=1)) if len(a) > 1 else None,
        "mad": float(stats.median_abs_deviation(a, scale=1.0)),
        "outliers": outlier_flags(a),
        "medianCI": interval(boot_medians(a, B)),
    }
    out_samples.append(entry)

PAIRS = [
    ("normal30", "normal30Shifted"),
    ("normal30", "normal30Same"),
    ("normal30Shifted", "normal30"),
    ("ties40", "ties40b"),
    ("small5", "lognormal31"),
    ("constant", "constant"),
    ("two", "small5"),
    ("even100", "lognormal31"),
]
out_pairs = []
for an, bn in PAIRS:
    a, b = np.asarray(samples[an]), np.asarray(samples[bn])
    res = stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=True)
    p = float(res.pvalue)
    ratio = boot_medians(b, B) / boot_medians(a, B) - 1
    out_pairs.append({
        "a": an, "b": bn,
        "u": float(res.statistic),
        "p": 1.0 if np.isnan(p) else p,  # all values tied: SciPy says nan, netbench says 1
        "relativeChange": float(np.median(b) / np.median(a) - 1),
        "relativeCI": interval(ratio),
    })

json.dump({
    "generatedBy": "scripts/stats-reference.py",
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "bootstrapReplicates": B,
    "samples": out_samples,
    "pairs": out_pairs,
}, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
