#include "carousel/comm/ordered_sum.hpp"

#include <gtest/gtest.h>

#include "carousel/comm/collective.hpp"
#include "carousel/sampler/block_codec.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

TEST(OrderedSum, AddsInKeyOrder) {
  auto comm = MakeSerialCommunicator();
  // 1e16 + 1 - 1e16 differs from 1e16 - 1e16 + 1 in floating point: key order decides.
  KeyedPartials parts = {{2, {-1e16}}, {0, {1e16}}, {1, {1.0}}};
  EXPECT_EQ(OrderedSum(*comm, parts, 1)[0], (1e16 + 1.0) - 1e16);
}

TEST(Collective, ErrorsBecomeCollective) {
  auto comm = MakeSerialCommunicator();
  try {
    RunCollectively(*comm, [] { throw InputError("f.txt:3", "bad"); });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_FALSE(e.quiet());
    EXPECT_EQ(e.code(), ExitCode::kInput);
    EXPECT_NE(std::string(e.what()).find("f.txt:3"), std::string::npos);
  }
}

TEST(BlockCodec, RoundTripAndSize) {
  BlockState b;
  b.theta = Matrix::Random(5, 3);
  b.aux = {Matrix::Random(5, 3)};
  const std::string bytes = EncodeBlock(b);
  EXPECT_EQ(bytes.size(), EncodedBlockSize(5, 3, 1));
  const BlockState c = DecodeBlock(bytes);
  EXPECT_EQ(c.theta, b.theta);
  EXPECT_EQ(c.aux[0], b.aux[0]);
  EXPECT_THROW(DecodeBlock(bytes.substr(0, bytes.size() - 1)), Error);
}

}  // namespace
}  // namespace carousel
