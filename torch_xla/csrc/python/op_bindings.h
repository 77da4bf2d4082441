#ifndef TORCH_XLA_CSRC_PYTHON_OP_BINDINGS_H_
#define TORCH_XLA_CSRC_PYTHON_OP_BINDINGS_H_

// The Python rules' one call into an op's core builder (torch_xla/csrc/ops):
// _XLAC._mm, _sum, _softmax, ... take 'xla' torch tensors (or C++ handles)
// and the arguments the Python rule normalized, and return the op's result.
// The C++ fast rules call the same builders; so an op's IR is written once.
// Shared by op_bindings.cc (the bindings) and the fast rules.

#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

// A builder's result as a new tensor on `input`'s device. When the builder
// returned `input_value` itself (the op is the identity, e.g. a sum over no
// dims), the result is a clone of `input`: a new tensor, never an alias.
XlaTensorPtr ResultTensor(Value value, const XlaTensorPtr& input,
                          const Value& input_value);

void InitOpBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_OP_BINDINGS_H_
