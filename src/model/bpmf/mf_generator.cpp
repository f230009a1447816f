// Synthetic MovieLens-like ratings from a known biased matrix-factorization model
// (the BPMF model of Salakhutdinov & Mnih 2008, with biases). See mf_generator.hpp.
#include "carousel/model/bpmf/mf_generator.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include "carousel/util/alias_table.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

// Shape of the generated data, chosen to resemble MovieLens 1M.
constexpr double kGlobalMean = 3.55;         // mu before rounding and clipping
constexpr double kUserBiasSd = 0.35;         // sd of b_i
constexpr double kItemBiasSd = 0.35;         // sd of c_j
constexpr double kItemBiasPopularity = 0.4;  // correlation of c_j with log popularity
constexpr double kSignalSd = 0.65;           // sd of w_i . h_j
constexpr double kUserLogWeightSd = 1.15;    // lognormal sigma of user activity
constexpr double kItemLogWeightSd = 1.4;     // lognormal sigma of item popularity
constexpr std::uint64_t kMinUserDegree = 20;
constexpr double kMaxUserShare = 0.6;  // no user rates more than this share of the items

// The `iteration` field of the generator's keyed streams says what a stream is for.
enum StreamKind : std::uint64_t {
  kUserStream = 0,  // id = user: weight, bias, factors
  kItemStream = 1,  // id = item: weight, bias, factors
  kSeedStream = 2,  // id = 0: which user gets each item's guaranteed rating
  kRowStream = 3,   // id = user: the user's items, then the noise of its ratings
};

void CheckOptions(const MfGeneratorOptions& o) {
  if (o.users == 0) throw SettingError("users", "must be at least 1");
  if (o.items == 0) throw SettingError("items", "must be at least 1");
  if (o.rank < 1) throw SettingError("rank", "must be at least 1, got " + std::to_string(o.rank));
  if (!std::isfinite(o.noise) || o.noise < 0.0) {
    throw SettingError("noise", "must be finite and non-negative");
  }
  if (o.ratings < o.users) {
    throw SettingError("ratings", std::to_string(o.ratings) + " is fewer than the " +
                                      std::to_string(o.users) +
                                      " users (each user needs at least one rating)");
  }
  const std::uint64_t cells = static_cast<std::uint64_t>(o.users) * o.items;
  if (o.ratings > cells / 2) {
    throw SettingError("ratings", std::to_string(o.ratings) + " is more than half of the " +
                                      std::to_string(cells) + " user-item pairs");
  }
}

// Each user's degree: a floor plus a share of the remaining ratings proportional to
// its weight, capped; the capped users' surplus goes to the others (water filling),
// then integer shares by largest remainder. Sums exactly to `ratings`.
std::vector<std::uint64_t> UserDegrees(const std::vector<double>& weight, std::uint64_t ratings,
                                       std::uint64_t min_degree, std::uint64_t cap) {
  const std::size_t n = weight.size();
  const std::uint64_t room = cap - min_degree;
  const double extra = static_cast<double>(ratings - min_degree * n);
  std::vector<double> share(n, 0.0);
  std::vector<char> capped(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    double active_weight = 0.0, left = extra;
    for (std::size_t i = 0; i < n; ++i) {
      if (capped[i]) {
        left -= static_cast<double>(room);
      } else {
        active_weight += weight[i];
      }
    }
    if (active_weight <= 0.0) break;
    for (std::size_t i = 0; i < n; ++i) {
      if (capped[i]) continue;
      share[i] = left * weight[i] / active_weight;
      if (share[i] >= static_cast<double>(room)) {
        share[i] = static_cast<double>(room);
        capped[i] = 1;
        changed = true;
      }
    }
  }
  std::vector<std::uint64_t> degree(n);
  std::uint64_t assigned = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto whole = std::min(room, static_cast<std::uint64_t>(std::floor(share[i])));
    degree[i] = min_degree + whole;
    assigned += degree[i];
  }
  // Hand out what rounding down left over, largest fractional part first.
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return share[a] - std::floor(share[a]) > share[b] - std::floor(share[b]);
  });
  while (assigned < ratings) {
    bool progress = false;
    for (std::uint32_t i : order) {
      if (assigned == ratings) break;
      if (degree[i] < cap) {
        ++degree[i];
        ++assigned;
        progress = true;
      }
    }
    if (!progress) throw Error(ExitCode::kInternal, "GenerateMf: user degrees do not fit");
  }
  while (assigned > ratings) {  // only if floating-point shares overshot
    bool progress = false;
    for (auto it = order.rbegin(); it != order.rend() && assigned > ratings; ++it) {
      if (degree[*it] > min_degree) {
        --degree[*it];
        --assigned;
        progress = true;
      }
    }
    if (!progress) throw Error(ExitCode::kInternal, "GenerateMf: user degrees do not fit");
  }
  return degree;
}

}  // namespace

GeneratedRatings GenerateMf(const MfGeneratorOptions& o) {
  CheckOptions(o);
  const std::uint32_t users = o.users, items = o.items;
  const auto rank = static_cast<std::size_t>(o.rank);
  // w . h is a sum of `rank` products of two N(0, s^2) variables: sd sqrt(rank) s^2.
  const double factor_sd = std::sqrt(kSignalSd / std::sqrt(static_cast<double>(rank)));

  // Per-entity weight, bias and factors.
  std::vector<double> user_weight(users), item_weight(items), user_bias(users), item_bias(items);
  std::vector<double> user_factor(users * rank), item_factor(items * rank);
  for (std::uint32_t i = 0; i < users; ++i) {
    KeyedStream rng(o.seed, Purpose::kGenerate, i, kUserStream);
    user_weight[i] = std::exp(kUserLogWeightSd * rng.normal());
    user_bias[i] = kUserBiasSd * rng.normal();
    for (std::size_t k = 0; k < rank; ++k) user_factor[i * rank + k] = factor_sd * rng.normal();
  }
  const double own = std::sqrt(1.0 - kItemBiasPopularity * kItemBiasPopularity);
  for (std::uint32_t j = 0; j < items; ++j) {
    KeyedStream rng(o.seed, Purpose::kGenerate, j, kItemStream);
    const double z = rng.normal();
    item_weight[j] = std::exp(kItemLogWeightSd * z);
    // Popular items are rated a little higher, as in MovieLens; c_j stays N(0, sd^2).
    item_bias[j] = kItemBiasSd * (kItemBiasPopularity * z + own * rng.normal());
    for (std::size_t k = 0; k < rank; ++k) item_factor[j * rank + k] = factor_sd * rng.normal();
  }

  const std::uint64_t min_degree = std::min<std::uint64_t>(kMinUserDegree, o.ratings / users);
  const std::uint64_t cap = std::min<std::uint64_t>(
      items, std::max<std::uint64_t>(min_degree,
                                     static_cast<std::uint64_t>(std::ceil(kMaxUserShare * items))));
  const std::vector<std::uint64_t> degree = UserDegrees(user_weight, o.ratings, min_degree, cap);

  // Give every item one rating first, from a user drawn by activity with room left.
  std::vector<std::uint64_t> seeded(users, 0);
  std::vector<std::uint32_t> seed_user;
  if (o.ratings >= 2 * (static_cast<std::uint64_t>(users) + items)) {
    seed_user.resize(items);
    const AliasTable user_table(user_weight);
    KeyedStream rng(o.seed, Purpose::kGenerate, 0, kSeedStream);
    for (std::uint32_t j = 0; j < items; ++j) {
      std::uint32_t u = user_table.Draw(rng);
      for (int tries = 0; seeded[u] >= degree[u] && tries < 64; ++tries) u = user_table.Draw(rng);
      if (seeded[u] >= degree[u]) {  // nearly full: scan from a random start
        u = static_cast<std::uint32_t>(rng.below(users));
        while (seeded[u] >= degree[u]) u = (u + 1 == users) ? 0 : u + 1;
      }
      seed_user[j] = u;
      ++seeded[u];
    }
  }
  // Seeded items per user, in CSR form.
  std::vector<std::uint64_t> seed_start(users + 1, 0);
  for (std::uint32_t u = 0; u < users; ++u) seed_start[u + 1] = seed_start[u] + seeded[u];
  std::vector<std::uint32_t> seed_items(seed_user.size());
  {
    std::vector<std::uint64_t> fill(seed_start.begin(), seed_start.end() - 1);
    for (std::uint32_t j = 0; j < seed_user.size(); ++j) seed_items[fill[seed_user[j]]++] = j;
  }

  GeneratedRatings out;
  out.user.reserve(o.ratings);
  out.item.reserve(o.ratings);
  out.rating.reserve(o.ratings);
  out.oracle.reserve(o.ratings);
  const AliasTable item_table(item_weight);
  std::vector<std::uint32_t> mark(items, 0);  // mark[j] == u + 1: user u already has item j
  std::vector<std::uint32_t> chosen;
  std::vector<std::pair<double, std::uint32_t>> keys;
  double sse = 0.0;
  for (std::uint32_t u = 0; u < users; ++u) {
    KeyedStream rng(o.seed, Purpose::kGenerate, u, kRowStream);
    const std::uint32_t stamp = u + 1;
    chosen.assign(seed_items.begin() + seed_start[u], seed_items.begin() + seed_start[u + 1]);
    for (std::uint32_t j : chosen) mark[j] = stamp;
    const std::uint64_t need = degree[u] - chosen.size();
    if (need * 8 > items) {
      // A heavy user: rejection would stall on the popular items it already has, so
      // sample without replacement exactly by Efraimidis-Spirakis keys log(U) / weight.
      keys.clear();
      for (std::uint32_t j = 0; j < items; ++j) {
        if (mark[j] != stamp) keys.emplace_back(std::log(rng.uniform()) / item_weight[j], j);
      }
      std::nth_element(keys.begin(), keys.begin() + need, keys.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      for (std::uint64_t t = 0; t < need; ++t) chosen.push_back(keys[t].second);
    } else {
      while (chosen.size() < degree[u]) {
        const std::uint32_t j = item_table.Draw(rng);
        if (mark[j] == stamp) continue;
        mark[j] = stamp;
        chosen.push_back(j);
      }
    }
    std::sort(chosen.begin(), chosen.end());
    const double* w = &user_factor[u * rank];
    for (std::uint32_t j : chosen) {
      const double* h = &item_factor[j * rank];
      double mean = kGlobalMean + user_bias[u] + item_bias[j];
      for (std::size_t k = 0; k < rank; ++k) mean += w[k] * h[k];
      const double oracle = std::clamp(mean, 1.0, 5.0);
      const double noisy = mean + o.noise * rng.normal();
      const double rating = std::clamp(std::floor(noisy + 0.5), 1.0, 5.0);
      sse += (oracle - rating) * (oracle - rating);
      out.user.push_back(u);
      out.item.push_back(j);
      out.rating.push_back(static_cast<float>(rating));
      out.oracle.push_back(static_cast<float>(oracle));
    }
  }
  out.noise_floor_rmse = std::sqrt(sse / static_cast<double>(out.rating.size()));
  return out;
}

void WriteRatingsText(const std::string& path, const GeneratedRatings& data) {
  const std::size_t n = data.rating.size();
  if (data.user.size() != n || data.item.size() != n) {
    throw Error(ExitCode::kInternal, "WriteRatingsText: user, item and rating sizes differ");
  }
  std::string buffer;
  buffer.reserve(n * 16);
  char field[64];
  auto append_id = [&](std::uint64_t id) {
    const auto end = std::to_chars(field, field + sizeof field, id).ptr;
    buffer.append(field, end);
  };
  for (std::size_t t = 0; t < n; ++t) {
    append_id(static_cast<std::uint64_t>(data.user[t]) + 1);
    buffer.push_back(' ');
    append_id(static_cast<std::uint64_t>(data.item[t]) + 1);
    buffer.push_back(' ');
    const float r = data.rating[t];
    if (r == std::floor(r) && std::fabs(r) < 1e9f) {
      const auto end = std::to_chars(field, field + sizeof field, static_cast<long>(r)).ptr;
      buffer.append(field, end);
    } else {
      const int len = std::snprintf(field, sizeof field, "%.9g", static_cast<double>(r));
      buffer.append(field, static_cast<std::size_t>(len));
    }
    buffer.push_back('\n');
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw OutputError(path, std::strerror(errno));
  const std::size_t written = std::fwrite(buffer.data(), 1, buffer.size(), f);
  const int write_errno = errno;
  if (written != buffer.size()) {
    std::fclose(f);
    throw OutputError(path, std::string("write failed: ") + std::strerror(write_errno));
  }
  if (std::fclose(f) != 0) {
    throw OutputError(path, std::string("close failed: ") + std::strerror(errno));
  }
}

}  // namespace carousel
