// Finding the repeated key a single process reading a file would report first: the key
// whose second occurrence comes first, named with the lines of its first two. The loaders
// gather the occurrences (key, line) of the few keys known to repeat from every rank's
// range, then each rank picks the same one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/util/byte_buffer.hpp"

namespace carousel::io {

template <typename Key>
struct Occurrence {
  Key key;
  std::uint64_t line;
};

template <typename Key>
struct Repeat {
  Key key;
  std::uint64_t first, second;  // lines
};

// Keys need < and ==.
template <typename Key>
std::optional<Repeat<Key>> EarliestRepeat(std::vector<Occurrence<Key>> occurrences) {
  std::sort(occurrences.begin(), occurrences.end(),
            [](const Occurrence<Key>& a, const Occurrence<Key>& b) {
              return a.key == b.key ? a.line < b.line : a.key < b.key;
            });
  std::optional<Repeat<Key>> earliest;
  for (std::size_t i = 1; i < occurrences.size(); ++i) {
    const bool second_of_key = occurrences[i].key == occurrences[i - 1].key &&
                               (i < 2 || !(occurrences[i - 2].key == occurrences[i].key));
    if (second_of_key && (!earliest || occurrences[i].line < earliest->second))
      earliest = Repeat<Key>{occurrences[i].key, occurrences[i - 1].line, occurrences[i].line};
  }
  return earliest;
}

// EarliestRepeat over every rank's occurrences (plain-old-data keys), on every rank.
// Collective.
template <typename Key>
std::optional<Repeat<Key>> EarliestRepeatOfAllRanks(Communicator& comm,
                                                    const std::vector<Occurrence<Key>>& mine) {
  std::vector<Occurrence<Key>> all;
  for (const std::string& part : comm.AllGather(PodBytes(mine))) AppendPods(part, all);
  return EarliestRepeat(std::move(all));
}

}  // namespace carousel::io
