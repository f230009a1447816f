// Checksums of bytes: checkpoint files carry one of their payload, and runs keep one of
// their input data to tell whether a checkpoint belongs to them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace carousel {

// CRC-64/XZ (ECMA-182 polynomial, reflected, init and xorout all ones; the CRC used by
// xz): check value 0x995DC9BBDF1939FA for "123456789".
std::uint64_t Crc64Xz(std::string_view bytes);

// CRC-64/XZ of the bytes of a vector of plain values (padding-free types only): a
// fingerprint of the data a checkpoint was made from.
template <typename T>
std::uint64_t Crc64Of(const std::vector<T>& values) {
  return Crc64Xz(
      std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

}  // namespace carousel
