// The data behind two figures of issue 3, as CSV on stdout-named files:
//
//   hamcmc_fig2.csv   HAMCMC paper Fig. 2: relative error of the running posterior-mean
//                     estimate against iterations and seconds, Bayesian linear regression
//                     (Eq. 13, correlated design, sigma_x^2 = 10, N_Omega = N/100), D = 10 and
//                     100, for SGLD, PSGLD and HAMCMC (M = 2, 3), first half of the samples as
//                     burn-in as in the paper. Every sampler gets the same tuning rule (the
//                     paper: "tried several values for the hyper-parameters with the same
//                     rigor"): a grid over its hyper-parameters, the constant step for all and
//                     for HAMCMC also gamma (H^0 = gamma I, Eq. 6) and the trust shift lambda
//                     (Sec. 3.2), scored by the mean error after a quarter of the iterations
//                     of two pilot chains whose seeds (noise and minibatches) differ from the
//                     reported run's; the reported run never takes part in the choice.
//   recipe_density.csv, recipe_paths.csv
//                     Recipe paper Fig. 2: sample densities on the 1-D targets U = theta^2/2 and
//                     U = theta^4 - 2 theta^2 with noisy gradients (sd 2), and the first samples
//                     on the correlated 2-D target U = theta1^4/10 + (4(theta2 + 1.2) -
//                     theta1^2)^2/2.
//
// Usage: sampler_figures OUT_DIR [--quick]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "carousel/sampler/diagonal_metric.hpp"
#include "toy_targets.hpp"

using namespace carousel;

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

SamplerOptions Options(const std::string& name, int memory = 2) {
  SamplerOptions o;
  o.name = name;
  o.memory = memory;
  o.metric = std::make_shared<ConstantDiagonalMetric>(ConstantDiagonalMetric::Uniform(1, 1.0f));
  return o;
}

struct Curve {
  std::vector<std::uint64_t> iteration;
  std::vector<double> seconds, error;
};

// Runs `iterations` steps and records the relative error of the running mean of the second
// half of the samples so far, every `every` iterations.
Curve RegressionCurve(const toy::LinearRegression& p, const SamplerOptions& o, double step,
                      std::uint64_t iterations, std::uint64_t every, std::uint64_t seed) {
  auto sampler = MakeSampler(o);
  Matrix theta0 = Matrix::Zero(1, p.dim);
  SingleBlockChain chain(*sampler, theta0, p.Gradient(seed + 1), seed, p.data);
  std::vector<Eigen::VectorXd> samples;
  Curve c;
  const double start = Now();
  for (std::uint64_t t = 1; t <= iterations; ++t) {
    chain.Step(step);
    samples.push_back(chain.theta().row(0).transpose().cast<double>());
    if (t % every) continue;
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(p.dim);
    for (std::size_t k = samples.size() / 2; k < samples.size(); ++k) mean += samples[k];
    mean /= static_cast<double>(samples.size() - samples.size() / 2);
    double err = (mean - p.mean).norm() / p.mean.norm();
    if (!std::isfinite(err)) err = 1e9;
    c.iteration.push_back(t);
    c.seconds.push_back(Now() - start);
    c.error.push_back(err);
  }
  return c;
}

// One point of a sampler's tuning grid.
struct Setting {
  double step = 0.0;
  double gamma = 1.0;  // HAMCMC only
  double trust = 1.0;  // HAMCMC only
};

// The grid of each sampler. Steps are log-spaced by about 3. SGLD is stable below
// 2 / (largest posterior precision), ~5e-5 at D = 100; PSGLD's step is per datum (N = 10^4).
// HAMCMC moves like SGLD with step eps * gamma where its pairs do not reach (warm-up and the
// directions outside span{s, y}), and like a Newton step of size eps where H ~ Hess^-1, so
// eps and gamma are searched jointly; lambda decides how much of the small curvature the
// approximation keeps ((Hess + lambda I)^-1).
std::vector<Setting> Grid(const std::string& name) {
  const std::vector<double> steps = {1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1};
  std::vector<Setting> grid;
  if (name != "hamcmc") {
    for (double step : steps) grid.push_back({name == "psgld" ? step / 100 : step});
    return grid;
  }
  for (double step : {1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0})
    for (double gamma : {1e-5, 1e-4, 1e-3, 1e-2})
      for (double trust : {1.0, 100.0}) grid.push_back({step, gamma, trust});
  return grid;
}

void HamcmcFig2(const std::string& out, bool quick) {
  std::ofstream f(out + "/hamcmc_fig2.csv");
  f << "sampler,D,step,gamma,lambda,iteration,seconds,error\n";
  const std::uint64_t iterations = quick ? 2000 : 20000;
  // Pilot chains: two seeds, scored by their mean error; the reported chain: another seed.
  const std::vector<std::uint64_t> pilot_seeds = {1, 3};
  const std::uint64_t report_seed = 5;
  for (int dim : {10, 100}) {
    const auto p = toy::LinearRegression::Make(dim, 10000, 0.95, 11);
    for (const auto& [label, options] : std::vector<std::pair<std::string, SamplerOptions>>{
             {"sgld", Options("sgld")},
             {"psgld", Options("psgld")},
             {"hamcmc M=2", Options("hamcmc", 2)},
             {"hamcmc M=3", Options("hamcmc", 3)}}) {
      Setting best;
      double best_error = std::numeric_limits<double>::infinity();
      for (const Setting& setting : Grid(options.name)) {
        SamplerOptions o = options;
        o.initial_scale = setting.gamma;
        o.trust = setting.trust;
        double error = 0.0;
        for (std::uint64_t seed : pilot_seeds)
          error += RegressionCurve(p, o, setting.step, iterations / 4, iterations / 4, seed)
                       .error.back() /
                   static_cast<double>(pilot_seeds.size());
        if (error < best_error) {
          best_error = error;
          best = setting;
        }
      }
      SamplerOptions o = options;
      o.initial_scale = best.gamma;
      o.trust = best.trust;
      const Curve c = RegressionCurve(p, o, best.step, iterations, iterations / 200, report_seed);
      for (std::size_t k = 0; k < c.error.size(); ++k)
        f << label << ',' << dim << ',' << best.step << ',' << best.gamma << ',' << best.trust
          << ',' << c.iteration[k] << ',' << c.seconds[k] << ',' << c.error[k] << '\n';
      std::printf(
          "hamcmc_fig2: D=%d %-10s step %.0e gamma %.0e lambda %g: pilot error %.4g, final "
          "error %.4g in %.2f s\n",
          dim, label.c_str(), best.step, best.gamma, best.trust, best_error, c.error.back(),
          c.seconds.back());
      std::fflush(stdout);
    }
  }
}

// Histogram density of `values` on [lo, hi] in `bins` bins.
void WriteDensity(std::ofstream& f, const std::string& target, const std::string& sampler,
                  const std::vector<double>& values, double lo, double hi, int bins) {
  std::vector<double> count(static_cast<std::size_t>(bins), 0.0);
  for (double v : values) {
    const int b = static_cast<int>((v - lo) / (hi - lo) * bins);
    if (b >= 0 && b < bins) count[static_cast<std::size_t>(b)] += 1;
  }
  const double width = (hi - lo) / bins;
  for (int b = 0; b < bins; ++b)
    f << target << ',' << sampler << ',' << lo + (b + 0.5) * width << ','
      << count[static_cast<std::size_t>(b)] / (values.size() * width) << '\n';
}

void RecipeFig2(const std::string& out, bool quick) {
  std::ofstream dens(out + "/recipe_density.csv");
  dens << "target,sampler,x,density\n";
  const std::uint64_t steps = quick ? 20000 : 200000;
  for (const auto& target : {toy::Target1D::Gaussian(), toy::Target1D::DoubleWell()}) {
    const double lo = target.name == "gaussian" ? -4 : -2, hi = -lo;
    // The true density on the same grid.
    const int bins = 80;
    double z = 0;
    std::vector<double> un(bins);
    for (int b = 0; b < bins; ++b) {
      const double x = lo + (b + 0.5) * (hi - lo) / bins;
      un[static_cast<std::size_t>(b)] = std::exp(-target.potential(x));
      z += un[static_cast<std::size_t>(b)] * (hi - lo) / bins;
    }
    for (int b = 0; b < bins; ++b)
      dens << target.name << ",truth," << lo + (b + 0.5) * (hi - lo) / bins << ','
           << un[static_cast<std::size_t>(b)] / z << '\n';
    for (const std::string name : {"sgld", "sghmc", "sgnht", "sgrhmc"}) {
      SamplerOptions o = Options(name);
      if (name == "sgrhmc")  // supplement F.1: G^-1 = D sqrt(|U + C|), D = 1.5, C = 0.5 (1.5)
        o.metric = std::make_shared<PotentialMetric>(1.5, target.name == "gaussian" ? 0.5 : 1.5,
                                                     toy::ElementPotential(target));
      auto sampler = MakeSampler(o);
      SingleBlockChain chain(*sampler, Matrix::Zero(1, 10), toy::NoisyGradient1D(target, 2.0, 7),
                             9);
      std::vector<double> values;
      for (std::uint64_t t = 0; t < steps; ++t) {
        chain.Step(name == "sgld" ? 0.005 : name == "sgrhmc" ? 0.01 : 0.05);
        if (t > steps / 10 && t % 10 == 0)
          for (int c = 0; c < 10; ++c) values.push_back(chain.theta()(0, c));
      }
      WriteDensity(dens, target.name, name, values, lo, hi, bins);
    }
  }

  std::ofstream paths(out + "/recipe_paths.csv");
  paths << "sampler,iteration,x1,x2\n";
  // grad U for U = theta1^4/10 + (4(theta2 + 1.2) - theta1^2)^2 / 2, with N(0, 1) noise.
  auto gradient = [](const Matrix& th, std::uint64_t t, Matrix& g) {
    KeyedStream s(3, Purpose::kTest, 0, t);
    const double a = th(0, 0), b = th(0, 1), r = 4 * (b + 1.2) - a * a;
    g(0, 0) = static_cast<float>(0.4 * a * a * a - 2 * a * r + s.normal());
    g(0, 1) = static_cast<float>(4 * r + s.normal());
  };
  for (const std::string name : {"sgld", "psgld", "sghmc", "sgnht"}) {
    auto sampler = MakeSampler(Options(name));
    Matrix start(1, 2);
    start << 0.0f, -1.2f;
    SingleBlockChain chain(*sampler, start, gradient, 4);
    for (int t = 0; t < 2000; ++t) {
      chain.Step(name == "sgld" ? 0.005 : name == "psgld" ? 0.001 : 0.05);
      if (t % 4 == 0)
        paths << name << ',' << t << ',' << chain.theta()(0, 0) << ',' << chain.theta()(0, 1)
              << '\n';
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sampler_figures OUT_DIR [--quick]\n");
    return 2;
  }
  const bool quick = argc > 2 && std::string(argv[2]) == "--quick";
  HamcmcFig2(argv[1], quick);
  RecipeFig2(argv[1], quick);
  return 0;
}
