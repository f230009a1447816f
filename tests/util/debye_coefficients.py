#!/usr/bin/env python3
"""Prints the u_k(t) coefficients (k = 1..16) of kDebyeU in src/util/log_bessel.cpp.

DLMF 10.41.10: u_0 = 1, u_{k+1}(t) = t^2 (1 - t^2) u_k'(t) / 2 + (1/8) int_0^t (1 - 5 s^2)
u_k(s) ds, in exact rational arithmetic; u_k holds the powers t^k, t^{k+2}, .., t^{3k}.
"""
from fractions import Fraction

K = 16
u = [{0: Fraction(1)}]
for k in range(K):
    q = {}
    for e, c in u[-1].items():
        for power, value in ((e + 1, Fraction(e, 2) * c), (e + 3, -Fraction(e, 2) * c),
                             (e + 1, c / (8 * (e + 1))), (e + 3, -5 * c / (8 * (e + 3)))):
            q[power] = q.get(power, Fraction(0)) + value
    u.append({e: c for e, c in q.items() if c != 0})
for k in range(1, K + 1):
    print("    // u_%d: t^%d .. t^%d" % (k, k, 3 * k))
    values = ["%.17g," % float(u[k].get(e, 0)) for e in range(k, 3 * k + 1, 2)]
    for i in range(0, len(values), 4):  # four a line: within the 100 columns of .clang-format
        print("    " + " ".join(values[i:i + 4]))
