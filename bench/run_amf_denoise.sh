#!/usr/bin/env bash
# Speech denoising with `carousel amf` (issue #16 item 5; HAMCMC paper Sec. 4.2, Fig. 3 in
# spirit): espeak-ng speech (10 training sentences for the dictionary, 2 other test
# sentences), sox noises (white, pink, brown) and a babble of 6 espeak-ng voices, mixed at 0
# and 5 dB SNR; complex STFTs (Hann 512, hop 256: I = 257, J = 116 and 119) made by
# bench/amf_denoise.py. Per alpha (1.2, 2): W_speech (K_s = 50 columns) is W_mean.npy of
# `carousel amf` on the clean training STFT; then on each noisy STFT, with W_speech fixed
# (--fix-rows), K = K_s + K_n (K_n = 5 noise columns, as the paper) and H, Phi sampled by
# hamcmc, psgld and sgld. Every option but those is the default (one rank, --tiles 1).
# SDR against iterations and seconds: each chain is stopped at the iterations in $stops and
# resumed (--resume with a larger --iterations; checkpoints every 50), --burn-in 100 fixed, so
# the reconstruction at each stop is bitwise that of a fresh run with that --iterations and
# --burn-in 100; seconds are the trace's sampling seconds at the stop. Writes the data, each
# run's directory, runs-SAMPLER.csv, sdr.csv (one row per chain and stop), amf_denoise.png and
# amf_denoise.md (the table) to $CAROUSEL_BENCH_OUT/amf (default bench/results/amf).
# Needs Debian's espeak-ng, sox, python3-numpy, python3-scipy, python3-matplotlib.
# Usage: bash bench/run_amf_denoise.sh [samplers...]   (default: hamcmc psgld sgld; a call
#   for some samplers keeps the others' earlier runs in the table and plot)
#   (CAROUSEL_AMF_STOPS="150 200" and CAROUSEL_AMF_TRAIN_ITERATIONS=200 for a quick check of
#   the pipeline; the stops must be multiples of 50 and more than --burn-in 100.)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${CAROUSEL_BENCH_OUT:-$root/bench/results}/amf
samplers=("$@")
((${#samplers[@]})) || samplers=(hamcmc psgld sgld)
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
for tool in espeak-ng sox; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install $tool)" >&2; exit 1; }
done
export CAROUSEL_BIN=${CAROUSEL_BIN:-$root/build/carousel}
[[ -x $CAROUSEL_BIN ]] || "$root/launch/build.sh"

k_speech=50 k_noise=5
train_iterations=${CAROUSEL_AMF_TRAIN_ITERATIONS:-500}
burn_in=100
read -r -a stops <<<"${CAROUSEL_AMF_STOPS:-150 200 300 400 500}"  # a quick check: fewer
alphas=(1.2 2)

data=$out/data
mkdir -p "$out/runs"
"$py" "$root/bench/amf_denoise.py" prepare "$data" | tee "$out/prepare.log"

start=$SECONDS
# The dictionaries are kept while newer than the binary and the training STFT (the chains
# are deterministic), so that a second call for other samplers runs only those.
for alpha in "${alphas[@]}"; do
  w=$out/train-a$alpha/W_mean.npy
  if [[ -f $w && $w -nt $CAROUSEL_BIN && $w -nt $data/clean_train.npy ]] &&
    [[ $(sed -n 's/^iterations = //p' "$out/train-a$alpha/config.toml") == "$train_iterations" ]]; then
    echo "keeping $w"
    continue
  fi
  rm -f "$out"/runs-*.csv  # other samplers' runs used the old dictionary: not kept
  "$CAROUSEL_BIN" amf --train "$data/clean_train.npy" --rank "$k_speech" --alpha "$alpha" \
    --iterations "$train_iterations" --quiet --overwrite --out "$out/train-a$alpha" \
    | tee "$out/train-a$alpha.log"
done

for sampler in "${samplers[@]}"; do
  runs=$out/runs-$sampler.csv
  echo "sampler,alpha,mixture,noise,snr_db,iterations,seconds,recon" >"$runs"
  for alpha in "${alphas[@]}"; do
    for mix_file in "$data"/noisy/*.npy; do
      mix=$(basename "$mix_file" .npy)
      noise=$(cut -d- -f2 <<<"$mix")
      snr=$(cut -d- -f3 <<<"$mix")
      dir=$out/runs/$sampler-a$alpha-$mix
      for n in "${stops[@]}"; do
        if [[ $n == "${stops[0]}" ]]; then
          "$CAROUSEL_BIN" amf --train "$mix_file" --fix-rows "$out/train-a$alpha/W_mean.npy" \
            --rank $((k_speech + k_noise)) --alpha "$alpha" --sampler "$sampler" \
            --iterations "$n" --burn-in "$burn_in" --checkpoint-every 50 --quiet --overwrite \
            --out "$dir" >"$dir.log"
        else
          "$CAROUSEL_BIN" amf --resume "$dir" --iterations "$n" --checkpoint-every 50 \
            --quiet >>"$dir.log"
        fi
        cp "$dir/reconstruction.npy" "$dir/reconstruction-$n.npy"
        seconds=$(grep -v '^#' "$dir/trace.csv" | awk -F, -v n="$n" '$1 == n { print $2 }')
        echo "$sampler,$alpha,$mix,$noise,${snr%dB},$n,$seconds,$dir/reconstruction-$n.npy" >>"$runs"
      done
      tail -n 1 "$dir.log"
    done
  done
done
echo "sampling and training: $((SECONDS - start)) s wall" | tee "$out/wall.txt"

# Every sampler's table, this call's and earlier ones' (with the same dictionaries).
awk 'FNR > 1 || NR == 1' "$out"/runs-*.csv >"$out/runs.csv"
"$py" "$root/bench/amf_denoise.py" score "$data" "$out/runs.csv" "$out/sdr.csv"
"$py" "$root/bench/plot_amf_denoise.py" --baseline "$data/baseline.csv" --out "$out/amf_denoise" \
  "$out/sdr.csv"
echo "wrote $out/sdr.csv, $out/amf_denoise.png and $out/amf_denoise.md"
