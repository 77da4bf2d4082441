#ifndef TORCH_XLA_CSRC_PYTHON_IR_VALUES_H_
#define TORCH_XLA_CSRC_PYTHON_IR_VALUES_H_

// Raising forms of the core's value builders (ir/value_builders.h) for the
// binding code that builds IR while it holds Python objects (the fast rules):
// a failure becomes a Python exception through status_conversion.h. New code
// calls the StatusOr builders and converts once at the boundary.

#include <cstdint>
#include <utility>
#include <vector>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/python/status_conversion.h"

namespace torch_xla::python {

inline Value Reshape(Value x, const std::vector<int64_t>& dims) {
  return ValueOrThrow(MakeReshape(std::move(x), dims));
}
inline Value Transpose(Value x, const std::vector<int64_t>& permutation) {
  return ValueOrThrow(MakeTranspose(std::move(x), permutation));
}
inline Value Convert(Value x, DType dtype) {
  return ValueOrThrow(MakeConvert(std::move(x), dtype));
}
inline Value BroadcastTo(Value x, const std::vector<int64_t>& dims) {
  return ValueOrThrow(MakeBroadcastTo(std::move(x), dims));
}
inline Value Unary(OpKind kind, Value x) {
  return Value(ValueOrThrow(MakeUnary(kind, std::move(x))));
}
inline Value Binary(OpKind kind, Value a, Value b) {
  return Value(ValueOrThrow(MakeBinary(kind, std::move(a), std::move(b))));
}
inline Value Literal(double value, DType dtype,
                     const std::vector<int64_t>& dims) {
  return ValueOrThrow(MakeLiteral(value, dtype, dims));
}
inline Value Reduce(Value x, const std::vector<int64_t>& dims,
                    const char* kind, bool keep_dims) {
  return ValueOrThrow(MakeReduce(std::move(x), dims, kind, keep_dims));
}
inline Value SliceDim(Value x, int64_t dim, int64_t start, int64_t end) {
  return ValueOrThrow(MakeSliceDim(std::move(x), dim, start, end));
}
inline Value UpdateSliceDim(Value base, Value update, int64_t dim,
                            int64_t start) {
  return ValueOrThrow(
      MakeUpdateSliceDim(std::move(base), std::move(update), dim, start));
}
inline std::vector<int64_t> BroadcastShape(
    const std::vector<const Shape*>& shapes) {
  return ValueOrThrow(InferBroadcastDims(shapes));
}

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_IR_VALUES_H_
