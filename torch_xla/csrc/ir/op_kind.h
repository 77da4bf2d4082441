#ifndef TORCH_XLA_CSRC_IR_OP_KIND_H_
#define TORCH_XLA_CSRC_IR_OP_KIND_H_

// The primitive operations of the IR. Names are the StableHLO op names without
// the "stablehlo." prefix; every PyTorch op is composed from these in Python.
// Adding an op: a row here, then either one row in ir/elementwise_ops.cc
// (trivial elementwise ops: shape rule and lowering come from the row), or a
// shape rule (ir/*_shape_rules.cc) plus a lower rule (lowering/*_lowering.cc);
// then a case in the golden test (test/cpp/lowering_golden_test.cc).
// RuleTableTest (test/cpp/ir_test.cc) fails until both halves exist.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torch_xla {

// X(enumerator, name). Order is not part of any ABI: Python passes names.
#define TORCH_XLA_FOR_EACH_OP_KIND(X)                        \
  /* Leaves. */                                              \
  X(kDeviceData, "device_data")                              \
  X(kParameter, "parameter")                                 \
  X(kConstant, "constant")                                   \
  X(kIota, "iota")                                           \
  /* Elementwise unary. */                                   \
  X(kAbs, "abs")                                             \
  X(kNegate, "negate")                                       \
  X(kExponential, "exponential")                             \
  X(kExponentialMinusOne, "exponential_minus_one")           \
  X(kLog, "log")                                             \
  X(kLogPlusOne, "log_plus_one")                             \
  X(kSqrt, "sqrt")                                           \
  X(kRsqrt, "rsqrt")                                         \
  X(kCbrt, "cbrt")                                           \
  X(kSine, "sine")                                           \
  X(kCosine, "cosine")                                       \
  X(kTan, "tan")                                             \
  X(kTanh, "tanh")                                           \
  X(kLogistic, "logistic")                                   \
  X(kFloor, "floor")                                         \
  X(kCeil, "ceil")                                           \
  X(kRoundNearestEven, "round_nearest_even")                 \
  X(kSign, "sign")                                           \
  X(kNot, "not")                                             \
  X(kIsFinite, "is_finite")                                  \
  X(kErf, "erf")                                             \
  X(kAcos, "acos")                                           \
  X(kAcosh, "acosh")                                         \
  X(kAsin, "asin")                                           \
  X(kAsinh, "asinh")                                         \
  X(kAtanh, "atanh")                                         \
  X(kCosh, "cosh")                                           \
  X(kSinh, "sinh")                                           \
  /* Elementwise binary. */                                  \
  X(kAdd, "add")                                             \
  X(kSubtract, "subtract")                                   \
  X(kMultiply, "multiply")                                   \
  X(kDivide, "divide")                                       \
  X(kRemainder, "remainder")                                 \
  X(kPower, "power")                                         \
  X(kMaximum, "maximum")                                     \
  X(kMinimum, "minimum")                                     \
  X(kAtan2, "atan2")                                         \
  X(kAnd, "and")                                             \
  X(kOr, "or")                                               \
  X(kXor, "xor")                                             \
  X(kShiftLeft, "shift_left")                                \
  X(kShiftRightArithmetic, "shift_right_arithmetic")         \
  X(kShiftRightLogical, "shift_right_logical")               \
  /* Other elementwise. */                                   \
  X(kCompare, "compare")                                     \
  X(kSelect, "select")                                       \
  X(kClamp, "clamp")                                         \
  X(kConvert, "convert")                                     \
  X(kBitcastConvert, "bitcast_convert")                      \
  /* Shape manipulation. */                                  \
  X(kBroadcastInDim, "broadcast_in_dim")                     \
  X(kReshape, "reshape")                                     \
  X(kTranspose, "transpose")                                 \
  X(kReverse, "reverse")                                     \
  X(kSlice, "slice")                                         \
  X(kDynamicSlice, "dynamic_slice")                          \
  X(kDynamicUpdateSlice, "dynamic_update_slice")             \
  X(kConcatenate, "concatenate")                             \
  X(kPad, "pad")                                             \
  /* Contractions, reductions, indexing. */                  \
  X(kDotGeneral, "dot_general")                              \
  X(kReduce, "reduce")                                       \
  X(kGather, "gather")                                       \
  X(kScatter, "scatter")                                     \
  /* Sorting, convolution, windows. */                       \
  X(kSort, "sort")                                           \
  X(kConvolution, "convolution")                             \
  X(kReduceWindow, "reduce_window")                          \
  X(kSelectAndScatter, "select_and_scatter")                 \
  /* Random numbers. */                                      \
  X(kRngBitGenerator, "rng_bit_generator")                   \
  /* Control flow and scheduling. */                         \
  X(kWhile, "while")                                         \
  X(kOptimizationBarrier, "optimization_barrier")           \
  /* A call of a staged function (attr "fn": a sub-graph). */ \
  X(kCall, "call")                                           \
  /* SPMD: how a value is split over devices (attr "sharding"). */ \
  X(kSharding, "sharding")                                   \
  /* Collectives across replicas (ir/collective_shape_rules.cc). */ \
  X(kAllReduce, "all_reduce")                                \
  X(kAllGather, "all_gather")                                \
  X(kReduceScatter, "reduce_scatter")                        \
  X(kAllToAll, "all_to_all")                                 \
  X(kCollectivePermute, "collective_permute")

enum class OpKind : uint16_t {
#define TORCH_XLA_OP_KIND_ENUM(e, name) e,
  TORCH_XLA_FOR_EACH_OP_KIND(TORCH_XLA_OP_KIND_ENUM)
#undef TORCH_XLA_OP_KIND_ENUM
};

inline constexpr int kNumOpKinds = 0
#define TORCH_XLA_OP_KIND_COUNT(e, name) +1
    TORCH_XLA_FOR_EACH_OP_KIND(TORCH_XLA_OP_KIND_COUNT)
#undef TORCH_XLA_OP_KIND_COUNT
    ;

// "add", "dot_general", ... (the StableHLO name without its prefix).
absl::string_view OpKindName(OpKind kind);
// Inverse of OpKindName, for the Python bindings.
absl::StatusOr<OpKind> OpKindFromName(absl::string_view name);

inline int OpKindIndex(OpKind kind) { return static_cast<int>(kind); }

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_OP_KIND_H_
