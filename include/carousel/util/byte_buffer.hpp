// Minimal binary packing of plain values and arrays, for blocks that travel between ranks
// and into checkpoints. Same machine, same layout: no endianness conversion.
#pragma once

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "carousel/util/error.hpp"

namespace carousel {

class ByteWriter {
 public:
  template <typename T>
  void Put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    PutRaw(&value, sizeof(T));
  }
  template <typename T>
  void PutArray(const T* data, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    Put<std::uint64_t>(count);
    PutRaw(data, count * sizeof(T));
  }
  template <typename T>
  void PutVector(const std::vector<T>& v) {
    PutArray(v.data(), v.size());
  }
  void PutBytes(const std::string& bytes) { PutArray(bytes.data(), bytes.size()); }
  std::string Take() { return std::move(bytes_); }

  // The bytes PutArray writes for `count` elements of type T.
  template <typename T>
  static constexpr std::size_t ArrayBytes(std::size_t count) {
    return sizeof(std::uint64_t) + count * sizeof(T);
  }
  // Room for `bytes` in all: a writer whose size is known takes its buffer once, instead of
  // doubling it (a copy each time, and past glibc's mmap threshold fresh pages to fault in).
  void Reserve(std::size_t bytes) { bytes_.reserve(bytes); }

 private:
  void PutRaw(const void* data, std::size_t size) {
    if (size == 0) return;  // an empty block's data() may be null, which memcpy must not see
    bytes_.append(static_cast<const char*>(data), size);
  }
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    T value;
    GetRaw(&value, sizeof(T));
    return value;
  }
  // Reads an array written by PutArray into `data`, which must hold exactly `count`.
  template <typename T>
  void GetArray(T* data, std::size_t count) {
    if (Get<std::uint64_t>() != count)
      throw Error(ExitCode::kCheckpoint, "state block has an unexpected size");
    GetRaw(data, count * sizeof(T));
  }
  template <typename T>
  std::vector<T> GetVector() {
    const auto count = Get<std::uint64_t>();
    if (count * sizeof(T) > bytes_.size() - offset_)
      throw Error(ExitCode::kCheckpoint, "state block is truncated");
    std::vector<T> v(count);
    GetRaw(v.data(), count * sizeof(T));
    return v;
  }
  bool done() const { return offset_ == bytes_.size(); }  // everything has been read
  std::string GetBytes() {
    const auto chars = GetVector<char>();
    return std::string(chars.begin(), chars.end());
  }

 private:
  void GetRaw(void* data, std::size_t size) {
    if (size > bytes_.size() - offset_)
      throw Error(ExitCode::kCheckpoint, "state block is truncated");
    if (size == 0) return;  // as in PutRaw
    std::memcpy(data, bytes_.data() + offset_, size);
    offset_ += size;
  }
  const std::string& bytes_;
  std::size_t offset_ = 0;
};

// The bytes of a vector of plain values, and their way back (appended to `out`): for
// messages whose layout both ends share.
template <typename T>
std::string PodBytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}
template <typename T>
void AppendPods(const std::string& bytes, std::vector<T>& out) {
  const std::size_t n = bytes.size() / sizeof(T);
  out.resize(out.size() + n);
  if (n > 0)
    std::memcpy(static_cast<void*>(out.data() + out.size() - n), bytes.data(), n * sizeof(T));
}

}  // namespace carousel
