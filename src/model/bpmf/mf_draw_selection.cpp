#include "carousel/model/bpmf/mf_draw_selection.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

Error BadSpec(const std::string& why) {
  return SettingError("save-draws", why + " (expected e.g. \"users=1,5,9 items=3\" or a count)");
}

std::int64_t ParseId(const std::string& text) {
  std::size_t used = 0;
  std::int64_t id = -1;
  try {
    id = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || id < 0) throw BadSpec("'" + text + "' is not an id");
  return id;
}

// `count` distinct indices below `n`, keyed by (seed, purpose, which): a partial
// Fisher-Yates shuffle that stores only the swapped positions, then ascending.
std::vector<std::uint32_t> RandomPick(std::uint64_t count, std::uint32_t n, std::uint64_t seed,
                                      std::uint64_t which) {
  count = std::min<std::uint64_t>(count, n);
  KeyedStream stream(seed, Purpose::kDrawSelection, which, 0);
  std::unordered_map<std::uint32_t, std::uint32_t> moved;  // position -> value now there
  const auto at = [&](std::uint32_t i) {
    const auto found = moved.find(i);
    return found == moved.end() ? i : found->second;
  };
  std::vector<std::uint32_t> picked;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto j = static_cast<std::uint32_t>(i + stream.below(n - i));
    const std::uint32_t value_i = at(i);
    picked.push_back(at(j));
    moved[j] = value_i;
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

}  // namespace

MfDrawSelection ResolveDrawSelection(const std::string& spec, const io::IdMap& users,
                                     const io::IdMap& items, std::uint64_t seed) {
  MfDrawSelection selection;
  if (spec.empty()) return selection;
  if (std::all_of(spec.begin(), spec.end(), [](unsigned char c) { return std::isdigit(c); })) {
    const std::uint64_t count = std::stoull(spec);
    selection.rows = RandomPick(count, users.size(), seed, 0);
    selection.cols = RandomPick(count, items.size(), seed, 1);
  } else {
    std::istringstream parts(spec);
    std::string part;
    while (parts >> part) {
      const std::size_t eq = part.find('=');
      const std::string key = part.substr(0, eq);
      if (eq == std::string::npos || (key != "users" && key != "items"))
        throw BadSpec("'" + part + "' is neither users=... nor items=...");
      const io::IdMap& map = key == "users" ? users : items;
      std::vector<std::uint32_t>& dense = key == "users" ? selection.rows : selection.cols;
      std::istringstream ids(part.substr(eq + 1));
      std::string id;
      while (std::getline(ids, id, ',')) {
        const std::int64_t external = ParseId(id);
        const auto index = map.Find(external);
        if (!index)
          throw BadSpec(key.substr(0, key.size() - 1) + " " + id +
                        " does not occur in the training data");
        dense.push_back(*index);
      }
    }
  }
  for (const std::uint32_t r : selection.rows) selection.row_ids.push_back(users.External(r));
  for (const std::uint32_t c : selection.cols) selection.col_ids.push_back(items.External(c));
  return selection;
}

}  // namespace carousel
