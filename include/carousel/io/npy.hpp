// NumPy .npy files (format version 1.0) for sampled factors and predictions, so results
// load with numpy.load(path) without any Carousel code.
//
// Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "carousel/io/atomic_file.hpp"

namespace carousel::io {

// The complete file contents for a C-order (row-major) array of the given shape, stored
// little-endian whatever the host. `data` holds product(shape) elements; an empty shape
// is a 0-d array of one element.
std::string NpyBytes(const float* data, const std::vector<std::size_t>& shape);          // <f4
std::string NpyBytes(const double* data, const std::vector<std::size_t>& shape);         // <f8
std::string NpyBytes(const std::int32_t* data, const std::vector<std::size_t>& shape);   // <i4
std::string NpyBytes(const std::int64_t* data, const std::vector<std::size_t>& shape);   // <i8
std::string NpyBytes(const std::uint32_t* data, const std::vector<std::size_t>& shape);  // <u4

// NpyBytes written with WriteFileAtomically; throws carousel::OutputError on failure.
void WriteNpy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);
void WriteNpy(const std::string& path, const double* data, const std::vector<std::size_t>& shape);
void WriteNpy(const std::string& path, const std::int32_t* data,
              const std::vector<std::size_t>& shape);
void WriteNpy(const std::string& path, const std::int64_t* data,
              const std::vector<std::size_t>& shape);
void WriteNpy(const std::string& path, const std::uint32_t* data,
              const std::vector<std::size_t>& shape);

// The element types NpyRowWriter writes.
enum class NpyElement { kFloat64, kFloat32 };

// A matrix (rows x cols, C order; float64 unless said otherwise) written atomically in
// slices of whole rows, for arrays no process should hold at once. Rows are given in the
// element type of the file. Commit() requires every row to have been given.
class NpyRowWriter {
 public:
  NpyRowWriter(const std::string& path, std::size_t rows, std::size_t cols,
               NpyElement element = NpyElement::kFloat64);
  // An array of any shape (at least 2 dimensions), given a row of its last dimension at a
  // time in C order: rows is the product of the others.
  NpyRowWriter(const std::string& path, const std::vector<std::size_t>& shape,
               NpyElement element = NpyElement::kFloat64);
  // A vector of `rows` values (shape (rows,)), given a slice at a time as rows of one.
  NpyRowWriter(const std::string& path, std::size_t rows);
  void AppendRows(const double* data, std::size_t rows);
  void AppendRows(const float* data, std::size_t rows);
  void Commit();

 private:
  void Append(const void* data, std::size_t rows, NpyElement element, std::size_t size);
  AtomicFileWriter file_;
  std::size_t rows_, cols_, written_ = 0;
  NpyElement element_ = NpyElement::kFloat64;
};

struct NpyArray {
  std::string descr;               // e.g. "<f4"
  bool fortran_order = false;      // reported, not converted
  std::vector<std::size_t> shape;  // empty for a 0-d array
  std::string data;                // raw element bytes as stored in the file
};

// The header of a .npy file: what ReadNpy checks, without the data, so that a caller can
// read only the rows it needs (data_offset + row * row bytes; the file's size was checked
// against descr and shape). Throws carousel::InputError(path, problem).
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  std::size_t item_size = 0;    // bytes of one element, from descr
  std::size_t data_offset = 0;  // of the first element in the file
};
NpyHeader ReadNpyHeader(const std::string& path);

// Minimal reader (for tests and tools, not a general .npy parser): accepts format
// versions 1.x-3.x with a plain dict header. Checks that the data size matches descr and
// shape. Throws carousel::InputError(path, problem) on missing or malformed files.
NpyArray ReadNpy(const std::string& path);

}  // namespace carousel::io
