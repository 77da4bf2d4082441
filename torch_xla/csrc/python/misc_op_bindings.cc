// _XLAC bindings of the builders behind the rules that no family binding
// file holds (embedding_renorm_, ...): each is the Python rule's single
// call into C++, converting arguments, calling the builder
// (torch_xla/csrc/ops) and returning the wrapped result or committing the
// in-place one. See op_bindings.h for the conventions.

#include <cmath>
#include <utility>

#include "pybind11/stl.h"
#include "torch_xla/csrc/ops/embedding_ops.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/nn_op_bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {

void InitMiscOpBindings(py::module_& m) {
  m.def(
      "_embedding_renorm_",
      [](py::handle weight, py::handle indices, double max_norm,
         double norm_type) {
        Operand w = Read(weight);
        const DType acc = ops::OpMathType(w.value.shape().dtype);
        Value p, inv_p;
        if (!std::isinf(norm_type) && norm_type != 0 && norm_type != 1 &&
            norm_type != 2) {
          p = ScalarLeafAtSite(py::float_(norm_type), acc);
          inv_p = ScalarLeafAtSite(py::float_(1.0 / norm_type), acc);
        }
        Value limit = ScalarLeafAtSite(py::float_(max_norm), acc);
        return Finish(ValueOrThrow(ops::EmbeddingRenorm(
                          w.value, Read(indices).value, norm_type,
                          std::move(limit), std::move(p), std::move(inv_p))),
                      weight, /*inplace=*/true, "embedding_renorm_");
      },
      py::arg("weight"), py::arg("indices"), py::arg("max_norm"),
      py::arg("norm_type"),
      "aten.embedding_renorm_ (ops/embedding_ops.h): the rows `indices` "
      "name whose `norm_type`-norm exceeds max_norm scaled to it, committed "
      "into weight; returns weight.");
}

}  // namespace torch_xla::python
