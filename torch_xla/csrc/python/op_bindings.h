#ifndef TORCH_XLA_CSRC_PYTHON_OP_BINDINGS_H_
#define TORCH_XLA_CSRC_PYTHON_OP_BINDINGS_H_

// The Python rules' one call into an op's core builder (torch_xla/csrc/ops):
// _XLAC._mm, _sum, _softmax, ... take 'xla' torch tensors (or C++ handles)
// and the arguments the Python rule normalized, and return the op's result.
// The C++ fast rules call the same builders; so an op's IR is written once.
// Shared by op_bindings.cc (the bindings) and the fast rules.

#include "absl/strings/string_view.h"
#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

// A builder's result as a new tensor on `input`'s device. When the builder
// returned `input_value` itself (the op is the identity, e.g. a sum over no
// dims), the result is a clone of `input`: a new tensor, never an alias.
XlaTensorPtr ResultTensor(Value value, const XlaTensorPtr& input,
                          const Value& input_value);

// The current IR value of an 'xla' tensor (views re-derived first).
Value ValueOf(const XlaTensorPtr& tensor);

// The tensor an in-place op updates: an 'xla' torch tensor (TypeError
// otherwise).
TorchTensor InPlaceTarget(pybind11::handle object);

// `value` as a new 'xla' torch tensor on `device`.
pybind11::object Wrapped(Value value, int device);

// The result of an op on `x`: a new 'xla' tensor, or with `inplace` x
// itself updated to it (ops::InPlaceResult: rounded to x's dtype; a result
// of another shape is eager's RuntimeError, prefixed with "`name`: " when
// `name` is not empty) and written back through views. Returns x then.
pybind11::object Finish(Value out, pybind11::handle x, bool inplace,
                        absl::string_view name = "");

// An operand that may be a number: an 'xla' tensor's value, or a Python
// number (or a cpu 0-d tensor's) as a scalar parameter of `dtype`
// (python/scalar_leaves.h). With `checked`, a number `dtype` cannot hold
// raises eager's RuntimeError instead of wrapping.
Value OperandValue(pybind11::handle object, DType dtype, bool checked = false);

void InitOpBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_OP_BINDINGS_H_
