#include "carousel/util/closest_name.hpp"

#include <algorithm>

namespace carousel {
namespace {

// Levenshtein distance with unit costs.
std::size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// `given` abbreviates `name`: its characters appear in `name` in order, the first
// letter (after any leading dashes) included ("--iters" of "--iterations").
bool Abbreviates(const std::string& given, const std::string& name) {
  const std::size_t first = given.find_first_not_of('-');
  if (first == std::string::npos || name.size() <= given.size()) return false;
  if (name.compare(0, first + 1, given, 0, first + 1) != 0) return false;
  std::size_t at = 0;
  for (char c : given) {
    at = name.find(c, at);
    if (at == std::string::npos) return false;
    ++at;
  }
  return true;
}

}  // namespace

std::optional<std::string> ClosestName(const std::string& given,
                                       const std::vector<std::string>& known) {
  std::vector<std::string> abbreviated;
  for (const std::string& name : known)
    if (Abbreviates(given, name)) abbreviated.push_back(name);
  if (abbreviated.size() == 1) return abbreviated.front();
  const std::size_t limit = std::max<std::size_t>(1, given.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const std::string& name : known) {
    const std::size_t d = EditDistance(given, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

}  // namespace carousel
