// Staging a traced loop body: loop invariants and backward residuals
// (rewrites/loop_partition.h), value replacement (ir/replace_values.h),
// trace keys, a While whose body was traced on placeholders (golden text and
// execution), host scalars inlined as constants (tensor/host_constants.h),
// and an accumulation While whose carried buffer is donated to its result.

#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/golden_util.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/replace_values.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/rewrites/loop_partition.h"
#include "torch_xla/csrc/tensor/host_constants.h"

namespace torch_xla {

// gtest prints Values in failure messages through this (found by ADL).
void PrintTo(const Value& v, std::ostream* os) {
  *os << (v ? v.node->ToString() : "null") << " #" << v.index;
}

namespace {

using testing::Input;
using testing::Make;
using testing::Ok;
using testing::Read;

using Dims = std::vector<int64_t>;

const Shape kF32x4(DType::kF32, {4});

Value Leaf(const DataPtr& data) { return Value(MakeDataNode(data)); }
Value Mul(Value a, Value b) { return Ok(MakeBinary(OpKind::kMultiply, a, b)); }
Value Add(Value a, Value b) { return Ok(MakeBinary(OpKind::kAdd, a, b)); }

// The body (c * x + W * W) * h + 1 with h a host scalar: W stands for a
// captured weight (a placeholder that is not a variable).
struct Body {
  Value c, x, w, ww, h, one, root;
};

Body TraceBody(const DataPtr& c, const DataPtr& x, const DataPtr& w) {
  Body b{Leaf(c), Leaf(x), Leaf(w)};
  b.ww = Mul(b.w, b.w);
  b.h = Make(OpKind::kBroadcastInDim, {Leaf(MakeHostScalar(3.0, DType::kF32))},
             Attrs().Set("dims", Dims{4}).Set("broadcast_dims", Dims{}));
  b.one = Ok(MakeConstant(1.0, kF32x4));
  b.root = Add(Mul(Add(Mul(b.c, b.x), b.ww), b.h), b.one);
  return b;
}

TEST(LoopStagingTest, LoopInvariantsAndResiduals) {
  DataPtr c = MakePlaceholder(kF32x4), x = MakePlaceholder(kF32x4),
          w = MakePlaceholder(kF32x4);
  Body b = TraceBody(c, x, w);

  // W * W is computed once outside: the frontier value, not W itself; the
  // host scalar and the constant stay in the body.
  std::vector<Value> invariants = LoopInvariants({b.root}, {c->id(), x->id()});
  EXPECT_EQ(invariants, std::vector<Value>{b.ww});
  // Used directly by a variable-dependent node, W itself is the invariant.
  EXPECT_EQ(LoopInvariants({Add(b.c, b.w)}, {c->id(), x->id()}),
            std::vector<Value>{b.w});
  // A view of an outside value (x @ W.t()'s transpose, a broadcast of a
  // computed value) is taken inside: what comes in is the viewed value.
  Value wt = Make(OpKind::kTranspose,
                  {Make(OpKind::kReshape, {b.w}, Attrs().Set("dims", Dims{2, 2}))},
                  Attrs().Set("permutation", Dims{1, 0}));
  Value cm = Make(OpKind::kReshape, {b.c}, Attrs().Set("dims", Dims{2, 2}));
  EXPECT_EQ(LoopInvariants({Mul(cm, wt)}, {c->id(), x->id()}),
            std::vector<Value>{b.w});
  EXPECT_EQ(LoopInvariants({Add(b.c, Make(OpKind::kReverse, {b.ww},
                                          Attrs().Set("dims", Dims{0})))},
                           {c->id(), x->id()}),
            std::vector<Value>{b.ww});

  // Forward y = tanh(c * x); backward dc = g * (1 - y * y) * x.
  DataPtr g = MakePlaceholder(kF32x4);
  Value y = Ok(MakeUnary(OpKind::kTanh, Mul(b.c, b.x)));
  Value dtanh = Ok(MakeBinary(OpKind::kSubtract, b.one, Mul(y, y)));
  Value dc = Mul(Mul(Leaf(g), dtanh), b.x);
  // Without remat the tangent chain reads the forward value 1 - y * y (not
  // y: the forward already combined it) and x.
  EXPECT_EQ(SavedForBackward({dc}, {c->id(), x->id()}, {}, {g->id()}, false),
            (std::vector<Value>{b.x, dtanh}));
  // With remat every forward op here is cheap, so only the primals are
  // saved and tanh is recomputed in the backward loop.
  std::vector<Value> remat =
      SavedForBackward({dc}, {c->id(), x->id()}, {}, {g->id()}, true);
  EXPECT_EQ(remat, (std::vector<Value>{b.c, b.x}));
  for (const Value& v : remat) {
    EXPECT_EQ(v.node->name(), "device_data");
    EXPECT_EQ(v.shape(), kF32x4);
  }

  // Replacing c rebuilds the chain above it and shares everything else.
  DataPtr c2 = MakePlaceholder(kF32x4);
  Replacements replace;
  ASSERT_TRUE(replace.Add(b.c, Leaf(c2)).ok());
  std::vector<Value> out = Ok(ReplaceValues({b.root, b.ww}, replace));
  EXPECT_NE(out[0].node, b.root.node);
  EXPECT_EQ(out[1].node, b.ww.node);
  const Node& scaled = *out[0].node->operand(0).node;  // (cx + ww) * h
  const Node& sum = *scaled.operand(0).node;           // cx + ww
  EXPECT_EQ(sum.operand(0).node->operand(0).node->data(), c2);
  EXPECT_EQ(sum.operand(1).node, b.ww.node);
  EXPECT_EQ(scaled.operand(1).node, b.h.node);
  EXPECT_EQ(out[0].node->operand(1).node, b.one.node);

  // The same trace over other placeholders has the same key; swapping the
  // roles of c and x changes it.
  DataPtr c3 = MakePlaceholder(kF32x4), x3 = MakePlaceholder(kF32x4),
          w3 = MakePlaceholder(kF32x4);
  Value root3 = TraceBody(c3, x3, w3).root;
  const uint64_t key = TraceKey({b.root}, {c->id(), x->id()});
  EXPECT_EQ(TraceKey({root3}, {c3->id(), x3->id()}), key);
  EXPECT_NE(TraceKey({root3}, {x3->id(), c3->id()}), key);
  EXPECT_NE(TraceKey({root3}, {c3->id()}), key);
}

// Cumulative sum over the rows of xs: (i, c, xs) -> (i + 1, c + xs[i], xs)
// while i < 4, traced on placeholders.
TEST(LoopStagingTest, WhileFromPlaceholderTracedBodyLowersAndRuns) {
  const Shape index(DType::kI64, {});
  DataPtr i = MakePlaceholder(index);
  DataPtr c = MakePlaceholder(Shape(DType::kF32, {3}));
  DataPtr xs = MakePlaceholder(Shape(DType::kF32, {4, 3}));
  Value zero = Ok(MakeIntConstant(0, index));
  Value row = Make(OpKind::kDynamicSlice, {Leaf(xs), Leaf(i), zero},
                   Attrs().Set("sizes", Dims{1, 3}));
  Value next_c = Add(Leaf(c), Make(OpKind::kReshape, {row},
                                   Attrs().Set("dims", Dims{3})));
  Value next_i = Add(Leaf(i), Ok(MakeIntConstant(1, index)));
  SubGraphPtr body = Ok(SubGraph::CreateFromDataLeaves(
      {i, c, xs}, {next_i, next_c, Leaf(xs)}));
  SubGraphPtr cond = Ok(SubGraph::CreateFromDataLeaves(
      {i, c, xs}, {Ok(MakeCompare(Leaf(i), Ok(MakeIntConstant(4, index)),
                                  "LT"))}));
  EXPECT_EQ(body->SignatureString(),
            "(s64[], f32[3], f32[4,3]) -> (s64[], f32[3], f32[4,3])");

  const std::vector<float> init = {100, 200, 300};
  std::vector<float> rows(12);
  for (int k = 0; k < 12; ++k) rows[k] = static_cast<float>(k + 1);
  NodePtr loop = Make(OpKind::kWhile,
                      {zero, Input(init, {3}), Input(rows, {4, 3})},
                      Attrs().Set("cond", cond).Set("body", body));
  Value carry(loop, 1);

  // No placeholder reaches the module: its parameters are the two buffers.
  LoweringContext context("placeholder_while");
  ASSERT_TRUE(context.Build({carry}).ok());
  EXPECT_EQ(context.parameters().size(), 2u);
  for (const DataPtr& p : context.parameters()) {
    EXPECT_EQ(p->kind(), DataKind::kDevice);
  }
  absl::StatusOr<std::string> text = context.HloText();
  ASSERT_TRUE(text.ok()) << text.status();
  testing::ExpectMatchesGolden(*text, "placeholder_while.mlir");

  XlaTensorPtr result = XlaTensor::FromIr(carry, 0);
  absl::Status synced = SyncTensors({result});
  ASSERT_TRUE(synced.ok()) << synced;
  std::vector<float> expected = init;
  for (int r = 0; r < 4; ++r) {
    for (int col = 0; col < 3; ++col) expected[col] += rows[r * 3 + col];
  }
  EXPECT_EQ(Read<float>(result), expected);  // {122, 226, 330}
}

// Gradient accumulation's shape of loop: (i, acc, xs) -> (i + 1, acc + xs[i],
// xs), whose result is written back into the accumulator tensor in place. The
// accumulator's buffer is aliased to the loop's result (golden), and at the
// sync it is donated: no second accumulator buffer exists afterwards.
TEST(LoopStagingTest, AccumulationWhileAliasesItsCarriedBuffer) {
  const Shape index(DType::kI64, {});
  DataPtr i = MakePlaceholder(index);
  DataPtr acc = MakePlaceholder(Shape(DType::kF32, {3}));
  DataPtr xs = MakePlaceholder(Shape(DType::kF32, {2, 3}));
  Value zero = Ok(MakeIntConstant(0, index));
  Value row = Make(OpKind::kReshape,
                   {Make(OpKind::kDynamicSlice, {Leaf(xs), Leaf(i), zero},
                         Attrs().Set("sizes", Dims{1, 3}))},
                   Attrs().Set("dims", Dims{3}));
  SubGraphPtr body = Ok(SubGraph::CreateFromDataLeaves(
      {i, acc, xs},
      {Add(Leaf(i), Ok(MakeIntConstant(1, index))), Add(Leaf(acc), row),
       Leaf(xs)}));
  SubGraphPtr cond = Ok(SubGraph::CreateFromDataLeaves(
      {i, acc, xs}, {Ok(MakeCompare(Leaf(i), Ok(MakeIntConstant(2, index)),
                                    "LT"))}));

  Value acc_in = Input(std::vector<float>{1, 2, 3}, {3});
  XlaTensorPtr accumulator = XlaTensor::FromData(acc_in.node->data(), 0);
  runtime::BufferPtr old_buffer =
      static_cast<const DeviceData*>(accumulator->data().get())->buffer();
  XlaTensorPtr batches = XlaTensor::FromData(
      Input(std::vector<float>{10, 20, 30, 40, 50, 60}, {2, 3}).node->data(),
      0);
  NodePtr loop = Make(OpKind::kWhile,
                      {zero, Ok(accumulator->GetIrValue()),
                       Ok(batches->GetIrValue())},
                      Attrs().Set("cond", cond).Set("body", body));
  ASSERT_TRUE(accumulator->SetIrValue(Value(loop, 1)).ok());

  LoweringContext context("accumulation_while");
  ASSERT_TRUE(context.Build({Value(loop, 1)}).ok());
  ASSERT_EQ(context.parameters().size(), 2u);
  EXPECT_EQ(context.parameters()[0]->id(), acc_in.node->data()->id());
  ASSERT_TRUE(context.SetAlias(0, 0).ok());
  absl::StatusOr<std::string> text = context.HloText();
  ASSERT_TRUE(text.ok()) << text.status();
  testing::ExpectMatchesGolden(*text, "accumulation_while.mlir");

  // At the step-wide sync the accumulator's own buffer becomes the result.
  acc_in = Value();
  metrics::ClearMetrics();
  absl::Status synced = SyncLiveTensors();
  ASSERT_TRUE(synced.ok()) << synced;
  const metrics::Metric* aliases = metrics::FindMetric("InputOutputAliasCount");
  ASSERT_NE(aliases, nullptr);
  EXPECT_EQ(aliases->accumulator(), 1);
  EXPECT_TRUE(old_buffer->IsDeleted());
  EXPECT_EQ(Read<float>(accumulator), (std::vector<float>{51, 72, 93}));
  EXPECT_EQ(Read<float>(batches),
            (std::vector<float>{10, 20, 30, 40, 50, 60}));  // read, not donated
}

TEST(LoopStagingTest, HostScalarsInBodyBecomeConstants) {
  const Shape f32(DType::kF32, {}), bf16(DType::kBF16, {}),
      s64(DType::kI64, {}), f32x23(DType::kF32, {2, 3});
  Value pf = Leaf(MakePlaceholder(f32)), pb = Leaf(MakePlaceholder(bf16)),
        pi = Leaf(MakePlaceholder(s64)), pm = Leaf(MakePlaceholder(f32x23));
  // Values a plain double would not round-trip: the constant must hold the
  // element as stored (f32- and bf16-rounded, int64 beyond 2^53 exactly).
  constexpr int64_t kBig = (int64_t{1} << 53) + 1;
  std::vector<Value> roots = {
      Mul(pf, Leaf(MakeHostScalar(0.1, DType::kF32))),
      Mul(pb, Leaf(MakeHostScalar(1.1, DType::kBF16))),
      Add(pi, Leaf(MakeHostScalarInt(kBig, DType::kI64))),
      Add(pm, Leaf(MakeHostFill(*MakeHostScalar(2.5, DType::kF32), f32x23))),
  };
  std::vector<Value> out = Ok(InlineHostData(roots));
  ASSERT_EQ(out.size(), roots.size());
  std::vector<std::string> constants;
  for (size_t k = 0; k < out.size(); ++k) {
    // The placeholder operand is shared, the host leaf replaced.
    EXPECT_EQ(out[k].node->operand(0).node, roots[k].node->operand(0).node);
    const Node& leaf = *out[k].node->operand(1).node;
    EXPECT_EQ(leaf.name(), "constant");
    EXPECT_EQ(leaf.data(), nullptr);
    constants.push_back(leaf.ToString());
  }
  EXPECT_EQ(constants,
            (std::vector<std::string>{
                "constant f32[], value=0.10000000149011612, dtype=f32, dims=[]",
                "constant bf16[], value=1.1015625, dtype=bf16, dims=[]",
                "constant s64[], value=9007199254740993, dtype=s64, dims=[]",
                "constant f32[2,3], value=2.5, dtype=f32, dims=[2,3]"}));
  const Node& f = *out[0].node->operand(1).node;
  EXPECT_EQ(*f.GetAttr<double>("value").value(), static_cast<double>(0.1f));
  EXPECT_EQ(*out[2].node->operand(1).node->GetAttr<int64_t>("value").value(),
            kBig);

  // Raw traces key host data by shape only; after inlining the value is in
  // the key, so a body compiled for one scalar is not reused for another.
  auto scaled = [&](double s) {
    return Mul(pf, Leaf(MakeHostScalar(s, DType::kF32)));
  };
  const int64_t id = pf.node->data()->id();
  EXPECT_EQ(TraceKey({scaled(2.0)}, {id}), TraceKey({scaled(3.0)}, {id}));
  EXPECT_NE(TraceKey(Ok(InlineHostData({scaled(2.0)})), {id}),
            TraceKey(Ok(InlineHostData({scaled(3.0)})), {id}));
}

}  // namespace
}  // namespace torch_xla
