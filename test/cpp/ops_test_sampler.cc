// The builders behind grid_sampler_2d, max_unpool and normal(mean, std)
// (torch_xla/csrc/ops/grid_sampler_ops.h, unpool_ops.h, random_ops.h
// NormalOf) on their own: result shapes and dtypes, the empty cases, and
// what they refuse. Values and gradients are checked against eager in
// test/python/test_foreach_crossings.py and ops/test_decomposed_ops.py.

#include "gtest/gtest.h"
#include "torch_xla/csrc/ops/grid_sampler_ops.h"
#include "torch_xla/csrc/ops/random_ops.h"
#include "torch_xla/csrc/ops/unpool_ops.h"
#include "test/cpp/ir_test_util.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Ok;

TEST(SamplerOpsTest, GridSamplerShapesEveryMode) {
  Value x = Leaf(DType::kBF16, {2, 3, 4, 5});
  Value grid = Leaf(DType::kBF16, {2, 6, 7, 2});
  for (int64_t mode : {0, 1, 2}) {
    for (int64_t padding : {0, 1, 2}) {
      Value out = Ok(ops::GridSampler2d(x, grid, mode, padding, false));
      EXPECT_EQ(out.shape(), Shape(DType::kBF16, {2, 3, 6, 7}));
      auto grads = Ok(ops::GridSampler2dBackward(
          Leaf(DType::kBF16, {2, 3, 6, 7}), x, grid, mode, padding, true,
          /*input_grad=*/mode != 0));
      EXPECT_EQ(grads[1].shape(), Shape(DType::kBF16, {2, 6, 7, 2}));
      if (mode == 0) {
        EXPECT_FALSE(grads[0]);  // not asked for
      } else {
        EXPECT_EQ(grads[0].shape(), Shape(DType::kBF16, {2, 3, 4, 5}));
      }
    }
  }
  // No output points: zeros.
  Value empty = Ok(ops::GridSampler2d(x, Leaf(DType::kBF16, {2, 0, 7, 2}), 0,
                                      0, false));
  EXPECT_EQ(empty.shape(), Shape(DType::kBF16, {2, 3, 0, 7}));
  EXPECT_FALSE(
      ops::GridSampler2d(x, Leaf(DType::kBF16, {2, 6, 7, 3}), 0, 0, false)
          .ok());
  EXPECT_FALSE(
      ops::GridSampler2d(x, Leaf(DType::kBF16, {1, 6, 7, 2}), 0, 0, false)
          .ok());
}

TEST(SamplerOpsTest, MaxUnpoolShapes) {
  Value x = Leaf(DType::kF32, {2, 3, 2, 2});
  Value idx = Leaf(DType::kI64, {2, 3, 2, 2});
  EXPECT_EQ(Ok(ops::MaxUnpool(x, idx, {5, 4})).shape(),
            Shape(DType::kF32, {2, 3, 5, 4}));
  EXPECT_EQ(Ok(ops::MaxUnpool(Leaf(DType::kF16, {3, 1, 2, 2}),
                              Leaf(DType::kI64, {3, 1, 2, 2}), {2, 4, 4}))
                .shape(),
            Shape(DType::kF16, {3, 2, 4, 4}));
  EXPECT_EQ(Ok(ops::MaxUnpool(Leaf(DType::kF32, {0, 3, 2, 2}),
                              Leaf(DType::kI64, {0, 3, 2, 2}), {4, 4}))
                .shape(),
            Shape(DType::kF32, {0, 3, 4, 4}));
  EXPECT_FALSE(ops::MaxUnpool(x, Leaf(DType::kI64, {2, 3, 2, 1}), {4, 4}).ok());
}

TEST(SamplerOpsTest, NormalOfBroadcastsAndKeepsTheDtype) {
  Value seed = Leaf(DType::kU64, {});
  Value out = Ok(ops::NormalOf(seed, DType::kBF16, Leaf(DType::kBF16, {2, 1}),
                               Leaf(DType::kF32, {3}), Value(), DType::kF32,
                               DType::kF32));
  EXPECT_EQ(out.shape(), Shape(DType::kBF16, {2, 3}));
  // A number std: the draw's scale; the mean a 0-d parameter.
  Value scaled = Ok(ops::NormalOf(seed, DType::kF32, Leaf(DType::kF32, {}),
                                  Value(), Leaf(DType::kF32, {}), DType::kF32,
                                  DType::kF32));
  EXPECT_EQ(scaled.shape(), Shape(DType::kF32, {}));
  EXPECT_FALSE(ops::NormalOf(seed, DType::kF32, Leaf(DType::kF32, {2}),
                             Leaf(DType::kF32, {3}), Value(), DType::kF32,
                             DType::kF32)
                   .ok());
  EXPECT_EQ(Ok(ops::AnyNegativeStd(Leaf(DType::kF32, {4, 2}))).shape(),
            Shape(DType::kBool, {}));
}

}  // namespace
}  // namespace torch_xla
