#ifndef TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_
#define TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_

// The binding side of views (the semantics live in tensor/views.h and, per
// view op, tensor/view_ops.h): the _XLAC view functions: ViewInfo, refresh
// and commit, and one binding per view op (_view_op_*), each a single call
// into view_ops that the Python rules of torch_xla/_ops/views.py and
// storage_views.py make.

#include "pybind11/pybind11.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

void InitViewBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_VIEW_INFO_H_
