#include "torch_xla/csrc/ops/reduction_ops.h"

#include <cmath>
#include <utility>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

// x reduced over `dims` with `kind`; x itself for no dims.
absl::StatusOr<Value> ReduceOrSelf(Value x, const std::vector<int64_t>& dims,
                                   const char* kind, bool keep_dims) {
  if (dims.empty()) return x;
  return MakeReduce(std::move(x), dims, kind, keep_dims);
}

}  // namespace

absl::StatusOr<Value> Sum(Value x, const std::vector<int64_t>& dims,
                          bool keep_dims, DType out) {
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), OpMathType(out)));
  TXLA_ASSIGN_OR_RETURN(Value total,
                        ReduceOrSelf(std::move(v), dims, "sum", keep_dims));
  return MakeConvert(std::move(total), out);
}

absl::StatusOr<Value> Mean(Value x, const std::vector<int64_t>& dims,
                           bool keep_dims, DType out) {
  const DType acc = OpMathType(out);
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape().dims[d];
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(x), acc));
  TXLA_ASSIGN_OR_RETURN(Value total,
                        ReduceOrSelf(std::move(v), dims, "sum", keep_dims));
  TXLA_ASSIGN_OR_RETURN(
      Value n, MakeLiteral(static_cast<double>(count), acc, total.shape().dims));
  TXLA_ASSIGN_OR_RETURN(NodePtr mean, MakeBinary(OpKind::kDivide,
                                                 std::move(total), std::move(n)));
  return MakeConvert(Value(std::move(mean)), out);
}

absl::StatusOr<Value> ReduceExtreme(Value x, const std::vector<int64_t>& dims,
                                    const char* kind, bool keep_dims) {
  TXLA_ASSIGN_OR_RETURN(Value out, ReduceOrSelf(x, dims, kind, keep_dims));
  if (!IsFloating(x.shape().dtype) || dims.empty()) return out;
  TXLA_ASSIGN_OR_RETURN(NodePtr is_nan, MakeCompare(x, x, "NE"));
  TXLA_ASSIGN_OR_RETURN(
      Value has_nan, MakeReduce(Value(std::move(is_nan)), dims, "or", keep_dims));
  TXLA_ASSIGN_OR_RETURN(
      Value nan, MakeLiteral(std::nan(""), out.shape().dtype, out.shape().dims));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr picked,
      MakeNode(OpKind::kSelect,
               {std::move(has_nan), std::move(nan), std::move(out)}));
  return Value(std::move(picked));
}

}  // namespace torch_xla::ops
