#!/usr/bin/env python3
"""Signal side of the speech-denoising benchmark of `carousel amf` (issue #16 item 5;
HAMCMC paper Sec. 4.2, Fig. 3 in spirit). Subcommands:

  prepare DIR   clean speech by espeak-ng (16 kHz; a TRAINING set of sentences and voices
                for the speech dictionary, and a disjoint TEST set of sentences), noises by
                sox synth (white, pink, brown) and a babble of several espeak-ng voices,
                mixed with each test utterance at the given SNRs; writes the complex STFTs
                carousel amf reads (clean_train.npy; noisy/<test>-<noise>-<snr>dB.npy) and
                the waveforms the SDR needs (wav/*.npy), plus the mixtures' own SDR
                (baseline.csv).
  sdr, score    the SDR of a run's reconstruction.npy (the posterior mean of the
                alpha-Wiener filtered magnitude) resynthesised with the mixture's phase: one
                (sdr), or every row of a table of runs (score).

The paper's X is complex (Eq. 15: X_ij | W, H, Phi ~ N_c(0, Phi_ij (WH)_ij^(2/alpha))),
so the STFT coefficients themselves are fed, and the speech estimate is
ISTFT(reconstruction * exp(i angle(X))): the alpha-Wiener filter m_ij X_ij (Liutkus and
Badeau 2015), since reconstruction = E[m] |X| keeps the mixture's phase.

SDR: BSS-eval's SDR with a single-tap (scale only) projection (Vincent, Gribonval and
Fevotte 2006, with the allowed distortion a gain): s_target = <s_hat, s> s / |s|^2,
SDR = 10 log10(|s_target|^2 / |s_hat - s_target|^2); so a mere rescaling of the estimate
is not counted as distortion.
"""
import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile
from scipy.signal import istft, stft

FS = 16000
FRAME = 512  # I = FRAME / 2 + 1 = 257 frequencies
HOP = 256

# Harvard sentences (IEEE 1969 lists 1 and 2). Training and test sentences are disjoint,
# and so are the babble's, so nothing the dictionary saw is in a test signal.
TRAIN = [
    ("en-us", "The birch canoe slid on the smooth planks."),
    ("en-us+f3", "Glue the sheet to the dark blue background."),
    ("en+m3", "It's easy to tell the depth of a well."),
    ("en-gb+f2", "These days a chicken leg is a rare dish."),
    ("en-us+m5", "Rice is often served in round bowls."),
    ("en+f4", "The juice of lemons makes fine punch."),
    ("en-gb-scotland", "The box was thrown beside the parked truck."),
    ("en-us+f1", "The hogs were fed chopped corn and garbage."),
    ("en+m2", "Four hours of steady work faced us."),
    ("en-us+f5", "A large size in stockings is hard to sell."),
]
TEST = [
    ("en-us+f3", "The boy was there when the sun rose."),
    ("en+m3", "A rod is used to catch pink salmon."),
]
BABBLE = [
    ("en-gb", "The source of the huge river is the clear spring."),
    ("en-us+f2", "Kick the ball straight and follow through."),
    ("en+m4", "Help the woman get back to her feet."),
    ("en-us+f4", "A pot of tea helps to pass the evening."),
    ("en-gb-x-rp", "Smoky fires lack flame and heat."),
    ("en-us+m1", "The soft cushion broke the man's fall."),
]
NOISES = ["white", "pink", "brown", "babble"]


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def speak(voice, text, tmp):
    """espeak-ng at its own rate, resampled by sox to 16 kHz mono; float64 in [-1, 1]."""
    raw = os.path.join(tmp, "espeak.wav")
    out = os.path.join(tmp, "speech.wav")
    run(["espeak-ng", "-v", voice, "-w", raw, text])
    run(["sox", "-R", "-G", raw, "-r", str(FS), "-c", "1", "-b", "16", out])
    return read_wav(out)


def read_wav(path):
    rate, x = wavfile.read(path)
    assert rate == FS, path
    return x.astype(np.float64) / 32768.0


def trim(x, floor=1e-3):
    """Cut espeak-ng's leading and trailing silence (samples below floor of the peak)."""
    idx = np.flatnonzero(np.abs(x) > floor * np.abs(x).max())
    return x[max(idx[0] - HOP, 0):idx[-1] + HOP]


def synth_noise(kind, n, tmp):
    """sox's own coloured noise generators (white, pink, brown), n samples at 16 kHz;
    -R: sox's repeatable mode (fixed seed), so the bench makes the same mixtures each time."""
    out = os.path.join(tmp, "noise.wav")
    run(["sox", "-R", "-n", "-r", str(FS), "-c", "1", "-b", "16", out, "synth",
         "%.6f" % (n / FS + 0.1), kind + "noise"])
    return read_wav(out)[:n]


def babble(n, tmp):
    """Several espeak-ng voices speaking at once (each looped to length n, staggered)."""
    total = np.zeros(n)
    for k, (voice, text) in enumerate(BABBLE):
        x = trim(speak(voice, text, tmp))
        x = np.roll(np.resize(x, n), k * n // len(BABBLE))
        total += x / np.sqrt(np.mean(x**2))
    return total


def spectrum(x):
    """Complex STFT, I = 257 frequencies x J frames (Hann, 512 samples, hop 256)."""
    return stft(x, fs=FS, window="hann", nperseg=FRAME, noverlap=FRAME - HOP)[2]


def resynth(z, n):
    x = istft(z, fs=FS, window="hann", nperseg=FRAME, noverlap=FRAME - HOP)[1]
    return np.pad(x, (0, max(n - len(x), 0)))[:n]


def save(path, a):
    """np.save, but a file already holding these bytes is left alone (and its time), so
    run_amf_denoise.sh can keep dictionaries learnt on an unchanged training STFT."""
    buf = io.BytesIO()
    np.save(buf, a)
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == buf.getvalue():
                return
    with open(path + ".tmp", "wb") as f:
        f.write(buf.getvalue())
    os.replace(path + ".tmp", path)


def sdr(s, s_hat):
    """BSS-eval SDR with a single-tap projection (see the module docstring)."""
    target = np.dot(s_hat, s) / np.dot(s, s) * s
    return 10 * np.log10(np.dot(target, target) / np.sum((s_hat - target)**2))


def prepare(args):
    out = args.dir
    for d in ("wav", "noisy"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        train = np.concatenate([trim(speak(v, t, tmp)) for v, t in TRAIN])
        # One gain for every signal, so the training and the test spectrograms share a
        # scale: the training STFT's mean |X| is 1, keeping WH near the priors' scale.
        gain = 1.0 / np.mean(np.abs(spectrum(train)))
        z = spectrum(gain * train)
        save(os.path.join(out, "clean_train.npy"), np.ascontiguousarray(z, np.complex64))
        print("clean_train.npy: %d x %d (%.1f s of speech, %d sentences)" %
              (z.shape[0], z.shape[1], len(train) / FS, len(TRAIN)))
        rows = []
        for t, (voice, text) in enumerate(TEST):
            s = gain * trim(speak(voice, text, tmp))
            name = "test%d" % t
            save(os.path.join(out, "wav", name + "-clean.npy"), s)
            for noise in NOISES:
                if noise == "babble":
                    v = babble(len(s), tmp)
                else:
                    v = synth_noise(noise, len(s), tmp)
                for snr in args.snr:
                    # Noise scaled to the SNR over the whole utterance: |s|^2 / |n|^2.
                    n = v * np.sqrt(np.sum(s**2) / np.sum(v**2) / 10**(snr / 10))
                    x = s + n
                    mix = "%s-%s-%gdB" % (name, noise, snr)
                    save(os.path.join(out, "wav", mix + ".npy"), x)
                    z = spectrum(x)
                    save(os.path.join(out, "noisy", mix + ".npy"), np.ascontiguousarray(z, np.complex64))
                    rows.append((mix, name, noise, snr, z.shape[1], sdr(s, x)))
    with open(os.path.join(out, "baseline.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mixture", "test", "noise", "snr_db", "frames", "sdr_mixture"])
        for r in rows:
            w.writerow(r[:5] + ("%.3f" % r[5],))
    for r in rows:
        print("%-22s J = %3d  SDR(mixture) = %6.2f dB" % (r[0], r[4], r[5]))


def estimate(data, mix, recon):
    """The speech estimate: ISTFT of reconstruction * exp(i phase of the mixture)."""
    z = np.load(os.path.join(data, "noisy", mix + ".npy"))
    m = np.load(recon)
    if m.shape != z.shape:
        sys.exit("%s: reconstruction %s, mixture %s" % (recon, m.shape, z.shape))
    n = len(np.load(os.path.join(data, "wav", mix + ".npy")))
    return resynth(m * np.exp(1j * np.angle(z)), n)


def clean(data, mix):
    return np.load(os.path.join(data, "wav", mix.split("-")[0] + "-clean.npy"))


def score(args):
    """Adds an sdr column to every row of the runs table (columns mixture, recon, ...)."""
    with open(args.runs) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["sdr"] = "%.3f" % sdr(clean(args.data, r["mixture"]),
                                estimate(args.data, r["mixture"], r["recon"]))
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[k for k in rows[0] if k != "recon"] + ["sdr"],
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print("wrote %s (%d rows)" % (args.out, len(rows)))


def one(args):
    s_hat = estimate(args.data, args.mixture, args.recon)
    if args.wav:
        peak = np.abs(s_hat).max()
        wavfile.write(args.wav, FS, (s_hat / peak * 0.9 * 32767).astype(np.int16))
    print("%.3f" % sdr(clean(args.data, args.mixture), s_hat))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prepare", help="make the speech, noises, mixtures and STFTs")
    a.add_argument("dir")
    a.add_argument("--snr", type=float, nargs="+", default=[0.0, 5.0])
    a.set_defaults(fn=prepare)
    a = sub.add_parser("sdr", help="SDR of one reconstruction.npy")
    a.add_argument("data", help="the prepare directory")
    a.add_argument("mixture", help="the mixture's name (test0-white-5dB)")
    a.add_argument("recon", help="a run's reconstruction.npy")
    a.add_argument("--wav", help="also write the denoised speech here (16-bit, peak 0.9)")
    a.set_defaults(fn=one)
    a = sub.add_parser("score", help="SDR of every row of a runs table")
    a.add_argument("data", help="the prepare directory")
    a.add_argument("runs", help="csv with columns mixture, recon (a reconstruction.npy), ...")
    a.add_argument("out", help="the same table without recon, with an sdr column")
    a.set_defaults(fn=score)
    args = p.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
