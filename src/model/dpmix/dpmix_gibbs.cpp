#include "carousel/model/dpmix/dpmix_gibbs.hpp"

#include <algorithm>
#include <cmath>

#include "carousel/util/keyed_rng.hpp"

namespace carousel {

DpmixGibbs::DpmixGibbs(const Corpus& corpus, double a, double alpha_shape, double alpha_rate,
                       std::uint64_t seed)
    : corpus_(corpus),
      a_(a),
      alpha_shape_(alpha_shape),
      alpha_rate_(alpha_rate),
      alpha_(alpha_shape / alpha_rate),
      seed_(seed) {
  z_.assign(corpus.documents, -1);
  n_.assign(corpus.documents, 0.0);
  counts_.emplace_back(corpus.vocabulary, 0.0);
  totals_.push_back(0.0);
  members_.push_back(0.0);
  for (std::uint32_t i = 0; i < corpus.documents; ++i) {
    if (corpus.doc_start[i] == corpus.doc_start[i + 1]) continue;
    z_[i] = 0;
    ++L_;
    members_[0] += 1.0;
    for (std::uint64_t e = corpus.doc_start[i]; e < corpus.doc_start[i + 1]; ++e) {
      counts_[0][corpus.word[e]] += corpus.count[e];
      n_[i] += corpus.count[e];
    }
    totals_[0] += n_[i];
  }
}

// log DirMult(x_i; a + counts) without the multinomial coefficient (it cancels in the
// allocation probabilities); counts == nullptr: the base measure alone.
double DpmixGibbs::LogDirMult(std::size_t i, const std::vector<double>* counts,
                              double total) const {
  const double d = static_cast<double>(corpus_.vocabulary);
  double lp = std::lgamma(d * a_ + total) - std::lgamma(d * a_ + total + n_[i]);
  for (std::uint64_t e = corpus_.doc_start[i]; e < corpus_.doc_start[i + 1]; ++e) {
    const double b = a_ + (counts ? (*counts)[corpus_.word[e]] : 0.0);
    lp += std::lgamma(b + corpus_.count[e]) - std::lgamma(b);
  }
  return lp;
}

void DpmixGibbs::Sweep() {
  std::vector<double> logp;
  for (std::uint32_t i = 0; i < corpus_.documents; ++i) {
    if (z_[i] < 0) continue;
    KeyedStream rng(seed_, Purpose::kGibbs, i, sweep_);
    const auto remove = [&](int k, double sign) {
      members_[k] += sign;
      totals_[k] += sign * n_[i];
      for (std::uint64_t e = corpus_.doc_start[i]; e < corpus_.doc_start[i + 1]; ++e)
        counts_[k][corpus_.word[e]] += sign * corpus_.count[e];
    };
    remove(z_[i], -1.0);
    const std::size_t labels = members_.size();
    logp.assign(labels + 1, -INFINITY);
    for (std::size_t k = 0; k < labels; ++k)
      if (members_[k] > 0) logp[k] = std::log(members_[k]) + LogDirMult(i, &counts_[k], totals_[k]);
    logp[labels] = std::log(alpha_) + LogDirMult(i, nullptr, 0.0);
    const double best = *std::max_element(logp.begin(), logp.end());
    double sum = 0.0;
    for (double& p : logp) sum += p = std::exp(p - best);
    double target = rng.uniform() * sum;
    std::size_t pick = 0;
    for (; pick < labels; ++pick) {
      if (target < logp[pick]) break;
      target -= logp[pick];
    }
    while (logp[pick] == 0.0) --pick;
    if (pick == labels) {  // a new component: reuse a free label if there is one
      pick = static_cast<std::size_t>(std::find(members_.begin(), members_.end(), 0.0) -
                                      members_.begin());
      if (pick == labels) {
        counts_.emplace_back(corpus_.vocabulary, 0.0);
        totals_.push_back(0.0);
        members_.push_back(0.0);
      }
    }
    z_[i] = static_cast<int>(pick);
    remove(z_[i], 1.0);
  }
  // Escobar and West (1995), Sec. 6.
  KeyedStream rng(seed_, Purpose::kHyper, 0, sweep_);
  const double L = static_cast<double>(L_), K = static_cast<double>(occupied());
  const double x = rng.gamma(alpha_ + 1.0), y = rng.gamma(L);
  const double rate = alpha_rate_ - std::log(x / (x + y));
  const double odds = (alpha_shape_ + K - 1.0) / (L * rate);
  const double shape =
      rng.uniform() < odds / (1.0 + odds) ? alpha_shape_ + K : alpha_shape_ + K - 1.0;
  alpha_ = std::max(rng.gamma(shape) / rate, 1e-300);
  ++sweep_;
}

std::size_t DpmixGibbs::occupied() const {
  return static_cast<std::size_t>(
      std::count_if(members_.begin(), members_.end(), [](double m) { return m > 0; }));
}

double DpmixGibbs::LogPredictive(const std::vector<std::uint32_t>& x) const {
  const double d = static_cast<double>(corpus_.vocabulary), L = static_cast<double>(L_);
  double n = 0.0, coef = 0.0;
  for (std::uint32_t c : x) {
    n += c;
    coef -= std::lgamma(c + 1.0);
  }
  coef += std::lgamma(n + 1.0);
  const auto log_dm = [&](const std::vector<double>* counts, double total) {
    double lp = coef + std::lgamma(d * a_ + total) - std::lgamma(d * a_ + total + n);
    for (std::size_t c = 0; c < x.size(); ++c) {
      if (x[c] == 0) continue;
      const double b = a_ + (counts ? (*counts)[c] : 0.0);
      lp += std::lgamma(b + x[c]) - std::lgamma(b);
    }
    return lp;
  };
  double lp = std::log(alpha_ / (alpha_ + L)) + log_dm(nullptr, 0.0);
  for (std::size_t k = 0; k < members_.size(); ++k) {
    if (members_[k] == 0) continue;
    const double term = std::log(members_[k] / (alpha_ + L)) + log_dm(&counts_[k], totals_[k]);
    const double hi = std::max(lp, term);
    lp = hi + std::log1p(std::exp(-std::fabs(lp - term)));
  }
  return lp;
}

}  // namespace carousel
