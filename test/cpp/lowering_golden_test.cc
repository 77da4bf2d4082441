// The lowering to StableHLO text, one golden file per op family
// (test/cpp/testdata; scripts/update_goldens.sh regenerates them), with
// aliasing, donation and sharding attributes and edge cases. The lowering
// context itself (parameters, errors, rule tables, MLIR text helpers) is
// lowering_context_test.cc.

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/golden_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/elementwise_ops.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/lowering/lowering_context.h"

namespace torch_xla {
namespace {

using testing::Contains;
using testing::ExpectMatchesGolden;
using testing::Leaf;
using testing::Lower;
using testing::Make;
using testing::NewData;
using testing::Ok;

using Dims = std::vector<int64_t>;

TEST(GoldenTest, ElementwiseFloat) {
  NodePtr x = Leaf(DType::kF32, {2, 3});
  NodePtr y = Leaf(DType::kF32, {2, 3});
  std::vector<Value> results;
  for (const ElementwiseOp& row : ElementwiseOps()) {
    if (row.operands == DTypeClass::kInteger ||
        row.operands == DTypeClass::kIntegerOrBool) {
      continue;
    }
    results.push_back(row.arity == 1 ? Ok(MakeUnary(row.kind, x))
                                     : Ok(MakeBinary(row.kind, x, y)));
  }
  ExpectMatchesGolden(Lower("elementwise_float", results),
                      "elementwise_float.mlir");
}

TEST(GoldenTest, ElementwiseIntegerAndPred) {
  NodePtr a = Leaf(DType::kI32, {4});
  NodePtr b = Leaf(DType::kI32, {4});
  NodePtr u = Leaf(DType::kU8, {4});
  NodePtr p = Leaf(DType::kBool, {4});
  NodePtr q = Leaf(DType::kBool, {4});
  std::vector<Value> results = {
      Ok(MakeBinary(OpKind::kAdd, a, b)),
      Ok(MakeBinary(OpKind::kDivide, a, b)),
      Ok(MakeBinary(OpKind::kRemainder, a, b)),
      Ok(MakeBinary(OpKind::kShiftLeft, a, b)),
      Ok(MakeBinary(OpKind::kShiftRightArithmetic, a, b)),
      Ok(MakeBinary(OpKind::kShiftRightLogical, a, b)),
      Ok(MakeBinary(OpKind::kAnd, a, b)),
      Ok(MakeUnary(OpKind::kNot, a)),
      Ok(MakeUnary(OpKind::kAbs, a)),
      Ok(MakeUnary(OpKind::kSign, a)),
      Ok(MakeBinary(OpKind::kMaximum, u, u)),
      Ok(MakeBinary(OpKind::kXor, p, q)),
      Ok(MakeBinary(OpKind::kOr, p, q)),
      Ok(MakeUnary(OpKind::kNot, p)),
  };
  ExpectMatchesGolden(Lower("elementwise_int", results),
                      "elementwise_int.mlir");
}

TEST(GoldenTest, CompareSelectClampConvert) {
  NodePtr x = Leaf(DType::kF32, {2, 3});
  NodePtr y = Leaf(DType::kF32, {2, 3});
  NodePtr i = Leaf(DType::kI64, {2, 3});
  NodePtr u = Leaf(DType::kU32, {2, 3});
  NodePtr lo = Leaf(DType::kF32, {});
  NodePtr hi = Leaf(DType::kF32, {});
  NodePtr lt = Ok(MakeCompare(x, y, "LT"));
  std::vector<Value> results = {
      lt,
      Ok(MakeCompare(i, i, "GE")),
      Ok(MakeCompare(u, u, "NE")),
      Ok(MakeCompare(lt, lt, "EQ")),
      Make(OpKind::kCompare, {x, y},
           Attrs().Set("direction", "LE").Set("total_order", true)),
      Make(OpKind::kSelect, {lt, x, y}),
      Make(OpKind::kClamp, {lo, x, hi}),
      Make(OpKind::kConvert, {x}, Attrs().Set("dtype", DType::kI32)),
      Make(OpKind::kConvert, {lt}, Attrs().Set("dtype", DType::kBF16)),
      Make(OpKind::kBitcastConvert, {x}, Attrs().Set("dtype", DType::kU32)),
  };
  ExpectMatchesGolden(Lower("compare_select", results),
                      "compare_select.mlir");
}

TEST(GoldenTest, ConstantsAndIota) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Value> results = {
      Ok(MakeConstant(1.0, Shape(DType::kF32, {2, 3}))),
      Ok(MakeConstant(0.1, Shape(DType::kF32, {}))),
      Ok(MakeConstant(0.1, Shape(DType::kF64, {}))),
      Ok(MakeConstant(0.1, Shape(DType::kBF16, {2}))),
      Ok(MakeConstant(-inf, Shape(DType::kF16, {}))),
      Ok(MakeConstant(std::nan(""), Shape(DType::kF32, {}))),
      Ok(MakeConstant(-0.0, Shape(DType::kF32, {}))),
      Ok(MakeIntConstant(3, Shape(DType::kF32, {}))),
      Ok(MakeIntConstant(-7, Shape(DType::kI32, {3}))),
      Ok(MakeIntConstant(255, Shape(DType::kU8, {}))),
      Ok(MakeIntConstant(-1, Shape(DType::kU64, {}))),
      Ok(MakeIntConstant(std::numeric_limits<int64_t>::min(),
                         Shape(DType::kI64, {}))),
      Ok(MakeBoolConstant(true, Shape(DType::kBool, {2}))),
      Make(OpKind::kIota, {},
           Attrs().Set("dtype", DType::kI32).Set("dims", Dims{4, 5}).Set(
               "dimension", 1)),
  };
  ExpectMatchesGolden(Lower("constants", results), "constants.mlir");
}

TEST(GoldenTest, DataMovement) {
  NodePtr x = Leaf(DType::kF32, {2, 3});
  NodePtr s = Leaf(DType::kF32, {});
  NodePtr idx = Leaf(DType::kI32, {});
  NodePtr upd = Leaf(DType::kF32, {1, 2});
  std::vector<Value> results = {
      Make(OpKind::kBroadcastInDim, {x},
           Attrs().Set("dims", Dims{4, 2, 3}).Set("broadcast_dims", Dims{1, 2})),
      Make(OpKind::kBroadcastInDim, {s},
           Attrs().Set("dims", Dims{2}).Set("broadcast_dims", Dims{})),
      Make(OpKind::kReshape, {x}, Attrs().Set("dims", Dims{3, 2})),
      Make(OpKind::kTranspose, {x}, Attrs().Set("permutation", Dims{1, 0})),
      Make(OpKind::kReverse, {x}, Attrs().Set("dims", Dims{0})),
      Make(OpKind::kSlice, {x},
           Attrs().Set("start", Dims{0, 1}).Set("limit", Dims{2, 3})),
      Make(OpKind::kSlice, {x},
           Attrs()
               .Set("start", Dims{0, 0})
               .Set("limit", Dims{2, 3})
               .Set("strides", Dims{1, 2})),
      Make(OpKind::kDynamicSlice, {x, idx, idx},
           Attrs().Set("sizes", Dims{1, 2})),
      Make(OpKind::kDynamicUpdateSlice, {x, upd, idx, idx}),
      Make(OpKind::kConcatenate, {x, x, x}, Attrs().Set("dimension", 1)),
      Make(OpKind::kPad, {x, s},
           Attrs()
               .Set("low", Dims{1, 0})
               .Set("high", Dims{0, -1})
               .Set("interior", Dims{0, 1})),
  };
  ExpectMatchesGolden(Lower("data_movement", results), "data_movement.mlir");
}

TEST(GoldenTest, Reduce) {
  NodePtr x = Leaf(DType::kF32, {2, 3});
  NodePtr i = Leaf(DType::kI32, {2, 3});
  NodePtr p = Leaf(DType::kBool, {4});
  NodePtr h = Leaf(DType::kBF16, {8});
  auto reduce = [](NodePtr in, Dims dims, const char* kind) {
    return Make(OpKind::kReduce, {in}, Attrs().Set("dims", dims).Set("kind", kind));
  };
  std::vector<Value> results = {
      reduce(x, {1}, "sum"),  reduce(x, {0, 1}, "max"), reduce(x, {0}, "min"),
      reduce(x, {1}, "prod"), reduce(i, {1}, "max"),    reduce(i, {0}, "and"),
      reduce(p, {0}, "or"),   reduce(p, {0}, "and"),    reduce(h, {0}, "max"),
  };
  ExpectMatchesGolden(Lower("reduce", results), "reduce.mlir");
}

TEST(GoldenTest, DotGeneral) {
  NodePtr a = Leaf(DType::kF32, {2, 3});
  NodePtr b = Leaf(DType::kF32, {3, 4});
  NodePtr ba = Leaf(DType::kBF16, {8, 2, 3});
  NodePtr bb = Leaf(DType::kBF16, {8, 3, 5});
  std::vector<Value> results = {
      Make(OpKind::kDotGeneral, {a, b},
           Attrs().Set("lhs_contract", Dims{1}).Set("rhs_contract", Dims{0})),
      Make(OpKind::kDotGeneral, {ba, bb},
           Attrs()
               .Set("lhs_batch", Dims{0})
               .Set("rhs_batch", Dims{0})
               .Set("lhs_contract", Dims{2})
               .Set("rhs_contract", Dims{1})
               .Set("dtype", DType::kF32)),
      Make(OpKind::kDotGeneral, {a, b},
           Attrs()
               .Set("lhs_contract", Dims{1})
               .Set("rhs_contract", Dims{0})
               .Set("precision", "HIGHEST")),
  };
  ExpectMatchesGolden(Lower("dot", results), "dot.mlir");
}

TEST(GoldenTest, GatherScatter) {
  NodePtr table = Leaf(DType::kF32, {10, 4});
  NodePtr ids = Leaf(DType::kI64, {3, 1});
  NodePtr rows = Leaf(DType::kF32, {3, 4});
  Attrs scatter = Attrs()
                      .Set("window_dims", Dims{1})
                      .Set("inserted_dims", Dims{0})
                      .Set("scatter_dim_map", Dims{0})
                      .Set("index_vec_dim", 1);
  NodePtr op = Leaf(DType::kF32, {2, 5});
  NodePtr idx = Leaf(DType::kI32, {2, 3, 1});
  std::vector<Value> results = {
      Make(OpKind::kGather, {table, ids},
           Attrs()
               .Set("offset_dims", Dims{1})
               .Set("collapsed_dims", Dims{0})
               .Set("start_index_map", Dims{0})
               .Set("index_vec_dim", 1)
               .Set("slice_sizes", Dims{1, 4})
               .Set("sorted", true)),
      Make(OpKind::kScatter, {table, ids, rows}, Attrs(scatter).Set("kind", "add")),
      Make(OpKind::kScatter, {table, ids, rows},
           Attrs(scatter).Set("kind", "replace").Set("unique", true)),
      Make(OpKind::kGather, {op, idx},
           Attrs()
               .Set("offset_dims", Dims{})
               .Set("collapsed_dims", Dims{1})
               .Set("operand_batch", Dims{0})
               .Set("indices_batch", Dims{0})
               .Set("start_index_map", Dims{1})
               .Set("index_vec_dim", 2)
               .Set("slice_sizes", Dims{1, 1})),
  };
  ExpectMatchesGolden(Lower("gather_scatter", results), "gather_scatter.mlir");
}

TEST(GoldenTest, RngBitGenerator) {
  NodePtr state = Leaf(DType::kU64, {2});
  NodePtr rng = Make(OpKind::kRngBitGenerator, {state},
                     Attrs().Set("dtype", DType::kU32).Set("dims", Dims{2, 3}));
  NodePtr rng64 = Make(OpKind::kRngBitGenerator, {Value(rng, 0)},
                       Attrs()
                           .Set("dtype", DType::kU64)
                           .Set("dims", Dims{4})
                           .Set("algorithm", "THREE_FRY"));
  ExpectMatchesGolden(Lower("rng", {Value(rng64, 0), Value(rng, 1), Value(rng64, 1)}),
                      "rng.mlir");
}

TEST(GoldenTest, WhileAndOptimizationBarrier) {
  // while (i < 10) { x = x * 2 + w; i = i + 1 }, with w carried too.
  Shape xs(DType::kF32, {2}), is(DType::kI64, {});
  NodePtr cx = Ok(MakeParameter(0, xs)), cw = Ok(MakeParameter(1, xs)),
          ci = Ok(MakeParameter(2, is));
  SubGraphPtr cond = Ok(SubGraph::Create(
      {cx, cw, ci}, {Ok(MakeCompare(ci, Ok(MakeIntConstant(10, is)), "LT"))}));
  NodePtr bx = Ok(MakeParameter(0, xs)), bw = Ok(MakeParameter(1, xs)),
          bi = Ok(MakeParameter(2, is));
  NodePtr next_x = Ok(MakeBinary(
      OpKind::kAdd, Ok(MakeBinary(OpKind::kMultiply, bx, Ok(MakeConstant(2.0, xs)))),
      bw));
  SubGraphPtr body = Ok(SubGraph::Create(
      {bx, bw, bi},
      {next_x, bw, Ok(MakeBinary(OpKind::kAdd, bi, Ok(MakeIntConstant(1, is))))}));
  NodePtr x = Leaf(DType::kF32, {2});
  NodePtr w = Leaf(DType::kF32, {2});
  NodePtr zero = Ok(MakeIntConstant(0, is));
  NodePtr loop = Make(OpKind::kWhile, {x, w, zero},
                      Attrs().Set("cond", cond).Set("body", body));
  NodePtr barrier =
      Make(OpKind::kOptimizationBarrier, {Value(loop, 0), Value(loop, 2)});
  ExpectMatchesGolden(
      Lower("while_loop", {Value(barrier, 0), Value(barrier, 1)}), "while.mlir");
}

// A loop over (f32[2] x, s64[] i): while (i < limit) { x = x * factor;
// i += 1 }, optionally running `inner` on x inside the body.
struct LoopGraphs {
  SubGraphPtr cond, body;
};

LoopGraphs CountingLoop(int64_t limit, double factor,
                        const LoopGraphs* inner = nullptr) {
  Shape xs(DType::kF32, {2}), is(DType::kI64, {});
  NodePtr cx = Ok(MakeParameter(0, xs)), ci = Ok(MakeParameter(1, is));
  SubGraphPtr cond = Ok(SubGraph::Create(
      {cx, ci}, {Ok(MakeCompare(ci, Ok(MakeIntConstant(limit, is)), "LT"))}));
  NodePtr bx = Ok(MakeParameter(0, xs)), bi = Ok(MakeParameter(1, is));
  Value x = Ok(MakeBinary(OpKind::kMultiply, bx, Ok(MakeConstant(factor, xs))));
  if (inner != nullptr) {
    NodePtr w = Make(OpKind::kWhile, {x, Ok(MakeIntConstant(0, is))},
                     Attrs().Set("cond", inner->cond).Set("body", inner->body));
    x = Value(w, 0);
  }
  SubGraphPtr body = Ok(SubGraph::Create(
      {bx, bi},
      {x, Ok(MakeBinary(OpKind::kAdd, bi, Ok(MakeIntConstant(1, is))))}));
  return {cond, body};
}

TEST(GoldenTest, EdgeCases) {
  NodePtr v2 = Leaf(DType::kF32, {2});
  NodePtr v3 = Leaf(DType::kF32, {3});
  NodePtr m = Leaf(DType::kF32, {2, 3});
  NodePtr empty = Leaf(DType::kF32, {0, 3});
  NodePtr h = Leaf(DType::kF16, {2});
  NodePtr u = Leaf(DType::kU64, {2});
  NodePtr s16 = Leaf(DType::kI16, {2});
  NodePtr pred = Leaf(DType::kBool, {});
  NodePtr state3 = Leaf(DType::kU64, {3});
  NodePtr start = Leaf(DType::kI64, {});
  LoopGraphs inner = CountingLoop(3, 0.5);
  LoopGraphs outer = CountingLoop(4, 2.0, &inner);
  NodePtr nested = Make(OpKind::kWhile, {v2, start},
                        Attrs().Set("cond", outer.cond).Set("body", outer.body));
  NodePtr philox = Make(OpKind::kRngBitGenerator, {state3},
                        Attrs()
                            .Set("dtype", DType::kU32)
                            .Set("dims", Dims{2})
                            .Set("algorithm", "PHILOX"));
  std::vector<Value> results = {
      // Outer product: no batch or contracting dims at all.
      Make(OpKind::kDotGeneral, {v2, v3}),
      // Reduce over no dims, and over a zero-sized dim.
      Make(OpKind::kReduce, {m}, Attrs().Set("dims", Dims{}).Set("kind", "sum")),
      Make(OpKind::kReduce, {empty}, Attrs().Set("dims", Dims{0}).Set("kind", "max")),
      Make(OpKind::kSlice, {m}, Attrs().Set("start", Dims{1, 1}).Set("limit", Dims{1, 3})),
      Make(OpKind::kConcatenate, {m}, Attrs().Set("dimension", 0)),
      Make(OpKind::kSelect, {pred, m, m}),
      Make(OpKind::kClamp, {m, m, m}),
      Ok(MakeBinary(OpKind::kAdd, h, h)),
      Make(OpKind::kConvert, {h}, Attrs().Set("dtype", DType::kF64)),
      Ok(MakeCompare(u, u, "GT")),
      Ok(MakeBinary(OpKind::kShiftRightLogical, u, u)),
      Make(OpKind::kBitcastConvert, {s16}, Attrs().Set("dtype", DType::kBF16)),
      Ok(MakeConstant(65504.0, Shape(DType::kF16, {2}))),
      Ok(MakeConstant(1e-8, Shape(DType::kF16, {}))),
      Value(philox, 1),
      Value(nested, 0),
  };
  ExpectMatchesGolden(Lower("edge cases", results), "edge_cases.mlir");
}

TEST(GoldenTest, AliasDonorAndSharding) {
  DataPtr wd = NewData(DType::kF32, {4});
  DataPtr gd = NewData(DType::kF32, {4});
  DataPtr lr = NewData(DType::kF32, {}, DataKind::kHost);
  NodePtr w = MakeDataNode(wd), g = MakeDataNode(gd);
  NodePtr step = Make(OpKind::kBroadcastInDim, {MakeDataNode(lr)},
                      Attrs().Set("dims", Dims{4}).Set("broadcast_dims", Dims{}));
  NodePtr new_w = Ok(MakeBinary(OpKind::kSubtract, w,
                                Ok(MakeBinary(OpKind::kMultiply, g, step))));
  NodePtr zero = Ok(MakeConstant(0.0, Shape(DType::kF32, {4})));
  LoweringContext ctx("train step");
  ASSERT_TRUE(ctx.Build({new_w, zero}).ok());
  ASSERT_EQ(ctx.parameters().size(), 3u);
  const uint64_t plain_hash = ctx.hash();
  EXPECT_EQ(plain_hash, ctx.graph_hash());
  ASSERT_TRUE(ctx.SetAlias(ctx.ParameterIndex(wd->id()), 0).ok());
  ASSERT_TRUE(ctx.SetDonor(ctx.ParameterIndex(gd->id())).ok());
  ASSERT_TRUE(ctx.SetParameterSharding(0, "{devices=[2]0,1}").ok());
  ASSERT_TRUE(ctx.SetResultSharding(1, "{replicated}").ok());
  EXPECT_NE(ctx.hash(), plain_hash);
  std::string text = Ok(ctx.HloText());
  EXPECT_PRED2(Contains, text, "tf.aliasing_output = 0 : i32");
  EXPECT_PRED2(Contains, text, "{jax.buffer_donor = true}");
  EXPECT_PRED2(Contains, text, "module @\"train step\" {");
  ExpectMatchesGolden(text, "alias_donor.mlir");

  // Misuse is reported.
  EXPECT_EQ(ctx.SetAlias(2, 0).message(),
            "LoweringContext::SetAlias: parameter 2 f32[] cannot alias result "
            "0 f32[4]: shapes differ");
  EXPECT_EQ(ctx.SetAlias(1, 0).message(),
            "LoweringContext::SetAlias: result 0 already aliases parameter 0");
  EXPECT_EQ(ctx.SetDonor(3).code(), absl::StatusCode::kOutOfRange);
}

TEST(GoldenTest, Sort) {
  NodePtr x = Leaf(DType::kF32, {4, 5});
  NodePtr idx = Make(OpKind::kIota, {},
                     Attrs().Set("dtype", DType::kI32).Set("dims", Dims{4, 5})
                         .Set("dimension", 0));
  NodePtr k = Leaf(DType::kI32, {6});
  NodePtr h = Leaf(DType::kBF16, {6});
  NodePtr p = Leaf(DType::kBool, {6});
  NodePtr two = Make(OpKind::kSort, {k, h, p},
                     Attrs().Set("dimension", 0).Set("num_keys", 2).Set(
                         "stable", false));
  NodePtr desc = Make(OpKind::kSort, {x, idx},
                      Attrs().Set("dimension", 0).Set("descending", true));
  std::vector<Value> results = {
      Make(OpKind::kSort, {x}, Attrs().Set("dimension", 1)),
      Value(desc, 0), Value(desc, 1), Value(two, 2),
      Make(OpKind::kSort, {p}, Attrs().Set("dimension", 0)),
  };
  ExpectMatchesGolden(Lower("sort", results), "sort.mlir");
}

TEST(GoldenTest, Convolution) {
  NodePtr x = Leaf(DType::kF32, {1, 4, 8, 8});
  NodePtr w = Leaf(DType::kF32, {6, 4, 3, 3});
  NodePtr wg = Leaf(DType::kF32, {6, 2, 3, 3});
  NodePtr hx = Leaf(DType::kBF16, {2, 3, 7});
  NodePtr hw = Leaf(DType::kBF16, {5, 3, 2});
  NodePtr g = Leaf(DType::kF32, {1, 6, 6, 6});
  std::vector<Value> results = {
      Make(OpKind::kConvolution, {x, w},
           Attrs()
               .Set("strides", Dims{2, 1})
               .Set("pad_lo", Dims{1, 1})
               .Set("pad_hi", Dims{1, 0})
               .Set("rhs_dilation", Dims{2, 1})
               .Set("precision", "HIGHEST")),
      Make(OpKind::kConvolution, {x, wg},
           Attrs().Set("feature_groups", 2).Set("lhs_dilation", Dims{2, 2})),
      Make(OpKind::kConvolution, {hx, hw}, Attrs().Set("dtype", DType::kF32)),
      // A weight gradient: x as [f, b, 0, 1], the grad as the kernel.
      Make(OpKind::kConvolution, {x, g},
           Attrs()
               .Set("lhs_dims", Dims{1, 0, 2, 3})
               .Set("rhs_dims", Dims{0, 1, 2, 3})
               .Set("out_dims", Dims{1, 0, 2, 3})
               .Set("batch_groups", 2)),
  };
  ExpectMatchesGolden(Lower("convolution", results), "convolution.mlir");
}

TEST(GoldenTest, ReduceWindowAndSelectAndScatter) {
  NodePtr x = Leaf(DType::kF32, {2, 5, 5});
  NodePtr i = Leaf(DType::kI32, {2, 5, 5});
  NodePtr idx = Leaf(DType::kI64, {2, 5, 5});
  NodePtr src = Leaf(DType::kF32, {2, 3, 3});
  NodePtr isrc = Leaf(DType::kI32, {2, 2, 2});
  auto window = [](const char* kind) {
    return Attrs()
        .Set("kind", kind)
        .Set("window", Dims{1, 3, 3})
        .Set("strides", Dims{1, 2, 2})
        .Set("pad_lo", Dims{0, 1, 1})
        .Set("pad_hi", Dims{0, 1, 1});
  };
  NodePtr argmax = Make(OpKind::kReduceWindow, {x, idx}, window("argmax"));
  std::vector<Value> results = {
      Make(OpKind::kReduceWindow, {x}, window("sum")),
      Make(OpKind::kReduceWindow, {i},
           Attrs().Set("kind", "max").Set("window", Dims{1, 2, 2})),
      Make(OpKind::kReduceWindow, {x},
           Attrs()
               .Set("kind", "min")
               .Set("window", Dims{1, 2, 2})
               .Set("base_dilation", Dims{1, 2, 1})
               .Set("win_dilation", Dims{1, 1, 2})),
      Value(argmax, 0), Value(argmax, 1),
      Make(OpKind::kSelectAndScatter, {x, src},
           Attrs()
               .Set("kind", "max")
               .Set("window", Dims{1, 3, 3})
               .Set("strides", Dims{1, 2, 2})
               .Set("pad_lo", Dims{0, 1, 1})
               .Set("pad_hi", Dims{0, 1, 1})),
      Make(OpKind::kSelectAndScatter, {i, isrc},
           Attrs()
               .Set("kind", "min")
               .Set("window", Dims{1, 2, 2})
               .Set("strides", Dims{1, 2, 2})),
  };
  ExpectMatchesGolden(Lower("window", results), "window.mlir");
}

}  // namespace
}  // namespace torch_xla
