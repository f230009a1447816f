// The one list of samplers (DESIGN.md section 7): for each, its name, the paper and
// equation it implements, the options it reads and its factory. Every option of every
// sampler is declared once, here, with its bounds, default and help; the command line,
// --help, the factory's checks and error messages all read this file. Default step sizes
// are not here: a step is in the units of a model's log posterior (per rating, per
// degree, a CIR time), so each model gives the default step of each sampler it runs
// (model/bpmf/mf_defaults.hpp for mf; DefaultLdaStep in model/lda/lda_options.cpp and the
// like in the other model folders).
//
// Two kinds of parameter blocks take samplers:
//   factor blocks  float matrices of unconstrained parameters (BlockState): every sampler
//                  of the "complete recipe" family, created by `make`;
//   simplex blocks the expanded-mean (Gamma) parameterisation of probability vectors
//                  (topic_word_update.hpp): SCIR, and SGRLD / SGRHMC with the metric
//                  G = diag(theta)^-1 of that parameterisation. They are the same two
//                  samplers of the same recipe (Eq. 9), written once more because the
//                  block differs in what the recipe cannot express through a
//                  DiagonalMetric: the update is mirrored (|theta|, Patterson and Teh
//                  2013, Sec. 3) to stay positive, it needs the row sums theta_k. and
//                  count_hat_k. over the whole vocabulary (a reduction of K numbers per
//                  iteration, not per element), and the blocks are double precision.
//   sphere blocks  unit vectors (products of hyperspheres, geodesic.hpp): SGGMC and
//                  gSGNHT, which move along geodesics of the sphere: `carousel sam`'s
//                  topics; `carousel mf` and `carousel lda` refuse them with a message
//                  naming the block kind.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carousel/sampler/geodesic.hpp"
#include "carousel/sampler/sampler.hpp"
#include "carousel/sampler/topic_word_update.hpp"

namespace carousel {

// One option of the samplers, bound to its field of SamplerOptions.
struct SamplerOptionSpec {
  std::string flag;  // "--friction"
  std::string help;
  // Exactly one of these points at the field the option sets.
  double SamplerOptions::*real = nullptr;
  int SamplerOptions::*integer = nullptr;
  std::string SamplerOptions::*text = nullptr;
  // Bounds of a number: lo (< or <=) value (< or <=) hi.
  double lo = 0.0, hi = 0.0;
  bool lo_open = false, hi_open = false;
  std::vector<std::string> choices;  // the values a text option takes
  // The default as --help shows it when SamplerOptions{} does not hold it (the model sets
  // it from the data).
  std::string default_text;

  std::string DefaultText() const;  // the default as --help shows it
  std::string BoundsText() const;   // "in (0, 1)", "one of identity, metric, fisher"
};

struct SamplerInfo {
  std::string name;
  std::string summary;                    // one line, for --help
  std::string reference;                  // paper, algorithm and equation
  std::vector<std::string> options;       // flags of the options it reads
  bool factor_blocks = false;             // runs on factor blocks (MakeSampler)
  std::optional<SimplexSampler> simplex;  // runs on simplex blocks, as this update
  std::optional<GeodesicKind> sphere;     // runs on sphere blocks (geodesic.hpp)
  std::function<std::unique_ptr<Sampler>(const SamplerOptions&)> make;  // factor blocks
  // Preconditions with the model's metric G(theta) (SamplerOptions::metric), which the
  // model's command lets the user choose.
  bool riemannian = false;
  // The option giving how many past iterates it remembers (hamcmc's --memory), or empty.
  // A cyclic schedule of strata needs that count and the tile count without a common
  // divisor, or the remembered iterates all come from the same few strata.
  std::string memory_option;
  // What a step must satisfy beyond being positive, given the other options, as the
  // phrase a message ends with ("must be below 1 with --transition ou"); empty when the
  // step satisfies it. Null: nothing more.
  std::function<std::string(const SamplerOptions&, double step)> step_problem;

  bool Reads(const std::string& flag) const;  // whether `flag` is one of its options
};

const std::vector<SamplerOptionSpec>& SamplerOptionSpecs();
const std::vector<SamplerInfo>& SamplerRegistry();

enum class BlockKind { kFactor, kSimplex, kSphere };
// Names of the samplers that run on `kind` blocks, in registry order.
std::vector<std::string> SamplerNames(BlockKind kind);
// The sampler `name` for `kind` blocks; throws SettingError("sampler", ...) naming the
// known samplers (and the closest one) when there is none, and the kind of block it runs on
// when `name` is a sampler of other blocks. `also_known`: names the command takes besides
// the registry's (mf's gibbs), listed among the known ones.
const SamplerInfo& FindSampler(const std::string& name, BlockKind kind,
                               const std::vector<std::string>& also_known = {});
// The registry's sampler `name`, or null (a model's own sampler such as mf's gibbs).
const SamplerInfo* SamplerNamed(const std::string& name);
// Throws SettingError naming the option when a value is out of its bounds.
void CheckSamplerOptions(const SamplerOptions& options);
// The sampler `options.name` for sphere blocks (SGGMC or gSGNHT) with its options; throws
// SettingError as FindSampler and CheckSamplerOptions do.
GeodesicSampler MakeGeodesicSampler(const SamplerOptions& options);

}  // namespace carousel
