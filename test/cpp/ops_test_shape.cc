// The shape, copy, cumulative and convolution core builders (torch_xla/
// csrc/ops: shape_ops, copy_ops, cumulative_ops, conv_ops) on their own:
// result shapes and dtypes, the identity cases their bindings clone, and
// eager's error classes. Values are checked against eager in test/python/
// ops/test_shape_ops.py and test_convolution.py; the one call per op in
// test/python/test_shape_crossings.py.

#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ops/conv_ops.h"
#include "torch_xla/csrc/ops/copy_ops.h"
#include "torch_xla/csrc/ops/cumulative_ops.h"
#include "torch_xla/csrc/ops/shape_ops.h"
#include "test/cpp/ir_test_util.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Ok;

TEST(ShapeOpsTest, CatSkipsLegacyEmptiesAndConverts) {
  Value x = Leaf(DType::kF32, {2, 3});
  Value out = Ok(ops::Cat({x, Leaf(DType::kI64, {0}), Leaf(DType::kBF16, {4, 3})},
                          0, DType::kF32));
  EXPECT_EQ(out.shape(), Shape(DType::kF32, {6, 3}));
  EXPECT_EQ(out.node->kind(), OpKind::kConcatenate);
  // One part left: its value as it is (the binding clones it).
  EXPECT_EQ(Ok(ops::Cat({x, Leaf(DType::kF32, {0})}, 1, DType::kF32)), x);
  Value none = Ok(ops::Cat({Leaf(DType::kI32, {0})}, 0, DType::kI64));
  EXPECT_EQ(none.shape(), Shape(DType::kI64, {0}));
}

TEST(ShapeOpsTest, StackFlipRollRepeatShapes) {
  Value x = Leaf(DType::kI32, {2, 3});
  EXPECT_EQ(Ok(ops::Stack({x, x}, 2, DType::kF32)).shape(),
            Shape(DType::kF32, {2, 3, 2}));
  EXPECT_EQ(Ok(ops::Flip(x, {})), x);
  EXPECT_EQ(Ok(ops::Flip(x, {1})).node->kind(), OpKind::kReverse);
  EXPECT_EQ(Ok(ops::Roll(x, {3, -6}, {1, 0})), x);  // whole turns
  EXPECT_EQ(Ok(ops::Roll(x, {-1}, {1})).shape(), x.shape());
  EXPECT_EQ(Ok(ops::Roll(x, {4}, {})).shape(), x.shape());
  EXPECT_EQ(Ok(ops::Repeat(x, {2, 1, 3})).shape(),
            Shape(DType::kI32, {2, 2, 9}));
  EXPECT_EQ(Ok(ops::Repeat(x, {0, 2})).shape(), Shape(DType::kI32, {0, 6}));
}

TEST(ShapeOpsTest, TrianglePadsAndArange) {
  Value x = Leaf(DType::kBF16, {2, 3, 4});
  Value tril = Ok(ops::Triangle(x, Leaf(DType::kI64, {}), /*lower=*/true));
  EXPECT_EQ(tril.shape(), x.shape());
  EXPECT_EQ(tril.node->kind(), OpKind::kSelect);
  EXPECT_EQ(Ok(ops::ConstantPad(x, Leaf(DType::kBF16, {}), {0, 1, -1},
                                {0, 2, 3}))
                .shape(),
            Shape(DType::kBF16, {2, 6, 6}));
  EXPECT_EQ(Ok(ops::ModePad(x, {2, 1}, {3, 1}, {2, 0}, /*reflect=*/true))
                .shape(),
            Shape(DType::kBF16, {2, 4, 9}));
  EXPECT_EQ(Ok(ops::ModePad(x, {2}, {5}, {0}, /*reflect=*/false)).shape(),
            Shape(DType::kBF16, {2, 3, 9}));
  EXPECT_EQ(Ok(ops::ModePadBackward(Leaf(DType::kF32, {2, 4, 9}), {2, 3, 4},
                                    {2, 1}, {3, 1}, {2, 0}, true))
                .shape(),
            Shape(DType::kF32, {2, 3, 4}));
  EXPECT_EQ(Ok(ops::ModePadBackward(Leaf(DType::kF32, {2, 3, 9}), {2, 3, 4},
                                    {2}, {5}, {0}, false))
                .shape(),
            Shape(DType::kF32, {2, 3, 4}));
  EXPECT_EQ(Ok(ops::SelectBackward(Leaf(DType::kF32, {2, 4}), {2, 3, 4}, 1, 2))
                .shape(),
            Shape(DType::kF32, {2, 3, 4}));
  Value range = Ok(ops::Arange(5, DType::kBF16, DType::kF32,
                               Leaf(DType::kF32, {}), Leaf(DType::kF32, {})));
  EXPECT_EQ(range.shape(), Shape(DType::kBF16, {5}));
  EXPECT_EQ(Ok(ops::Arange(7, DType::kI64, DType::kI64, Value(), Value()))
                .node->kind(),
            OpKind::kIota);
}

TEST(CopyOpsTest, CopyCastsAndBroadcastsFillTakesAScalar) {
  Shape dst(DType::kI32, {4, 3});
  Value copy = Ok(ops::CopyValue(Leaf(DType::kF32, {3}), dst));
  EXPECT_EQ(copy.shape(), dst);
  Value same = Leaf(DType::kI32, {4, 3});
  EXPECT_EQ(Ok(ops::CopyValue(same, dst)), same);  // committed as it is
  absl::StatusOr<Value> bad = ops::CopyValue(Leaf(DType::kF32, {2}), dst);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(GetEagerErrorClass(bad.status()), EagerErrorClass::kRuntimeError);
  EXPECT_EQ(Ok(ops::FillValue(Leaf(DType::kF64, {}), dst)).shape(), dst);
  absl::StatusOr<Value> rank = ops::FillValue(Leaf(DType::kF64, {1}), dst);
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(GetEagerErrorClass(rank.status()), EagerErrorClass::kRuntimeError);
}

TEST(CumulativeOpsTest, ScanAccumulatesInOpmathAndReturnsTheDtype) {
  Value sum = Ok(ops::Cumulative(Leaf(DType::kBF16, {3, 5}), 1, OpKind::kAdd,
                                 DType::kBF16));
  EXPECT_EQ(sum.shape(), Shape(DType::kBF16, {3, 5}));
  EXPECT_EQ(sum.node->kind(), OpKind::kConvert);  // from the f32 scan
  Value one = Leaf(DType::kI64, {1, 4});
  EXPECT_EQ(Ok(ops::Cumulative(one, 0, OpKind::kMultiply, DType::kI64)), one);
  EXPECT_FALSE(
      ops::Cumulative(one, 0, OpKind::kSubtract, DType::kI64).ok());
}

TEST(ConvOpsTest, ForwardTransposedAndBackwardShapes) {
  ops::ConvWindow window;
  window.stride = {2, 1};
  window.padding = {1, 0};
  window.dilation = {1, 2};
  window.output_padding = {0, 0};
  window.groups = 1;
  Value x = Leaf(DType::kBF16, {2, 3, 9, 8});
  Value w = Leaf(DType::kBF16, {4, 3, 3, 2});
  Value out = Ok(ops::Convolution(x, w, Leaf(DType::kBF16, {4}), window));
  EXPECT_EQ(out.shape(), Shape(DType::kBF16, {2, 4, 5, 6}));
  ops::ConvGrads grads = Ok(ops::ConvolutionBackward(
      Leaf(DType::kBF16, {2, 4, 5, 6}), x, w, window, {true, true, true}));
  EXPECT_EQ(grads.input.shape(), x.shape());
  EXPECT_EQ(grads.weight.shape(), w.shape());
  EXPECT_EQ(grads.bias.shape(), Shape(DType::kBF16, {4}));
  ops::ConvGrads input_only = Ok(ops::ConvolutionBackward(
      Leaf(DType::kBF16, {2, 4, 5, 6}), x, w, window, {true, false, false}));
  EXPECT_FALSE(input_only.weight);
  absl::StatusOr<ops::ConvGrads> wrong = ops::ConvolutionBackward(
      Leaf(DType::kBF16, {2, 4, 4, 6}), x, w, window, {false, true, false});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(GetEagerErrorClass(wrong.status()),
            EagerErrorClass::kRuntimeError);
  window.transposed = true;
  window.output_padding = {1, 0};
  Value t = Ok(ops::Convolution(Leaf(DType::kF32, {2, 4, 5, 6}),
                                Leaf(DType::kF32, {4, 3, 3, 2}), Value(),
                                window));
  EXPECT_EQ(t.shape(), Shape(DType::kF32, {2, 3, 10, 8}));
}

}  // namespace
}  // namespace torch_xla
