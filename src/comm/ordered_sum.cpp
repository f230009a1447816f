#include "carousel/comm/ordered_sum.hpp"

#include <cstring>

#include "carousel/util/error.hpp"

namespace carousel {

std::vector<double> OrderedSum(Communicator& comm, const KeyedPartials& mine, std::size_t width) {
  std::vector<double> packed;
  for (const auto& [key, values] : mine) {
    if (values.size() != width) throw Error(ExitCode::kInternal, "OrderedSum: wrong width");
    packed.push_back(static_cast<double>(key));
    packed.insert(packed.end(), values.begin(), values.end());
  }
  std::string bytes(packed.size() * sizeof(double), '\0');
  std::memcpy(bytes.data(), packed.data(), bytes.size());

  std::map<int, std::vector<double>> all;
  for (const std::string& part : comm.AllGather(bytes)) {
    std::vector<double> values(part.size() / sizeof(double));
    std::memcpy(values.data(), part.data(), part.size());
    for (std::size_t i = 0; i < values.size(); i += width + 1)
      all[static_cast<int>(values[i])].assign(values.begin() + i + 1,
                                              values.begin() + i + 1 + width);
  }
  std::vector<double> total(width, 0.0);
  for (const auto& [key, values] : all)
    for (std::size_t i = 0; i < width; ++i) total[i] += values[i];
  return total;
}

}  // namespace carousel
