# Reads the closing summary of `carousel mf` or `carousel lda` and prints one CSV row per
# rank: PREFIX (given with -v prefix=...), then ranks, rank, items held (ratings or
# tokens), load seconds, parse MB/s, peak MiB when loaded, peak MiB, data MiB, parameters
# and state MiB, the bound 1.5 x (data + parameters) + 64 MiB, whether the peak is within
# it, data bytes per item and peak bytes per item. Needs -v np=RANKS.
# Line 1 per rank: "... peak memory P MiB, H training ratings held" (or tokens);
# line 2: "input read in L s (its part, M MB, parsed at R MB/s), peak memory Q MiB when
# read; holds D MiB of data and S MiB of parameters and sampler state".
/^  rank [0-9]+: .*training [a-z]+ held/ {
  r = $2; sub(":", "", r)
  match($0, /peak memory [0-9.]+/); peak[r] = substr($0, RSTART + 12, RLENGTH - 12)
  match($0, /MiB, [0-9]+ training/); held[r] = substr($0, RSTART + 5, RLENGTH - 14)
}
/^  rank [0-9]+: input read in/ {
  r = $2; sub(":", "", r)
  load[r] = $6
  match($0, /parsed at [0-9.]+/); rate[r] = substr($0, RSTART + 10, RLENGTH - 10)
  match($0, /peak memory [0-9.]+ MiB when/); when[r] = substr($0, RSTART + 12, RLENGTH - 21)
  match($0, /holds [0-9.]+/); dat[r] = substr($0, RSTART + 6, RLENGTH - 6)
  match($0, /data and [0-9.]+/); st[r] = substr($0, RSTART + 9, RLENGTH - 9)
}
END {
  for (r = 0; r < np; r++) {
    bound = 1.5 * (dat[r] + st[r]) + 64
    printf "%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%.1f,%s,%.2f,%.1f\n", prefix, np, r, held[r], load[r],
      rate[r], when[r], peak[r], dat[r], st[r], bound, (peak[r] + 0 <= bound ? "yes" : "NO"),
      dat[r] * 1048576 / held[r], peak[r] * 1048576 / held[r]
  }
}
