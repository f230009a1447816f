#include "carousel/io/npy.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "carousel/io/atomic_file.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

namespace fs = std::filesystem;

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("carousel_npy_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

template <typename T>
std::vector<T> Elements(const NpyArray& array) {
  std::vector<T> out(array.data.size() / sizeof(T));
  std::memcpy(out.data(), array.data.data(), out.size() * sizeof(T));
  return out;
}

std::size_t HeaderLength(const std::string& bytes) {
  return static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
}

TEST_F(NpyTest, HeaderLayout) {
  const float data[6] = {1, 2, 3, 4, 5, 6};
  const std::string bytes = NpyBytes(data, {2, 3});
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t data_begin = 10 + HeaderLength(bytes);
  EXPECT_EQ(data_begin % 64, 0u);
  EXPECT_EQ(bytes[data_begin - 1], '\n');
  const std::string header = bytes.substr(10, data_begin - 10);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u)
      << header;
  ASSERT_EQ(bytes.size(), data_begin + sizeof(data));
  EXPECT_EQ(std::memcmp(bytes.data() + data_begin, data, sizeof(data)), 0);
}

TEST_F(NpyTest, ShapeTuples) {
  const double one = 1;
  EXPECT_NE(NpyBytes(&one, {}).find("'shape': (), }"), std::string::npos);
  EXPECT_NE(NpyBytes(&one, {1}).find("'shape': (1,), }"), std::string::npos);
  EXPECT_NE(NpyBytes(&one, {1, 1, 1}).find("'shape': (1, 1, 1), }"), std::string::npos);
  const std::string empty = NpyBytes(static_cast<const double*>(nullptr), {0, 5});
  EXPECT_NE(empty.find("'shape': (0, 5), }"), std::string::npos);
  EXPECT_EQ(empty.size() % 64, 0u);  // header only
}

TEST_F(NpyTest, RoundTripsEveryType) {
  const std::vector<float> f = {1.5f, -2.25f, std::numeric_limits<float>::infinity(), 0.1f};
  const std::vector<double> d = {1e300, -0.0, 3.141592653589793};
  const std::vector<std::int32_t> i32 = {-1, 7, std::numeric_limits<std::int32_t>::min()};
  const std::vector<std::int64_t> i64 = {std::numeric_limits<std::int64_t>::max(), -5};
  const std::vector<std::uint32_t> u32 = {0, 4000000000u};
  WriteNpy(Path("f.npy"), f.data(), {2, 2});
  WriteNpy(Path("d.npy"), d.data(), {3});
  WriteNpy(Path("i32.npy"), i32.data(), {3, 1});
  WriteNpy(Path("i64.npy"), i64.data(), {1, 2});
  WriteNpy(Path("u32.npy"), u32.data(), {2});

  const NpyArray fa = ReadNpy(Path("f.npy"));
  EXPECT_EQ(fa.descr, "<f4");
  EXPECT_FALSE(fa.fortran_order);
  EXPECT_EQ(fa.shape, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(Elements<float>(fa), f);
  const NpyArray da = ReadNpy(Path("d.npy"));
  EXPECT_EQ(da.descr, "<f8");
  EXPECT_EQ(da.shape, (std::vector<std::size_t>{3}));
  EXPECT_EQ(std::memcmp(da.data.data(), d.data(), sizeof(double) * 3), 0);  // keeps -0.0
  EXPECT_EQ(ReadNpy(Path("i32.npy")).descr, "<i4");
  EXPECT_EQ(Elements<std::int32_t>(ReadNpy(Path("i32.npy"))), i32);
  EXPECT_EQ(ReadNpy(Path("i64.npy")).descr, "<i8");
  EXPECT_EQ(Elements<std::int64_t>(ReadNpy(Path("i64.npy"))), i64);
  EXPECT_EQ(ReadNpy(Path("u32.npy")).descr, "<u4");
  EXPECT_EQ(Elements<std::uint32_t>(ReadNpy(Path("u32.npy"))), u32);
}

// Runs `read`, expects an input error (exit code 3) that names `path`.
void ExpectInputError(const std::string& path) {
  try {
    ReadNpy(path);
    FAIL() << "no error for " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInput);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// Rows given in slices make the same file as the whole array at once; an unfinished writer
// leaves nothing behind, and Commit refuses a file with rows missing.
TEST_F(NpyTest, RowWriterMatchesWholeArrayAndIsAtomic) {
  const std::vector<double> m = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};  // 5 x 3
  WriteNpy(Path("whole.npy"), m.data(), {5, 3});
  {
    NpyRowWriter writer(Path("rows.npy"), 5, 3);
    writer.AppendRows(m.data(), 2);
    writer.AppendRows(m.data() + 6, 3);
    writer.Commit();
  }
  std::ifstream a(Path("whole.npy"), std::ios::binary), b(Path("rows.npy"), std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}),
            std::string(std::istreambuf_iterator<char>(b), {}));
  {
    NpyRowWriter abandoned(Path("abandoned.npy"), 5, 3);
    abandoned.AppendRows(m.data(), 1);
  }
  EXPECT_FALSE(fs::exists(Path("abandoned.npy")));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2)
      << "a temp file was left behind";
  NpyRowWriter short_writer(Path("short.npy"), 5, 3);
  short_writer.AppendRows(m.data(), 4);
  EXPECT_THROW(short_writer.Commit(), Error);
  EXPECT_THROW(short_writer.AppendRows(m.data(), 2), Error);
}

TEST_F(NpyTest, RowWriterWritesFloat32AsWriteNpyDoes) {
  std::vector<float> m(4 * 3);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = 0.25f * static_cast<float>(i) - 1.0f;
  WriteNpy(Path("whole.npy"), m.data(), {4, 3});
  {
    NpyRowWriter writer(Path("rows.npy"), 4, 3, NpyElement::kFloat32);
    writer.AppendRows(m.data(), 1);
    writer.AppendRows(m.data() + 3, 3);
    writer.Commit();
  }
  std::ifstream a(Path("whole.npy"), std::ios::binary), b(Path("rows.npy"), std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}),
            std::string(std::istreambuf_iterator<char>(b), {}));
  EXPECT_EQ(ReadNpy(Path("rows.npy")).descr, "<f4");
  NpyRowWriter doubles(Path("doubles.npy"), 4, 3);
  EXPECT_THROW(doubles.AppendRows(m.data(), 1), Error);  // float rows into a float64 file
}

TEST_F(NpyTest, ReaderRefusesMalformedFiles) {
  ExpectInputError(Path("missing.npy"));

  WriteFileAtomically(Path("text.npy"), "just some text, long enough");
  ExpectInputError(Path("text.npy"));

  const std::int64_t data[4] = {1, 2, 3, 4};
  std::string bytes = NpyBytes(data, {4});
  WriteFileAtomically(Path("short.npy"), bytes.substr(0, bytes.size() - 1));
  ExpectInputError(Path("short.npy"));
  WriteFileAtomically(Path("long.npy"), bytes + "x");
  ExpectInputError(Path("long.npy"));
  WriteFileAtomically(Path("header.npy"), bytes.substr(0, 40));
  ExpectInputError(Path("header.npy"));

  std::string bad_shape = bytes;
  bad_shape.replace(bad_shape.find("(4,)"), 4, "(x, )");
  WriteFileAtomically(Path("shape.npy"), bad_shape);
  ExpectInputError(Path("shape.npy"));
}

// The real consumer: numpy itself must load what we write.
TEST_F(NpyTest, NumpyLoadsWrittenFiles) {
  const char* python = "/usr/bin/python3";
  const std::string probe = std::string(python) + " -c 'import numpy' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) GTEST_SKIP() << python << " has no numpy";

  const std::vector<float> f = {0.5f, -1.0f, 2.0f, 3.25f, 4.0f, -5.5f};
  const std::vector<std::int64_t> i = {-3, 9000000000};
  WriteNpy(Path("f.npy"), f.data(), {2, 3});
  WriteNpy(Path("i.npy"), i.data(), {2});
  const std::string script =
      "import numpy as np, sys\n"
      "f = np.load(sys.argv[1], allow_pickle=False)\n"
      "i = np.load(sys.argv[2], allow_pickle=False)\n"
      "assert f.dtype == np.float32 and f.shape == (2, 3), (f.dtype, f.shape)\n"
      "assert f.tolist() == [[0.5, -1.0, 2.0], [3.25, 4.0, -5.5]], f\n"
      "assert i.dtype == np.int64 and i.tolist() == [-3, 9000000000], i\n";
  WriteFileAtomically(Path("check.py"), script);
  const std::string command =
      std::string(python) + " " + Path("check.py") + " " + Path("f.npy") + " " + Path("i.npy");
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace carousel::io
