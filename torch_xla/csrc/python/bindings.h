#ifndef TORCH_XLA_CSRC_PYTHON_BINDINGS_H_
#define TORCH_XLA_CSRC_PYTHON_BINDINGS_H_

// Each Init*Bindings adds one concept's functions to the _XLAC module.

#include "pybind11/pybind11.h"

namespace torch_xla::python {

void InitRuntimeBindings(pybind11::module_& m);
void InitMetricsBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_BINDINGS_H_
