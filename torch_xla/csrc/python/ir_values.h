#ifndef TORCH_XLA_CSRC_PYTHON_IR_VALUES_H_
#define TORCH_XLA_CSRC_PYTHON_IR_VALUES_H_

// IR builders for the C++ fast paths: the same nodes the Python rules build
// through torch_xla/_ir.py, so a graph hashes the same whichever path traced
// it. Failures throw (see status_conversion.h).

#include <cstdint>
#include <vector>

#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::python {

// Identity (the same value) when nothing changes, as in torch_xla/_ir.py.
Value Reshape(Value x, const std::vector<int64_t>& dims);
Value Transpose(Value x, const std::vector<int64_t>& permutation);
Value Convert(Value x, DType dtype);
Value BroadcastTo(Value x, const std::vector<int64_t>& dims);

Value Unary(OpKind kind, Value x);
Value Binary(OpKind kind, Value a, Value b);
// A literal of `dtype` splatted to `dims` (an integer value for integer
// types, a bool for bool), as torch_xla/_ir.py's constant builds it.
Value Literal(double value, DType dtype, const std::vector<int64_t>& dims);
// Reduction over `dims` (kind: sum, max, or, ...); with `keep_dims` the
// reduced dims stay as size 1.
Value Reduce(Value x, const std::vector<int64_t>& dims, const char* kind,
             bool keep_dims);

// x[..., start:end, ...] along `dim` (unit stride).
Value SliceDim(Value x, int64_t dim, int64_t start, int64_t end);
// `base` with that slice replaced by `update`.
Value UpdateSliceDim(Value base, Value update, int64_t dim, int64_t start);

// Eager's broadcasting of shapes, with eager's error text.
std::vector<int64_t> BroadcastShape(const std::vector<const Shape*>& shapes);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_IR_VALUES_H_
