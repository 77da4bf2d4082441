// Tests of the IR: node construction and its errors, sub-graphs, the
// post-order walk, the graph hash, the IR dump, and long chains.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/graph_hash.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/ir_dump.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/subgraph.h"

namespace torch_xla {
namespace {

using testing::Contains;
using testing::Leaf;
using testing::Make;
using testing::NewData;
using testing::Ok;

using Dims = std::vector<int64_t>;

std::string ErrorOf(absl::StatusOr<NodePtr> result) {
  EXPECT_FALSE(result.ok()) << "expected an error, got "
                            << (*result)->ToString();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(result.status().message());
}

// A while loop over (f32[2] x, s64[] i): while (i < limit) { x *= 2; i += 1 }.
struct Loop {
  SubGraphPtr cond, body;
};

Loop MakeLoop(int64_t limit, double factor, Shape body_x_result) {
  Shape x(DType::kF32, {2}), i(DType::kI64, {});
  NodePtr cx = Ok(MakeParameter(0, x)), ci = Ok(MakeParameter(1, i));
  NodePtr less = Ok(MakeCompare(ci, Ok(MakeIntConstant(limit, i)), "LT"));
  SubGraphPtr cond = Ok(SubGraph::Create({cx, ci}, {less}));
  NodePtr bx = Ok(MakeParameter(0, x)), bi = Ok(MakeParameter(1, i));
  NodePtr next_x = Ok(MakeBinary(OpKind::kMultiply, bx,
                                 Ok(MakeConstant(factor, x))));
  if (body_x_result != x) {
    next_x = Make(OpKind::kBroadcastInDim, {Ok(MakeConstant(0.0, Shape(DType::kF32, {})))},
                  Attrs().Set("dims", body_x_result.dims).Set("broadcast_dims", Dims{}));
  }
  NodePtr next_i =
      Ok(MakeBinary(OpKind::kAdd, bi, Ok(MakeIntConstant(1, i))));
  SubGraphPtr body = Ok(SubGraph::Create({bx, bi}, {next_x, next_i}));
  return {cond, body};
}

TEST(OpKindTest, NamesRoundTrip) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    OpKind kind = static_cast<OpKind>(i);
    EXPECT_EQ(Ok(OpKindFromName(OpKindName(kind))), kind) << OpKindName(kind);
  }
  EXPECT_EQ(OpKindName(OpKind::kExponential), "exponential");
  EXPECT_EQ(OpKindName(OpKind::kDotGeneral), "dot_general");
  EXPECT_FALSE(OpKindFromName("exp").ok());
}

TEST(NodeTest, BuildsShapes) {
  NodePtr x = Leaf(DType::kF32, {2, 3});
  NodePtr s = Make(OpKind::kSine, {x});
  EXPECT_EQ(s->shape(), Shape(DType::kF32, {2, 3}));
  EXPECT_EQ(s->operand(0).node, x);
  NodePtr c = Ok(MakeCompare(s, x, "LT"));
  EXPECT_EQ(c->shape(), Shape(DType::kBool, {2, 3}));
  NodePtr t = Make(OpKind::kTranspose, {x}, Attrs().Set("permutation", Dims{1, 0}));
  EXPECT_EQ(t->shape().ToString(), "f32[3,2]");
  NodePtr r = Make(OpKind::kReduce, {x},
                   Attrs().Set("dims", Dims{1}).Set("kind", "sum"));
  EXPECT_EQ(r->shape().ToString(), "f32[2]");
  NodePtr d = Make(OpKind::kDotGeneral, {x, t},
                   Attrs().Set("lhs_contract", Dims{1}).Set("rhs_contract", Dims{0}));
  EXPECT_EQ(d->shape().ToString(), "f32[2,2]");
  NodePtr state = Leaf(DType::kU64, {2});
  NodePtr rng = Make(OpKind::kRngBitGenerator, {state},
                     Attrs().Set("dtype", DType::kU32).Set("dims", Dims{4}));
  ASSERT_EQ(rng->num_outputs(), 2u);
  EXPECT_EQ(Value(rng, 1).shape().ToString(), "u32[4]");
  NodePtr conv = Make(OpKind::kConvert, {Value(rng, 1)},
                      Attrs().Set("dtype", DType::kF32));
  EXPECT_EQ(conv->shape().ToString(), "f32[4]");
}

TEST(NodeTest, GatherAndScatterShapes) {
  // Embedding lookup: table f32[10,4], ids s64[3] -> f32[3,4].
  NodePtr table = Leaf(DType::kF32, {10, 4});
  NodePtr ids = Leaf(DType::kI64, {3, 1});
  NodePtr g = Make(OpKind::kGather, {table, ids},
                   Attrs()
                       .Set("offset_dims", Dims{1})
                       .Set("collapsed_dims", Dims{0})
                       .Set("start_index_map", Dims{0})
                       .Set("index_vec_dim", 1)
                       .Set("slice_sizes", Dims{1, 4}));
  EXPECT_EQ(g->shape().ToString(), "f32[3,4]");
  NodePtr s = Make(OpKind::kScatter, {table, ids, g},
                   Attrs()
                       .Set("window_dims", Dims{1})
                       .Set("inserted_dims", Dims{0})
                       .Set("scatter_dim_map", Dims{0})
                       .Set("index_vec_dim", 1)
                       .Set("kind", "add"));
  EXPECT_EQ(s->shape().ToString(), "f32[10,4]");
  // Batched gather: operand f32[2,5], indices s32[2,3,1] with batching dim.
  NodePtr op = Leaf(DType::kF32, {2, 5});
  NodePtr idx = Leaf(DType::kI32, {2, 3, 1});
  NodePtr bg = Make(OpKind::kGather, {op, idx},
                    Attrs()
                        .Set("offset_dims", Dims{})
                        .Set("collapsed_dims", Dims{1})
                        .Set("operand_batch", Dims{0})
                        .Set("indices_batch", Dims{0})
                        .Set("start_index_map", Dims{1})
                        .Set("index_vec_dim", 2)
                        .Set("slice_sizes", Dims{1, 1}));
  EXPECT_EQ(bg->shape().ToString(), "f32[2,3]");
}

TEST(NodeTest, MalformedGraphsFailAtConstruction) {
  NodePtr a = Leaf(DType::kF32, {2, 3});
  NodePtr b = Leaf(DType::kF32, {4, 5});
  NodePtr c = Leaf(DType::kF32, {3, 2});
  NodePtr i = Leaf(DType::kI32, {2});

  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kDotGeneral, {a, b},
                             Attrs()
                                 .Set("lhs_contract", Dims{1})
                                 .Set("rhs_contract", Dims{0}))),
            "dot_general: contracting dimension sizes differ: lhs f32[2,3] "
            "dim 1 has 3, rhs f32[4,5] dim 0 has 4");
  EXPECT_EQ(ErrorOf(MakeBinary(OpKind::kAdd, a, c)),
            "add: operand shapes differ: lhs f32[2,3], rhs f32[3,2]; "
            "elementwise ops need equal shapes and element types (insert "
            "broadcast_in_dim / convert first)");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kReshape, {a},
                             Attrs().Set("dims", Dims{4, 2}))),
            "reshape: element count differs: operand f32[2,3] has 6 "
            "elements, target dims [4,2] have 8");
  EXPECT_EQ(ErrorOf(MakeUnary(OpKind::kSine, i)),
            "sine: operand 0 is s32[2]; expected floating point elements");
  EXPECT_EQ(ErrorOf(MakeBinary(OpKind::kSubtract, a, Value())),
            "subtract: operand 1 is null");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kAdd, {a})),
            "add: expected 2 operands, got 1 (f32[2,3])");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kBroadcastInDim, {c},
                             Attrs()
                                 .Set("dims", Dims{4, 3, 5})
                                 .Set("broadcast_dims", Dims{1, 2}))),
            "broadcast_in_dim: operand f32[3,2] dim 1 has size 2, which "
            "cannot broadcast to result dim 2 of size 5 (result dims "
            "[4,3,5])");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kConcatenate, {a, c},
                             Attrs().Set("dimension", 0))),
            "concatenate: operand 1 f32[3,2] does not match operand 0 "
            "f32[2,3] outside dimension 0 (operands: f32[2,3], f32[3,2])");
  EXPECT_EQ(ErrorOf(MakeIntConstant(300, Shape(DType::kU8, {}))),
            "constant: value 300 does not fit in u8");
  EXPECT_EQ(ErrorOf(MakeCompare(a, a, "lt")),
            "compare: direction 'lt' is not one of EQ, NE, LT, LE, GT, GE");
  NodePtr rng = Make(OpKind::kRngBitGenerator, {Leaf(DType::kU64, {2})},
                     Attrs().Set("dtype", DType::kU32).Set("dims", Dims{4}));
  EXPECT_EQ(ErrorOf(MakeUnary(OpKind::kNegate, Value(rng, 2))),
            "negate: operand 0 refers to output 2 of rng_bit_generator "
            "(u64[2], u32[4]), dtype=u32, dims=[4], which has 2 output(s)");
}

TEST(NodeTest, AttributeTyposAreRejected) {
  NodePtr a = Leaf(DType::kF32, {2, 3});
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kReshape, {a},
                             Attrs().Set("dim", Dims{6}))),
            "reshape: missing attribute 'dims' (int64[])");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kAdd, {a, a}, Attrs().Set("foo", 1))),
            "add: unexpected attribute 'foo'");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kReshape, {a},
                             Attrs().Set("dims", Dims{6}).Set("dims", Dims{6}))),
            "reshape: duplicate attribute 'dims'");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kConcatenate, {a},
                             Attrs().Set("dimension", 0.5))),
            "concatenate: attribute 'dimension' must be int64, got double 0.5");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kDeviceData, {})),
            "device_data: build data leaves with MakeDataNode(data)");
}

TEST(NodeTest, WhileChecksSubGraphs) {
  NodePtr x = Leaf(DType::kF32, {2});
  NodePtr i = Leaf(DType::kI64, {});
  Loop good = MakeLoop(10, 2.0, Shape(DType::kF32, {2}));
  NodePtr w = Make(OpKind::kWhile, {x, i},
                   Attrs().Set("cond", good.cond).Set("body", good.body));
  ASSERT_EQ(w->num_outputs(), 2u);
  EXPECT_EQ(Value(w, 0).shape().ToString(), "f32[2]");
  EXPECT_EQ(Value(w, 1).shape().ToString(), "s64[]");

  Loop bad = MakeLoop(10, 2.0, Shape(DType::kF32, {3}));
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kWhile, {x, i},
                             Attrs().Set("cond", bad.cond).Set("body", bad.body))),
            "while: body is (f32[2], s64[]) -> (f32[3], s64[]); its results "
            "must match the carried values (f32[2], s64[])");
  // Cond must return pred[]; here the carried values do not match either.
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kWhile, {i, x},
                             Attrs().Set("cond", good.cond).Set("body", good.body))),
            "while: cond takes (f32[2], s64[]) -> (pred[]); its parameters "
            "must match the carried values (s64[], f32[2])");
  EXPECT_EQ(ErrorOf(MakeNode(OpKind::kWhile, {x, i},
                             Attrs().Set("cond", good.body).Set("body", good.body))),
            "while: cond is (f32[2], s64[]) -> (f32[2], s64[]); it must "
            "return a single pred[]");
}

TEST(SubGraphTest, MustBeClosed) {
  Shape s(DType::kF32, {2});
  NodePtr p = Ok(MakeParameter(0, s));
  NodePtr outer = Leaf(DType::kF32, {2});
  absl::StatusOr<SubGraphPtr> with_data =
      SubGraph::Create({p}, {Ok(MakeBinary(OpKind::kAdd, p, outer))});
  ASSERT_FALSE(with_data.ok());
  EXPECT_PRED2(Contains, std::string(with_data.status().message()), "sub-graph is not closed: it uses a data leaf f32[2]");
  NodePtr foreign = Ok(MakeParameter(0, s));
  absl::StatusOr<SubGraphPtr> with_foreign =
      SubGraph::Create({p}, {Ok(MakeBinary(OpKind::kAdd, p, foreign))});
  ASSERT_FALSE(with_foreign.ok());
  EXPECT_EQ(with_foreign.status().message(),
            "sub-graph is not closed: it uses parameter f32[2], index=0, "
            "dtype=f32, dims=[2], which is not one of its own parameters");
  absl::StatusOr<SubGraphPtr> misordered =
      SubGraph::Create({Ok(MakeParameter(1, s))}, {p});
  EXPECT_FALSE(misordered.ok());
}

TEST(SubGraphTest, CreateFromDataLeavesReplacesLeaves) {
  DataPtr xd = NewData(DType::kF32, {2}, DataKind::kPlaceholder);
  DataPtr wd = NewData(DType::kF32, {2});
  NodePtr x = MakeDataNode(xd);
  NodePtr w = MakeDataNode(wd);
  NodePtr two = Ok(MakeConstant(2.0, Shape(DType::kF32, {2})));
  NodePtr scaled = Ok(MakeBinary(OpKind::kMultiply, two, two));  // no leaf
  NodePtr y = Ok(MakeBinary(OpKind::kAdd, Ok(MakeBinary(OpKind::kMultiply, x, w)),
                            scaled));
  SubGraphPtr g = Ok(SubGraph::CreateFromDataLeaves({xd, wd}, {y}));
  ASSERT_EQ(g->parameters().size(), 2u);
  EXPECT_EQ(g->results()[0].shape().ToString(), "f32[2]");
  // The part not depending on the leaves is shared, not copied.
  EXPECT_EQ(g->results()[0].node->operand(1).node, scaled);
  // The original graph is untouched.
  EXPECT_EQ(y->operand(0).node->operand(0).node, x);
  EXPECT_EQ(DumpIrText(g->results()),
            "IR {\n"
            "  %0 = f32[2] parameter(), index=0\n"
            "  %1 = f32[2] parameter(), index=1\n"
            "  %2 = f32[2] multiply(%0, %1)\n"
            "  %3 = f32[2] constant(), value=2\n"
            "  %4 = f32[2] multiply(%3, %3)\n"
            "  ROOT %5 = f32[2] add(%2, %4)\n"
            "}\n");
  // A leaf that is not listed makes the sub-graph not closed.
  absl::StatusOr<SubGraphPtr> open = SubGraph::CreateFromDataLeaves({xd}, {y});
  ASSERT_FALSE(open.ok());
  EXPECT_PRED2(Contains, std::string(open.status().message()), "not closed: it uses a data leaf f32[2]");
}

TEST(WalkTest, PostOrderVisitsEachNodeOnceOperandsFirst) {
  NodePtr a = Leaf(DType::kF32, {2});
  NodePtr b = Leaf(DType::kF32, {2});
  NodePtr s = Ok(MakeUnary(OpKind::kSine, a));
  NodePtr c = Ok(MakeUnary(OpKind::kCosine, a));
  NodePtr sum = Ok(MakeBinary(OpKind::kAdd, s, c));
  NodePtr out = Ok(MakeBinary(OpKind::kMultiply, sum, b));
  PostOrder order = ComputePostOrder({out, s});
  std::vector<const Node*> expected = {a.get(),   s.get(), c.get(),
                                       sum.get(), b.get(), out.get()};
  EXPECT_EQ(order.nodes, expected);
  EXPECT_EQ(order.PositionOf(sum.get()), 3);
  EXPECT_EQ(order.PositionOf(nullptr), -1);
}

// Builds sin(x) + y * 2 over fresh leaves of the given shape.
std::vector<Value> SampleGraph(Shape shape, OpKind op = OpKind::kSine,
                               double scale = 2.0) {
  NodePtr x = MakeDataNode(std::make_shared<Data>(shape, DataKind::kDevice));
  NodePtr y = MakeDataNode(std::make_shared<Data>(shape, DataKind::kDevice));
  NodePtr two = Ok(MakeConstant(scale, shape));
  NodePtr out = Ok(MakeBinary(OpKind::kAdd, Ok(MakeUnary(op, x)),
                              Ok(MakeBinary(OpKind::kMultiply, y, two))));
  return {out};
}

TEST(HashTest, EqualStructureHashesEqualOverDifferentData) {
  Shape s(DType::kF32, {2, 3});
  EXPECT_EQ(GraphHash(SampleGraph(s)), GraphHash(SampleGraph(s)));
  // Placeholders hash like device data of the same shape.
  NodePtr p = MakeDataNode(NewData(DType::kF32, {2}, DataKind::kPlaceholder));
  NodePtr d = MakeDataNode(NewData(DType::kF32, {2}, DataKind::kDevice));
  EXPECT_EQ(GraphHash({Ok(MakeUnary(OpKind::kSine, p))}),
            GraphHash({Ok(MakeUnary(OpKind::kSine, d))}));
}

TEST(HashTest, DifferentShapesOpsAttrsHashDifferent) {
  Shape s(DType::kF32, {2, 3});
  const uint64_t base = GraphHash(SampleGraph(s));
  EXPECT_NE(base, GraphHash(SampleGraph(Shape(DType::kF32, {3, 2}))));
  EXPECT_NE(base, GraphHash(SampleGraph(Shape(DType::kBF16, {2, 3}))));
  EXPECT_NE(base, GraphHash(SampleGraph(s, OpKind::kCosine)));
  EXPECT_NE(base, GraphHash(SampleGraph(s, OpKind::kSine, 3.0)));
  EXPECT_NE(GraphHash(SampleGraph(s, OpKind::kSine, 0.0)),
            GraphHash(SampleGraph(s, OpKind::kSine, -0.0)));

  NodePtr x = Leaf(DType::kF32, {2, 3});
  auto reduce = [&](Dims dims, const char* kind) {
    return GraphHash({Make(OpKind::kReduce, {x},
                           Attrs().Set("dims", dims).Set("kind", kind))});
  };
  EXPECT_NE(reduce({0}, "sum"), reduce({1}, "sum"));
  EXPECT_NE(reduce({0}, "sum"), reduce({0}, "max"));
  EXPECT_EQ(reduce({0}, "sum"), reduce({0}, "sum"));
  // Root order and root output index matter.
  NodePtr a = Ok(MakeUnary(OpKind::kSine, x));
  NodePtr b = Ok(MakeUnary(OpKind::kCosine, x));
  EXPECT_NE(GraphHash({a, b}), GraphHash({b, a}));
}

TEST(HashTest, SameLeafTwiceDiffersFromTwoLeaves) {
  DataPtr ad = NewData(DType::kF32, {4});
  DataPtr bd = NewData(DType::kF32, {4});
  NodePtr a = MakeDataNode(ad);
  NodePtr b = MakeDataNode(bd);
  const uint64_t a_plus_a = GraphHash({Ok(MakeBinary(OpKind::kAdd, a, a))});
  const uint64_t a_plus_b = GraphHash({Ok(MakeBinary(OpKind::kAdd, a, b))});
  EXPECT_NE(a_plus_a, a_plus_b);
  // Two leaf nodes over one Data: same Data ordinal, unlike a + b.
  NodePtr a2 = MakeDataNode(ad);
  EXPECT_NE(GraphHash({Ok(MakeBinary(OpKind::kAdd, a, a2))}), a_plus_b);
  // b + a over swapped buffers is the same program as a + b.
  EXPECT_EQ(GraphHash({Ok(MakeBinary(OpKind::kAdd, b, a))}), a_plus_b);
}

TEST(HashTest, SubGraphsAreHashed) {
  NodePtr x = Leaf(DType::kF32, {2});
  NodePtr i = Leaf(DType::kI64, {});
  auto loop_hash = [&](int64_t limit, double factor) {
    Loop l = MakeLoop(limit, factor, Shape(DType::kF32, {2}));
    return GraphHash({Make(OpKind::kWhile, {x, i},
                           Attrs().Set("cond", l.cond).Set("body", l.body))});
  };
  EXPECT_EQ(loop_hash(10, 2.0), loop_hash(10, 2.0));
  EXPECT_NE(loop_hash(10, 2.0), loop_hash(11, 2.0));
  EXPECT_NE(loop_hash(10, 2.0), loop_hash(10, 3.0));
}

// Node::hash() and reads_placeholder() are computed when a node is made, so a
// sync needs no walk for them.
TEST(HashTest, NodeHashIsStructuralAndPlaceholderReadsPropagate) {
  Shape s(DType::kF32, {2, 3});
  Value a = SampleGraph(s)[0], b = SampleGraph(s)[0];
  EXPECT_NE(a.node, b.node);
  EXPECT_EQ(a.node->hash(), b.node->hash());  // other data, same computation
  EXPECT_EQ(ValueHashes({a}), ValueHashes({b}));
  EXPECT_NE(SampleGraph(s, OpKind::kCosine)[0].node->hash(), a.node->hash());
  EXPECT_NE(SampleGraph(s, OpKind::kSine, 3.0)[0].node->hash(),
            a.node->hash());

  NodePtr p = MakeDataNode(NewData(DType::kF32, {2}, DataKind::kPlaceholder));
  NodePtr d = MakeDataNode(NewData(DType::kF32, {2}));
  NodePtr sin_p = Ok(MakeUnary(OpKind::kSine, p));
  NodePtr sum = Ok(MakeBinary(OpKind::kAdd, Ok(MakeUnary(OpKind::kCosine, d)),
                              sin_p));
  EXPECT_TRUE(p->reads_placeholder());
  EXPECT_TRUE(sum->reads_placeholder());
  EXPECT_FALSE(d->reads_placeholder());
  EXPECT_FALSE(Ok(MakeUnary(OpKind::kCosine, d))->reads_placeholder());
  EXPECT_EQ(sin_p->hash(), Ok(MakeUnary(OpKind::kSine, d))->hash());
}

TEST(DumpTest, PrintsNodesInPostOrder) {
  NodePtr x = Leaf(DType::kF32, {2, 3});
  NodePtr p = MakeDataNode(NewData(DType::kF32, {}, DataKind::kPlaceholder));
  NodePtr s = Ok(MakeUnary(OpKind::kSine, x));
  NodePtr one = Ok(MakeConstant(1.0, Shape(DType::kF32, {})));
  NodePtr sum = Ok(MakeBinary(OpKind::kAdd, p, one));
  NodePtr b = Make(OpKind::kBroadcastInDim, {sum},
                   Attrs().Set("dims", Dims{2, 3}).Set("broadcast_dims", Dims{}));
  NodePtr out = Ok(MakeBinary(OpKind::kMultiply, s, b));
  NodePtr state = Leaf(DType::kU64, {2});
  NodePtr rng = Make(OpKind::kRngBitGenerator, {state},
                     Attrs()
                         .Set("dtype", DType::kU32)
                         .Set("dims", Dims{4})
                         .Set("algorithm", "THREE_FRY"));
  EXPECT_EQ(DumpIrText({out, Value(rng, 1)}),
            "IR {\n"
            "  %0 = f32[2,3]{1,0} xla::device_data()\n"
            "  %1 = f32[2,3] sine(%0)\n"
            "  %2 = f32[] xla::device_data()\n"
            "  %3 = f32[] constant(), value=1\n"
            "  %4 = f32[] add(%2, %3)\n"
            "  %5 = f32[2,3] broadcast_in_dim(%4), dims=[2,3], broadcast_dims=[]\n"
            "  ROOT %6 = f32[2,3] multiply(%1, %5)\n"
            "  %7 = u64[2]{0} xla::device_data()\n"
            "  ROOT %8 = (u64[2], u32[4]) rng_bit_generator(%7), algorithm=THREE_FRY\n"
            "}\n");
}

TEST(DumpTest, PrintsSubGraphsNested) {
  Loop l = MakeLoop(10, 2.0, Shape(DType::kF32, {2}));
  NodePtr w = Make(OpKind::kWhile, {Leaf(DType::kF32, {2}), Leaf(DType::kI64, {})},
                   Attrs().Set("cond", l.cond).Set("body", l.body));
  NodePtr out = Ok(MakeUnary(OpKind::kNegate, Value(w, 1)));
  EXPECT_EQ(DumpIrText({out}),
            "IR {\n"
            "  %0 = f32[2]{0} xla::device_data()\n"
            "  %1 = s64[] xla::device_data()\n"
            "  %2 = (f32[2], s64[]) while(%0, %1), cond={\n"
            "    %0 = s64[] parameter(), index=1\n"
            "    %1 = s64[] constant(), value=10\n"
            "    ROOT %2 = pred[] compare(%0, %1), direction=LT\n"
            "  }, body={\n"
            "    %0 = f32[2] parameter(), index=0\n"
            "    %1 = f32[2] constant(), value=2\n"
            "    ROOT %2 = f32[2] multiply(%0, %1)\n"
            "    %3 = s64[] parameter(), index=1\n"
            "    %4 = s64[] constant(), value=1\n"
            "    ROOT %5 = s64[] add(%3, %4)\n"
            "  }\n"
            "  ROOT %3 = s64[] negate(%2.1)\n"
            "}\n");
}

TEST(RuleTableTest, EveryOpKindHasAShapeRule) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    OpKind kind = static_cast<OpKind>(i);
    EXPECT_NE(DefaultShapeRules().Find(kind), nullptr)
        << "no shape rule for " << OpKindName(kind);
  }
}

TEST(RuleTableTest, DuplicateRegistrationIsAnError) {
  ShapeRuleTable table;
  ASSERT_TRUE(RegisterReduceShapeRules(&table).ok());
  absl::Status again = RegisterReduceShapeRules(&table);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "duplicate shape rule for op 'reduce'");
}

// A chain x -> sin -> sin -> ... of `length` nodes.
Value Chain(Value x, int length) {
  for (int i = 0; i < length; ++i) {
    x = Ok(MakeUnary(i % 2 == 0 ? OpKind::kSine : OpKind::kNegate, x));
  }
  return x;
}

// Timings of these chains and of node construction: benchmarks/ir_node_bench
// (unit tests check results, not wall time).
TEST(ChainTest, TenThousandNodeChainWalksAndHashes) {
  Value root = Chain(Leaf(DType::kF32, {2, 3}), 10000);
  PostOrder order = ComputePostOrder({root});
  ASSERT_EQ(order.nodes.size(), 10001u);
  EXPECT_EQ(order.nodes.back(), root.node.get());
  uint64_t h = GraphHash(order, {root});
  EXPECT_EQ(h, GraphHash({Chain(Leaf(DType::kF32, {2, 3}), 10000)}));
  EXPECT_NE(h, GraphHash({Chain(Leaf(DType::kF32, {2, 3}), 9999)}));
}

TEST(ChainTest, MillionNodeChainIsDestroyedWithoutRecursion) {
  // A recursive teardown would need ~1M stack frames here and crash.
  Value root = Chain(Leaf(DType::kF32, {}), 1000000);
  root = Value();
  EXPECT_FALSE(root);
}

}  // namespace
}  // namespace torch_xla
