// SCIR paper Fig. 2 (Baker, Fearnhead, Fox and Nemeth 2018, "Large-scale stochastic
// sampling from the probability simplex", Sec. 2.2): Kolmogorov-Smirnov distance between
// SCIR / SGRLD draws and exact posterior draws, against the minibatch proportion n / N,
// for (a) the sparse and (b) the dense Dirichlet posterior of the running experiment.
//
// Setup (tests/sampler/dirichlet_experiment.hpp has the data, the samplers' minibatch
// estimates and the exact sampler):
// - d = 10, N = 1000, alpha = 0.1; sparse counts (800, 100, 100, 0, ..., 0) (Sec. 1.3),
//   dense counts 100 per component ("allocates 1000 datapoints equally to each component",
//   Sec. 2.2, read as N = 1000 in total, the harness's DenseProblem()), and "dense1000"
//   with 1000 per component, the other reading (and the one issue #4 names).
// - Minibatch proportions 0.001 ... 0.5 (Sec. 2.2: "varied from 0.001 to 0.5"), i.e.
//   n = 1 ... 500 observations drawn with replacement per iteration.
// - "1000 iterations" per run (Sec. 2.2) after 1000 of burn-in (as for Fig. 1, Sec. 1.3),
//   every iteration kept (no thinning), against 1000 independent exact draws.
// - The KS statistic. Sec. 2.2 defers "full details of the distance measure" to the
//   supplement, which is not in /work/shared/papers. Two are reported, each tuned and
//   plotted on its own:
//     component5: the two-sample KS distance of the fifth component of omega (the sparse,
//       zero-count one that Fig. 1 shows; the dense components are exchangeable). In the
//       sparse case it cannot depend on the minibatch for either sampler: a_hat_5 = alpha
//       and count_hat summed over k is N for every minibatch (dirichlet_experiment.hpp,
//       scir_test.cpp), so both curves are flat there.
//     mean_all: the mean over the d = 10 components of the per-component KS distances.
//       This one involves the minibatch-noisy components, and shows the paper's "SCIR ...
//       converging towards the exact sampler at larger minibatch sizes" (Fig. 2a).
//   Each also has an "Exact" baseline: the same statistic between two independent exact
//   samples (one row per seed, proportion left empty).
// - Five seeds per point, as the paper's "runs of five different seeds".
// - Step sizes. The paper uses "optimally tuned" steps whose values are in its supplement,
//   which we do not have. Our choice: for every (case, sampler, proportion) the step is
//   the one of a fixed 1-2-5 grid with the smallest mean KS over three tuning seeds,
//   distinct from the five reported seeds (so the reported KS is not biased by the
//   selection). A diverged chain (SGRLD only) scores KS = 1.
//
// Output: OUT_DIR/scir_fig2.csv, one row per run: case, metric, sampler, proportion,
// minibatch, step, seed, ks, ks_crit99 (the 0.99 quantile of the two-sample KS distance of 1000
// against 1000 independent draws of one law: what an exact sampler stays below 99% of
// the time), and OUT_DIR/scir_fig2_tuning.csv (mean tuning KS of every grid step).
//
// Usage: scir_fig2 OUT_DIR [--quick]   (--quick: 2 proportions, 1 tuning seed, 2 seeds)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "carousel/util/error.hpp"
#include "dirichlet_experiment.hpp"

using namespace carousel;

namespace {

constexpr std::size_t kDraws = 1000;   // kept iterations and exact draws per run
constexpr std::size_t kComponent = 4;  // 0-based: the paper's fifth component

// Fixed 1-2-5 step grids (our choice, see the header). SCIR's h is the CIR time per
// iteration (Eq. 2.3); SGRLD's eps is Patterson and Teh's step (simplex_sgrld.hpp). Where
// SCIR's tuned h for the sparse component5 statistic reaches the top of the grid, the KS
// is flat there anyway: that component is exact at any h, and from h ~ 0.5 on successive
// draws are already nearly independent.
const std::vector<double> kScirGrid = {5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05,
                                       0.1,  0.2,  0.5,  1,    2,    5};
const std::vector<double> kSgrldGrid = {1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3,
                                        2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1};

// The two KS statistics (see the header): of the fifth component, and the mean over all d
// components of the per-component KS distances.
enum class Metric { kFifth, kMeanAll };

const char* MetricName(Metric m) {
  return m == Metric::kFifth ? "component5" : "mean_all";
}

dirichlet::ChainConfig Config(dirichlet::Method method, double step, std::uint64_t seed,
                              std::size_t component) {
  dirichlet::ChainConfig config;
  config.method = method;
  config.step = step;
  config.burn_in = 1000;
  config.samples = kDraws;
  config.thin = 1;
  config.seed = 1000 + seed;
  config.component = component;
  return config;
}

// KS distance of one run. The chain and its exact reference sample use different seeds;
// every component comes from the same chain (RunChain is deterministic in the seed).
double RunKs(const dirichlet::Problem& problem, dirichlet::Method method, double step,
             std::uint64_t seed, Metric metric) {
  const std::size_t d = problem.counts.size();
  const std::size_t first = metric == Metric::kFifth ? kComponent : 0;
  const std::size_t last = metric == Metric::kFifth ? kComponent + 1 : d;
  double sum = 0;
  for (std::size_t k = first; k < last; ++k) {
    const std::vector<double> exact = dirichlet::ExactSamples(problem, kDraws, 2000 + seed, k);
    try {
      sum +=
          dirichlet::KsDistance(dirichlet::RunChain(problem, Config(method, step, seed, k)), exact);
    } catch (const Error&) {  // SimplexSgrldStep throws on NaN/inf: a diverged chain
      return 1.0;
    }
  }
  return sum / static_cast<double>(last - first);
}

// The same statistic for a second independent exact sample: the exact sampler's baseline.
double ExactKs(const dirichlet::Problem& problem, std::uint64_t seed, Metric metric) {
  const std::size_t d = problem.counts.size();
  const std::size_t first = metric == Metric::kFifth ? kComponent : 0;
  const std::size_t last = metric == Metric::kFifth ? kComponent + 1 : d;
  double sum = 0;
  for (std::size_t k = first; k < last; ++k)
    sum += dirichlet::KsDistance(dirichlet::ExactSamples(problem, kDraws, 3000 + seed, k),
                                 dirichlet::ExactSamples(problem, kDraws, 2000 + seed, k));
  return sum / static_cast<double>(last - first);
}

struct Stats {
  double mean = 0, sd = 0, min = HUGE_VAL, max = -HUGE_VAL;
};

Stats Summarise(const std::vector<double>& v) {
  Stats s;
  for (double x : v) s.mean += x, s.min = std::min(s.min, x), s.max = std::max(s.max, x);
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(s.sd / static_cast<double>(v.size() - 1)) : 0.0;
  return s;
}

void PrintRow(const std::string& name, const std::string& sampler, const char* metric,
              double proportion, std::size_t n, double step, const std::vector<double>& ks,
              std::chrono::steady_clock::time_point start) {
  const Stats st = Summarise(ks);
  char setting[64] = "     -    -       -";  // the exact baseline has no minibatch or step
  if (n > 0) std::snprintf(setting, sizeof setting, "%6g %4zu %7g", proportion, n, step);
  std::printf("%-6s %-10s %-6s %s %7.4f %7.4f %7.4f %7.4f  [%.0f s]\n", name.c_str(), metric,
              sampler.c_str(), setting, st.mean, st.sd, st.min, st.max,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: scir_fig2 OUT_DIR [--quick]\n");
    return 2;
  }
  const std::string out = argv[1];
  const bool quick = argc > 2 && std::string(argv[2]) == "--quick";
  const std::vector<double> proportions =
      quick ? std::vector<double>{0.01, 0.1}
            : std::vector<double>{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5};
  const std::vector<std::uint64_t> tune_seeds =
      quick ? std::vector<std::uint64_t>{1} : std::vector<std::uint64_t>{1, 2, 3};
  const std::vector<std::uint64_t> seeds =
      quick ? std::vector<std::uint64_t>{11, 12} : std::vector<std::uint64_t>{11, 12, 13, 14, 15};
  const double crit = dirichlet::KsTwoSampleQuantile(0.99, kDraws, kDraws);

  std::ofstream csv(out + "/scir_fig2.csv"), tuning(out + "/scir_fig2_tuning.csv");
  if (!csv || !tuning) {
    std::fprintf(stderr, "scir_fig2: cannot write to %s\n", out.c_str());
    return 4;
  }
  csv << "case,metric,sampler,proportion,minibatch,step,seed,ks,ks_crit99\n";
  tuning << "case,metric,sampler,proportion,step,ks_mean\n";
  const auto start = std::chrono::steady_clock::now();
  std::printf("KS 0.99 critical value (1000 vs 1000 independent draws): %.4f\n", crit);
  std::printf("%-6s %-10s %-6s %6s %4s %7s %7s %7s %7s %7s\n", "case", "metric", "sampler", "prop",
              "n", "step", "mean", "sd", "min", "max");
  for (const std::string name : {"sparse", "dense", "dense1000"}) {
    dirichlet::Problem problem = name == "sparse"  ? dirichlet::SparseProblem()
                                 : name == "dense" ? dirichlet::DenseProblem()
                                                   : dirichlet::DenseProblemWithCounts(1000);
    for (const Metric metric : {Metric::kFifth, Metric::kMeanAll}) {
      // The exact sampler's baseline (independent of the minibatch), one row per seed.
      std::vector<double> exact;
      for (std::uint64_t s : seeds) {
        exact.push_back(ExactKs(problem, s, metric));
        csv << name << ',' << MetricName(metric) << ",Exact,,,," << s << ',' << exact.back() << ','
            << crit << '\n';
      }
      PrintRow(name, "Exact", MetricName(metric), 0, 0, 0, exact, start);
      for (const dirichlet::Method method : {dirichlet::Method::kScir, dirichlet::Method::kSgrld}) {
        const std::string sampler = dirichlet::MethodName(method);
        for (double proportion : proportions) {
          problem.minibatch = static_cast<std::size_t>(std::lround(proportion * problem.total()));
          // Tuning: the grid step with the smallest mean KS over the tuning seeds.
          double best_step = 0, best_ks = HUGE_VAL;
          for (double step : method == dirichlet::Method::kScir ? kScirGrid : kSgrldGrid) {
            double ks = 0;
            for (std::uint64_t s : tune_seeds) ks += RunKs(problem, method, step, s, metric);
            ks /= static_cast<double>(tune_seeds.size());
            tuning << name << ',' << MetricName(metric) << ',' << sampler << ',' << proportion
                   << ',' << step << ',' << ks << '\n';
            if (ks < best_ks) best_ks = ks, best_step = step;
          }
          // The reported runs, at the tuned step.
          std::vector<double> ks;
          for (std::uint64_t s : seeds) {
            ks.push_back(RunKs(problem, method, best_step, s, metric));
            csv << name << ',' << MetricName(metric) << ',' << sampler << ',' << proportion << ','
                << problem.minibatch << ',' << best_step << ',' << s << ',' << ks.back() << ','
                << crit << '\n';
          }
          PrintRow(name, sampler, MetricName(metric), proportion, problem.minibatch, best_step, ks,
                   start);
        }
      }
    }
  }
  return 0;
}
