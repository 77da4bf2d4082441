// The core op builders (torch_xla/csrc/ops) on their own, without Python:
// the dtype each returns, their errors for bad shapes (the text the Python
// rules raise), and the identity cases the bindings turn into clones.
// Values are checked against eager PyTorch in test/python
// (test_fast_rules.py and the ops tests), through both callers.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ops/arithmetic_ops.h"
#include "torch_xla/csrc/ops/batch_norm_ops.h"
#include "torch_xla/csrc/ops/index_ops.h"
#include "torch_xla/csrc/ops/linalg_ops.h"
#include "torch_xla/csrc/ops/loss_ops.h"
#include "torch_xla/csrc/ops/nn_ops.h"
#include "torch_xla/csrc/ops/norm_ops.h"
#include "torch_xla/csrc/ops/optim_ops.h"
#include "torch_xla/csrc/ops/reduction_ops.h"
#include "torch_xla/csrc/ops/softmax_ops.h"
#include "test/cpp/ir_test_util.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Ok;

TEST(OpsTest, HalfProductsAccumulateInF32AndRoundOnce) {
  Value a = Leaf(DType::kBF16, {2, 3}), b = Leaf(DType::kBF16, {3, 4});
  Value product = Ok(ops::Mm(a, b));
  EXPECT_EQ(product.shape(), Shape(DType::kBF16, {2, 4}));
  EXPECT_EQ(product.node->kind(), OpKind::kConvert);
  Value acc = Ok(ops::Dot(a, b, {{1}, {0}, {}, {}}, /*accumulate=*/true));
  EXPECT_EQ(acc.shape(), Shape(DType::kF32, {2, 4}));
  EXPECT_EQ(Ok(ops::Mm(Leaf(DType::kF32, {2, 3}), Leaf(DType::kF32, {3, 4})))
                .node->kind(),
            OpKind::kDotGeneral);  // no rounding step for f32
}

TEST(OpsTest, MismatchedProductIsAnError) {
  EXPECT_FALSE(
      ops::Bmm(Leaf(DType::kF32, {2, 3, 4}), Leaf(DType::kF32, {2, 5, 4}))
          .ok());
}

TEST(OpsTest, BoolProductIsLogicalAnd) {
  Value out = Ok(ops::Arithmetic(ops::ArithmeticOp::kMultiply,
                                 Leaf(DType::kBool, {3}),
                                 Leaf(DType::kBool, {3})));
  EXPECT_EQ(out.node->kind(), OpKind::kAnd);
  EXPECT_EQ(out.shape().dtype, DType::kBool);
  EXPECT_FALSE(ops::ArithmeticOpFromCode(4).ok());
}

TEST(OpsTest, InPlaceResultKeepsShapeAndRoundsToTargetDtype) {
  Value out = Ok(ops::ArithmeticInPlace(ops::ArithmeticOp::kAdd,
                                        Leaf(DType::kF32, {3, 4}),
                                        Leaf(DType::kF32, {3, 4}),
                                        Shape(DType::kBF16, {3, 4})));
  EXPECT_EQ(out.shape(), Shape(DType::kBF16, {3, 4}));
  absl::StatusOr<Value> grown = ops::ArithmeticInPlace(
      ops::ArithmeticOp::kAdd, Leaf(DType::kF32, {3, 4}),
      Leaf(DType::kF32, {3, 4}), Shape(DType::kF32, {4}));
  ASSERT_FALSE(grown.ok());
  EXPECT_EQ(grown.status().message(),
            "output with shape [4] doesn't match the broadcast shape [3, 4]");
}

TEST(OpsTest, ReductionsAccumulateInF32AndReduceNothingForNoDims) {
  Value x = Leaf(DType::kBF16, {2, 3});
  Value mean = Ok(ops::Mean(x, {1}, /*keep_dims=*/true, DType::kBF16));
  EXPECT_EQ(mean.shape(), Shape(DType::kBF16, {2, 1}));
  Value f32 = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::Sum(f32, {}, false, DType::kF32)), f32);  // the input
  EXPECT_EQ(Ok(ops::ReduceExtreme(f32, {}, "max", false)), f32);
  // Integers have no NaN to propagate: the reduce alone.
  EXPECT_EQ(
      Ok(ops::ReduceExtreme(Leaf(DType::kI32, {4}), {0}, "max", false))
          .node->kind(),
      OpKind::kReduce);
}

TEST(OpsTest, SoftmaxComputesHalfTypesInF32) {
  Value y = Ok(ops::Softmax(Leaf(DType::kF16, {2, 5}), {1}, DType::kF16));
  EXPECT_EQ(y.shape(), Shape(DType::kF16, {2, 5}));
  Value f32 = Ok(ops::LogSoftmax(Leaf(DType::kF16, {2, 5}), {1}, DType::kF32));
  EXPECT_EQ(f32.shape(), Shape(DType::kF32, {2, 5}));  // half_to_float
}

TEST(OpsTest, SliceBackwardPadsIntoZerosAndRejectsAWrongGrad) {
  Value grad = Leaf(DType::kF32, {3, 3});
  EXPECT_EQ(Ok(ops::SliceBackward(grad, {6, 3}, 0, 1, 6, 2)).shape(),
            Shape(DType::kF32, {6, 3}));
  Value empty = Ok(ops::SliceBackward(Leaf(DType::kF32, {0, 3}), {4, 3}, 0, 2,
                                      2, 1));
  EXPECT_EQ(empty.shape(), Shape(DType::kF32, {4, 3}));
  absl::StatusOr<Value> wrong = ops::SliceBackward(grad, {6, 3}, 0, 0, 6, 1);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(std::string(wrong.status().message()).find("0:6:1"),
            std::string::npos)
      << wrong.status();
}

TEST(OpsTest, MaskedFillBroadcastsAndConvertsTheFill) {
  Value out = Ok(ops::MaskedFill(Leaf(DType::kBF16, {2, 1}),
                                 Leaf(DType::kBool, {4}),
                                 Leaf(DType::kF64, {})));
  EXPECT_EQ(out.shape(), Shape(DType::kBF16, {2, 4}));
  EXPECT_FALSE(ops::MaskedFill(Leaf(DType::kF32, {3}), Leaf(DType::kBool, {4}),
                               Leaf(DType::kF32, {}))
                   .ok());
}

TEST(OpsTest, OptimizerUpdatesRoundOnceToTheResultDtype) {
  Value x = Leaf(DType::kBF16, {3}), end = Leaf(DType::kBF16, {3});
  Value w = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::Lerp(x, end, w, 0.9, DType::kBF16)).shape(),
            Shape(DType::kBF16, {3}));
  EXPECT_EQ(Ok(ops::Lerp(x, end, Leaf(DType::kBF16, {3}), std::nullopt,
                         DType::kBF16))
                .node->kind(),
            OpKind::kConvert);
  EXPECT_EQ(Ok(ops::Addc(OpKind::kDivide, x, end, Leaf(DType::kBF16, {2, 3}),
                         Value(), DType::kBF16))
                .shape(),
            Shape(DType::kBF16, {2, 3}));
}

TEST(OpsTest, NllLossReducesToScalarsInTheInputDtype) {
  Value x = Leaf(DType::kBF16, {4, 5}), target = Leaf(DType::kI64, {4});
  Value ignore = Leaf(DType::kI64, {});
  ops::NllLossResult mean = Ok(ops::NllLoss(x, target, Value(),
                                            ops::Reduction::kMean, ignore));
  EXPECT_EQ(mean.loss.shape(), Shape(DType::kBF16, {}));
  EXPECT_EQ(mean.total_weight.shape(), Shape(DType::kBF16, {}));
  ops::NllLossResult none = Ok(ops::NllLoss(
      x, target, Leaf(DType::kF32, {5}), ops::Reduction::kNone, ignore));
  EXPECT_EQ(none.loss.shape(), Shape(DType::kBF16, {4}));
  Value grad = Ok(ops::NllLossBackward(Leaf(DType::kBF16, {}), x, target,
                                       Value(), ops::Reduction::kMean, ignore,
                                       mean.total_weight));
  EXPECT_EQ(grad.shape(), Shape(DType::kBF16, {4, 5}));
  // A target of the wrong shape, a weight not of [C], a bad reduction.
  EXPECT_FALSE(ops::NllLoss(x, Leaf(DType::kI64, {5}), Value(),
                            ops::Reduction::kSum, ignore)
                   .ok());
  EXPECT_FALSE(ops::NllLoss(x, target, Leaf(DType::kF32, {4}),
                            ops::Reduction::kSum, ignore)
                   .ok());
  EXPECT_FALSE(ops::ReductionFromCode(3).ok());
}

TEST(OpsTest, MseLossBroadcastsAndRoundsOnce) {
  Value out = Ok(ops::MseLoss(Leaf(DType::kF16, {3, 1}), Leaf(DType::kF16, {4}),
                              ops::Reduction::kNone));
  EXPECT_EQ(out.shape(), Shape(DType::kF16, {3, 4}));
  EXPECT_EQ(out.node->kind(), OpKind::kConvert);
  Value grad = Ok(ops::MseLossBackward(Leaf(DType::kF32, {}),
                                       Leaf(DType::kF32, {3, 4}),
                                       Leaf(DType::kF32, {3, 4}),
                                       ops::Reduction::kMean));
  EXPECT_EQ(grad.shape(), Shape(DType::kF32, {3, 4}));
}

TEST(OpsTest, LayerNormKeepsStatisticsAndGivesOnlyTheAskedGradients) {
  Value x = Leaf(DType::kBF16, {2, 3, 8});
  std::array<Value, 3> out =
      Ok(ops::LayerNorm(x, 2, Leaf(DType::kBF16, {8}), Value(),
                        Leaf(DType::kF32, {})));
  EXPECT_EQ(out[0].shape(), Shape(DType::kBF16, {2, 3, 8}));
  EXPECT_EQ(out[1].shape(), Shape(DType::kBF16, {2, 3, 1}));
  EXPECT_EQ(out[2].shape(), Shape(DType::kBF16, {2, 3, 1}));
  std::array<Value, 3> grads = Ok(ops::LayerNormBackward(
      x, x, 2, out[1], out[2], Leaf(DType::kF32, {8}), Value(),
      {false, true, true}));
  EXPECT_FALSE(grads[0]);
  EXPECT_EQ(grads[1].shape(), Shape(DType::kF32, {8}));
  EXPECT_FALSE(grads[2]);  // no bias
  EXPECT_FALSE(ops::LayerNorm(x, 4, Value(), Value(), Leaf(DType::kF32, {}))
                   .ok());
}

TEST(OpsTest, EmbeddingGathersRowsAndItsGradientScattersThem) {
  Value table = Leaf(DType::kF32, {10, 4});
  EXPECT_EQ(Ok(ops::Embedding(table, Leaf(DType::kI32, {2, 3}))).shape(),
            Shape(DType::kF32, {2, 3, 4}));
  EXPECT_FALSE(ops::Embedding(Leaf(DType::kF32, {10}), Leaf(DType::kI64, {2}))
                   .ok());
  Value grad = Ok(ops::EmbeddingBackward(Leaf(DType::kF32, {2, 3, 4}),
                                         Leaf(DType::kI64, {2, 3}), 10,
                                         Leaf(DType::kI64, {}), true));
  EXPECT_EQ(grad.shape(), Shape(DType::kF32, {10, 4}));
  EXPECT_EQ(grad.node->kind(), OpKind::kScatter);
  EXPECT_FALSE(ops::EmbeddingBackward(Leaf(DType::kF32, {2, 4}),
                                      Leaf(DType::kI64, {3}), 10, Value(),
                                      false)
                   .ok());
}

TEST(OpsTest, IndexOutOfRangeIsOnePredicate) {
  Value bad = Ok(ops::IndexOutOfRange(Leaf(DType::kI32, {3, 2}), 0, 5, -100));
  EXPECT_EQ(bad.shape(), Shape(DType::kBool, {}));
  EXPECT_EQ(bad.node->kind(), OpKind::kReduce);
  EXPECT_EQ(Ok(ops::IndexOutOfRange(Leaf(DType::kI64, {}), -5, 5,
                                    std::nullopt))
                .node->kind(),
            OpKind::kOr);
}

TEST(OpsTest, ExtremeAndIndexGivesValuesAndS64FirstIndices) {
  auto both = Ok(ops::ExtremeAndIndex(Leaf(DType::kBF16, {3, 4}), 1, "max",
                                      /*keep_dims=*/false));
  EXPECT_EQ(both.first.shape(), Shape(DType::kBF16, {3}));
  EXPECT_EQ(both.second.shape(), Shape(DType::kI64, {3}));
  Value scalar = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::ExtremeAndIndex(scalar, 0, "min", false)).first, scalar);
  EXPECT_FALSE(
      ops::ExtremeAndIndex(Leaf(DType::kF32, {0, 2}), 0, "max", false).ok());
  EXPECT_EQ(Ok(ops::ArgExtreme(Leaf(DType::kI32, {2, 3}), std::nullopt, "max",
                               /*keep_dims=*/true))
                .shape(),
            Shape(DType::kI64, {1, 1}));
}

TEST(OpsTest, VarMeanAnyAllProdAndLogSumExpKeepEagerDtypes) {
  Value x = Leaf(DType::kF16, {4, 6});
  auto vm = Ok(ops::VarMean(x, {1}, Leaf(DType::kF32, {}), true, true));
  EXPECT_EQ(vm.first.shape(), Shape(DType::kF16, {4, 1}));
  EXPECT_EQ(vm.first.node->kind(), OpKind::kSqrt);
  EXPECT_EQ(vm.second.shape(), Shape(DType::kF16, {4, 1}));
  EXPECT_EQ(Ok(ops::AnyAll(Leaf(DType::kU8, {4, 6}), {0}, "or", false))
                .shape(),
            Shape(DType::kU8, {6}));
  Value flags = Leaf(DType::kBool, {3});
  EXPECT_EQ(Ok(ops::AnyAll(flags, {}, "and", false)), flags);
  EXPECT_EQ(Ok(ops::Prod(Leaf(DType::kI32, {4}), {0}, false, DType::kI64))
                .shape(),
            Shape(DType::kI64, {}));
  EXPECT_EQ(Ok(ops::LogSumExp(x, {0, 1}, false, DType::kF16)).shape(),
            Shape(DType::kF16, {}));
}

TEST(OpsTest, AdvancedIndexPlacesTheBatchDimsAsNumpy) {
  Value x = Leaf(DType::kF32, {4, 5, 6});
  Value rows = Leaf(DType::kI64, {2, 3}), cols = Leaf(DType::kI32, {3});
  EXPECT_EQ(Ok(ops::AdvancedIndex(x, {rows})).shape(),
            Shape(DType::kF32, {2, 3, 5, 6}));
  // Adjacent indexed dims stay in place; apart, the batch goes in front.
  EXPECT_EQ(Ok(ops::AdvancedIndex(x, {Value(), rows, cols})).shape(),
            Shape(DType::kF32, {4, 2, 3}));
  EXPECT_EQ(Ok(ops::AdvancedIndex(x, {cols, Value(), cols})).shape(),
            Shape(DType::kF32, {3, 5}));
  EXPECT_FALSE(ops::AdvancedIndex(x, {Leaf(DType::kI64, {2}),
                                      Leaf(DType::kI64, {3})})
                   .ok());  // indices that do not broadcast
  EXPECT_FALSE(ops::AdvancedIndex(x, {Value()}).ok());
}

TEST(OpsTest, PointwiseLossesReduceAndRoundOnce) {
  Value x = Leaf(DType::kBF16, {3, 4}), t = Leaf(DType::kBF16, {4});
  Value param = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::SmoothL1Loss(x, t, ops::Reduction::kMean, param)).shape(),
            Shape(DType::kBF16, {}));
  EXPECT_EQ(Ok(ops::SmoothL1Loss(x, t, ops::Reduction::kNone, Value()))
                .shape(),
            Shape(DType::kBF16, {3, 4}));  // beta 0: |d|
  EXPECT_EQ(Ok(ops::HuberLossBackward(Leaf(DType::kBF16, {}), x, t,
                                      ops::Reduction::kSum, param))
                .shape(),
            Shape(DType::kBF16, {3, 4}));
  EXPECT_EQ(Ok(ops::BinaryCrossEntropyWithLogits(
                   x, x, Value(), Leaf(DType::kBF16, {4}),
                   ops::Reduction::kNone))
                .node->kind(),
            OpKind::kConvert);
  EXPECT_EQ(Ok(ops::BinaryCrossEntropyBackward(Leaf(DType::kF32, {}),
                                               Leaf(DType::kF32, {3, 4}),
                                               Leaf(DType::kF32, {3, 4}),
                                               Value(), ops::Reduction::kMean))
                .shape(),
            Shape(DType::kF32, {3, 4}));
  EXPECT_FALSE(ops::BinaryCrossEntropy(x, Leaf(DType::kBF16, {5}), Value(),
                                       ops::Reduction::kSum)
                   .ok());  // shapes that do not broadcast
}

TEST(OpsTest, RmsNormGivesRstdAndOnlyTheAskedGradients) {
  Value x = Leaf(DType::kF16, {2, 8});
  std::array<Value, 2> out =
      Ok(ops::RmsNorm(x, 1, Value(), Leaf(DType::kF32, {})));
  EXPECT_EQ(out[0].shape(), Shape(DType::kF16, {2, 8}));
  EXPECT_EQ(out[1].shape(), Shape(DType::kF16, {2, 1}));
  std::array<Value, 2> grads = Ok(ops::RmsNormBackward(
      x, x, 1, out[1], Leaf(DType::kF16, {8}), {true, false}));
  EXPECT_EQ(grads[0].shape(), Shape(DType::kF16, {2, 8}));
  EXPECT_FALSE(grads[1]);
}

TEST(OpsTest, GroupNormStatisticsArePerGroup) {
  Value x = Leaf(DType::kBF16, {2, 6, 5});
  const ops::GroupDims dims{2, 6, 5, 3};
  std::array<Value, 3> out = Ok(ops::GroupNorm(
      x, Leaf(DType::kBF16, {6}), Value(), dims, Leaf(DType::kF32, {})));
  EXPECT_EQ(out[0].shape(), Shape(DType::kBF16, {2, 6, 5}));
  EXPECT_EQ(out[1].shape(), Shape(DType::kBF16, {2, 3}));
  std::array<Value, 3> grads = Ok(ops::GroupNormBackward(
      x, x, out[1], out[2], Value(), dims, {true, true, false}));
  EXPECT_EQ(grads[1].shape(), Shape(DType::kBF16, {6}));
  EXPECT_FALSE(grads[2]);
  EXPECT_FALSE(ops::GroupNorm(x, Value(), Value(), {2, 6, 5, 4},
                              Leaf(DType::kF32, {}))
                   .ok());  // 6 channels in 4 groups
}

TEST(OpsTest, BatchNormUpdatesOnlyTheRunningStatisticsItIsGiven) {
  Value x = Leaf(DType::kF16, {4, 3, 5});
  Value scalar = Leaf(DType::kF32, {});
  ops::BatchNormResult train = Ok(ops::BatchNorm(
      x, Value(), Value(), Leaf(DType::kF32, {3}), Value(), true, scalar,
      scalar, scalar, DType::kF32));
  EXPECT_EQ(train.out.shape(), Shape(DType::kF16, {4, 3, 5}));
  EXPECT_EQ(train.save_mean.shape(), Shape(DType::kF32, {3}));
  EXPECT_EQ(train.new_mean.shape(), Shape(DType::kF32, {3}));
  EXPECT_FALSE(train.new_var);
  ops::BatchNormResult eval = Ok(ops::BatchNorm(
      x, Value(), Value(), Leaf(DType::kF16, {3}), Leaf(DType::kF16, {3}),
      false, Value(), Value(), scalar, DType::kF16));
  EXPECT_EQ(eval.save_invstd.shape(), Shape(DType::kF16, {0}));
  EXPECT_FALSE(eval.new_mean);
  EXPECT_FALSE(ops::BatchNorm(x, Value(), Value(), Value(), Value(), false,
                              Value(), Value(), scalar, DType::kF16)
                   .ok());  // evaluation needs running statistics
  std::array<Value, 3> grads = Ok(ops::BatchNormBackward(
      x, x, Leaf(DType::kF32, {3}), Value(), Value(), train.save_mean,
      train.save_invstd, true, Value(), {true, true, true}));
  EXPECT_EQ(grads[0].shape(), Shape(DType::kF16, {4, 3, 5}));
  EXPECT_EQ(grads[2].shape(), Shape(DType::kF32, {3}));  // weight's dtype
}

TEST(OpsTest, AdvancedIndexPutScattersIntoXAndChecksTheValuesShape) {
  Value x = Leaf(DType::kF32, {4, 5});
  Value idx = Leaf(DType::kI64, {3});
  EXPECT_EQ(Ok(ops::AdvancedIndexPut(x, {idx}, Leaf(DType::kF32, {5}), false))
                .node->kind(),
            OpKind::kScatter);
  Value flags = Leaf(DType::kBool, {4});
  EXPECT_EQ(Ok(ops::AdvancedIndexPut(flags, {idx}, Leaf(DType::kBool, {}),
                                     true))
                .shape(),
            Shape(DType::kBool, {4}));  // or-accumulated through int8
  absl::StatusOr<Value> wrong =
      ops::AdvancedIndexPut(x, {idx}, Leaf(DType::kF32, {2, 5}), false);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "shape mismatch: value tensor of shape [2, 5] cannot be broadcast "
            "to indexing result of shape [3, 5]");
}

TEST(OpsTest, SafeSoftmaxSelectsZeroForMaskedRows) {
  Value y = Ok(ops::SafeSoftmax(Leaf(DType::kBF16, {2, 5}), {1}, DType::kF32));
  EXPECT_EQ(y.shape(), Shape(DType::kF32, {2, 5}));
  EXPECT_EQ(y.node->kind(), OpKind::kSelect);
}

TEST(OpsTest, FoldCheckKeepsTheFirstFailedCheck) {
  Value bad = Leaf(DType::kBool, {});
  Value code = Ok(ops::FoldCheck(Value(), bad, 1));
  EXPECT_EQ(code.shape(), Shape(DType::kI32, {}));
  EXPECT_EQ(Ok(ops::FoldCheck(code, bad, 2)).node->kind(), OpKind::kSelect);
  EXPECT_FALSE(ops::FoldCheck(code, Leaf(DType::kBool, {2}), 3).ok());
}

TEST(OpsTest, VectorNormNeedsPForAGeneralOrder) {
  Value x = Leaf(DType::kBF16, {3, 4});
  EXPECT_EQ(Ok(ops::VectorNorm(x, 2, {1}, false, DType::kBF16, Value(),
                               Value()))
                .shape(),
            Shape(DType::kBF16, {3}));
  Value p = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::VectorNorm(x, 3, {0, 1}, true, DType::kF32, p, p))
                .shape(),
            Shape(DType::kF32, {1, 1}));
  EXPECT_FALSE(
      ops::VectorNorm(x, 3, {0}, false, DType::kF32, Value(), Value()).ok());
}

}  // namespace
}  // namespace torch_xla
