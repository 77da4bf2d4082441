// The elementwise core builders (torch_xla/csrc/ops: logical_ops,
// select_ops, division_ops, activation_ops, float_math_ops,
// arithmetic_ops' InPlaceResult)
// on their own: result dtypes and shapes, eager's broadcasting errors, the
// opmath rounding of half types, and bad codes. Values are checked against
// eager in test/python/ops/test_elementwise_builders.py.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ops/activation_ops.h"
#include "torch_xla/csrc/ops/arithmetic_ops.h"
#include "torch_xla/csrc/ops/division_ops.h"
#include "torch_xla/csrc/ops/float_math_ops.h"
#include "torch_xla/csrc/ops/logical_ops.h"
#include "torch_xla/csrc/ops/select_ops.h"
#include "test/cpp/ir_test_util.h"

namespace torch_xla {
namespace {

using testing::Leaf;
using testing::Ok;

TEST(ElementwiseOpsTest, LogicalOpsGiveBoolOfTheTruthValues) {
  Value out = Ok(ops::Logical(OpKind::kXor, Leaf(DType::kF32, {2, 3}),
                              Leaf(DType::kI64, {3})));
  EXPECT_EQ(out.shape(), Shape(DType::kBool, {2, 3}));
  EXPECT_EQ(out.node->kind(), OpKind::kXor);
  Value b = Leaf(DType::kBool, {3});
  EXPECT_EQ(Ok(ops::Truth(b)), b);  // a bool operand as it is
  EXPECT_EQ(Ok(ops::Truth(Leaf(DType::kI32, {3}))).node->kind(),
            OpKind::kCompare);
  EXPECT_EQ(Ok(ops::LogicalNot(Leaf(DType::kU8, {3}))).shape(),
            Shape(DType::kBool, {3}));
  EXPECT_FALSE(ops::Logical(OpKind::kAdd, b, b).ok());
  absl::StatusOr<Value> mismatch =
      ops::Logical(OpKind::kAnd, Leaf(DType::kBool, {3}),
                   Leaf(DType::kBool, {4}));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(GetEagerErrorClass(mismatch.status()),
            EagerErrorClass::kRuntimeError);
}

TEST(ElementwiseOpsTest, WhereAndClampBroadcastInTheResultDtype) {
  Value where = Ok(ops::Where(Leaf(DType::kU8, {4, 1}),
                              Leaf(DType::kF32, {3}), Leaf(DType::kF64, {}),
                              DType::kBF16));
  EXPECT_EQ(where.shape(), Shape(DType::kBF16, {4, 3}));
  EXPECT_EQ(where.node->kind(), OpKind::kSelect);
  Value clamp = Ok(ops::Clamp(Leaf(DType::kI32, {3}), Leaf(DType::kF32, {}),
                              Value(), DType::kF32));
  EXPECT_EQ(clamp.shape(), Shape(DType::kF32, {3}));
  EXPECT_EQ(clamp.node->kind(), OpKind::kMaximum);  // no upper bound
  Value both = Ok(ops::Clamp(Leaf(DType::kF32, {3}), Leaf(DType::kF32, {2, 1}),
                             Leaf(DType::kF32, {}), DType::kF32));
  EXPECT_EQ(both.shape(), Shape(DType::kF32, {2, 3}));
  EXPECT_EQ(both.node->kind(), OpKind::kMinimum);
  EXPECT_FALSE(ops::Where(Leaf(DType::kBool, {2}), Leaf(DType::kF32, {3}),
                          Leaf(DType::kF32, {3}), DType::kF32)
                   .ok());
}

TEST(ElementwiseOpsTest, IntegerDivisionByZeroIsSelectedAwayFloatsRoundOnce) {
  for (int code = 0; code < 4; ++code) {
    ops::DivisionOp op = Ok(ops::DivisionOpFromCode(code));
    Value ints = Ok(ops::Division(op, Leaf(DType::kI32, {3}),
                                  Leaf(DType::kI32, {3})));
    EXPECT_EQ(ints.shape(), Shape(DType::kI32, {3}));
    EXPECT_EQ(ints.node->kind(), OpKind::kSelect) << code;  // x op 0 -> 0
  }
  Value floor = Ok(ops::Division(ops::DivisionOp::kFloorDivide,
                                 Leaf(DType::kBF16, {3}),
                                 Leaf(DType::kBF16, {3})));
  EXPECT_EQ(floor.shape(), Shape(DType::kBF16, {3}));
  EXPECT_EQ(floor.node->kind(), OpKind::kConvert);  // computed in f32
  EXPECT_EQ(Ok(ops::Division(ops::DivisionOp::kFmod, Leaf(DType::kF32, {3}),
                             Leaf(DType::kF32, {3})))
                .node->kind(),
            OpKind::kRemainder);
  EXPECT_FALSE(ops::DivisionOpFromCode(4).ok());
}

TEST(ElementwiseOpsTest, ActivationsComputeHalfTypesInF32) {
  for (int code = 1; code <= 7; ++code) {
    Value out = Ok(ops::Activation(Ok(ops::ActivationOpFromCode(code)),
                                   Leaf(DType::kBF16, {2, 3})));
    EXPECT_EQ(out.shape(), Shape(DType::kBF16, {2, 3})) << code;
    EXPECT_EQ(out.node->kind(), OpKind::kConvert) << code;
  }
  Value relu = Ok(ops::Activation(ops::ActivationOp::kRelu,
                                  Leaf(DType::kI64, {3})));
  EXPECT_EQ(relu.node->kind(), OpKind::kMaximum);
  for (int code = 0; code <= 6; ++code) {
    Value grad = Ok(ops::ActivationBackward(
        Ok(ops::ActivationBackwardOpFromCode(code)), Leaf(DType::kF16, {2, 3}),
        Leaf(DType::kF16, {3})));
    EXPECT_EQ(grad.shape(), Shape(DType::kF16, {2, 3})) << code;
  }
  EXPECT_FALSE(ops::ActivationOpFromCode(8).ok());
  EXPECT_FALSE(ops::ActivationBackwardOpFromCode(7).ok());
}

TEST(ElementwiseOpsTest, ParameterizedActivationsCheckTheirParameters) {
  Value x = Leaf(DType::kBF16, {4});
  Value p = Leaf(DType::kF32, {});
  EXPECT_EQ(Ok(ops::ParamActivation(ops::ParamActivationOp::kElu, x,
                                    {p, p, p}))
                .shape(),
            Shape(DType::kBF16, {4}));
  EXPECT_EQ(Ok(ops::ParamActivationBackward(ops::ParamActivationOp::kHardtanh,
                                            x, x, {p, p}, false))
                .shape(),
            Shape(DType::kBF16, {4}));
  EXPECT_FALSE(
      ops::ParamActivation(ops::ParamActivationOp::kSoftplus, x, {p}).ok());
  EXPECT_FALSE(
      ops::ParamActivation(ops::ParamActivationOp::kHardtanh, x, {p, p}).ok());
  EXPECT_FALSE(ops::ParamActivationOpFromCode(5).ok());
}

TEST(ElementwiseOpsTest, ThresholdSelectsInTheValuesDtype) {
  Value out = Ok(ops::Threshold(Leaf(DType::kF32, {2, 3}),
                                Leaf(DType::kF32, {}), Leaf(DType::kBF16, {}),
                                Leaf(DType::kBF16, {3})));
  EXPECT_EQ(out.shape(), Shape(DType::kBF16, {2, 3}));
}

TEST(ElementwiseOpsTest, InPlaceResultKeepsTheTargetShape) {
  Value out = Ok(ops::InPlaceResult(Leaf(DType::kBool, {3}),
                                    Shape(DType::kF32, {3})));
  EXPECT_EQ(out.shape(), Shape(DType::kF32, {3}));
  absl::StatusOr<Value> grown =
      ops::InPlaceResult(Leaf(DType::kF32, {2, 3}), Shape(DType::kF32, {3}));
  ASSERT_FALSE(grown.ok());
  EXPECT_EQ(grown.status().message(),
            "output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_EQ(GetEagerErrorClass(grown.status()),
            EagerErrorClass::kRuntimeError);
}

TEST(ElementwiseOpsTest, InPlaceResultRefusesWhatTheTargetCannotHold) {
  // Eager's casting rule: bool < integer < floating; within a category
  // any width (f64 into f32, s64 into u8) rounds or wraps.
  EXPECT_EQ(Ok(ops::InPlaceResult(Leaf(DType::kF64, {2}),
                                  Shape(DType::kBF16, {2})))
                .shape(),
            Shape(DType::kBF16, {2}));
  EXPECT_EQ(Ok(ops::InPlaceResult(Leaf(DType::kI64, {2}),
                                  Shape(DType::kU8, {2})))
                .shape(),
            Shape(DType::kU8, {2}));
  struct Refused {
    DType out, x;
    const char* message;
  };
  for (const Refused& c : {
           Refused{DType::kF32, DType::kI64,
                   "result type Float can't be cast to the desired output "
                   "type Long"},
           Refused{DType::kI64, DType::kBool,
                   "result type Long can't be cast to the desired output "
                   "type Bool"},
           Refused{DType::kBF16, DType::kU8,
                   "result type BFloat16 can't be cast to the desired "
                   "output type Byte"},
       }) {
    absl::StatusOr<Value> out =
        ops::InPlaceResult(Leaf(c.out, {2}), Shape(c.x, {2}));
    ASSERT_FALSE(out.ok()) << c.message;
    EXPECT_EQ(out.status().message(), c.message);
    EXPECT_EQ(GetEagerErrorClass(out.status()),
              EagerErrorClass::kRuntimeError);
  }
}

TEST(ElementwiseOpsTest, FloatMathKeepsTheDtypeExceptItsTests) {
  using F = ops::FloatMathOp;
  for (F op : {F::kTrunc, F::kAtan, F::kLog2, F::kLog10, F::kRoundDecimals,
               F::kExp2}) {
    EXPECT_EQ(Ok(ops::FloatMath(op, {Leaf(DType::kBF16, {2, 3})}, 2)).shape(),
              Shape(DType::kBF16, {2, 3}));
  }
  for (DType dtype : {DType::kF32, DType::kF16, DType::kI64, DType::kU8,
                      DType::kBool}) {
    EXPECT_EQ(Ok(ops::FloatMath(F::kIsInf, {Leaf(dtype, {4})})).shape(),
              Shape(DType::kBool, {4}));
    EXPECT_EQ(Ok(ops::FloatMath(F::kSignbit, {Leaf(dtype, {4})})).shape(),
              Shape(DType::kBool, {4}));
  }
  EXPECT_EQ(Ok(ops::FloatMath(F::kHypot, {Leaf(DType::kF16, {3}),
                                          Leaf(DType::kF16, {3})}))
                .shape(),
            Shape(DType::kF16, {3}));
  // trunc of an integer is the input itself (the binding copies it).
  Value ints = Leaf(DType::kI32, {3});
  EXPECT_TRUE(Ok(ops::FloatMath(F::kTrunc, {ints})) == ints);
  EXPECT_FALSE(ops::FloatMathOpFromCode(10).ok());
  EXPECT_FALSE(ops::FloatMath(F::kHypot, {Leaf(DType::kF32, {3})}).ok());
}

}  // namespace
}  // namespace torch_xla
