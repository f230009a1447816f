#include "carousel/io/mf_loader.hpp"

#include <algorithm>

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel::io {
namespace {

// Each rating goes to the test set with probability `fraction`, keyed by its position in
// the file, so the split depends on the seed only.
void Split(const RatingsFile& all, double fraction, std::uint64_t seed, RatingsFile& train,
           RatingsFile& test) {
  train.path = test.path = all.path;
  train.format = test.format = all.format;
  for (std::size_t n = 0; n < all.ratings.size(); ++n) {
    KeyedStream stream(seed, Purpose::kSplit, n, 0);
    (stream.uniform() < fraction ? test : train).ratings.push_back(all.ratings[n]);
  }
}

std::vector<std::int64_t> Column(const RatingsFile& f, bool users) {
  std::vector<std::int64_t> ids;
  ids.reserve(f.ratings.size());
  for (const RawRating& r : f.ratings) ids.push_back(users ? r.user : r.item);
  return ids;
}

}  // namespace

LoadedMf LoadMf(const MfInput& input) {
  RatingsFile train = ReadRatings(input.train, input.format);
  RatingsFile test;
  if (!input.test.empty()) {
    test = ReadRatings(input.test, input.format);
  } else if (input.test_fraction > 0.0) {
    RatingsFile all = std::move(train);
    train = RatingsFile{};
    Split(all, input.test_fraction, input.seed, train, test);
    if (train.ratings.empty())
      throw InputError(input.train, "no training ratings left after the test split");
  }

  LoadedMf out;
  out.users = IdMap::FromIds(Column(train, true));
  out.items = IdMap::FromIds(Column(train, false));
  out.problem.train = ToMatrix(train, out.users, out.items, nullptr);
  double sum = 0.0;
  float lo = train.ratings.front().value, hi = lo;
  for (const Rating& r : out.problem.train.entries) {
    sum += r.value;
    lo = std::min(lo, r.value);
    hi = std::max(hi, r.value);
  }
  out.problem.mu = static_cast<float>(sum / out.problem.train.entries.size());
  out.problem.lo = lo;
  out.problem.hi = hi;

  for (const RawRating& r : test.ratings) {
    const auto row = out.users.Find(r.user);
    const auto col = out.items.Find(r.item);
    if (!row || !col) ++out.cold_test;
    out.problem.test.push_back(
        {row.value_or(kUnknownId), col.value_or(kUnknownId), static_cast<float>(r.value)});
    out.test_user.push_back(r.user);
    out.test_item.push_back(r.item);
  }
  return out;
}

}  // namespace carousel::io
