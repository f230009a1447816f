// io::LoadDenseNpy: a dense .npy matrix (float32/64, complex64/128) as every-element-observed
// MfProblem and TileShare, and its input errors naming the file and element.
#include "carousel/io/dense_npy_loader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "carousel/io/npy.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

class DenseNpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("dense_npy_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // A version 1.0 .npy with the given header fields and raw little-endian data.
  template <typename T>
  std::string Write(const std::string& name, const std::string& descr, const std::string& shape,
                    const std::vector<T>& data, bool fortran = false) {
    std::string header = "{'descr': '" + descr +
                         "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape + ", }\n";
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(T));
    std::ofstream(Path(name), std::ios::binary) << bytes;
    return Path(name);
  }

  // Every stored entry by (row, column).
  static std::map<std::pair<std::uint32_t, std::uint32_t>, float> Entries(const LoadedDense& d,
                                                                          int tiles) {
    const TileGrid grid(d.data.problem.rows, d.data.problem.cols, tiles, 3);
    std::map<std::pair<std::uint32_t, std::uint32_t>, float> out;
    for (std::size_t p = 0; p < d.data.share.parts.size(); ++p)
      for (const LocalRating& r : d.data.share.parts[p]) {
        const Rating g = d.data.share.Global(grid, p, r);
        out[{g.row, g.col}] = g.value;
      }
    return out;
  }

  std::string Error(const std::string& path) {
    try {
      LoadDenseNpy(*comm_, path, 1, 3);
    } catch (const carousel::Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInput);
      return e.what();
    }
    ADD_FAILURE() << path << " loaded";
    return "";
  }

  fs::path dir_;
  std::unique_ptr<Communicator> comm_ = MakeSerialCommunicator();
};

// The header alone, for reading rows by offset: the data start right after it.
TEST_F(DenseNpyTest, HeaderGivesTheDataOffset) {
  const std::vector<std::complex<double>> c(6, {1.0, 2.0});
  const std::string path = Write("h.npy", "<c16", "(2, 3)", c);
  const NpyHeader h = ReadNpyHeader(path);
  EXPECT_EQ(h.descr, "<c16");
  EXPECT_EQ(h.item_size, 16u);
  EXPECT_EQ(h.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(h.data_offset, fs::file_size(path) - 6 * 16);
  EXPECT_EQ(ReadNpy(path).data.size(), 6u * 16u);  // ReadNpy reads from the same offset
}

TEST_F(DenseNpyTest, RealFloat64KeepsSignsAndEveryElement) {
  const std::vector<double> x = {1.5, -2.0, 0.0, 4.0, -0.25, 3.0};
  const std::string path = Write("x.npy", "<f8", "(2, 3)", x);
  for (int tiles : {1, 2}) {
    const LoadedDense d = LoadDenseNpy(*comm_, path, tiles, 3);
    EXPECT_FALSE(d.complex);
    EXPECT_EQ(d.data.problem.rows, 2u);
    EXPECT_EQ(d.data.problem.cols, 3u);
    EXPECT_EQ(d.data.problem.train_count, 6u);
    const auto entries = Entries(d, tiles);
    ASSERT_EQ(entries.size(), 6u);
    for (std::uint32_t i = 0; i < 2; ++i)
      for (std::uint32_t j = 0; j < 3; ++j) EXPECT_EQ(entries.at({i, j}), x[i * 3 + j]);
    // mu is the mean of |x| (what carousel amf's start needs), not of x.
    EXPECT_FLOAT_EQ(d.data.problem.mu, (1.5 + 2.0 + 0.0 + 4.0 + 0.25 + 3.0) / 6.0);
    EXPECT_EQ(d.data.problem.lo, -2.0f);
    EXPECT_EQ(d.data.problem.hi, 4.0f);
  }
}

TEST_F(DenseNpyTest, ComplexIsKeptAsModulus) {
  const std::vector<std::complex<float>> c64 = {{3, 4}, {0, -1}, {-2, 0}, {1, 1}};
  const std::vector<std::complex<double>> c128(c64.begin(), c64.end());
  for (const std::string& path :
       {Write("c8.npy", "<c8", "(2, 2)", c64), Write("c16.npy", "<c16", "(2, 2)", c128)}) {
    const LoadedDense d = LoadDenseNpy(*comm_, path, 1, 3);
    EXPECT_TRUE(d.complex);
    const auto entries = Entries(d, 1);
    EXPECT_FLOAT_EQ(entries.at({0, 0}), 5.0f);
    EXPECT_FLOAT_EQ(entries.at({0, 1}), 1.0f);
    EXPECT_FLOAT_EQ(entries.at({1, 0}), 2.0f);
    EXPECT_FLOAT_EQ(entries.at({1, 1}), std::sqrt(2.0f));
  }
}

TEST_F(DenseNpyTest, Float32AndDetectionByMagic) {
  const std::string path = Write("x.dat", "<f4", "(1, 2)", std::vector<float>{0.5f, -1.0f});
  EXPECT_TRUE(IsNpyFile(path));
  EXPECT_TRUE(IsNpyFile(Path("missing.npy")));  // by the name alone
  std::ofstream(Path("ratings.txt")) << "1 2 3\n";
  EXPECT_FALSE(IsNpyFile(Path("ratings.txt")));
  const auto entries = Entries(LoadDenseNpy(*comm_, path, 1, 3), 1);
  EXPECT_EQ(entries.at({0, 1}), -1.0f);
}

TEST_F(DenseNpyTest, NonFiniteElementsAreNamedFirstInCOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x(12, 1.0);
  x[1 * 4 + 2] = nan;
  x[2 * 4 + 0] = HUGE_VAL;
  const std::string m = Error(Write("nan.npy", "<f8", "(3, 4)", x));
  EXPECT_NE(m.find("nan.npy"), std::string::npos) << m;
  EXPECT_NE(m.find("element [1, 2] is NaN"), std::string::npos) << m;
  std::vector<std::complex<double>> c(4, {1.0, 1.0});
  c[3] = {0.0, -HUGE_VAL};
  EXPECT_NE(Error(Write("inf.npy", "<c16", "(2, 2)", c)).find("element [1, 1] is infinite"),
            std::string::npos);
  std::vector<double> big(2, 1.0);
  big[1] = 1e300;  // finite, but not as a float
  EXPECT_NE(Error(Write("big.npy", "<f8", "(1, 2)", big)).find("element [0, 1] is too large"),
            std::string::npos);
}

TEST_F(DenseNpyTest, UnsupportedLayoutsAreRefused) {
  EXPECT_NE(Error(Write("i.npy", "<i4", "(1, 2)", std::vector<std::int32_t>{1, 2})).find("'<i4'"),
            std::string::npos);
  EXPECT_NE(Error(Write("v.npy", "<f8", "(2,)", std::vector<double>{1, 2})).find("2-d"),
            std::string::npos);
  EXPECT_NE(Error(Write("f.npy", "<f8", "(1, 2)", std::vector<double>{1, 2}, true)).find("C order"),
            std::string::npos);
  EXPECT_NE(Error(Write("e.npy", "<f8", "(0, 2)", std::vector<double>{})).find("size 0"),
            std::string::npos);
  EXPECT_NE(Error(Write("short.npy", "<f8", "(2, 2)", std::vector<double>{1, 2})).find("bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace carousel::io
