// Gradient-plus-update throughput of one process, in ratings per second, at several K.
//
// Two figures per K:
//   kernel:    the minibatch gradient pass alone (AccumulateTileGradient), the part
//              comparable to one epoch of SGD in LIBMF;
//   iteration: whole engine iterations on one rank (gradient pass, the sampler update of
//              every user and item row with its Gaussian noise, bookkeeping), with
//              evaluation switched off.
// Data: MovieLens-1M-shaped synthetic ratings from GenerateMf. Usage:
//   mf_throughput [--ratings N] [--sampler psgld|sgld] [--seconds S]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/model/bpmf/bpmf.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"

using namespace carousel;

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

RatingMatrix MakeRatings(const GeneratedRatings& g, std::uint32_t users, std::uint32_t items) {
  RatingMatrix m{users, items, {}};
  for (std::size_t n = 0; n < g.rating.size(); ++n)
    m.entries.push_back({g.user[n], g.item[n], g.rating[n]});
  return m;
}

// The gradient pass over one tile holding all ratings, repeated for `seconds`.
double KernelRate(const RatingMatrix& m, int k, double seconds) {
  BpmfShape shape{k, true};
  TileShare share;
  const MfProblem p = WholeMfProblem(m, {}, 1, 1, &share);
  TileRatings tile;
  tile.row_start.assign(m.rows + 1, 0);
  for (const Rating& r : m.entries) tile.row_start[r.row + 1]++;
  for (std::uint32_t r = 0; r < m.rows; ++r) tile.row_start[r + 1] += tile.row_start[r];
  tile.col.resize(m.entries.size());
  tile.value.resize(m.entries.size());
  std::vector<std::uint32_t> fill(tile.row_start.begin(), tile.row_start.end() - 1);
  for (const Rating& r : m.entries) {  // generator output is sorted by user
    tile.col[fill[r.row]] = r.col;
    tile.value[fill[r.row]++] = r.value;
  }
  Matrix w = Matrix::Constant(m.rows, shape.width(), 0.1f);
  Matrix h = Matrix::Constant(m.cols, shape.width(), 0.1f);
  Matrix gw(w.rows(), w.cols()), gh(h.rows(), h.cols());
  std::uint64_t done = 0;
  const double start = Now();
  double sse = 0;
  while (Now() - start < seconds) {
    gw.setZero();
    gh.setZero();
    sse += AccumulateTileGradient(tile, w, h, shape, p.mu, 1.0f, Subsample{}, gw, gh).sse;
    done += tile.size();
  }
  if (sse < 0) std::printf("impossible\n");  // keeps the loop from being optimised away
  return static_cast<double>(done) / (Now() - start);
}

double IterationRate(const RatingMatrix& m, int k, const std::string& sampler, double seconds) {
  MfConfig c;
  c.shape = BpmfShape{k, true};
  c.sampler.name = sampler;
  c.step.a = sampler == "sgld" ? 1e-4 : 0.05 / m.entries.size();
  c.chain.tiles = 1;
  c.chain.iterations = 1u << 30;
  c.chain.eval_every = 1u << 30;
  c.chain.burn_in = 0;
  auto comm = MakeSerialCommunicator();
  TileShare share;
  const MfProblem p = WholeMfProblem(m, {}, c.chain.tiles, c.chain.seed, &share);
  BpmfModel model(c, p, std::move(share));
  TileEngine engine(*comm, model, c.chain);
  EngineCallbacks callbacks;
  const double start = Now();
  std::uint64_t iterations = 0;
  callbacks.requests = [&] {
    ++iterations;
    return Now() - start > seconds ? kRequestStop : 0;
  };
  callbacks.on_checkpoint = [](std::uint64_t, const std::string&) {};
  const double begin = Now();
  engine.Run(callbacks);
  // The stop request writes one checkpoint payload; subtract nothing (it is small) but
  // count only the iterations that ran.
  return static_cast<double>(iterations * m.entries.size()) / (Now() - begin);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t ratings = 1000209;
  std::string sampler = "psgld";
  double seconds = 3.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--ratings")) ratings = std::stoull(argv[i + 1]);
    if (!std::strcmp(argv[i], "--sampler")) sampler = argv[i + 1];
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::stod(argv[i + 1]);
  }
  MfGeneratorOptions g;
  g.ratings = ratings;
  const GeneratedRatings data = GenerateMf(g);
  const RatingMatrix problem = MakeRatings(data, g.users, g.items);
  std::printf("K,kernel_ratings_per_s,iteration_ratings_per_s,sampler,ratings\n");
  for (int k : {10, 32, 100}) {
    const double kernel = KernelRate(problem, k, seconds);
    const double iteration = IterationRate(problem, k, sampler, seconds);
    std::printf("%d,%.4g,%.4g,%s,%llu\n", k, kernel, iteration, sampler.c_str(),
                static_cast<unsigned long long>(ratings));
    std::fflush(stdout);
  }
  return 0;
}
