#include "carousel/io/npy.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>

#include "carousel/io/atomic_file.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
constexpr std::size_t kPreludeV1 = 10;  // magic, 2 version bytes, uint16 header length
constexpr std::size_t kAlignment = 64;  // numpy >= 1.14 aligns the data to 64 bytes

std::size_t ElementCount(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::string ShapeTuple(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";  // a Python 1-tuple needs the trailing comma
  return s + ")";
}

std::string Header(const std::vector<std::size_t>& shape, const char* descr) {
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + ShapeTuple(shape) + ", }";
  // Pad with spaces so that prelude + header + '\n' is a multiple of 64.
  const std::size_t unpadded = kPreludeV1 + header.size() + 1;
  header.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  header += '\n';
  if (header.size() > std::numeric_limits<std::uint16_t>::max()) {
    throw Error(ExitCode::kInternal, "npy header too long for format 1.0");
  }
  std::string out(kMagic);
  out += '\x01';  // format version 1.0
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);  // uint16, little-endian
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

template <typename T>
std::string Encode(const T* data, const std::vector<std::size_t>& shape, const char* descr) {
  const std::size_t n = ElementCount(shape);
  std::string out = Header(shape, descr);
  const std::size_t begin = out.size();
  out.resize(begin + n * sizeof(T));
  if (n > 0) std::memcpy(&out[begin], data, n * sizeof(T));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  // The descr says little-endian, so swap on big-endian hosts.
  for (std::size_t i = begin; i < out.size(); i += sizeof(T)) {
    std::reverse(out.begin() + i, out.begin() + i + sizeof(T));
  }
#endif
  return out;
}

// The value of `'key': ` in the header dict, up to (not including) the next `,` at
// nesting depth 0 or the closing `}`.
std::string_view DictValue(std::string_view header, std::string_view key, const std::string& path) {
  const std::string quoted = "'" + std::string(key) + "':";
  std::size_t pos = header.find(quoted);
  if (pos == std::string_view::npos) throw InputError(path, "npy header has no " + quoted);
  pos = header.find_first_not_of(' ', pos + quoted.size());
  if (pos == std::string_view::npos) throw InputError(path, "npy header truncated");
  int depth = 0;
  std::size_t end = pos;
  for (; end < header.size(); ++end) {
    const char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  if (end == header.size()) throw InputError(path, "npy header is not a closed dict");
  return header.substr(pos, end - pos);
}

std::vector<std::size_t> ParseShape(std::string_view v, const std::string& path) {
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (v.size() < 2 || v.front() != '(' || v.back() != ')') {
    throw InputError(path, "npy shape is not a tuple: " + std::string(v));
  }
  std::vector<std::size_t> shape;
  std::size_t i = 1;
  while (true) {
    while (i < v.size() && v[i] == ' ') ++i;
    if (v[i] == ')') break;
    std::size_t dim = 0;
    const std::size_t digits_begin = i;
    for (; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i) {
      if (dim > (std::numeric_limits<std::size_t>::max() - 9) / 10) {
        throw InputError(path, "npy shape dimension too large");
      }
      dim = dim * 10 + static_cast<std::size_t>(v[i] - '0');
    }
    if (i == digits_begin) throw InputError(path, "npy shape is malformed: " + std::string(v));
    shape.push_back(dim);
    while (i < v.size() && v[i] == ' ') ++i;
    if (v[i] == ',')
      ++i;
    else if (v[i] != ')')
      throw InputError(path, "npy shape is malformed: " + std::string(v));
  }
  return shape;
}

}  // namespace

std::string NpyBytes(const float* data, const std::vector<std::size_t>& shape) {
  return Encode(data, shape, "<f4");
}
NpyRowWriter::NpyRowWriter(const std::string& path, std::size_t rows, std::size_t cols,
                           NpyElement element)
    : file_(path), rows_(rows), cols_(cols), element_(element) {
  file_.Append(Header({rows, cols}, element == NpyElement::kFloat32 ? "<f4" : "<f8"));
}

NpyRowWriter::NpyRowWriter(const std::string& path, const std::vector<std::size_t>& shape,
                           NpyElement element)
    : file_(path), rows_(1), cols_(shape.empty() ? 0 : shape.back()), element_(element) {
  if (shape.size() < 2) throw Error(ExitCode::kInternal, "NpyRowWriter: fewer than 2 dimensions");
  for (std::size_t d = 0; d + 1 < shape.size(); ++d) rows_ *= shape[d];
  file_.Append(Header(shape, element == NpyElement::kFloat32 ? "<f4" : "<f8"));
}

NpyRowWriter::NpyRowWriter(const std::string& path, std::size_t rows)
    : file_(path), rows_(rows), cols_(1) {
  file_.Append(Header({rows}, "<f8"));
}

void NpyRowWriter::AppendRows(const double* data, std::size_t rows) {
  Append(data, rows, NpyElement::kFloat64, sizeof(double));
}

void NpyRowWriter::AppendRows(const float* data, std::size_t rows) {
  Append(data, rows, NpyElement::kFloat32, sizeof(float));
}

void NpyRowWriter::Append(const void* data, std::size_t rows, NpyElement element,
                          std::size_t size) {
  if (element != element_) throw Error(ExitCode::kInternal, "NpyRowWriter: wrong element type");
  if (written_ + rows > rows_) throw Error(ExitCode::kInternal, "NpyRowWriter: too many rows");
  std::string bytes(static_cast<const char*>(data), rows * cols_ * size);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (std::size_t i = 0; i < bytes.size(); i += size)
    std::reverse(bytes.begin() + i, bytes.begin() + i + size);
#endif
  file_.Append(bytes);
  written_ += rows;
}

void NpyRowWriter::Commit() {
  if (written_ != rows_) throw Error(ExitCode::kInternal, "NpyRowWriter: rows missing");
  file_.Commit();
}

std::string NpyBytes(const double* data, const std::vector<std::size_t>& shape) {
  return Encode(data, shape, "<f8");
}
std::string NpyBytes(const std::int32_t* data, const std::vector<std::size_t>& shape) {
  return Encode(data, shape, "<i4");
}
std::string NpyBytes(const std::int64_t* data, const std::vector<std::size_t>& shape) {
  return Encode(data, shape, "<i8");
}
std::string NpyBytes(const std::uint32_t* data, const std::vector<std::size_t>& shape) {
  return Encode(data, shape, "<u4");
}

void WriteNpy(const std::string& path, const float* data, const std::vector<std::size_t>& shape) {
  WriteFileAtomically(path, NpyBytes(data, shape));
}
void WriteNpy(const std::string& path, const double* data, const std::vector<std::size_t>& shape) {
  WriteFileAtomically(path, NpyBytes(data, shape));
}
void WriteNpy(const std::string& path, const std::int32_t* data,
              const std::vector<std::size_t>& shape) {
  WriteFileAtomically(path, NpyBytes(data, shape));
}
void WriteNpy(const std::string& path, const std::int64_t* data,
              const std::vector<std::size_t>& shape) {
  WriteFileAtomically(path, NpyBytes(data, shape));
}
void WriteNpy(const std::string& path, const std::uint32_t* data,
              const std::vector<std::size_t>& shape) {
  WriteFileAtomically(path, NpyBytes(data, shape));
}

NpyHeader ReadNpyHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  std::string prefix(std::min(file_size, kPreludeV1 + 2), '\0');
  in.read(&prefix[0], static_cast<std::streamsize>(prefix.size()));
  if (in.bad()) throw InputError(path, "read failed");

  if (prefix.size() < kPreludeV1 || std::string_view(prefix).substr(0, 6) != kMagic) {
    throw InputError(path, "not a .npy file");
  }
  // Versions 2.0 and 3.0 differ from 1.0 only in a uint32 header length.
  const auto major = static_cast<unsigned char>(prefix[6]);
  if (major < 1 || major > 3) {
    throw InputError(path, "unsupported .npy format version " + std::to_string(major));
  }
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  const std::size_t prelude = 8 + len_bytes;
  if (prefix.size() < prelude) throw InputError(path, "truncated .npy header");
  std::size_t header_len = 0;
  for (std::size_t i = 0; i < len_bytes; ++i) {
    header_len |= static_cast<std::size_t>(static_cast<unsigned char>(prefix[8 + i])) << (8 * i);
  }
  if (file_size - prelude < header_len) throw InputError(path, "truncated .npy header");
  std::string header_bytes(header_len, '\0');
  in.seekg(static_cast<std::streamoff>(prelude));
  in.read(&header_bytes[0], static_cast<std::streamsize>(header_len));
  if (!in) throw InputError(path, "read failed");
  const std::string_view header(header_bytes);

  NpyHeader out;
  std::string_view descr = DictValue(header, "descr", path);
  if (descr.size() < 3 || descr.front() != '\'' || descr.back() != '\'') {
    throw InputError(path, "npy descr is not a plain type string");
  }
  out.descr = std::string(descr.substr(1, descr.size() - 2));
  const std::string_view order = DictValue(header, "fortran_order", path);
  if (order != "False" && order != "True") throw InputError(path, "npy fortran_order malformed");
  out.fortran_order = order == "True";
  out.shape = ParseShape(DictValue(header, "shape", path), path);

  // descr is <byte order><kind><item size>, e.g. "<f4", "|u1".
  for (std::size_t i = 2; i < out.descr.size(); ++i) {
    const char c = out.descr[i];
    if (c < '0' || c > '9' || out.item_size > 1024) {
      throw InputError(path, "unsupported npy descr '" + out.descr + "'");
    }
    out.item_size = out.item_size * 10 + static_cast<std::size_t>(c - '0');
  }
  std::size_t expected = out.item_size;
  for (std::size_t d : out.shape) {
    if (d != 0 && expected > std::numeric_limits<std::size_t>::max() / d) {
      throw InputError(path, "npy shape too large");
    }
    expected *= d;
  }
  out.data_offset = prelude + header_len;
  if (file_size - out.data_offset != expected) {
    throw InputError(path, "npy data has " + std::to_string(file_size - out.data_offset) +
                               " bytes, descr and shape say " + std::to_string(expected));
  }
  return out;
}

NpyArray ReadNpy(const std::string& path) {
  const NpyHeader header = ReadNpyHeader(path);
  NpyArray array;
  array.descr = header.descr;
  array.fortran_order = header.fortran_order;
  array.shape = header.shape;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  in.seekg(static_cast<std::streamoff>(header.data_offset));
  array.data.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, "read failed");
  return array;
}

}  // namespace carousel::io
