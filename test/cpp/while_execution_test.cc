// Execution of control flow: while loops (a cumulative sum over rows with a
// host-scalar trip count, nested loops) and optimization_barrier. Graphs run
// through the CPU plugin and are checked against values computed here with
// plain C++ loops. Inputs lie on a grid of quarters (testing::Quarters), so
// sums and products are exact in f32 and results compare bit for bit.

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "test/cpp/execution_test_util.h"
#include "test/cpp/ir_test_util.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/tensor/device_data.h"
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

// ---------------------------------------------------------------------------
// while and optimization_barrier.

// Cumulative sum over the rows of x [rows, cols]:
//   i = 0; acc = 0; out = 0
//   while (i < n) { acc += x[i]; out[i] = acc; i += 1 }
// with x and n (a host scalar) carried in; rows read and written through
// dynamic_slice / dynamic_update_slice at the loop counter.
NodePtr CumsumLoop(const Value& x, const Value& n, int64_t rows, int64_t cols) {
  const Shape is(DType::kI32, {}), row(DType::kF32, {1, cols}),
      mat(DType::kF32, {rows, cols});
  const std::vector<Shape> carried = {is, is, row, mat, mat};
  auto params = [&] {
    std::vector<NodePtr> p;
    for (size_t i = 0; i < carried.size(); ++i) {
      p.push_back(Ok(MakeParameter(i, carried[i])));
    }
    return p;
  };
  std::vector<NodePtr> c = params();
  SubGraphPtr cond =
      Ok(SubGraph::Create(c, {Ok(MakeCompare(c[0], c[1], "LT"))}));
  std::vector<NodePtr> b = params();
  NodePtr zero = Ok(MakeIntConstant(0, is));
  NodePtr x_row = Make(OpKind::kDynamicSlice, {b[4], b[0], zero},
                       Attrs().Set("sizes", Dims{1, cols}));
  NodePtr acc = Ok(MakeBinary(OpKind::kAdd, b[2], x_row));
  NodePtr out = Make(OpKind::kDynamicUpdateSlice, {b[3], acc, b[0], zero});
  NodePtr next = Ok(MakeBinary(OpKind::kAdd, b[0], Ok(MakeIntConstant(1, is))));
  SubGraphPtr body = Ok(SubGraph::Create(b, {next, b[1], acc, out, b[4]}));
  return Make(OpKind::kWhile,
              {Ok(MakeIntConstant(0, is)), n, Ok(MakeConstant(0.0, row)),
               Ok(MakeConstant(0.0, mat)), x},
              Attrs().Set("cond", cond).Set("body", body));
}

TEST(WhileExecTest, CumulativeSumOverRows) {
  const int64_t rows = 5, cols = 3;
  std::vector<float> x = Quarters(rows * cols, 41);
  for (int64_t trips : {int64_t{5}, int64_t{3}, int64_t{0}}) {
    SCOPED_TRACE(trips);
    NodePtr loop = CumsumLoop(Input(x, {rows, cols}),
                              HostScalar(MakeHostScalarInt(trips, DType::kI32)),
                              rows, cols);
    std::vector<XlaTensorPtr> t = SyncAll(
        {Value(loop, 0), Value(loop, 2), Value(loop, 3), Value(loop, 4)});
    std::vector<float> acc(cols, 0.0f), out(rows * cols, 0.0f);
    for (int64_t i = 0; i < trips; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        acc[j] += x[i * cols + j];
        out[i * cols + j] = acc[j];
      }
    }
    EXPECT_EQ(Read<int32_t>(t[0]), (std::vector<int32_t>{int32_t(trips)}));
    EXPECT_EQ(Read<float>(t[1]), acc);
    EXPECT_EQ(Read<float>(t[2]), out);
    EXPECT_EQ(Read<float>(t[3]), x);  // carried through unchanged
  }
}

TEST(WhileExecTest, OptimizationBarrierPassesValuesThrough) {
  std::vector<float> a = {1.5f, -0.0f, 1e38f};
  std::vector<int32_t> b = {-7, 2147483647};
  NodePtr barrier =
      Make(OpKind::kOptimizationBarrier, {Input(a, {3}), Input(b, {2})});
  ASSERT_EQ(barrier->num_outputs(), 2u);
  // Its results feed further ops, and are results themselves.
  Value doubled =
      Ok(MakeBinary(OpKind::kAdd, Value(barrier, 0), Value(barrier, 0)));
  std::vector<XlaTensorPtr> t =
      SyncAll({Value(barrier, 0), Value(barrier, 1), doubled});
  EXPECT_EQ(Read<float>(t[0]), a);
  EXPECT_EQ(std::signbit(Read<float>(t[0])[1]), true);
  EXPECT_EQ(Read<int32_t>(t[1]), b);
  EXPECT_EQ(Read<float>(t[2]), (std::vector<float>{3.0f, 0.0f, 2e38f}));
}

// while (i < n) { x = step(x); i += 1 } over (f32[2] x, s32[] i); returns x.
Value CountedLoop(const Value& x, int64_t n,
                  const std::function<Value(const Value&)>& step) {
  const Shape xs(DType::kF32, {2}), is(DType::kI32, {});
  NodePtr cx = Ok(MakeParameter(0, xs)), ci = Ok(MakeParameter(1, is));
  SubGraphPtr cond = Ok(SubGraph::Create(
      {cx, ci}, {Ok(MakeCompare(ci, Ok(MakeIntConstant(n, is)), "LT"))}));
  NodePtr bx = Ok(MakeParameter(0, xs)), bi = Ok(MakeParameter(1, is));
  SubGraphPtr body = Ok(SubGraph::Create(
      {bx, bi}, {step(bx), Ok(MakeBinary(OpKind::kAdd, bi,
                                         Ok(MakeIntConstant(1, is))))}));
  NodePtr loop = Make(OpKind::kWhile, {x, Ok(MakeIntConstant(0, is))},
                      Attrs().Set("cond", cond).Set("body", body));
  return Value(loop, 0);
}

TEST(WhileExecTest, NestedLoops) {
  // 4 times: { x = 2x; 3 times: { x = x / 2 + 1 } } (exact in f32).
  const Shape xs(DType::kF32, {2});
  auto inner = [&](const Value& x) {
    return Value(Ok(MakeBinary(
        OpKind::kAdd,
        Ok(MakeBinary(OpKind::kMultiply, x, Ok(MakeConstant(0.5, xs)))),
        Ok(MakeConstant(1.0, xs)))));
  };
  auto outer = [&](const Value& x) {
    return CountedLoop(
        Ok(MakeBinary(OpKind::kMultiply, x, Ok(MakeConstant(2.0, xs)))), 3,
        inner);
  };
  std::vector<float> x = {3.0f, -20.0f};
  std::vector<float> want = x;
  for (float& v : want) {
    for (int i = 0; i < 4; ++i) {
      v *= 2;
      for (int j = 0; j < 3; ++j) v = v * 0.5f + 1;
    }
  }
  EXPECT_EQ(Exec<float>(CountedLoop(Input(x, {2}), 4, outer)), want);
}

}  // namespace
}  // namespace torch_xla
