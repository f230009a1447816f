#include "carousel/util/crc64.hpp"

#include <array>

namespace carousel {
namespace {

constexpr std::array<std::uint64_t, 256> MakeCrc64Table() {
  constexpr std::uint64_t kPolyReflected = 0xC96C5795D7870F42ULL;  // ECMA-182, bit-reversed
  std::array<std::uint64_t, 256> table{};
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? kPolyReflected : 0);
    table[i] = crc;
  }
  return table;
}
constexpr std::array<std::uint64_t, 256> kCrc64Table = MakeCrc64Table();

}  // namespace

std::uint64_t Crc64Xz(std::string_view bytes) {
  std::uint64_t crc = ~std::uint64_t{0};
  for (unsigned char c : bytes) crc = kCrc64Table[(crc ^ c) & 0xff] ^ (crc >> 8);
  return ~crc;
}

}  // namespace carousel
