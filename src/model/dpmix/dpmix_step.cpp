// One iteration of DpmixModel, the minibatched slice sampler of dpmix_model.hpp: alpha, the
// weights, the minibatch and its slices, new components from the rest mass, the allocations
// (over every category block, by the ring tour), the occupied counts and the component
// parameters of the local tiles; and the changes to the instantiated components they make.
#include <cmath>
#include <cstring>
#include <map>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/model/column_ring.hpp"
#include "carousel/sampler/scir.hpp"
#include "carousel/sampler/simplex_sgrld.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "dpmix_model_impl.hpp"

namespace carousel {

using dpmix_detail::Observations;
using dpmix_detail::RowBlock;

// theta_kc ~ Gamma(a, 1) for every category of block j, keyed by (category, serial): the
// same values on whichever rank holds the block when the component is created.
void DpmixModel::Impl::AppendFreshRow(int j, std::vector<double>& theta,
                                      std::uint64_t serial) const {
  for (std::uint32_t c : grid_->cols().Members(j)) {
    KeyedStream rng(config_.chain.seed, Purpose::kDpComponent, c, serial);
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
  theta_total_ = RowTotals(cols_);
}

// The K row sums of K x W blocks held by column block, over every category of every rank:
// each block's sums in category order, then the blocks added in block order (OrderedSum).
std::vector<double> DpmixModel::Impl::RowTotals(
    const std::map<int, std::vector<double>>& blocks) const {
  KeyedPartials partials;
  for (const auto& [j, block] : blocks) {
    auto& sum = partials[j];
    sum.assign(K(), 0.0);
    const std::size_t W = Words(j);
    for (std::size_t k = 0; k < K(); ++k)
      for (std::size_t w = 0; w < W; ++w) sum[k] += block[k * W + w];
  }
  return OrderedSum(*comm_, partials, K());
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
  KeyedStream rng(config_.chain.seed, Purpose::kDpAlpha, 0, t);
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
  KeyedStream rng(config_.chain.seed, Purpose::kDpWeights, 0, t);
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
  const SliceMinibatch batch = ChooseMinibatch(t, total);
  BreakRest(t, total, batch.u_min);
  RefreshTotals();
  Allocate(t, total, batch, MinibatchLogLikelihood(stratum, batch));
  DropEmptyComponents();
  StepTheta(t, ScaledCounts(stratum, batch));
}

// Step 3: the minibatch and its slice variables. Collective (the least u_i of every rank).
DpmixModel::Impl::SliceMinibatch DpmixModel::Impl::ChooseMinibatch(std::uint64_t t,
                                                                   double total) const {
  SliceMinibatch batch;
  batch.q = q();
  batch.chosen.resize(rows_.size());
  batch.slice.resize(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowBlock& rb = rows_[r];
    for (std::size_t o = 0; o < rb.train.size(); ++o) {
      const std::uint32_t id = rb.train.id[o];
      if (batch.q < 1.0 &&
          KeyedStream(config_.chain.seed, Purpose::kDpMinibatch, id, t).uniform() >= batch.q)
        continue;
      const double w = g_[IndexOf(rb.z[o])] / total;
      const double u = w * KeyedStream(config_.chain.seed, Purpose::kDpSlice, id, t).uniform();
      batch.chosen[r].push_back(o);
      batch.slice[r].push_back(u);
      batch.u_min = std::min(batch.u_min, u);
    }
  }
  for (const std::string& part : comm_->AllGather(PodBytes(std::vector<double>{batch.u_min}))) {
    std::vector<double> v;
    AppendPods(part, v);
    batch.u_min = std::min(batch.u_min, v.at(0));  // a minimum: exact in any order
  }
  return batch;
}

// Step 4: new components from the rest mass until w_rest < u_min.
void DpmixModel::Impl::BreakRest(std::uint64_t t, double total, double u_min) {
  while (g_rest_ / total > u_min) {
    KeyedStream rng(config_.chain.seed, Purpose::kDpStick, next_serial_, t);
    const double v = -std::expm1(std::log(rng.uniform()) / alpha_);  // Beta(1, alpha)
    const double g_new = v * g_rest_;
    g_rest_ -= g_new;
    AddComponent(g_new);
    if (v <= 0.0) break;  // alpha so large that the break is 0 in double precision
  }
}

// Step 5: log prod_c omega_kc^x_ic for the minibatch over every category block: K numbers
// per chosen observation of each local row-block.
std::vector<std::vector<double>> DpmixModel::Impl::MinibatchLogLikelihood(
    int stratum, const SliceMinibatch& batch) {
  std::vector<std::vector<double>> loglik(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r)
    loglik[r].assign(batch.chosen[r].size() * K(), 0.0);
  std::vector<double> log_theta;
  Tour(stratum, [&](std::size_t r, int j, const double* theta) {
    const Observations& obs = rows_[r].train;
    const std::size_t W = Words(j), Bs = static_cast<std::size_t>(B());
    log_theta.resize(K() * W);
    for (std::size_t e = 0; e < log_theta.size(); ++e) log_theta[e] = std::log(theta[e]);
    for (std::size_t i = 0; i < batch.chosen[r].size(); ++i) {
      const std::size_t o = batch.chosen[r][i];
      double* ll = loglik[r].data() + i * K();
      for (std::uint64_t e = obs.start[o * Bs + j]; e < obs.start[o * Bs + j + 1]; ++e) {
        const double x = obs.cnt[e];
        const double* lt = log_theta.data() + obs.cat[e];
        for (std::size_t k = 0; k < K(); ++k) ll[k] += x * lt[k * W];
      }
    }
  });
  return loglik;
}

// Step 5, continued: z_i | u_i, G for the minibatch, from its log-likelihoods.
void DpmixModel::Impl::Allocate(std::uint64_t t, double total, const SliceMinibatch& batch,
                                const std::vector<std::vector<double>>& loglik) {
  std::vector<double> log_total(K());
  for (std::size_t k = 0; k < K(); ++k) log_total[k] = std::log(theta_total_[k]);
  std::vector<double> p(K());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    RowBlock& rb = rows_[r];
    for (std::size_t i = 0; i < batch.chosen[r].size(); ++i) {
      const std::size_t o = batch.chosen[r][i];
      const double* ll = loglik[r].data() + i * K();
      double best = -INFINITY;
      for (std::size_t k = 0; k < K(); ++k) {
        const bool allowed =
            config_.broken == DpmixBroken::kIgnoreSlice || g_[k] / total > batch.slice[r][i];
        p[k] = allowed ? ll[k] - rb.train.n[o] * log_total[k] : -INFINITY;
        best = std::max(best, p[k]);
      }
      double sum = 0.0;
      for (std::size_t k = 0; k < K(); ++k) sum += p[k] = std::exp(p[k] - best);
      KeyedStream rng(config_.chain.seed, Purpose::kDpAllocate, rb.train.id[o], t);
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
}

// Step 6: occupied counts; empty components go back to the rest mass.
void DpmixModel::Impl::DropEmptyComponents() {
  CountAllocations();
  for (std::size_t k = K(); k-- > 0;) {
    if (m_[k] > 0.0) continue;
    g_rest_ += g_[k];
    RemoveComponent(k);
  }
}

// Step 7, first part: by column block of each local tile, K x W of scale * x over its
// row-block's minibatch, scale = B / q.
std::map<int, std::vector<double>> DpmixModel::Impl::ScaledCounts(
    int stratum, const SliceMinibatch& batch) const {
  const double scale =
      static_cast<double>(B()) / batch.q * (config_.broken == DpmixBroken::kScaleTwice ? 2.0 : 1.0);
  std::map<int, std::vector<double>> counts;  // by column block: K x W of scale * x
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowBlock& rb = rows_[r];
    const int j = grid_->ColBlockInStratum(rb.id, stratum);
    const std::size_t W = Words(j), Bs = static_cast<std::size_t>(B());
    std::vector<double>& c = counts[j];
    c.assign(K() * W, 0.0);
    for (std::size_t o : batch.chosen[r]) {
      const std::size_t k = IndexOf(rb.z[o]);
      for (std::uint64_t e = rb.train.start[o * Bs + j]; e < rb.train.start[o * Bs + j + 1]; ++e)
        c[k * W + rb.train.cat[e]] += scale * rb.train.cnt[e];
    }
  }
  return counts;
}

// Step 7: theta of each local tile's column block from its row-block's minibatch (the
// counts of ScaledCounts); then whether the state is still finite.
void DpmixModel::Impl::StepTheta(std::uint64_t t,
                                 const std::map<int, std::vector<double>>& counts) {
  const double h = config_.step.At(t);
  std::vector<double> count_total;
  if (config_.sampler != SimplexSampler::kScir) count_total = RowTotals(counts);
  const ScirTransition cir(h);
  bool finite = true;
  for (const auto& [j, c] : counts) {
    std::vector<double>& theta = cols_.at(j);
    const auto& members = grid_->cols().Members(j);
    const std::size_t W = members.size();
    for (std::size_t w = 0; w < W; ++w) {
      KeyedStream rng(config_.chain.seed, Purpose::kDpTheta, members[w], t);
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

}  // namespace carousel
