#include "carousel/sampler/registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "carousel/sampler/hamcmc.hpp"
#include "carousel/sampler/psgld.hpp"
#include "carousel/sampler/sghmc.hpp"
#include "carousel/sampler/sgld.hpp"
#include "carousel/sampler/sgnht.hpp"
#include "carousel/sampler/sgrhmc.hpp"
#include "carousel/sampler/sgrld.hpp"
#include "carousel/util/closest_name.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

SamplerOptionSpec Real(std::string flag, double SamplerOptions::*field, double lo, bool lo_open,
                       double hi, bool hi_open, std::string help) {
  SamplerOptionSpec s;
  s.flag = std::move(flag);
  s.real = field;
  s.lo = lo;
  s.lo_open = lo_open;
  s.hi = hi;
  s.hi_open = hi_open;
  s.help = std::move(help);
  return s;
}

SamplerOptionSpec Choice(std::string flag, std::string SamplerOptions::*field,
                         std::vector<std::string> choices, std::string help) {
  SamplerOptionSpec s;
  s.flag = std::move(flag);
  s.text = field;
  s.choices = std::move(choices);
  s.help = std::move(help);
  return s;
}

std::string Number(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::vector<SamplerOptionSpec> MakeSpecs() {
  std::vector<SamplerOptionSpec> specs;
  specs.push_back(Real("--rmsprop-alpha", &SamplerOptions::rmsprop_alpha, 0.0, false, 1.0, true,
                       "PSGLD: decay alpha of the squared-gradient average v"));
  SamplerOptionSpec lambda = Real("--rmsprop-lambda", &SamplerOptions::rmsprop_lambda, 0.0, true,
                                  kInf, true, "PSGLD: floor lambda of H = 1 / (lambda + sqrt(v))");
  lambda.default_text = "set by the model (mf: 2 / training ratings)";
  specs.push_back(lambda);
  specs.push_back(Real("--friction", &SamplerOptions::friction, 0.0, true, kInf, true,
                       "SGHMC: friction C; SGNHT: diffusion A; SGGMC/gSGNHT: friction C"));
  specs.push_back(Real("--noise-estimate", &SamplerOptions::noise_estimate, 0.0, false, kInf, true,
                       "SGHMC/SGNHT/SGRHMC: estimate B of the gradient-noise variance"));
  specs.push_back(
      Real("--mass", &SamplerOptions::mass, 0.0, true, kInf, true, "SGHMC: mass M (diagonal)"));
  SamplerOptionSpec memory;
  memory.flag = "--memory";
  memory.integer = &SamplerOptions::memory;
  memory.lo = 2;
  memory.hi = 20;
  memory.help = "HAMCMC: interleaved sub-chains and L-BFGS memory M";
  specs.push_back(memory);
  specs.push_back(Real("--trust", &SamplerOptions::trust, 0.0, true, kInf, true,
                       "HAMCMC: lambda of y_t += lambda s_t"));
  specs.push_back(Real("--initial-scale", &SamplerOptions::initial_scale, 0.0, true, kInf, true,
                       "HAMCMC: gamma of the initial inverse Hessian H0"));
  specs.push_back(Choice(
      "--initial-metric", &SamplerOptions::initial_metric, {"identity", "metric", "fisher"},
      "HAMCMC: H0 = gamma I (identity), gamma G^-1 with the model's metric (metric), or gamma "
      "(prior + trust + Fisher information at the newest sample)^-1 (fisher)"));
  specs.push_back(Real("--thermostat-initial", &SamplerOptions::thermostat_initial, 0.0, false,
                       kInf, true, "gSGNHT: initial thermostat xi_0 (Alg. 2: xi_0 = C)"));
  specs.push_back(Choice(
      "--diffusion", &SamplerOptions::diffusion, {"zero", "fisher"},
      "SGGMC/gSGNHT: estimate V of the gradient noise in Eq. 8, zero or the diagonal empirical "
      "Fisher information of the minibatch"));
  SamplerOptionSpec transition = Choice(
      "--transition", &SamplerOptions::transition, {"euler", "ou"},
      "SGRLD: euler (Eq. 14, noise 2 eps G^-1) or ou (noise (2 eps - eps^2) G^-1, exact for a "
      "Gaussian whose precision the metric matches; needs --step < 1)");
  transition.default_text = "set by the model (mf: ou; otherwise euler)";
  specs.push_back(transition);
  return specs;
}

std::vector<SamplerInfo> MakeRegistry() {
  std::vector<SamplerInfo> r;
  SamplerInfo sgld;
  sgld.name = "sgld";
  sgld.summary = "stochastic gradient Langevin dynamics";
  sgld.reference = "Welling and Teh 2011; recipe paper (Ma et al. 2015) Eq. 13 with D = I";
  sgld.factor_blocks = true;
  sgld.make = [](const SamplerOptions&) { return std::make_unique<Sgld>(); };
  r.push_back(sgld);

  SamplerInfo psgld;
  psgld.name = "psgld";
  psgld.summary = "SGLD with an RMSprop diagonal preconditioner";
  psgld.reference = "Li et al. 2016, Alg. 1; HAMCMC paper Sec. 3.1";
  psgld.options = {"--rmsprop-alpha", "--rmsprop-lambda"};
  psgld.factor_blocks = true;
  psgld.make = [](const SamplerOptions& o) {
    return std::make_unique<Psgld>(o.rmsprop_alpha, o.rmsprop_lambda);
  };
  r.push_back(psgld);

  SamplerInfo sghmc;
  sghmc.name = "sghmc";
  sghmc.summary = "stochastic gradient Hamiltonian Monte Carlo";
  sghmc.reference = "Chen, Fox and Guestrin 2014; recipe paper (Ma et al. 2015) Eq. 12";
  sghmc.options = {"--friction", "--noise-estimate", "--mass"};
  sghmc.factor_blocks = true;
  sghmc.make = [](const SamplerOptions& o) {
    return std::make_unique<Sghmc>(o.friction, o.noise_estimate, o.mass);
  };
  r.push_back(sghmc);

  SamplerInfo sgnht;
  sgnht.name = "sgnht";
  sgnht.summary = "stochastic gradient Nose-Hoover thermostat (one global thermostat)";
  sgnht.reference = "Ding et al. 2014; recipe paper Eq. 15";
  sgnht.options = {"--friction", "--noise-estimate"};
  sgnht.factor_blocks = true;
  sgnht.make = [](const SamplerOptions& o) {
    return std::make_unique<Sgnht>(o.friction, o.noise_estimate);
  };
  r.push_back(sgnht);

  SamplerInfo sgrld;
  sgrld.name = "sgrld";
  sgrld.summary = "stochastic gradient Riemannian Langevin dynamics with the model's metric";
  sgrld.reference = "Patterson and Teh 2013 (simplex: expanded-mean form); recipe paper Eq. 14";
  sgrld.options = {"--transition"};
  sgrld.factor_blocks = true;
  sgrld.simplex = SimplexSampler::kSgrld;
  sgrld.riemannian = true;
  // The OU transition contracts by 1 - eps a step (Sgrld::NoiseVariance).
  sgrld.step_problem = [](const SamplerOptions& o, double step) -> std::string {
    return o.transition == "ou" && step >= 1.0 ? "must be below 1 with --transition ou" : "";
  };
  sgrld.make = [](const SamplerOptions& o) -> std::unique_ptr<Sampler> {
    if (!o.metric) throw SettingError("sampler", "sgrld needs a metric G(theta) from the model");
    return std::make_unique<Sgrld>(o.metric, o.transition == "ou");
  };
  r.push_back(sgrld);

  SamplerInfo sgrhmc;
  sgrhmc.name = "sgrhmc";
  sgrhmc.summary = "stochastic gradient Riemannian HMC with the model's metric";
  sgrhmc.reference = "recipe paper (Ma et al. 2015), Sec. 3.2, Eq. 17 and Alg. 1";
  sgrhmc.options = {"--noise-estimate"};
  sgrhmc.factor_blocks = true;
  sgrhmc.simplex = SimplexSampler::kSgrhmc;
  sgrhmc.riemannian = true;
  sgrhmc.make = [](const SamplerOptions& o) -> std::unique_ptr<Sampler> {
    if (!o.metric) throw SettingError("sampler", "sgrhmc needs a metric G(theta) from the model");
    return std::make_unique<Sgrhmc>(o.metric, o.noise_estimate);
  };
  r.push_back(sgrhmc);

  SamplerInfo hamcmc;
  hamcmc.name = "hamcmc";
  hamcmc.summary = "Hessian-approximated MCMC: L-BFGS preconditioned SGLD";
  hamcmc.reference = "Simsekli et al. 2016, Alg. 1 with Eq. 6, 10 and 11";
  hamcmc.options = {"--memory", "--trust", "--initial-scale", "--initial-metric"};
  hamcmc.factor_blocks = true;
  hamcmc.memory_option = "--memory";
  hamcmc.make = [](const SamplerOptions& o) -> std::unique_ptr<Sampler> {
    const std::string& kind = o.initial_metric;
    std::shared_ptr<const DiagonalMetric> h0;
    if (kind != "identity") {
      if (!o.metric)
        throw SettingError("initial-metric", kind + ": the model supplies no metric G(theta)");
      h0 = o.metric;
    }
    return std::make_unique<Hamcmc>(o.memory, o.trust, o.initial_scale, h0, kind == "fisher");
  };
  r.push_back(hamcmc);

  SamplerInfo scir;
  scir.name = "scir";
  scir.summary = "stochastic Cox-Ingersoll-Ross process: exact simplex sampling";
  scir.reference = "Baker et al. 2018 (SCIR paper), Alg. 1 / Eq. 2.3";
  scir.simplex = SimplexSampler::kScir;
  r.push_back(scir);

  SamplerInfo sggmc;
  sggmc.name = "sggmc";
  sggmc.summary = "stochastic gradient geodesic Monte Carlo on unit vectors";
  sggmc.reference = "Liu, Zhu and Song 2016, Sec. 3.3 (Eq. 7, 8), supplement Alg. 1";
  sggmc.options = {"--friction", "--diffusion"};
  sggmc.sphere = GeodesicKind::kSggmc;
  r.push_back(sggmc);

  SamplerInfo gsgnht;
  gsgnht.name = "gsgnht";
  gsgnht.summary = "geodesic stochastic gradient Nose-Hoover thermostat on unit vectors";
  gsgnht.reference = "Liu, Zhu and Song 2016, Sec. 3.3 (Eq. 7, 8), supplement Alg. 2";
  gsgnht.options = {"--friction", "--thermostat-initial", "--diffusion"};
  gsgnht.sphere = GeodesicKind::kGsgnht;
  r.push_back(gsgnht);
  return r;
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::string SamplerOptionSpec::DefaultText() const {
  if (!default_text.empty()) return default_text;
  const SamplerOptions defaults;
  if (real) return Number(defaults.*real);
  if (integer) return std::to_string(defaults.*integer);
  return defaults.*text;
}

std::string SamplerOptionSpec::BoundsText() const {
  if (text) return "one of " + Join(choices);
  const std::string hi_text = std::isinf(hi) ? "inf" : Number(hi);
  return std::string("in ") + (lo_open ? "(" : "[") + Number(lo) + ", " + hi_text +
         (hi_open ? ")" : "]");
}

const std::vector<SamplerOptionSpec>& SamplerOptionSpecs() {
  static const std::vector<SamplerOptionSpec> specs = MakeSpecs();
  return specs;
}

const std::vector<SamplerInfo>& SamplerRegistry() {
  static const std::vector<SamplerInfo> registry = MakeRegistry();
  return registry;
}

namespace {

bool RunsOn(const SamplerInfo& s, BlockKind kind) {
  switch (kind) {
    case BlockKind::kFactor:
      return s.factor_blocks;
    case BlockKind::kSimplex:
      return s.simplex.has_value();
    case BlockKind::kSphere:
      return s.sphere.has_value();
  }
  return false;
}

std::string BlocksText(const SamplerInfo& s) {
  std::string text;
  if (s.factor_blocks) text += "factor";
  if (s.simplex) text += std::string(text.empty() ? "" : ", ") + "simplex";
  if (s.sphere) text += std::string(text.empty() ? "" : ", ") + "sphere (unit-vector)";
  return text;
}

}  // namespace

std::vector<std::string> SamplerNames(BlockKind kind) {
  std::vector<std::string> names;
  for (const SamplerInfo& s : SamplerRegistry())
    if (RunsOn(s, kind)) names.push_back(s.name);
  return names;
}

const SamplerInfo& FindSampler(const std::string& name, BlockKind kind,
                               const std::vector<std::string>& also_known) {
  std::vector<std::string> names = SamplerNames(kind);
  for (const SamplerInfo& s : SamplerRegistry())
    if (s.name == name && std::find(names.begin(), names.end(), name) != names.end()) return s;
  for (const SamplerInfo& s : SamplerRegistry())
    if (s.name == name)
      throw SettingError("sampler", "sampler '" + name + "' runs on " + BlocksText(s) +
                                        " blocks only, not on this model's; choose one of " +
                                        Join(names));
  names.insert(names.end(), also_known.begin(), also_known.end());
  std::string message = "unknown sampler '" + name + "' (known: " + Join(names) + ")";
  if (const auto closest = ClosestName(name, names)) message += "; did you mean " + *closest + "?";
  throw SettingError("sampler", message);
}

const SamplerInfo* SamplerNamed(const std::string& name) {
  for (const SamplerInfo& s : SamplerRegistry())
    if (s.name == name) return &s;
  return nullptr;
}

bool SamplerInfo::Reads(const std::string& flag) const {
  return std::find(options.begin(), options.end(), flag) != options.end();
}

GeodesicSampler MakeGeodesicSampler(const SamplerOptions& options) {
  const SamplerInfo& info = FindSampler(options.name, BlockKind::kSphere);
  CheckSamplerOptions(options);
  return GeodesicSampler(
      *info.sphere, options.friction, options.thermostat_initial,
      options.diffusion == "fisher" ? GeodesicDiffusion::kFisher : GeodesicDiffusion::kZero);
}

void CheckSamplerOptions(const SamplerOptions& options) {
  // A SettingError names the option as the registry declares it, without its "--".
  const auto setting = [](const SamplerOptionSpec& s) { return s.flag.substr(2); };
  for (const SamplerOptionSpec& s : SamplerOptionSpecs()) {
    if (s.text) {
      const std::string& v = options.*s.text;
      if (std::find(s.choices.begin(), s.choices.end(), v) == s.choices.end())
        throw SettingError(setting(s), "must be " + s.BoundsText() + ", got '" + v + "'");
      continue;
    }
    const double v = s.real ? options.*s.real : static_cast<double>(options.*s.integer);
    const bool above = s.lo_open ? v > s.lo : v >= s.lo;
    const bool below = s.hi_open ? v < s.hi : v <= s.hi;
    if (!(above && below)) throw SettingError(setting(s), "must be " + s.BoundsText());
  }
}

}  // namespace carousel
