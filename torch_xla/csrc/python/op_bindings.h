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

// The single-tensor bindings' element calls, shared with the _foreach_
// list bindings (foreach_bindings.cc), so that both convert arguments the
// same way. Each returns a new 'xla' tensor, or with `inplace` the first
// operand updated (Finish; `name` prefixes eager's errors when not empty).
// a op (b * alpha) (ops/arithmetic_ops.h; op an ArithmeticOp code; a and b
// tensors or numbers converted to `code`'s dtype and broadcast; alpha a
// number, None for 1): _arithmetic, _arithmetic_.
pybind11::object ArithmeticCall(int op, pybind11::handle a, pybind11::handle b,
                                int code, pybind11::handle alpha, bool inplace,
                                absl::string_view name);
// 1 / x in `code`'s dtype (ops/arithmetic_ops.h): _reciprocal; in place,
// x itself updated.
pybind11::object ReciprocalCall(pybind11::handle x, int code, bool inplace,
                                absl::string_view name);
// lerp in opmath, result in x's dtype (ops/optim_ops.h; weight a tensor or
// a number): _lerp.
pybind11::object LerpCall(pybind11::handle x, pybind11::handle end,
                          pybind11::handle weight, bool inplace,
                          absl::string_view name);
// addcmul / addcdiv (kind multiply / divide) in opmath, result in `code`'s
// dtype (ops/optim_ops.h; value None for 1): _addc.
pybind11::object AddcCall(int kind, pybind11::handle x, pybind11::handle t1,
                          pybind11::handle t2, pybind11::handle value,
                          int code, bool inplace, absl::string_view name);

void InitOpBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_OP_BINDINGS_H_
