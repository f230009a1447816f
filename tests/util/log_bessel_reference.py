#!/usr/bin/env python3
"""Reference values of log I_r(x) for tests/util/log_bessel_test.cpp.

Each value is the power series of DLMF 10.25.2 (the definition supplement F.3 of Liu, Zhu &
Song 2016 uses), I_r(x) = sum_n (x/2)^{2n+r} / (n! Gamma(n+r+1)), summed term by term in
mpmath at 50 significant digits until a term is below 1e-45 of the sum (all terms are
positive, so there is no cancellation; mpmath's exponent range has no overflow). Where
mpmath.besseli itself finishes quickly the two are compared (--check), as a check of the
script. Output: one C++ initializer line per point, "{r, x, log I_r(x)},".
Usage: python3 tests/util/log_bessel_reference.py [--check] > table.txt
"""
import sys

import mpmath

mpmath.mp.dps = 50

ORDERS = [0, 0.5, 1, 10, 100, 1000, 2499, 2500, 5000, 1e5]
ARGUMENTS = [1e-3, 0.1, 1, 10, 100, 1000, 6000, 1e4, 2e4, 3e4, 1e5, 1e6]
# Points either side of the thresholds of src/util/log_bessel.cpp (order 25, argument 500).
EDGES = [(24.9, 1e-3), (24.9, 1), (24.9, 499), (24.9, 501), (24.9, 1e4), (25, 1e-3),
         (25, 1), (25, 30), (25, 499), (25, 501), (25, 1e4), (12.5, 499), (12.5, 501),
         (3.3, 499), (3.3, 501), (0, 499), (0, 501), (0.5, 501), (40, 40), (60, 5e3)]


def log_bessel_series(r, x):
    r = mpmath.mpf(r)
    x = mpmath.mpf(x)
    q = (x / 2) ** 2
    term = mpmath.mpf(1)
    total = mpmath.mpf(1)
    n = 0
    while True:
        n += 1
        term *= q / (n * (n + r))
        total += term
        if q < (n + 1) * (n + 1 + r) and term < total * mpmath.mpf("1e-45"):
            break
    return r * mpmath.log(x / 2) - mpmath.loggamma(r + 1) + mpmath.log(total)


def main():
    check = "--check" in sys.argv
    points = [(r, x) for r in ORDERS for x in ARGUMENTS] + EDGES
    for r, x in points:
        value = log_bessel_series(r, x)
        if check and x <= 3e4 and r <= 5000:
            other = mpmath.log(mpmath.besseli(r, x, maxterms=10**7))
            if abs(other - value) > mpmath.mpf("1e-30") * max(1, abs(value)):
                sys.exit("mismatch at r=%r x=%r: %s vs %s" % (r, x, value, other))
        print("    {%r, %r, %s}," % (float(r), float(x), mpmath.nstr(value, 25)))


if __name__ == "__main__":
    main()
