#ifndef TORCH_XLA_CSRC_PYTHON_NN_OP_BINDINGS_H_
#define TORCH_XLA_CSRC_PYTHON_NN_OP_BINDINGS_H_

// Argument conversions shared by the nn op bindings (nn_op_bindings.cc:
// losses, indexing, reductions; norm_op_bindings.cc: the norms): the
// Python rules' single call per op into a core builder (torch_xla/csrc/
// ops). See op_bindings.h.

#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

// A tensor argument's current value (and its handle, for the device).
struct Operand {
  XlaTensorPtr tensor;
  Value value;
};

Operand Read(pybind11::handle object);

// An optional tensor argument: a null Value for None.
Value OptionalValue(pybind11::handle object);

// An 'xla' tensor for `value` on `device`; None for a null Value.
pybind11::object WrapOrNone(Value value, int device);

// A Python number (eps, beta, momentum) as a scalar parameter of x's
// opmath type; a null Value for None.
Value OpMathScalar(pybind11::handle number, const Operand& x);

// norm_op_bindings.cc: layer, RMS, group and batch norm.
void InitNormOpBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_NN_OP_BINDINGS_H_
