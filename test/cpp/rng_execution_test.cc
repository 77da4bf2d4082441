// Execution of rng_bit_generator: deterministic per state, the state advances,
// every algorithm, bits that look uniform, u32 and u64 outputs. Runs through
// the CPU plugin.

#include <bitset>
#include <cstdint>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace {

using testing::Input;
using testing::Make;
using testing::Read;
using testing::SyncAll;
using Dims = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// rng_bit_generator.

struct RngOut {
  std::vector<uint64_t> state;
  std::vector<uint32_t> bits;
};

RngOut Rng(std::vector<uint64_t> state, Dims dims,
           const char* algorithm = "DEFAULT") {
  Value s = Input(state, {int64_t(state.size())});
  NodePtr rng = Make(OpKind::kRngBitGenerator, {s},
                     Attrs()
                         .Set("dtype", DType::kU32)
                         .Set("dims", dims)
                         .Set("algorithm", algorithm));
  EXPECT_EQ(rng->shape(0), Shape(DType::kU64, {int64_t(state.size())}));
  EXPECT_EQ(rng->shape(1), Shape(DType::kU32, dims));
  std::vector<XlaTensorPtr> t = SyncAll({Value(rng, 0), Value(rng, 1)});
  return {Read<uint64_t>(t[0]), Read<uint32_t>(t[1])};
}

TEST(RngExecTest, DeterministicPerStateAndAdvancesState) {
  for (const char* algorithm : {"DEFAULT", "THREE_FRY"}) {
    SCOPED_TRACE(algorithm);
    RngOut a = Rng({1, 2}, {2, 3}, algorithm);
    RngOut again = Rng({1, 2}, {2, 3}, algorithm);
    RngOut other = Rng({1, 3}, {2, 3}, algorithm);
    ASSERT_EQ(a.bits.size(), 6u);
    ASSERT_EQ(a.state.size(), 2u);
    EXPECT_EQ(a.bits, again.bits);
    EXPECT_EQ(a.state, again.state);
    EXPECT_NE(a.bits, other.bits);
    EXPECT_NE(a.state, (std::vector<uint64_t>{1, 2}));
    // Continuing from the new state gives new bits.
    EXPECT_NE(Rng(a.state, {2, 3}, algorithm).bits, a.bits);
  }
  RngOut philox = Rng({1, 2, 3}, {4}, "PHILOX");
  EXPECT_EQ(philox.state.size(), 3u);
  EXPECT_NE(philox.state, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(Rng({1, 2, 3}, {4}, "PHILOX").bits, philox.bits);
}

TEST(RngExecTest, BitsLookUniform) {
  RngOut r = Rng({42, 7}, {64, 64});
  ASSERT_EQ(r.bits.size(), 4096u);
  int64_t ones = 0;
  for (uint32_t b : r.bits) ones += std::bitset<32>(b).count();
  // 131072 bits; a fair source is within 0.5 +- 0.02 (~14 sigma).
  const double fraction = double(ones) / (4096.0 * 32);
  EXPECT_GT(fraction, 0.48);
  EXPECT_LT(fraction, 0.52);
  EXPECT_GT(std::set<uint32_t>(r.bits.begin(), r.bits.end()).size(), 4090u);

  // u64 bits: shape and dtype of both outputs.
  NodePtr rng =
      Make(OpKind::kRngBitGenerator, {Input(std::vector<uint64_t>{5, 6}, {2})},
           Attrs().Set("dtype", DType::kU64).Set("dims", Dims{3}));
  std::vector<XlaTensorPtr> t = SyncAll({Value(rng, 0), Value(rng, 1)});
  EXPECT_EQ(t[1]->shape(), Shape(DType::kU64, {3}));
  std::vector<uint64_t> bits = Read<uint64_t>(t[1]);
  EXPECT_NE(bits[0], bits[1]);
  EXPECT_NE(bits[0] >> 32, 0u);  // the high half is random too
}

}  // namespace
}  // namespace torch_xla
