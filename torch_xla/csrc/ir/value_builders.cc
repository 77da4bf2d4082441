#include "torch_xla/csrc/ir/value_builders.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

absl::StatusOr<Value> ValueOf(absl::StatusOr<NodePtr> node) {
  if (!node.ok()) return node.status();
  return Value(*std::move(node));
}

// `value` truncated toward zero into int64 without undefined behaviour.
int64_t SaturatingInt64(double value) {
  if (std::isnan(value)) return 0;
  if (value >= 9223372036854775808.0) return INT64_MAX;
  if (value < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(value);
}

}  // namespace

absl::StatusOr<Value> MakeReshape(Value x, const std::vector<int64_t>& dims) {
  if (x.shape().dims == dims) return x;
  return ValueOf(
      MakeNode(OpKind::kReshape, {std::move(x)}, Attrs().Set("dims", dims)));
}

absl::StatusOr<Value> MakeTranspose(Value x,
                                    const std::vector<int64_t>& permutation) {
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i) {
    identity = identity && permutation[i] == static_cast<int64_t>(i);
  }
  if (identity) return x;
  return ValueOf(MakeNode(OpKind::kTranspose, {std::move(x)},
                          Attrs().Set("permutation", permutation)));
}

absl::StatusOr<Value> MakeConvert(Value x, DType dtype) {
  if (x.shape().dtype == dtype) return x;
  return ValueOf(
      MakeNode(OpKind::kConvert, {std::move(x)}, Attrs().Set("dtype", dtype)));
}

absl::StatusOr<Value> MakeBroadcastTo(Value x,
                                      const std::vector<int64_t>& dims) {
  const Shape& shape = x.shape();
  if (shape.dims == dims) return x;
  if (shape.dims.size() > dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("broadcast_to: cannot broadcast ", shape.ToString(),
                     " to fewer dimensions [", absl::StrJoin(dims, ","), "]"));
  }
  for (int64_t d : dims) {
    if (d < 0) {
      // Eager's expand/broadcast_to raise RuntimeError for this.
      return EagerRuntimeError(absl::StrCat(
          "expand: cannot broadcast ", shape.ToString(), " to [",
          absl::StrJoin(dims, ","), "]: sizes must be >= 0"));
    }
  }
  const size_t offset = dims.size() - shape.dims.size();
  std::vector<int64_t> kept_dims, mapping;
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (shape.dims[i] == dims[offset + i]) {
      kept_dims.push_back(shape.dims[i]);
      mapping.push_back(static_cast<int64_t>(offset + i));
    }
  }
  // broadcast_in_dim maps dims one to one: drop the size-1 dims that grow.
  if (kept_dims.size() != shape.dims.size()) {
    TXLA_ASSIGN_OR_RETURN(x, MakeReshape(std::move(x), kept_dims));
  }
  return ValueOf(
      MakeNode(OpKind::kBroadcastInDim, {std::move(x)},
               Attrs().Set("dims", dims).Set("broadcast_dims", mapping)));
}

absl::StatusOr<Value> MakeLiteral(double value, DType dtype,
                                  const std::vector<int64_t>& dims) {
  Shape shape(dtype, dims);
  if (IsFloating(dtype)) return ValueOf(MakeConstant(value, shape));
  if (dtype == DType::kBool) return ValueOf(MakeBoolConstant(value != 0, shape));
  return ValueOf(MakeIntConstant(SaturatingInt64(value), shape));
}

absl::StatusOr<Value> MakeReduce(Value x, const std::vector<int64_t>& dims,
                                 const char* kind, bool keep_dims) {
  std::vector<int64_t> kept = x.shape().dims;
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(kept.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce ", kind, ": dimension ", d, " is out of range "
                       "for ", x.shape().ToString()));
    }
    kept[d] = 1;
  }
  TXLA_ASSIGN_OR_RETURN(
      Value out, ValueOf(MakeNode(OpKind::kReduce, {std::move(x)},
                                  Attrs().Set("dims", dims).Set("kind", kind))));
  if (!keep_dims) return out;
  return MakeReshape(std::move(out), kept);
}

absl::StatusOr<Value> MakeSliceDim(Value x, int64_t dim, int64_t start,
                                   int64_t end) {
  const int64_t rank = static_cast<int64_t>(x.shape().dims.size());
  if (dim < 0 || dim >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("slice: dimension ", dim, " is out of range for ",
                     x.shape().ToString()));
  }
  std::vector<int64_t> starts(rank, 0);
  std::vector<int64_t> limits = x.shape().dims;
  starts[dim] = start;
  limits[dim] = end;
  return ValueOf(MakeNode(OpKind::kSlice, {std::move(x)},
                          Attrs().Set("start", starts).Set("limit", limits)));
}

absl::StatusOr<Value> MakeUpdateSliceDim(Value base, Value update, int64_t dim,
                                         int64_t start) {
  const int64_t rank = static_cast<int64_t>(base.shape().dims.size());
  if (dim < 0 || dim >= rank ||
      update.shape().dims.size() != base.shape().dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "update_slice: cannot write ", update.shape().ToString(), " into ",
        base.shape().ToString(), " along dimension ", dim));
  }
  if (update.shape().dims[dim] == 0) return base;
  std::vector<Value> operands{std::move(base), std::move(update)};
  for (int64_t i = 0; i < rank; ++i) {
    TXLA_ASSIGN_OR_RETURN(
        Value index, ValueOf(MakeIntConstant(i == dim ? start : 0,
                                             Shape(DType::kI64, {}))));
    operands.push_back(std::move(index));
  }
  return ValueOf(MakeNode(OpKind::kDynamicUpdateSlice, std::move(operands)));
}

absl::StatusOr<std::vector<int64_t>> InferBroadcastDims(
    const std::vector<const Shape*>& shapes) {
  std::vector<const std::vector<int64_t>*> dims;
  for (const Shape* shape : shapes) dims.push_back(&shape->dims);
  return BroadcastDims(dims);
}

}  // namespace torch_xla
