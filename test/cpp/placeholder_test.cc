// Placeholders: lowering (parameter count, order, dedupe by data ID, golden
// text), materialising one fails with a clear message, handles are unique.

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"
#include "test/cpp/golden_util.h"

namespace torch_xla {
namespace {

Value Dot(Value a, Value b) {
  return Value(*MakeNode(OpKind::kDotGeneral, {std::move(a), std::move(b)},
                         Attrs()
                             .Set("lhs_contract", std::vector<int64_t>{1})
                             .Set("rhs_contract", std::vector<int64_t>{0})));
}

Value Transpose(Value x) {
  return Value(*MakeNode(OpKind::kTranspose, {std::move(x)},
                         Attrs().Set("permutation", std::vector<int64_t>{1, 0})));
}

// sin(p1) @ p2 @ p2.T over bf16 placeholders.
TEST(PlaceholderTest, MatmulChainLowersToTwoParametersInOrder) {
  DataPtr p1 = MakePlaceholder(Shape(DType::kBF16, {2, 3}));
  DataPtr p2 = MakePlaceholder(Shape(DType::kBF16, {3, 4}));
  Value l1(MakeDataNode(p1)), l2(MakeDataNode(p2));
  Value sine(*MakeUnary(OpKind::kSine, l1));
  Value result = Dot(Dot(sine, l2), Transpose(Value(MakeDataNode(p2))));

  LoweringContext context("placeholders");
  ASSERT_TRUE(context.Build({result}).ok());
  ASSERT_EQ(context.parameters().size(), 2u);  // p2's two leaves: one parameter
  EXPECT_EQ(context.parameters()[0]->id(), p1->id());
  EXPECT_EQ(context.parameters()[1]->id(), p2->id());
  EXPECT_EQ(context.ParameterIndex(p1->id()), 0);
  EXPECT_EQ(context.ParameterIndex(p2->id()), 1);
  absl::StatusOr<std::string> text = context.HloText();
  ASSERT_TRUE(text.ok()) << text.status();
  testing::ExpectMatchesGolden(*text, "placeholder_matmul_chain.mlir");
}

TEST(PlaceholderTest, EqualShapesAreDistinctParametersKeyedById) {
  DataPtr a = MakePlaceholder(Shape(DType::kF32, {4}));
  DataPtr b = MakePlaceholder(Shape(DType::kF32, {4}));
  EXPECT_NE(a->id(), b->id());
  Value sum(*MakeBinary(OpKind::kAdd, Value(MakeDataNode(a)),
                        Value(MakeDataNode(b))));
  LoweringContext context("two");
  ASSERT_TRUE(context.Build({sum}).ok());
  EXPECT_EQ(context.parameters().size(), 2u);

  Value twice(*MakeBinary(OpKind::kAdd, Value(MakeDataNode(a)),
                          Value(MakeDataNode(a))));
  LoweringContext same("one");
  ASSERT_TRUE(same.Build({twice}).ok());
  EXPECT_EQ(same.parameters().size(), 1u);
}

TEST(PlaceholderTest, MaterialisingFailsWithTheMessage) {
  XlaTensorPtr p =
      XlaTensor::FromData(MakePlaceholder(Shape(DType::kF32, {3})), 0);
  EXPECT_EQ(p->state(), TensorState::kPlaceholder);
  float out[3];
  absl::Status read = TensorToHost(p, out, sizeof(out));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.message().find("is a placeholder and has no data"),
            std::string::npos)
      << read;
  XlaTensorPtr doubled = XlaTensor::FromIr(
      *MakeBinary(OpKind::kAdd, *p->GetIrValue(), *p->GetIrValue()), 0);
  absl::Status synced = TensorToHost(doubled, out, sizeof(out));
  ASSERT_FALSE(synced.ok());
  EXPECT_NE(synced.message().find("placeholder"), std::string::npos) << synced;
}

TEST(PlaceholderTest, HandlesAreUnique) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 100; ++i) {
    ids.push_back(MakePlaceholder(Shape(DType::kF32, {2}))->id());
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

}  // namespace
}  // namespace torch_xla
