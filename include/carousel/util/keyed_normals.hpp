// Standard normal draws for many rows at once: the injected noise of the SG-MCMC steps,
// which is about a third of an iteration's time when drawn one double at a time (Philox
// for 2 numbers, then log, sqrt, sin and cos from libm per pair).
//
// Same keying as KeyedStream (DESIGN.md section 1): row k of a fill uses Philox4x64-10 with
// key (seed, purpose) and counter (ids[k], iteration, draw, 1), so whoever draws row 1234 at
// iteration 77 gets the same numbers. The last counter word, 1, keeps these numbers apart
// from KeyedStream's (whose word is 0) for the same row. Each 64-bit output gives two 24-bit
// uniforms in (0, 1); Box-Muller then runs in float on whole arrays with Eigen's vectorised
// log, sin and cos. A row's numbers depend on its position in the fill only through the
// array length (Eigen's last partial packet takes the scalar path), so callers fill fixed
// chunks of a block's rows: the same chunks on every rank. |z| <= 5.9 (u >= 2^-25).
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

// Fills out (resized to rows x cols, row-major) with standard normals for the rows whose
// global ids are ids[0 .. rows - 1].
void FillKeyedNormals(std::uint64_t seed, Purpose purpose, std::uint64_t iteration,
                      const std::uint32_t* ids, Eigen::Index rows, Eigen::Index cols,
                      Eigen::ArrayXf& out);

}  // namespace carousel
