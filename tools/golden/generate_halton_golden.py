#!/usr/bin/python3
"""Golden values for Pacer's quasi-random (Halton) sampler, from an independent implementation of
the AlgoPerf reference algorithm on numpy's legacy RandomState (MT19937).

Run with Debian's python, which has numpy:

    /usr/bin/python3 tools/golden/generate_halton_golden.py

Writes tests/golden/halton.json: the bases for several dimension counts, unit points for several
(dimensions, first kept point, count) cases -- including points whose Halton index has two and
three base-b digits -- and the values of a mixed log/linear/discrete space mapped as the reference
does. Consumed by tests/sampler_test.cpp. Deterministic; regenerate only when the cases change.

This deliberately does not import the reference module: it re-derives each step from the
description (numpy does the permutation and the shift), so a shared misreading would have to be
made twice.
"""
import json
import math
import os

import numpy as np

SKIP = 100


def odd_primes_below(n):
    sieve = np.ones(n, dtype=bool)
    sieve[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    return [int(p) for p in np.nonzero(sieve)[0] if p != 2]


def bases(num_dims):
    primes = odd_primes_below(1000)
    return primes[-num_dims - 1:-1]  # the largest odd primes below 1000 except 997


def scramble(base):
    rng = np.random.RandomState(base)
    perm = list(range(1, base))
    rng.shuffle(perm)
    return [0] + perm, rng.random_sample()


def unit_points(num_dims, first, count):
    out = np.zeros((count, num_dims))
    for d, b in enumerate(bases(num_dims)):
        digits, shift = scramble(b)
        for n in range(count):
            index = first + n + SKIP + 1
            value, denominator = 0.0, b
            while index:
                value += digits[index % b] / denominator
                denominator *= b
                index //= b
            out[n, d] = math.fmod(value + shift, 1.0)
    return out


def map_value(dim, x):
    if "feasible_points" in dim:
        points = dim["feasible_points"]
        return points[int(math.floor(x * len(points)))]
    if dim["scaling"] == "log":
        return dim["min"] * math.exp(x * math.log(dim["max"] / dim["min"]))
    return dim["min"] + x * (dim["max"] - dim["min"])


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cases = []
    for num_dims in (1, 2, 3, 7):
        for count in (1, 5, 20, 100):
            cases.append((num_dims, 0, count))
    cases += [(1, 950, 10), (2, 1000, 5), (3, 300, 4), (4, 985000, 3)]
    golden = {
        "bases": {str(d): bases(d) for d in (1, 2, 3, 7, 10)},
        "shifts": {str(b): scramble(b)[1] for b in (991, 983, 977)},
        "points": [
            {"num_dims": d, "first": f, "count": c, "values": unit_points(d, f, c).tolist()}
            for d, f, c in cases
        ],
    }
    space = {
        "learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"},
        "one_minus_beta1": {"min": 0.02, "max": 0.5, "scaling": "linear"},
        "label_smoothing": {"feasible_points": [0.1, 0.2]},
        "dropout_rate": {"feasible_points": [0.0, 0.05, 0.1]},
    }
    units = unit_points(len(space), 0, 12)
    golden["mapped"] = {
        "space": space,
        "points": [{name: map_value(dim, u[i]) for i, (name, dim) in enumerate(space.items())} for u in units],
    }
    path = os.path.join(root, "tests", "golden", "halton.json")
    with open(path, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
