#include "torch_xla/csrc/python/ir_values.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/python/status_conversion.h"

namespace torch_xla::python {

Value Reshape(Value x, const std::vector<int64_t>& dims) {
  if (x.shape().dims == dims) return x;
  return Value(ValueOrThrow(
      MakeNode(OpKind::kReshape, {std::move(x)}, Attrs().Set("dims", dims))));
}

Value Transpose(Value x, const std::vector<int64_t>& permutation) {
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i) {
    identity = identity && permutation[i] == static_cast<int64_t>(i);
  }
  if (identity) return x;
  return Value(ValueOrThrow(MakeNode(OpKind::kTranspose, {std::move(x)},
                                     Attrs().Set("permutation", permutation))));
}

Value Convert(Value x, DType dtype) {
  if (x.shape().dtype == dtype) return x;
  return Value(ValueOrThrow(
      MakeNode(OpKind::kConvert, {std::move(x)}, Attrs().Set("dtype", dtype))));
}

Value BroadcastTo(Value x, const std::vector<int64_t>& dims) {
  const Shape& shape = x.shape();
  if (shape.dims == dims) return x;
  const size_t offset = dims.size() - shape.dims.size();
  std::vector<int64_t> kept_dims, mapping;
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (shape.dims[i] == dims[offset + i]) {
      kept_dims.push_back(shape.dims[i]);
      mapping.push_back(static_cast<int64_t>(offset + i));
    }
  }
  // broadcast_in_dim maps dims one to one: drop the size-1 dims that grow.
  if (kept_dims.size() != shape.dims.size())
    x = Reshape(std::move(x), kept_dims);
  return Value(ValueOrThrow(
      MakeNode(OpKind::kBroadcastInDim, {std::move(x)},
               Attrs().Set("dims", dims).Set("broadcast_dims", mapping))));
}

Value Unary(OpKind kind, Value x) {
  return Value(ValueOrThrow(MakeNode(kind, {std::move(x)})));
}

Value Binary(OpKind kind, Value a, Value b) {
  return Value(ValueOrThrow(MakeNode(kind, {std::move(a), std::move(b)})));
}

Value Literal(double value, DType dtype, const std::vector<int64_t>& dims) {
  Shape shape(dtype, dims);
  switch (dtype) {
    case DType::kF32:
    case DType::kF64:
    case DType::kBF16:
    case DType::kF16:
      return Value(ValueOrThrow(MakeConstant(value, shape)));
    case DType::kBool:
      return Value(ValueOrThrow(MakeBoolConstant(value != 0, shape)));
    default:
      return Value(
          ValueOrThrow(MakeIntConstant(static_cast<int64_t>(value), shape)));
  }
}

Value Reduce(Value x, const std::vector<int64_t>& dims, const char* kind,
             bool keep_dims) {
  std::vector<int64_t> kept = x.shape().dims;
  for (int64_t d : dims) kept[d] = 1;
  Value out(
      ValueOrThrow(MakeNode(OpKind::kReduce, {std::move(x)},
                            Attrs().Set("dims", dims).Set("kind", kind))));
  return keep_dims ? Reshape(std::move(out), kept) : out;
}

Value SliceDim(Value x, int64_t dim, int64_t start, int64_t end) {
  std::vector<int64_t> starts(x.shape().dims.size(), 0);
  std::vector<int64_t> limits = x.shape().dims;
  starts[dim] = start;
  limits[dim] = end;
  return Value(ValueOrThrow(
      MakeNode(OpKind::kSlice, {std::move(x)},
               Attrs().Set("start", starts).Set("limit", limits))));
}

Value UpdateSliceDim(Value base, Value update, int64_t dim, int64_t start) {
  if (update.shape().dims[dim] == 0) return base;
  std::vector<Value> operands{std::move(base), std::move(update)};
  const size_t rank = operands[0].shape().dims.size();
  for (size_t i = 0; i < rank; ++i) {
    operands.push_back(Value(ValueOrThrow(MakeIntConstant(
        static_cast<int64_t>(i) == dim ? start : 0, Shape(DType::kI64, {})))));
  }
  return Value(
      ValueOrThrow(MakeNode(OpKind::kDynamicUpdateSlice, std::move(operands))));
}

std::vector<int64_t> BroadcastShape(const std::vector<const Shape*>& shapes) {
  std::vector<const std::vector<int64_t>*> dims;
  for (const Shape* shape : shapes) dims.push_back(&shape->dims);
  return ValueOrThrow(BroadcastDims(dims));
}

}  // namespace torch_xla::python
