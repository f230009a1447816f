// DpmixModel: the minibatched slice sampler of dpmix_model.hpp on the tile engine.
#include "carousel/model/dpmix/dpmix_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/model/column_ring.hpp"
#include "carousel/sampler/scir.hpp"
#include "carousel/sampler/simplex_sgrld.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/mix64.hpp"

namespace carousel {
namespace {

constexpr std::uint64_t kNoComponent = std::numeric_limits<std::uint64_t>::max();
enum class Role : std::uint8_t { kTrain, kHeldOut, kEmpty };

Role RoleOf(const Corpus& corpus, std::uint32_t d, double fraction, std::uint64_t seed) {
  if (corpus.doc_start[d] == corpus.doc_start[d + 1]) return Role::kEmpty;
  // The same split as LDA's documents (Purpose::kSplit keyed by the observation id).
  if (fraction > 0.0 && KeyedStream(seed, Purpose::kSplit, d, 0).uniform() < fraction)
    return Role::kHeldOut;
  return Role::kTrain;
}

double LogAddExp(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Observations of one role in a row-block, their entries grouped by column block.
struct Observations {
  std::vector<std::uint32_t> id;     // global observation ids, local order
  std::vector<std::uint64_t> start;  // entries of (o, j): [start[o B + j], start[o B + j + 1])
  std::vector<std::uint32_t> cat;    // category, as its index within its column block
  std::vector<std::uint32_t> cnt;
  std::vector<double> n;            // n_i
  std::vector<double> log_coef;     // log n_i! - sum_c log x_ic!
  std::vector<double> log_dirmult;  // log DirMult(x_i; a), the rest measure's predictive
  std::size_t size() const { return id.size(); }
};

struct RowBlock {
  int id = 0;
  Observations train, held;
  std::vector<std::uint64_t> z;  // per training observation: component serial
  // Per training observation: how often each serial held it at the collected samples.
  std::vector<std::map<std::uint64_t, std::uint32_t>> mode;
  std::vector<double> log_pred_sum;      // per held-out: log sum of collected p(x | G)
  std::vector<std::uint64_t> held_best;  // per held-out: its likeliest component, last eval
  std::vector<double> phi_sum;           // K x |column block id|: sum of collected omega
};

void PutObsState(ByteWriter& out, const RowBlock& rb) {
  out.PutVector(rb.z);
  std::vector<std::uint64_t> flat;
  for (const auto& m : rb.mode) {
    flat.push_back(m.size());
    for (const auto& [s, c] : m) {
      flat.push_back(s);
      flat.push_back(c);
    }
  }
  out.PutVector(flat);
  out.PutVector(rb.log_pred_sum);
  out.PutVector(rb.held_best);
  out.PutVector(rb.phi_sum);
}

// The survey of the observations of row blocks [first_block, end_block).
DpmixSurvey SurveyRows(const Corpus& corpus, const DpmixConfig& config, const TileGrid* grid,
                       int first_block, int end_block) {
  DpmixSurvey s;
  s.stratum_sizes.assign(static_cast<std::size_t>(grid->blocks()), 0);
  const int Bb = grid->blocks();
  for (int b = first_block; b < end_block; ++b) {
    for (std::uint32_t d : grid->rows().Members(b)) {
      std::uint64_t hash = SplitMix64(d);
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
        hash = SplitMix64(hash ^ (std::uint64_t{corpus.word[e]} << 32 | corpus.count[e]));
      s.checksum += hash;
      const Role role = RoleOf(corpus, d, config.test_fraction, config.split_seed);
      if (role == Role::kEmpty) {
        s.empty++;
        continue;
      }
      s.entries += corpus.doc_start[d + 1] - corpus.doc_start[d];
      if (role == Role::kHeldOut) {
        s.held_out++;
        continue;
      }
      s.train++;
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e) {
        const int j = grid->cols().BlockOf(corpus.word[e]);
        s.stratum_sizes[static_cast<std::size_t>(((j - b) % Bb + Bb) % Bb)]++;
      }
    }
  }
  return s;
}

}  // namespace

struct DpmixModel::Impl {
  Impl(const DpmixConfig& config, const Corpus& corpus, std::optional<DpmixSurvey> survey)
      : config_(config), corpus_(corpus), given_survey_(std::move(survey)) {}

  int B() const { return grid_->blocks(); }
  std::size_t K() const { return serial_.size(); }
  std::size_t Words(int j) const { return grid_->cols().Members(j).size(); }
  double Total() const {
    double total = g_rest_;
    for (double g : g_) total += g;
    return total;
  }
  std::size_t IndexOf(std::uint64_t serial) const {
    const auto it = std::lower_bound(serial_.begin(), serial_.end(), serial);
    if (it == serial_.end() || *it != serial)
      throw Error(ExitCode::kInternal, "dpmix: allocation to a component that does not exist");
    return static_cast<std::size_t>(it - serial_.begin());
  }
  double q() const { return std::min(1.0, config_.minibatch / static_cast<double>(survey_.train)); }

  std::vector<std::uint64_t> Attach(const TileRun& run);
  Observations Build(const std::vector<std::uint32_t>& ids) const;
  void AppendFreshRow(int j, std::vector<double>& theta, std::uint64_t serial) const;
  void AddComponent(double g);
  void RemoveComponent(std::size_t k);
  void RefreshTotals();
  void CountAllocations();
  void Tour(int home, const std::function<void(std::size_t r, int j, const double* theta)>& visit);
  void Iterate(std::uint64_t t, int stratum);
  void UpdateWeights(std::uint64_t t);
  void UpdateAlpha(std::uint64_t t);
  void Evaluate(const EvaluationContext& ctx);
  std::string Fingerprint() const;

  DpmixConfig config_;
  const Corpus& corpus_;
  std::optional<DpmixSurvey> given_survey_;
  DpmixSurvey survey_;
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;

  std::vector<RowBlock> rows_;
  std::map<int, std::vector<double>> cols_;  // theta, K x |block|, component-major

  // Global state, the same on every rank.
  std::vector<std::uint64_t> serial_;  // ascending: components are appended, never reordered
  std::vector<double> g_;              // unnormalised weights
  double g_rest_ = 1.0;
  double alpha_ = 1.0;
  std::uint64_t next_serial_ = 0;
  std::vector<double> m_;                // occupied counts
  std::vector<double> theta_total_;      // theta_k. (refreshed when needed)
  std::vector<double> w_sum_, present_;  // collected weights, and samples each was there
  std::uint64_t collected_ = 0;
  double eval_seconds_ = 0.0;
  bool finite_ = true;
  std::vector<DpmixTraceRow> trace_;
};

Observations DpmixModel::Impl::Build(const std::vector<std::uint32_t>& ids) const {
  Observations o;
  o.id = ids;
  const std::size_t Bs = static_cast<std::size_t>(B());
  o.start.assign(ids.size() * Bs + 1, 0);
  const double d_cat = static_cast<double>(corpus_.vocabulary), a = config_.a;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint32_t d = ids[i];
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> by_block(Bs);
    double n = 0.0, log_coef = 0.0, log_dm = 0.0;
    for (std::uint64_t e = corpus_.doc_start[d]; e < corpus_.doc_start[d + 1]; ++e) {
      const std::uint32_t w = corpus_.word[e], c = corpus_.count[e];
      by_block[static_cast<std::size_t>(grid_->cols().BlockOf(w))].push_back(
          {grid_->cols().LocalIndex(w), c});
      n += c;
      log_coef -= std::lgamma(c + 1.0);
      log_dm += std::lgamma(a + c) - std::lgamma(a);
    }
    log_coef += std::lgamma(n + 1.0);
    log_dm += std::lgamma(d_cat * a) - std::lgamma(d_cat * a + n) + log_coef;
    for (std::size_t j = 0; j < Bs; ++j) {
      for (const auto& [w, c] : by_block[j]) {
        o.cat.push_back(w);
        o.cnt.push_back(c);
      }
      o.start[i * Bs + j + 1] = o.cat.size();
    }
    o.n.push_back(n);
    o.log_coef.push_back(log_coef);
    o.log_dirmult.push_back(log_dm);
  }
  return o;
}

std::vector<std::uint64_t> DpmixModel::Impl::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  survey_ = given_survey_ ? *given_survey_ : SurveyRows(corpus_, config_, grid_, 0, B());
  if (survey_.train == 0) return survey_.stratum_sizes;  // the command reports it
  alpha_ = config_.alpha_shape / config_.alpha_rate;     // the prior mean, until FinishInit
  for (int k = 0; k < config_.init_components; ++k) serial_.push_back(next_serial_++);
  g_.assign(K(), 1.0);
  m_.assign(K(), 0.0);
  w_sum_.assign(K(), 0.0);
  present_.assign(K(), 0.0);
  for (int b : run.row_blocks) {
    RowBlock rb;
    rb.id = b;
    std::vector<std::uint32_t> train, held;
    for (std::uint32_t d : grid_->rows().Members(b)) {
      const Role role = RoleOf(corpus_, d, config_.test_fraction, config_.split_seed);
      if (role == Role::kTrain) train.push_back(d);
      if (role == Role::kHeldOut) held.push_back(d);
    }
    rb.train = Build(train);
    rb.held = Build(held);
    for (std::uint32_t d : train)  // spread over the initial components, keyed by id
      rb.z.push_back(KeyedStream(config_.seed, Purpose::kInitRow, d, 0).below(K()));
    rb.mode.resize(train.size());
    rb.log_pred_sum.assign(held.size(), -INFINITY);
    rb.held_best.assign(held.size(), kNoComponent);
    rb.phi_sum.assign(K() * Words(b), 0.0);
    rows_.push_back(std::move(rb));
  }
  return survey_.stratum_sizes;
}

// theta_kc ~ Gamma(a, 1) for every category of block j, keyed by (category, serial): the
// same values on whichever rank holds the block when the component is created.
void DpmixModel::Impl::AppendFreshRow(int j, std::vector<double>& theta,
                                      std::uint64_t serial) const {
  for (std::uint32_t c : grid_->cols().Members(j)) {
    KeyedStream rng(config_.seed, Purpose::kDpComponent, c, serial);
    theta.push_back(std::max(rng.gamma(config_.a), kScirFloor));
  }
}

void DpmixModel::Impl::AddComponent(double g) {
  if (K() >= static_cast<std::size_t>(config_.max_components))
    throw Error(ExitCode::kDiverged,
                "dpmix: the slice sampler asks for more than " +
                    std::to_string(config_.max_components) +
                    " components (alpha = " + std::to_string(alpha_) +
                    "); raise --max-components or check --alpha-shape/--alpha-rate");
  const std::uint64_t serial = next_serial_++;
  serial_.push_back(serial);
  g_.push_back(g);
  m_.push_back(0.0);
  w_sum_.push_back(0.0);
  present_.push_back(0.0);
  for (auto& [j, theta] : cols_) AppendFreshRow(j, theta, serial);
  for (RowBlock& rb : rows_) rb.phi_sum.resize(K() * Words(rb.id), 0.0);
}

void DpmixModel::Impl::RemoveComponent(std::size_t k) {
  const auto at = [k](auto& v) { v.erase(v.begin() + static_cast<std::ptrdiff_t>(k)); };
  at(serial_);
  at(g_);
  at(m_);
  at(w_sum_);
  at(present_);
  if (theta_total_.size() > k) at(theta_total_);
  const auto erase_row = [k](std::vector<double>& v, std::size_t width) {
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(k * width),
            v.begin() + static_cast<std::ptrdiff_t>((k + 1) * width));
  };
  for (auto& [j, theta] : cols_) erase_row(theta, Words(j));
  for (RowBlock& rb : rows_) erase_row(rb.phi_sum, Words(rb.id));
}

// theta_k. over every category: K numbers per held block, added in block order.
void DpmixModel::Impl::RefreshTotals() {
  KeyedPartials partials;
  for (const auto& [j, theta] : cols_) {
    auto& sum = partials[j];
    sum.assign(K(), 0.0);
    const std::size_t W = Words(j);
    for (std::size_t k = 0; k < K(); ++k)
      for (std::size_t w = 0; w < W; ++w) sum[k] += theta[k * W + w];
  }
  theta_total_ = OrderedSum(*comm_, partials, K());
}

// m_k over all training observations (per row-block, added in row-block order).
void DpmixModel::Impl::CountAllocations() {
  KeyedPartials partials;
  for (const RowBlock& rb : rows_) {
    auto& counts = partials[rb.id];
    counts.assign(K(), 0.0);
    for (std::uint64_t s : rb.z) counts[IndexOf(s)] += 1.0;
  }
  m_ = OrderedSum(*comm_, partials, K());
}

// visit(r, j, theta) for every row-block r of this rank and every column block j, with
// theta the current values of block j: copies make B - 1 ring steps from the blocks'
// places at stratum `home` (as LDA's evaluation), so no rank holds more blocks at once than
// during training.
void DpmixModel::Impl::Tour(int home,
                            const std::function<void(std::size_t, int, const double*)>& visit) {
  std::map<int, std::vector<double>> visiting;
  for (int b = 0; b < B(); ++b) {
    const int stratum = (home + b) % B();
    if (b > 0) {
      const int before = (home + b - 1) % B();
      auto held = [&](int j) -> const std::vector<double>& {
        return b == 1 ? cols_.at(j) : visiting.at(j);
      };
      auto pending = StartColumnMoves(
          *comm_, *grid_, *layout_, before, stratum,
          [&](int j) {
            const auto& v = held(j);
            return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
          },
          [&](int j) { return K() * Words(j) * sizeof(double); });
      std::map<int, std::vector<double>> next;
      for (const RowBlock& rb : rows_) {
        const int j = grid_->ColBlockInStratum(rb.id, stratum);
        if (layout_->RankOfColBlock(*grid_, j, before) == comm_->rank()) next[j] = held(j);
      }
      for (Message& msg : comm_->FinishExchange(std::move(pending))) {
        std::vector<double>& v = next[msg.tag];
        v.resize(K() * Words(msg.tag));
        if (msg.bytes.size() != v.size() * sizeof(double))
          throw Error(ExitCode::kInternal, "dpmix: column block copy of unexpected size");
        std::memcpy(v.data(), msg.bytes.data(), msg.bytes.size());
      }
      visiting = std::move(next);
    }
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      const int j = grid_->ColBlockInStratum(rows_[r].id, stratum);
      visit(r, j, b == 0 ? cols_.at(j).data() : visiting.at(j).data());
    }
  }
}

// Step 1 of the header: Escobar and West (1995), Sec. 6, given K occupied of L.
void DpmixModel::Impl::UpdateAlpha(std::uint64_t t) {
  KeyedStream rng(config_.seed, Purpose::kDpAlpha, 0, t);
  const double L = static_cast<double>(survey_.train), Kocc = static_cast<double>(K());
  const double x = rng.gamma(alpha_ + 1.0), y = rng.gamma(L);
  const double eta = x / (x + y);  // Beta(alpha + 1, L)
  const double rate = config_.alpha_rate - std::log(eta);
  const double odds = (config_.alpha_shape + Kocc - 1.0) / (L * rate);
  const double shape = rng.uniform() < odds / (1.0 + odds) ? config_.alpha_shape + Kocc
                                                           : config_.alpha_shape + Kocc - 1.0;
  alpha_ = std::max(rng.gamma(shape) / rate, 1e-300);
}

// Step 2: the weights (g_1..g_K, g_rest) move under Dirichlet(m_1..m_K, alpha) (D1).
void DpmixModel::Impl::UpdateWeights(std::uint64_t t) {
  KeyedStream rng(config_.seed, Purpose::kDpWeights, 0, t);
  const double h = config_.weight_step.At(t);
  if (config_.sampler == SimplexSampler::kScir) {
    const ScirTransition cir(h);
    for (std::size_t k = 0; k < K(); ++k) g_[k] = cir.Step(g_[k], m_[k], rng);
    g_rest_ = cir.Step(g_rest_, alpha_, rng);
  } else {
    std::vector<double> g = g_, shape = m_, zero(K() + 1, 0.0);
    g.push_back(g_rest_);
    shape.push_back(alpha_);
    SimplexSgrldStep(g.data(), shape.data(), zero.data(), g.size(), h, rng);
    for (double& v : g) v = std::max(v, kScirFloor);  // a weight of exactly 0 has no slice
    g_rest_ = g.back();
    g.pop_back();
    g_ = std::move(g);
  }
}

void DpmixModel::Impl::Iterate(std::uint64_t t, int stratum) {
  UpdateAlpha(t);
  UpdateWeights(t);
  const double total = Total();

  // Step 3: the minibatch and its slice variables.
  const double q_ = q();
  std::vector<std::vector<std::size_t>> chosen(rows_.size());
  std::vector<std::vector<double>> slice(rows_.size());
  double u_min = 1.0;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowBlock& rb = rows_[r];
    for (std::size_t o = 0; o < rb.train.size(); ++o) {
      const std::uint32_t id = rb.train.id[o];
      if (q_ < 1.0 && KeyedStream(config_.seed, Purpose::kDpMinibatch, id, t).uniform() >= q_)
        continue;
      const double w = g_[IndexOf(rb.z[o])] / total;
      const double u = w * KeyedStream(config_.seed, Purpose::kDpSlice, id, t).uniform();
      chosen[r].push_back(o);
      slice[r].push_back(u);
      u_min = std::min(u_min, u);
    }
  }
  for (const std::string& part : comm_->AllGather(PodBytes(std::vector<double>{u_min}))) {
    std::vector<double> v;
    AppendPods(part, v);
    u_min = std::min(u_min, v.at(0));  // a minimum: exact in any order
  }

  // Step 4: new components from the rest mass until w_rest < u_min.
  while (g_rest_ / total > u_min) {
    KeyedStream rng(config_.seed, Purpose::kDpStick, next_serial_, t);
    const double v = -std::expm1(std::log(rng.uniform()) / alpha_);  // Beta(1, alpha)
    const double g_new = v * g_rest_;
    g_rest_ -= g_new;
    AddComponent(g_new);
    if (v <= 0.0) break;  // alpha so large that the break is 0 in double precision
  }
  RefreshTotals();

  // Step 5: log prod_c omega_kc^x_ic for the minibatch over every category block.
  std::vector<std::vector<double>> loglik(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) loglik[r].assign(chosen[r].size() * K(), 0.0);
  std::vector<double> log_theta;
  Tour(stratum, [&](std::size_t r, int j, const double* theta) {
    const Observations& obs = rows_[r].train;
    const std::size_t W = Words(j), Bs = static_cast<std::size_t>(B());
    log_theta.resize(K() * W);
    for (std::size_t e = 0; e < log_theta.size(); ++e) log_theta[e] = std::log(theta[e]);
    for (std::size_t i = 0; i < chosen[r].size(); ++i) {
      const std::size_t o = chosen[r][i];
      double* ll = loglik[r].data() + i * K();
      for (std::uint64_t e = obs.start[o * Bs + j]; e < obs.start[o * Bs + j + 1]; ++e) {
        const double x = obs.cnt[e];
        const double* lt = log_theta.data() + obs.cat[e];
        for (std::size_t k = 0; k < K(); ++k) ll[k] += x * lt[k * W];
      }
    }
  });
  std::vector<double> log_w(K()), log_total(K());
  for (std::size_t k = 0; k < K(); ++k) {
    log_w[k] = std::log(g_[k] / total);
    log_total[k] = std::log(theta_total_[k]);
  }
  std::vector<double> p(K());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    RowBlock& rb = rows_[r];
    for (std::size_t i = 0; i < chosen[r].size(); ++i) {
      const std::size_t o = chosen[r][i];
      const double* ll = loglik[r].data() + i * K();
      double best = -INFINITY;
      for (std::size_t k = 0; k < K(); ++k) {
        const bool allowed =
            config_.broken == DpmixBroken::kIgnoreSlice || g_[k] / total > slice[r][i];
        p[k] = allowed ? ll[k] - rb.train.n[o] * log_total[k] : -INFINITY;
        best = std::max(best, p[k]);
      }
      double sum = 0.0;
      for (std::size_t k = 0; k < K(); ++k) sum += p[k] = std::exp(p[k] - best);
      KeyedStream rng(config_.seed, Purpose::kDpAllocate, rb.train.id[o], t);
      double target = rng.uniform() * sum;
      std::size_t pick = 0;
      for (; pick + 1 < K(); ++pick) {
        if (target < p[pick]) break;
        target -= p[pick];
      }
      while (p[pick] == 0.0) --pick;  // rounding at the top end
      rb.z[o] = serial_[pick];
    }
  }
  (void)log_w;

  // Step 6: occupied counts; empty components go back to the rest mass.
  CountAllocations();
  for (std::size_t k = K(); k-- > 0;) {
    if (m_[k] > 0.0) continue;
    g_rest_ += g_[k];
    RemoveComponent(k);
  }

  // Step 7: theta of each local tile's column block from its row-block's minibatch.
  const double scale =
      static_cast<double>(B()) / q_ * (config_.broken == DpmixBroken::kScaleTwice ? 2.0 : 1.0);
  std::map<int, std::vector<double>> counts;  // by column block: K x W of scale * x
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowBlock& rb = rows_[r];
    const int j = grid_->ColBlockInStratum(rb.id, stratum);
    const std::size_t W = Words(j), Bs = static_cast<std::size_t>(B());
    std::vector<double>& c = counts[j];
    c.assign(K() * W, 0.0);
    for (std::size_t o : chosen[r]) {
      const std::size_t k = IndexOf(rb.z[o]);
      for (std::uint64_t e = rb.train.start[o * Bs + j]; e < rb.train.start[o * Bs + j + 1]; ++e)
        c[k * W + rb.train.cat[e]] += scale * rb.train.cnt[e];
    }
  }
  const double h = config_.step.At(t);
  std::vector<double> count_total;
  if (config_.sampler != SimplexSampler::kScir) {
    KeyedPartials partials;
    for (const auto& [j, c] : counts) {
      auto& sum = partials[j];
      sum.assign(K(), 0.0);
      const std::size_t W = Words(j);
      for (std::size_t k = 0; k < K(); ++k)
        for (std::size_t w = 0; w < W; ++w) sum[k] += c[k * W + w];
    }
    count_total = OrderedSum(*comm_, partials, K());
  }
  const ScirTransition cir(h);
  bool finite = true;
  for (const auto& [j, c] : counts) {
    std::vector<double>& theta = cols_.at(j);
    const auto& members = grid_->cols().Members(j);
    const std::size_t W = members.size();
    for (std::size_t w = 0; w < W; ++w) {
      KeyedStream rng(config_.seed, Purpose::kDpTheta, members[w], t);
      for (std::size_t k = 0; k < K(); ++k) {
        double& th = theta[k * W + w];
        if (config_.sampler == SimplexSampler::kScir) {
          th = cir.Step(th, config_.a + c[k * W + w], rng);
        } else {
          th = std::max(SgrldComponentStep(th, config_.a, c[k * W + w], theta_total_[k],
                                           count_total[k], h, rng),
                        kScirFloor);
        }
        finite = finite && std::isfinite(th);
      }
    }
  }
  for (double g : g_) finite = finite && std::isfinite(g);
  finite_ = finite && std::isfinite(g_rest_) && std::isfinite(alpha_);
}

void DpmixModel::Impl::Evaluate(const EvaluationContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  collected_ = ctx.collected;
  RefreshTotals();
  const double total = Total();
  std::vector<std::vector<double>> loglik(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) loglik[r].assign(rows_[r].held.size() * K(), 0.0);
  Tour(ctx.home_stratum, [&](std::size_t r, int j, const double* theta) {
    RowBlock& rb = rows_[r];
    const std::size_t W = Words(j), Bs = static_cast<std::size_t>(B());
    if (ctx.collect && j == rb.id)
      for (std::size_t k = 0; k < K(); ++k)
        for (std::size_t w = 0; w < W; ++w)
          rb.phi_sum[k * W + w] += theta[k * W + w] / theta_total_[k];
    const Observations& obs = rb.held;
    for (std::size_t o = 0; o < obs.size(); ++o) {
      double* ll = loglik[r].data() + o * K();
      for (std::uint64_t e = obs.start[o * Bs + j]; e < obs.start[o * Bs + j + 1]; ++e)
        for (std::size_t k = 0; k < K(); ++k)
          ll[k] += obs.cnt[e] * std::log(theta[k * W + obs.cat[e]]);
    }
  });
  KeyedPartials partials;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    RowBlock& rb = rows_[r];
    auto& sums = partials[rb.id];
    sums.assign(2, 0.0);
    for (std::size_t o = 0; o < rb.held.size(); ++o) {
      const double* ll = loglik[r].data() + o * K();
      double lp = std::log(g_rest_ / total) + rb.held.log_dirmult[o];
      double best = lp;
      rb.held_best[o] = kNoComponent;
      for (std::size_t k = 0; k < K(); ++k) {
        const double term = std::log(g_[k] / total) + ll[k] -
                            rb.held.n[o] * std::log(theta_total_[k]) + rb.held.log_coef[o];
        if (term > best) {
          best = term;
          rb.held_best[o] = serial_[k];
        }
        lp = LogAddExp(lp, term);
      }
      sums[0] += lp;
      if (ctx.collect) {
        rb.log_pred_sum[o] = LogAddExp(rb.log_pred_sum[o], lp);
        sums[1] += rb.log_pred_sum[o] - std::log(static_cast<double>(collected_));
      }
    }
    if (ctx.collect)
      for (std::size_t o = 0; o < rb.train.size(); ++o) rb.mode[o][rb.z[o]]++;
  }
  const std::vector<double> sums = OrderedSum(*comm_, partials, 2);
  if (ctx.collect)
    for (std::size_t k = 0; k < K(); ++k) {
      w_sum_[k] += g_[k] / total;
      present_[k] += 1.0;
    }
  eval_seconds_ += Seconds(start);
  DpmixTraceRow row;
  row.iteration = ctx.iteration;
  row.seconds = seconds_running_() - eval_seconds_;
  const double n = static_cast<double>(survey_.held_out);
  row.log_pred_sample = n > 0 ? sums[0] / n : std::nan("");
  row.log_pred = ctx.collect ? (n > 0 ? sums[1] / n : std::nan("")) : row.log_pred_sample;
  row.occupied = K();
  row.alpha = alpha_;
  row.samples = collected_;
  trace_.push_back(row);
}

std::string DpmixModel::Impl::Fingerprint() const {
  std::ostringstream s;
  s << "observations=" << corpus_.documents << " categories=" << corpus_.vocabulary
    << " entries=" << survey_.entries << " held_out=" << survey_.held_out
    << " data_crc=" << std::hex << survey_.checksum << std::dec << " tiles=" << B()
    << " sampler=" << SimplexSamplerName(config_.sampler) << " seed=" << config_.seed
    << " split_seed=" << config_.split_seed;
  return s.str();
}

// ---- DpmixModel over Impl.

DpmixSurvey SurveyDpmixShare(Communicator& comm, const Corpus& share, const DpmixConfig& config) {
  const TileGrid grid(share.documents, share.vocabulary, config.tiles, config.seed);
  const RankLayout ranks(config.tiles, comm.size());
  const DpmixSurvey mine = SurveyRows(share, config, &grid, ranks.FirstRowBlock(comm.rank()),
                                      ranks.FirstRowBlock(comm.rank() + 1));
  ByteWriter out;
  out.Put(mine.train);
  out.Put(mine.held_out);
  out.Put(mine.empty);
  out.Put(mine.entries);
  out.Put(mine.checksum);
  out.PutVector(mine.stratum_sizes);
  DpmixSurvey total;
  total.stratum_sizes.assign(mine.stratum_sizes.size(), 0);
  for (const std::string& part : comm.AllGather(out.Take())) {
    ByteReader in(part);
    total.train += in.Get<std::uint64_t>();
    total.held_out += in.Get<std::uint64_t>();
    total.empty += in.Get<std::uint64_t>();
    total.entries += in.Get<std::uint64_t>();
    total.checksum += in.Get<std::uint64_t>();
    const auto strata = in.GetVector<std::uint64_t>();
    for (std::size_t s = 0; s < strata.size(); ++s) total.stratum_sizes[s] += strata[s];
  }
  return total;
}

DpmixModel::DpmixModel(const DpmixConfig& config, const Corpus& corpus)
    : impl_(std::make_unique<Impl>(config, corpus, std::nullopt)) {}
DpmixModel::DpmixModel(const DpmixConfig& config, const Corpus& share, const DpmixSurvey& survey)
    : impl_(std::make_unique<Impl>(config, share, survey)) {}
DpmixModel::~DpmixModel() = default;

std::uint32_t DpmixModel::grid_rows() const {
  return impl_->corpus_.documents;
}
std::uint32_t DpmixModel::grid_cols() const {
  return impl_->corpus_.vocabulary;
}
std::vector<std::uint64_t> DpmixModel::Attach(const TileRun& run) {
  return impl_->Attach(run);
}
void DpmixModel::InitColBlock(int j) {
  std::vector<double>& theta = impl_->cols_[j];
  theta.clear();
  for (std::uint64_t s : impl_->serial_) impl_->AppendFreshRow(j, theta, s);
}
// The initial weights: g_k ~ Gamma(m_k, 1) and g_rest ~ Gamma(alpha, 1), the draw (D1) of
// the header given the initial allocations; empty initial components are dropped.
void DpmixModel::FinishInit() {
  Impl& m = *impl_;
  if (m.survey_.train == 0) return;
  m.CountAllocations();
  KeyedStream rng(m.config_.seed, Purpose::kDpWeights, 1, 0);
  for (std::size_t k = 0; k < m.K(); ++k) m.g_[k] = m.m_[k] > 0 ? rng.gamma(m.m_[k]) : 0.0;
  m.g_rest_ = std::max(rng.gamma(m.alpha_), kScirFloor);
  for (std::size_t k = m.K(); k-- > 0;)
    if (m.m_[k] == 0.0) m.RemoveComponent(k);
  m.RefreshTotals();
}
void DpmixModel::UpdateTiles(const IterationContext& ctx) {
  impl_->Iterate(ctx.t, ctx.stratum);
}
std::string DpmixModel::TakeColBlock(int j) {
  const auto it = impl_->cols_.find(j);
  if (it == impl_->cols_.end()) throw Error(ExitCode::kInternal, "column block not held here");
  std::string bytes(reinterpret_cast<const char*>(it->second.data()),
                    it->second.size() * sizeof(double));
  impl_->cols_.erase(it);
  return bytes;
}
void DpmixModel::PutColBlock(int j, const std::string& bytes) {
  std::vector<double> theta(impl_->K() * impl_->Words(j));
  if (bytes.size() != theta.size() * sizeof(double))
    throw Error(ExitCode::kCheckpoint,
                "dpmix: component block " + std::to_string(j) + " of unexpected size");
  std::memcpy(theta.data(), bytes.data(), bytes.size());
  impl_->cols_[j] = std::move(theta);
}
std::size_t DpmixModel::ColBlockBytes(int j) const {
  return impl_->K() * impl_->Words(j) * sizeof(double);
}
void DpmixModel::Evaluate(const EvaluationContext& ctx) {
  impl_->Evaluate(ctx);
}
bool DpmixModel::AllFinite() const {
  return impl_->finite_;
}
std::string DpmixModel::DivergenceHint(std::uint64_t t) const {
  return "NaN or infinity in the component parameters or weights at step " +
         std::to_string(impl_->config_.step.At(t)) +
         "; reduce --step or use --sampler scir, which has no discretisation error";
}
std::string DpmixModel::Fingerprint() const {
  return impl_->Fingerprint();
}
std::string DpmixModel::SaveRowBlock(int id) const {
  for (const RowBlock& rb : impl_->rows_)
    if (rb.id == id) {
      ByteWriter out;
      PutObsState(out, rb);
      return out.Take();
    }
  throw Error(ExitCode::kInternal, "dpmix: row-block not held here");
}
void DpmixModel::RestoreRowBlock(int id, const std::string& bytes) {
  for (RowBlock& rb : impl_->rows_) {
    if (rb.id != id) continue;
    ByteReader in(bytes);
    auto z = in.GetVector<std::uint64_t>();
    const auto flat = in.GetVector<std::uint64_t>();
    auto log_pred_sum = in.GetVector<double>();
    auto held_best = in.GetVector<std::uint64_t>();
    auto phi_sum = in.GetVector<double>();
    if (z.size() != rb.z.size() || log_pred_sum.size() != rb.log_pred_sum.size() ||
        phi_sum.size() != impl_->K() * impl_->Words(id))
      throw Error(ExitCode::kCheckpoint, "checkpoint: dpmix row-block does not match the data");
    for (std::uint64_t s : z) impl_->IndexOf(s);  // every allocation names a component
    rb.z = std::move(z);
    std::size_t at = 0;
    for (auto& m : rb.mode) {
      m.clear();
      for (std::uint64_t n = flat.at(at++); n > 0; --n, at += 2)
        m[flat.at(at)] = static_cast<std::uint32_t>(flat.at(at + 1));
    }
    rb.log_pred_sum = std::move(log_pred_sum);
    rb.held_best = std::move(held_best);
    rb.phi_sum = std::move(phi_sum);
    return;
  }
  throw Error(ExitCode::kInternal, "dpmix: row-block not held here");
}
std::string DpmixModel::SaveColBlock(int j) const {
  const auto& theta = impl_->cols_.at(j);
  return std::string(reinterpret_cast<const char*>(theta.data()), theta.size() * sizeof(double));
}
void DpmixModel::RestoreColBlock(int j, const std::string& bytes) {
  PutColBlock(j, bytes);
}
std::string DpmixModel::SaveGlobal() const {
  const Impl& m = *impl_;
  ByteWriter out;
  out.PutVector(m.serial_);
  out.PutVector(m.g_);
  out.Put(m.g_rest_);
  out.Put(m.alpha_);
  out.Put(m.next_serial_);
  out.PutVector(m.m_);
  out.PutVector(m.w_sum_);
  out.PutVector(m.present_);
  out.Put(m.collected_);
  out.Put(m.eval_seconds_);
  out.PutVector(m.trace_);
  return out.Take();
}
void DpmixModel::RestoreGlobal(const std::string& bytes) {
  Impl& m = *impl_;
  ByteReader in(bytes);
  m.serial_ = in.GetVector<std::uint64_t>();
  m.g_ = in.GetVector<double>();
  m.g_rest_ = in.Get<double>();
  m.alpha_ = in.Get<double>();
  m.next_serial_ = in.Get<std::uint64_t>();
  m.m_ = in.GetVector<double>();
  m.w_sum_ = in.GetVector<double>();
  m.present_ = in.GetVector<double>();
  m.collected_ = in.Get<std::uint64_t>();
  m.eval_seconds_ = in.Get<double>();
  m.trace_ = in.GetVector<DpmixTraceRow>();
  const std::size_t K = m.serial_.size();
  if (m.g_.size() != K || m.m_.size() != K || m.w_sum_.size() != K || m.present_.size() != K)
    throw Error(ExitCode::kCheckpoint, "checkpoint: dpmix components do not match");
  m.theta_total_.clear();
  m.cols_.clear();  // the blocks held at the restored stratum come next
}

const DpmixSurvey& DpmixModel::survey() const {
  return impl_->survey_;
}
const std::vector<DpmixTraceRow>& DpmixModel::trace() const {
  return impl_->trace_;
}
double DpmixModel::alpha() const {
  return impl_->alpha_;
}
std::size_t DpmixModel::occupied() const {
  return impl_->K();
}
std::vector<double> DpmixModel::weights() const {
  const double total = impl_->Total();
  std::vector<double> w;
  for (double g : impl_->g_) w.push_back(g / total);
  w.push_back(impl_->g_rest_ / total);
  return w;
}
std::vector<std::uint64_t> DpmixModel::serials() const {
  return impl_->serial_;
}
std::vector<std::uint64_t> DpmixModel::Allocations() const {
  std::vector<std::uint64_t> z(impl_->corpus_.documents, kNoComponent);
  for (const RowBlock& rb : impl_->rows_)
    for (std::size_t o = 0; o < rb.train.size(); ++o) z[rb.train.id[o]] = rb.z[o];
  return z;
}
std::vector<double> DpmixModel::LogPredictive(
    const std::vector<std::vector<std::uint32_t>>& xs) const {
  const Impl& m = *impl_;
  if (static_cast<int>(m.cols_.size()) != m.B())
    throw Error(ExitCode::kInternal, "dpmix: LogPredictive needs every column block here");
  const std::size_t K = m.K();
  std::vector<double> total(K, 0.0);
  for (const auto& [j, theta] : m.cols_)
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t w = 0; w < m.Words(j); ++w) total[k] += theta[k * m.Words(j) + w];
  const double G = m.Total(), a = m.config_.a, d = static_cast<double>(m.corpus_.vocabulary);
  std::vector<double> out;
  for (const auto& x : xs) {
    double n = 0, coef = 0, dm = 0;
    std::vector<double> ll(K, 0.0);
    for (std::uint32_t c = 0; c < x.size(); ++c) {
      if (x[c] == 0) continue;
      n += x[c];
      coef -= std::lgamma(x[c] + 1.0);
      dm += std::lgamma(a + x[c]) - std::lgamma(a);
      const int j = m.grid_->cols().BlockOf(c);
      const std::size_t W = m.Words(j), w = m.grid_->cols().LocalIndex(c);
      for (std::size_t k = 0; k < K; ++k)
        ll[k] += x[c] * std::log(m.cols_.at(j)[k * W + w] / total[k]);
    }
    coef += std::lgamma(n + 1.0);
    double lp = std::log(m.g_rest_ / G) + dm + std::lgamma(d * a) - std::lgamma(d * a + n) + coef;
    for (std::size_t k = 0; k < K; ++k) lp = LogAddExp(lp, std::log(m.g_[k] / G) + ll[k] + coef);
    out.push_back(lp);
  }
  return out;
}

std::vector<double> DpmixModel::ComponentMeans() {
  Impl& m = *impl_;
  const std::size_t K = m.K(), V = m.corpus_.vocabulary;
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(m.rows_.size()));
  for (const RowBlock& rb : m.rows_) {
    out.Put<std::int64_t>(rb.id);
    out.PutVector(rb.phi_sum);
  }
  const std::vector<std::string> parts = m.comm_->GatherToRoot(out.Take());
  if (m.comm_->rank() != 0) return {};
  std::vector<double> table(K * (1 + V), 0.0);
  for (std::size_t k = 0; k < K; ++k)
    table[k * (1 + V)] = m.w_sum_[k] / std::max(m.present_[k], 1.0);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int id = static_cast<int>(in.Get<std::int64_t>());
      const std::vector<double> sums = in.GetVector<double>();
      const auto& members = m.grid_->cols().Members(id);
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t w = 0; w < members.size(); ++w)
          table[k * (1 + V) + 1 + members[w]] =
              sums[k * members.size() + w] / std::max(m.present_[k], 1.0);
    }
  }
  return table;
}

std::vector<DpmixCluster> DpmixModel::Clusters() {
  Impl& m = *impl_;
  struct Wire {
    std::uint32_t observation;
    std::uint32_t held_out;
    std::uint64_t serial;
    double share;
  };
  std::vector<Wire> mine;
  for (const RowBlock& rb : m.rows_) {
    for (std::size_t o = 0; o < rb.train.size(); ++o) {
      std::uint64_t best = rb.z[o];
      std::uint32_t count = 0, seen = 0;
      for (const auto& [s, c] : rb.mode[o]) {
        seen += c;
        if (c > count) best = s, count = c;
      }
      mine.push_back({rb.train.id[o], 0, best, seen > 0 ? double(count) / seen : 1.0});
    }
    for (std::size_t o = 0; o < rb.held.size(); ++o)
      mine.push_back({rb.held.id[o], 1, rb.held_best[o], 1.0});
  }
  const std::vector<std::string> parts = m.comm_->GatherToRoot(PodBytes(mine));
  if (m.comm_->rank() != 0) return {};
  std::vector<Wire> all;
  for (const std::string& part : parts) AppendPods(part, all);
  std::sort(all.begin(), all.end(),
            [](const Wire& a, const Wire& b) { return a.observation < b.observation; });
  std::vector<DpmixCluster> clusters;
  for (const Wire& w : all) {
    DpmixCluster c;
    c.observation = w.observation;
    c.held_out = w.held_out != 0;
    c.share = w.share;
    const auto it = std::lower_bound(m.serial_.begin(), m.serial_.end(), w.serial);
    if (it != m.serial_.end() && *it == w.serial) c.component = it - m.serial_.begin();
    clusters.push_back(c);
  }
  return clusters;
}

double DpmixModel::seconds_sampling() const {
  return impl_->seconds_running_() - impl_->eval_seconds_;
}

}  // namespace carousel
