// The lowering context: parameters (scalars packed one vector per dtype,
// deduplicated by data ID), errors, results that are parameters, the lower
// rule table, MLIR text helpers, SSA-name normalisation of goldens, and a
// 10,000-node chain. Per-op goldens are lowering_golden_test.cc.

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/cpp/golden_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/lowering/mlir_text.h"

namespace torch_xla {
namespace {

using testing::Contains;
using testing::ExpectMatchesGolden;
using testing::Leaf;
using testing::Lower;
using testing::NewData;
using testing::Ok;

using Dims = std::vector<int64_t>;

// Scalars travel as one vector per dtype; each leaf reads its own element
// (broadcast to a fill's shape). Two leaves are two elements whatever their
// values, so the module never depends on values.
TEST(ParameterTest, ScalarsArePackedOneVectorPerDtype) {
  DataPtr fill = NewData(DType::kF32, {2, 3}, DataKind::kHost);
  DataPtr lr = NewData(DType::kF32, {}, DataKind::kHost);
  DataPtr beta = NewData(DType::kF32, {}, DataKind::kHost);
  DataPtr step = NewData(DType::kI64, {}, DataKind::kHost);
  DataPtr other = NewData(DType::kF32, {2, 3});
  NodePtr scaled = Ok(MakeBinary(
      OpKind::kMultiply, MakeDataNode(other),
      Ok(MakeNode(OpKind::kBroadcastInDim,
                  {Ok(MakeBinary(OpKind::kAdd, MakeDataNode(lr),
                                 MakeDataNode(beta)))},
                  Attrs().Set("dims", Dims{2, 3})
                      .Set("broadcast_dims", Dims{})))));
  NodePtr out = Ok(MakeBinary(OpKind::kAdd, scaled, MakeDataNode(fill)));
  NodePtr count = MakeDataNode(step);
  LoweringContext ctx("scalars");
  ASSERT_TRUE(ctx.Build({Value(out), Value(count)}).ok());
  const uint64_t unpacked_hash = ctx.graph_hash();

  std::vector<std::pair<DType, size_t>> packs;
  DataPtr f32_vector = NewData(DType::kF32, {3}, DataKind::kHost);
  DataPtr s64_vector = NewData(DType::kI64, {1}, DataKind::kHost);
  DataPtr element = NewData(DType::kF32, {}, DataKind::kHost);
  LoweringContext::ScalarPacking packing;
  packing.scalar_of = [&](const Data& data) -> DataPtr {
    if (data.id() == fill->id()) return element;
    if (data.kind() == DataKind::kHost) return NewData(data.shape().dtype, {},
                                                       DataKind::kHost);
    return nullptr;
  };
  packing.pack = [&](DType dtype, absl::Span<const DataPtr> scalars) {
    packs.emplace_back(dtype, scalars.size());
    return dtype == DType::kF32 ? f32_vector : s64_vector;
  };
  ctx.SetScalarPacking(packing);
  ASSERT_TRUE(ctx.Build({Value(out), Value(count)}).ok());
  EXPECT_EQ(packs, (std::vector<std::pair<DType, size_t>>{
                       {DType::kF32, 3}, {DType::kI64, 1}}));
  ASSERT_EQ(ctx.parameters().size(), 3u);
  EXPECT_EQ(ctx.parameters()[0], other);
  EXPECT_EQ(ctx.parameters()[1], f32_vector);
  EXPECT_EQ(ctx.parameters()[2], s64_vector);
  EXPECT_EQ(ctx.ParameterIndex(fill->id()), -1);  // not a parameter of its own
  EXPECT_NE(ctx.graph_hash(), unpacked_hash);  // another module, another key
  std::string text = Ok(ctx.HloText());
  EXPECT_PRED2(Contains, text,
               "(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, "
               "%arg2: tensor<1xi64>)");
  for (int k = 0; k < 3; ++k) {
    EXPECT_PRED2(Contains, text,
                 absl::StrCat("\"stablehlo.slice\"(%arg1) {start_indices = "
                              "array<i64: ", k, ">, limit_indices = "
                              "array<i64: ", k + 1, ">"));
  }
  EXPECT_PRED2(Contains, text,
               "{broadcast_dimensions = array<i64>} : (tensor<f32>) -> "
               "tensor<2x3xf32>");
  // A packed vector cannot alias a full-size result.
  EXPECT_FALSE(ctx.SetAlias(1, 0).ok());

}

TEST(ParameterTest, DeduplicatedByDataIdInFirstUseOrder) {
  DataPtr ad = NewData(DType::kF32, {2});
  DataPtr bd = NewData(DType::kF32, {2});  // same shape, different Data
  DataPtr cd = NewData(DType::kF32, {2}, DataKind::kPlaceholder);
  NodePtr a = MakeDataNode(ad);
  NodePtr a_again = MakeDataNode(ad);  // a second leaf over the same Data
  NodePtr b = MakeDataNode(bd);
  NodePtr c = MakeDataNode(cd);
  NodePtr out = Ok(MakeBinary(
      OpKind::kAdd, Ok(MakeBinary(OpKind::kMultiply, b, a)),
      Ok(MakeBinary(OpKind::kAdd, Ok(MakeBinary(OpKind::kAdd, a, a_again)), c))));
  LoweringContext ctx("params");
  ASSERT_TRUE(ctx.Build({out}).ok());
  ASSERT_EQ(ctx.parameters().size(), 3u);
  EXPECT_EQ(ctx.parameters()[0], bd);
  EXPECT_EQ(ctx.parameters()[1], ad);
  EXPECT_EQ(ctx.parameters()[2], cd);
  EXPECT_EQ(ctx.ParameterIndex(bd->id()), 0);
  EXPECT_EQ(ctx.ParameterIndex(ad->id()), 1);
  EXPECT_EQ(ctx.ParameterIndex(cd->id()), 2);
  EXPECT_EQ(ctx.ParameterIndex(NewData(DType::kF32, {2})->id()), -1);
  std::string text = Ok(ctx.HloText());
  EXPECT_PRED2(Contains, text,
               "func.func public @main(%arg0: tensor<2xf32>, %arg1: "
               "tensor<2xf32>, %arg2: tensor<2xf32>) -> (tensor<2xf32>) {");
  // a + a_again reads parameter 1 twice.
  EXPECT_PRED2(Contains, text, "\"stablehlo.add\"(%arg1, %arg1)");

  // a + a: one parameter.
  LoweringContext twice("twice");
  ASSERT_TRUE(twice.Build({Ok(MakeBinary(OpKind::kAdd, a, a))}).ok());
  EXPECT_EQ(twice.parameters().size(), 1u);
}

TEST(LoweringContextTest, Errors) {
  LoweringContext ctx("m");
  EXPECT_EQ(ctx.HloText().status().code(),
            absl::StatusCode::kFailedPrecondition);
  NodePtr p = Ok(MakeParameter(0, Shape(DType::kF32, {})));
  absl::Status status = ctx.Build({Ok(MakeUnary(OpKind::kNegate, p))});
  EXPECT_EQ(status.message(),
            "LoweringContext::Build: the graph uses parameter f32[], "
            "index=0, dtype=f32, dims=[] outside a sub-graph; parameter nodes "
            "belong to while cond/body sub-graphs (use data leaves for "
            "computation inputs)");
}

TEST(LoweringContextTest, ResultThatIsAParameterAndNoResults) {
  DataPtr d = NewData(DType::kBF16, {3});
  NodePtr leaf = MakeDataNode(d);
  ExpectMatchesGolden(Lower("identity", {leaf, leaf}), "identity.mlir");
  std::string empty = Lower("empty", {});
  EXPECT_EQ(empty,
            "module @empty {\n"
            "  func.func public @main() -> () {\n"
            "    return\n"
            "  }\n"
            "}\n");
}

TEST(RuleTableTest, EveryOpKindHasALowering) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    OpKind kind = static_cast<OpKind>(i);
    EXPECT_NE(DefaultLowerRules().Find(kind), nullptr)
        << "no lower rule for " << OpKindName(kind);
  }
}

TEST(RuleTableTest, DuplicateAndMissingRules) {
  LowerRuleTable table;
  ASSERT_TRUE(RegisterDotLowerings(&table).ok());
  absl::Status again = RegisterDotLowerings(&table);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "duplicate lower rule for op 'dot_general'");

  // An emitter over a table without a rule for sine names the op.
  NodePtr x = Leaf(DType::kF32, {2});
  NodePtr s = Ok(MakeUnary(OpKind::kSine, x));
  std::string out;
  MlirEmitter emitter(table, &out, 0);
  emitter.Bind(x.get(), "%arg0");
  const Node* nodes[] = {x.get(), s.get()};
  absl::Status missing = emitter.LowerNodes(nodes);
  EXPECT_EQ(missing.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(missing.message(), "no lowering rule registered for op 'sine'");
}

TEST(MlirTextTest, FloatBitsRoundToNearestEven) {
  EXPECT_EQ(FloatBits(1.0, DType::kF32), 0x3F800000u);
  EXPECT_EQ(FloatBits(1.0, DType::kBF16), 0x3F80u);
  EXPECT_EQ(FloatBits(1.0, DType::kF16), 0x3C00u);
  EXPECT_EQ(FloatBits(-2.0, DType::kF16), 0xC000u);
  EXPECT_EQ(FloatBits(65504.0, DType::kF16), 0x7BFFu);   // f16 max
  EXPECT_EQ(FloatBits(65519.0, DType::kF16), 0x7BFFu);   // below the tie
  EXPECT_EQ(FloatBits(65520.0, DType::kF16), 0x7C00u);   // tie -> even: inf
  EXPECT_EQ(FloatBits(std::ldexp(1.0, -24), DType::kF16), 0x0001u);
  EXPECT_EQ(FloatBits(std::ldexp(1.0, -25), DType::kF16), 0x0000u);  // tie
  EXPECT_EQ(FloatBits(std::ldexp(3.0, -25), DType::kF16), 0x0002u);  // tie
  EXPECT_EQ(FloatBits(std::ldexp(1023.0, -24) + std::ldexp(1.0, -25),
                      DType::kF16),
            0x0400u);  // rounds up into the smallest normal
  EXPECT_EQ(FloatBits(1.0 + std::ldexp(1.0, -8), DType::kBF16), 0x3F80u);
  EXPECT_EQ(FloatBits(1.0 + std::ldexp(3.0, -8), DType::kBF16), 0x3F82u);
  EXPECT_EQ(FloatBits(-0.0, DType::kBF16), 0x8000u);
  EXPECT_EQ(FloatBits(1e300, DType::kF32), 0x7F800000u);
  EXPECT_EQ(FloatBits(1.0, DType::kF64), 0x3FF0000000000000u);
  // f32 agrees with the hardware conversion on random doubles of all scales.
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (std::isnan(d)) continue;
    float f = static_cast<float>(d);
    uint32_t expected;
    std::memcpy(&expected, &f, sizeof(expected));
    ASSERT_EQ(FloatBits(d, DType::kF32), expected) << d;
    double scaled = std::ldexp(static_cast<double>(rng() >> 11), -60 -
                               static_cast<int>(rng() % 100));
    f = static_cast<float>(scaled);
    std::memcpy(&expected, &f, sizeof(expected));
    ASSERT_EQ(FloatBits(scaled, DType::kF32), expected) << scaled;
  }
}

TEST(MlirTextTest, SymbolsAndLiterals) {
  EXPECT_EQ(MlirSymbol("SyncTensorsGraph.12"), "@SyncTensorsGraph.12");
  EXPECT_EQ(MlirSymbol("my name"), "@\"my name\"");
  EXPECT_EQ(MlirSymbol("1st"), "@\"1st\"");
  EXPECT_EQ(MlirSymbol("a\"b\\c\n"), "@\"a\\\"b\\\\c\\0A\"");
  EXPECT_EQ(MlirSymbol(""), "@unnamed");
  EXPECT_EQ(I64Array({}), "array<i64>");
  EXPECT_EQ(I64Array({1, 0}), "array<i64: 1, 0>");
  EXPECT_EQ(Ok(SplatLiteral(AttrValue(int64_t{-1}), DType::kU64)),
            "18446744073709551615");
  EXPECT_EQ(Ok(SplatLiteral(AttrValue(0.5), DType::kBF16)), "0x3F00");
  EXPECT_EQ(Ok(SplatLiteral(AttrValue(true), DType::kBool)), "true");
}

TEST(GoldenUtilTest, NormalizesSsaNames) {
  EXPECT_EQ(testing::NormalizeSsaNames(
                "%arg3 %7 = \"op\"(%arg3, %12#1) %12:2 %7"),
            "%arg0 %0 = \"op\"(%arg0, %1#1) %1:2 %0");
}

// Its timing: benchmarks/ir_node_bench.
TEST(ChainTest, TenThousandNodeChainLowers) {
  Value x = Leaf(DType::kF32, {2, 3});
  for (int i = 0; i < 10000; ++i) {
    x = Ok(MakeUnary(i % 2 == 0 ? OpKind::kSine : OpKind::kNegate, x));
  }
  LoweringContext ctx("chain");
  ASSERT_TRUE(ctx.Build({x}).ok());
  std::string text = Ok(ctx.HloText());
  EXPECT_PRED2(Contains, text, "return %9999 : tensor<2x3xf32>");
  testing::ExpectMlirCheckOk(text, "chain.mlir");
}

}  // namespace
}  // namespace torch_xla
