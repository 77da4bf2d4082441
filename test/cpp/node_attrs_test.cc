// Typed, checked attribute reads on built nodes (Node::GetAttr & co.): a
// present attribute reads back; a missing or mistyped one is an
// InternalError naming the node, also when a lowering or a graph rewrite
// meets a node whose attributes disagree with its shape rule (such nodes
// can only come from NodeFactory, which skips the rule, as rewrites do).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/rewrites/summed_dots.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Make;
using testing::Transpose;

using Dims = std::vector<int64_t>;

NodePtr Sort() {
  return Make(OpKind::kSort, {Leaf(DType::kF32, {4})},
              Attrs().Set("dimension", 0).Set("stable", false));
}

TEST(NodeAttrsTest, ReadsPresentAndDefaultedAttributes) {
  NodePtr sort = Sort();
  absl::StatusOr<const int64_t*> dimension =
      sort->GetAttr<int64_t>("dimension");
  ASSERT_TRUE(dimension.ok()) << dimension.status();
  EXPECT_EQ(**dimension, 0);
  absl::StatusOr<bool> stable = sort->GetAttrOr("stable", true);
  ASSERT_TRUE(stable.ok()) << stable.status();
  EXPECT_FALSE(*stable);
  // Absent optional attributes: nullptr, or the default.
  absl::StatusOr<const int64_t*> keys =
      sort->GetOptionalAttr<int64_t>("num_keys");
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(*keys, nullptr);
  absl::StatusOr<int64_t> keys_or = sort->GetAttrOr<int64_t>("num_keys", 1);
  ASSERT_TRUE(keys_or.ok()) << keys_or.status();
  EXPECT_EQ(*keys_or, 1);
  absl::StatusOr<const AttrValue*> any = sort->GetAnyAttr("dimension");
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ(AttrTypeName(**any), "int64");

  NodePtr t = Transpose(Leaf(DType::kF32, {2, 3}));
  absl::StatusOr<const Dims*> perm = t->GetAttr<Dims>("permutation");
  ASSERT_TRUE(perm.ok()) << perm.status();
  EXPECT_EQ(**perm, (Dims{1, 0}));
}

TEST(NodeAttrsTest, MissingAttributeIsAnInternalErrorNamingTheNode) {
  NodePtr sort = Sort();
  const std::string node = "node sort f32[4], dimension=0, stable=false: ";
  absl::Status status = sort->GetAttr<int64_t>("num_keys").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(), node + "missing attribute 'num_keys' (int64)");
  status = sort->GetAnyAttr("num_keys").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            node + "missing attribute 'num_keys' (a value)");
}

TEST(NodeAttrsTest, MistypedAttributeIsAnInternalErrorNamingTheNode) {
  NodePtr sort = Sort();
  const std::string expected =
      "node sort f32[4], dimension=0, stable=false: attribute 'dimension' "
      "must be bool, got int64 0";
  // Required, optional and defaulted reads all check the type.
  for (absl::Status status : {sort->GetAttr<bool>("dimension").status(),
                              sort->GetOptionalAttr<bool>("dimension").status(),
                              sort->GetAttrOr("dimension", true).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_EQ(status.message(), expected);
  }
  absl::Status status = sort->GetAttr<Dims>("stable").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "node sort f32[4], dimension=0, stable=false: attribute 'stable' "
            "must be int64[], got bool false");
}

// The lowering text of `results`, or the error that stopped it.
absl::Status LowerStatus(std::vector<Value> results) {
  LoweringContext context("m");
  absl::Status status = context.Build(results);
  if (!status.ok()) return status;
  return context.HloText().status();
}

// A transpose built without its rule's checks, with `attrs`.
NodePtr UncheckedTranspose(Attrs attrs) {
  return NodeFactory::Create(OpKind::kTranspose, {Leaf(DType::kF32, {2, 3})},
                             {Shape(DType::kF32, {3, 2})}, std::move(attrs),
                             nullptr);
}

TEST(NodeAttrsTest, LoweringANodeWithMissingOrMistypedAttributes) {
  absl::Status status = LowerStatus({UncheckedTranspose(Attrs())});
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "while lowering transpose f32[3,2]: node transpose f32[3,2]: "
            "missing attribute 'permutation' (int64[])");

  status =
      LowerStatus({UncheckedTranspose(Attrs().Set("permutation", "1,0"))});
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "while lowering transpose f32[3,2], permutation=1,0: node "
            "transpose f32[3,2], permutation=1,0: attribute 'permutation' "
            "must be int64[], got string 1,0");

  // The same node with its attribute right lowers.
  EXPECT_TRUE(
      LowerStatus({UncheckedTranspose(Attrs().Set("permutation", Dims{1, 0}))})
          .ok());
}

// The summed-dots rewrite reads the products' attributes while matching.
TEST(NodeAttrsTest, RewriteMeetsAMistypedAttribute) {
  NodePtr dot = NodeFactory::Create(
      OpKind::kDotGeneral,
      {Leaf(DType::kF32, {2, 3}), Leaf(DType::kF32, {3, 4})},
      {Shape(DType::kF32, {2, 4})},
      Attrs()
          .Set("lhs_contract", Dims{1})
          .Set("rhs_contract", Dims{0})
          .Set("precision", 3),
      nullptr);
  NodePtr sum = Make(OpKind::kAdd, {dot, Leaf(DType::kF32, {2, 4})});
  absl::Status status = FoldSummedDots({Value(sum)}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "node dot_general f32[2,4], lhs_contract=[1], rhs_contract=[0], "
            "precision=3: attribute 'precision' must be string, got int64 3");
}

}  // namespace
}  // namespace torch_xla
