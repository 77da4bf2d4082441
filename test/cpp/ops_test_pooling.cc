// The pooling builders (torch_xla/csrc/ops/pooling_ops.h) on their own:
// result shapes and dtypes, the window op each lowers to, and the backward's
// choice between select_and_scatter and a scatter to the saved indices.
// Values are checked against eager in test/python/ops/test_pooling.py.

#include <array>
#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ops/pooling_ops.h"
#include "test/cpp/ir_test_util.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Ok;

// kernel 3, stride 2, padding 1 (ceil_mode's overhang: pad_hi 2) over 2-d.
ops::PoolWindow Window3s2() { return {{3, 3}, {2, 2}, {1, 1}, {2, 1}, {1, 1}}; }

TEST(PoolingOpsTest, MaxPoolIsOneArgmaxWindowWithS64Indices) {
  std::array<Value, 2> r = Ok(ops::MaxPool(Leaf(DType::kBF16, {2, 3, 8, 7}),
                                           Window3s2()));
  EXPECT_EQ(r[0].shape(), Shape(DType::kBF16, {2, 3, 5, 4}));
  EXPECT_EQ(r[1].shape(), Shape(DType::kI64, {2, 3, 5, 4}));
  EXPECT_EQ(r[0].node->kind(), OpKind::kReduceWindow);
  EXPECT_EQ(r[0].node, r[1].node);
  // An empty batch: zeros of the pooled shape, no window.
  std::array<Value, 2> empty =
      Ok(ops::MaxPool(Leaf(DType::kF32, {0, 3, 8, 7}), Window3s2()));
  EXPECT_EQ(empty[1].shape(), Shape(DType::kI64, {0, 3, 5, 4}));
  EXPECT_EQ(empty[0].node->kind(), OpKind::kConstant);
}

TEST(PoolingOpsTest, MaxPoolBackwardSelectsUndilatedAndScattersElse) {
  Value x = Leaf(DType::kF32, {2, 3, 8, 7});
  Value grad = Leaf(DType::kF32, {2, 3, 5, 4});
  Value idx = Leaf(DType::kI64, {2, 3, 5, 4});
  Value plain = Ok(ops::MaxPoolBackward(grad, x, idx, Window3s2()));
  EXPECT_EQ(plain.shape(), x.shape());
  EXPECT_EQ(plain.node->kind(), OpKind::kSelectAndScatter);
  ops::PoolWindow dilated = {{2, 2}, {1, 1}, {0, 0}, {0, 0}, {2, 2}};
  Value dgrad = Leaf(DType::kF32, {2, 3, 6, 5});
  Value scattered = Ok(ops::MaxPoolBackward(
      dgrad, x, Leaf(DType::kI64, {2, 3, 6, 5}), dilated));
  EXPECT_EQ(scattered.shape(), x.shape());
  EXPECT_EQ(scattered.node->kind(), OpKind::kReshape);
  // A grad of another dtype (autocast) follows the indices too.
  Value half = Ok(ops::MaxPoolBackward(Leaf(DType::kBF16, {2, 3, 5, 4}), x,
                                       idx, Window3s2()));
  EXPECT_EQ(half.shape(), Shape(DType::kBF16, {2, 3, 8, 7}));
}

TEST(PoolingOpsTest, AvgPoolSumsInF32ForHalfTypesAndKeepsIntegers) {
  Value half = Ok(ops::AvgPool(Leaf(DType::kF16, {3, 8, 7}), Window3s2(),
                               true, std::nullopt));
  EXPECT_EQ(half.shape(), Shape(DType::kF16, {3, 5, 4}));
  EXPECT_EQ(half.node->kind(), OpKind::kConvert);
  Value ints = Ok(ops::AvgPool(Leaf(DType::kI64, {3, 8, 7}), Window3s2(),
                               false, 5));
  EXPECT_EQ(ints.shape(), Shape(DType::kI64, {3, 5, 4}));
  EXPECT_EQ(ints.node->kind(), OpKind::kDivide);
  Value grad = Ok(ops::AvgPoolBackward(Leaf(DType::kBF16, {3, 5, 4}),
                                       Leaf(DType::kBF16, {3, 8, 7}),
                                       Window3s2(), false, std::nullopt));
  EXPECT_EQ(grad.shape(), Shape(DType::kBF16, {3, 8, 7}));
  EXPECT_FALSE(ops::AvgPoolBackward(Leaf(DType::kF32, {3, 4, 4}),
                                    Leaf(DType::kF32, {3, 8, 7}), Window3s2(),
                                    false, std::nullopt)
                   .ok());
}

TEST(PoolingOpsTest, AdaptivePoolsGiveTheOutputSizes) {
  Value x = Leaf(DType::kF32, {2, 3, 7, 9, 8});
  EXPECT_EQ(Ok(ops::AdaptiveAvgPool(x, {3, 4, 5})).shape(),
            Shape(DType::kF32, {2, 3, 3, 4, 5}));
  EXPECT_EQ(Ok(ops::AdaptiveAvgPool(x, {7, 3, 0})).shape(),
            Shape(DType::kF32, {2, 3, 7, 3, 0}));
  EXPECT_EQ(Ok(ops::AdaptiveAvgPoolBackward(Leaf(DType::kBF16, {2, 3, 3, 4, 5}),
                                            x, 3))
                .shape(),
            Shape(DType::kBF16, {2, 3, 7, 9, 8}));
  std::array<Value, 2> r = Ok(ops::AdaptiveMaxPool(x, {3, 4, 5}));
  EXPECT_EQ(r[0].shape(), Shape(DType::kF32, {2, 3, 3, 4, 5}));
  EXPECT_EQ(r[1].shape(), Shape(DType::kI64, {2, 3, 3, 4, 5}));
  Value grad = Ok(ops::ScatterToIndices(Leaf(DType::kF32, {2, 3, 3, 4, 5}), x,
                                        r[1], 3));
  EXPECT_EQ(grad.shape(), x.shape());
}

}  // namespace
}  // namespace torch_xla
