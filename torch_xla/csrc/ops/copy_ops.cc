#include "torch_xla/csrc/ops/copy_ops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"

namespace torch_xla::ops {

absl::StatusOr<Value> CopyValue(Value src, const Shape& dst) {
  TXLA_ASSIGN_OR_RETURN(Value value, MakeConvert(std::move(src), dst.dtype));
  if (value.shape().dims == dst.dims) return value;
  TXLA_RETURN_IF_ERROR(CheckBroadcastsTo(value.shape().dims, dst.dims));
  return MakeBroadcastTo(std::move(value), dst.dims);
}

absl::StatusOr<Value> FillValue(Value value, const Shape& shape) {
  if (!value.shape().dims.empty()) {
    return EagerRuntimeError(absl::StrCat(
        "fill_ only supports 0-dimension value tensor but got tensor with ",
        value.shape().dims.size(), " dimensions."));
  }
  TXLA_ASSIGN_OR_RETURN(Value v, MakeConvert(std::move(value), shape.dtype));
  return MakeBroadcastTo(std::move(v), shape.dims);
}

}  // namespace torch_xla::ops
