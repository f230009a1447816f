#!/usr/bin/env bash
# Issue #42: whether the chains of a run disagree because each sits in a mode of its own.
# For each chain of a `--chains` run, the mean of one scalar of its draws in each quarter of
# them (flat: the chain is stationary where it is), and over the second half its mean, sd
# and the Monte Carlo error of that mean by batch means (10 batches).
#
#   bench/chain_means.sh RUN_DIR [COLUMN]      (COLUMN: a draws column name, default the first)
set -euo pipefail
run="$1" column="${2:-}"
echo "chain,quarter_means,second_half_mean,second_half_sd,mcse_batch_means"
for draws in "$run"/draws/chain-*.csv; do
  chain=$(basename "$draws" .csv)
  grep -v '^#' "$draws" | awk -F, -v chain="${chain#chain-}" -v want="$column" '
    NR == 1 { col = 1; for (i = 1; i <= NF; ++i) if ($i == want) col = i; next }
    { x[++n] = $col }
    END {
      q = int(n / 4); line = ""
      for (k = 0; k < 4; ++k) {
        s = 0; for (i = k * q + 1; i <= (k + 1) * q; ++i) s += x[i]
        line = line (k ? "/" : "") sprintf("%.1f", s / q)
      }
      h = int(n / 2); first = n - h + 1; m = 0
      for (i = first; i <= n; ++i) m += x[i]
      m /= h; ss = 0
      for (i = first; i <= n; ++i) ss += (x[i] - m) ^ 2
      nb = 10; bs = int(h / nb); v = 0
      for (b = 0; b < nb; ++b) {
        s = 0; for (i = first + b * bs; i < first + (b + 1) * bs; ++i) s += x[i]
        v += (s / bs - m) ^ 2
      }
      printf "%s,%s,%.1f,%.1f,%.2f\n", chain, line, m, sqrt(ss / (h - 1)), sqrt(v / (nb - 1) / nb)
    }'
done
