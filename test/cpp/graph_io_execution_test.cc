// Execution of a graph's inputs and outputs: several results sharing
// subexpressions, one leaf used twice (one parameter), and host-data scalars
// and fills as parameters (values change without recompiling, rounding once
// like constants). Graphs run through the CPU plugin and are checked against
// values computed here with plain C++ loops. Inputs lie on a grid of quarters
// (testing::Quarters), so sums and products are exact in f32 and results
// compare bit for bit.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {
namespace {

using testing::Exec;
using testing::Input;
using testing::Make;
using testing::Ok;
using testing::Read;
using testing::HostScalar;
using testing::SyncAll;
using testing::Quarters;
using Dims = std::vector<int64_t>;

Value Reduce(const Value& x, Dims dims, const char* kind) {
  return Make(OpKind::kReduce, {x},
              Attrs().Set("dims", dims).Set("kind", kind));
}

// ---------------------------------------------------------------------------
// Graph shapes: several results, a leaf used twice.

TEST(GraphExecTest, MultiOutputWithSharedSubexpressions) {
  std::vector<float> a = Quarters(6, 51), b = Quarters(6, 52);
  Value x = Input(a, {2, 3}), y = Input(b, {2, 3});
  NodePtr sum = Ok(MakeBinary(OpKind::kAdd, x, y));
  NodePtr sq = Ok(MakeBinary(OpKind::kMultiply, sum, sum));
  NodePtr diff = Ok(MakeBinary(OpKind::kSubtract, sum, y));
  Value total = Reduce(sq, {0, 1}, "sum");
  // Two tensors share the value `sq`: both get it.
  std::vector<XlaTensorPtr> t = SyncAll({sum, sq, diff, total, sq});
  std::vector<float> want_sum, want_sq, want_diff;
  float want_total = 0;
  for (int i = 0; i < 6; ++i) {
    want_sum.push_back(a[i] + b[i]);
    want_sq.push_back(want_sum[i] * want_sum[i]);
    want_diff.push_back(want_sum[i] - b[i]);
    want_total += want_sq[i];
  }
  EXPECT_EQ(Read<float>(t[0]), want_sum);
  EXPECT_EQ(Read<float>(t[1]), want_sq);
  EXPECT_EQ(Read<float>(t[2]), want_diff);
  EXPECT_EQ(Read<float>(t[3]), (std::vector<float>{want_total}));
  EXPECT_EQ(Read<float>(t[4]), want_sq);
}

TEST(GraphExecTest, OneLeafUsedTwiceIsOneParameter) {
  std::vector<float> a = {1.5f, -2.0f, 3.0f};
  Value x = Input(a, {3});
  // x * x + x, with x reached through two paths.
  Value out =
      Ok(MakeBinary(OpKind::kAdd, Ok(MakeBinary(OpKind::kMultiply, x, x)), x));
  XlaTensorPtr tensor = XlaTensor::FromIr(out, 0);
  absl::StatusOr<std::string> text = TensorsToHloText({tensor});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("@main(%arg0: tensor<3xf32>)"), std::string::npos)
      << *text;
  EXPECT_EQ(text->find("%arg1"), std::string::npos) << *text;
  std::vector<float> want;
  for (float v : a) want.push_back(v * v + v);
  EXPECT_EQ(Read<float>(tensor), want);
}

// ---------------------------------------------------------------------------
// Host-data scalars feeding ops.

TEST(HostScalarExecTest, ScalarsFeedArithmeticIndexingAndSelect) {
  std::vector<float> a = {1, 2, 3, 4};
  Value x = Input(a, {4});
  auto splat = [](const Value& s, int64_t n) {
    return Make(OpKind::kBroadcastInDim, {s},
                Attrs().Set("dims", Dims{n}).Set("broadcast_dims", Dims{}));
  };
  // Same graph, two scalar values: the scalar is a parameter, not baked in.
  for (float scale : {2.5f, -0.5f}) {
    Value s = HostScalar(MakeHostScalar(scale, DType::kF32));
    std::vector<float> want;
    for (float v : a) want.push_back(v * scale);
    EXPECT_EQ(Exec<float>(Ok(MakeBinary(OpKind::kMultiply, x, splat(s, 4)))),
              want);
  }
  // Integer scalar (exact beyond 2^53 through MakeHostScalarInt).
  const int64_t big = (int64_t{1} << 60) + 3;
  Value i64 = Input(std::vector<int64_t>{1, -1}, {2});
  EXPECT_EQ(Exec<int64_t>(Ok(MakeBinary(
                OpKind::kAdd, i64,
                splat(HostScalar(MakeHostScalarInt(big, DType::kI64)), 2)))),
            (std::vector<int64_t>{big + 1, big - 1}));
  // bf16 scalar: 0.1 rounds to 0.10009765625 (0x3DCD).
  EXPECT_EQ(Exec<float>(Make(OpKind::kConvert,
                             {HostScalar(MakeHostScalar(0.1, DType::kBF16))},
                             Attrs().Set("dtype", DType::kF32))),
            (std::vector<float>{0.10009765625f}));
  // A start index for dynamic_slice.
  Value start = HostScalar(MakeHostScalarInt(2, DType::kI32));
  EXPECT_EQ(Exec<float>(Make(OpKind::kDynamicSlice, {x, start},
                             Attrs().Set("sizes", Dims{2}))),
            (std::vector<float>{3, 4}));
  // A pred scalar choosing between two tensors.
  Value neg = Ok(MakeUnary(OpKind::kNegate, x));
  for (bool p : {true, false}) {
    Value pred = HostScalar(MakeHostScalar(p ? 1.0 : 0.0, DType::kBool));
    EXPECT_EQ(Exec<float>(Make(OpKind::kSelect, {pred, x, neg})),
              p ? a : (std::vector<float>{-1, -2, -3, -4}));
  }
  // A fill (torch.full) as an operand.
  Value fill = MakeDataNode(MakeHostFill(*MakeHostScalar(0.75, DType::kF32),
                                         Shape(DType::kF32, {4})));
  EXPECT_EQ(Exec<float>(Ok(MakeBinary(OpKind::kSubtract, x, fill))),
            (std::vector<float>{0.25, 1.25, 2.25, 3.25}));
}

TEST(HostScalarExecTest, ScalarsRoundOnceLikeConstants) {
  // Each value lies just above a rounding midpoint of the target type, by
  // less than half an f32 (or double) ulp: rounding once rounds up.
  const double bf = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(Exec<uint16_t>(HostScalar(MakeHostScalar(bf, DType::kBF16))),
            (std::vector<uint16_t>{0x3F81}));  // 1 + 2^-7
  const double h = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(Exec<uint16_t>(HostScalar(MakeHostScalar(h, DType::kF16))),
            (std::vector<uint16_t>{0x3C01}));  // 1 + 2^-10
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  EXPECT_EQ(Exec<float>(HostScalar(MakeHostScalarInt(v, DType::kF32))),
            (std::vector<float>{static_cast<float>(v)}));
}

}  // namespace
}  // namespace torch_xla
