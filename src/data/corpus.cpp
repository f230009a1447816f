#include "carousel/data/corpus.hpp"

#include <numeric>

namespace carousel {

std::uint64_t Corpus::tokens() const {
  return std::accumulate(count.begin(), count.end(), std::uint64_t{0});
}

}  // namespace carousel
