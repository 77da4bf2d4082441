// _XLAC bindings of the pooling builders (torch_xla/csrc/ops/
// pooling_ops.h): max, average, adaptive average and adaptive max pooling
// and their backwards, the Python rules' single call per op
// (torch_xla/_ops/pooling.py). The rules check the arguments with eager's
// errors and pass the window geometry (one entry per spatial dim); these
// only convert arguments and wrap the results, a tuple for (values,
// indices). See nn_op_bindings.h.

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "pybind11/stl.h"
#include "torch_xla/csrc/ops/pooling_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/nn_op_bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

using Dims = std::vector<int64_t>;

py::tuple Pair(std::array<Value, 2> r, int device) {
  return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                        WrapOrNone(std::move(r[1]), device));
}

}  // namespace

void InitPoolingBindings(py::module_& m) {
  m.def(
      "_max_pool",
      [](py::handle x, Dims kernel, Dims stride, Dims pad_lo, Dims pad_hi,
         Dims dilation) {
        Operand in = Read(x);
        return Pair(ValueOrThrow(ops::MaxPool(
                        in.value, {std::move(kernel), std::move(stride),
                                   std::move(pad_lo), std::move(pad_hi),
                                   std::move(dilation)})),
                    in.tensor->device());
      },
      py::arg("x"), py::arg("kernel"), py::arg("stride"), py::arg("pad_lo"),
      py::arg("pad_hi"), py::arg("dilation"),
      "aten.max_pool{2,3}d_with_indices over the trailing len(kernel) dims "
      "(ops/pooling_ops.h) -> (values, indices).");
  m.def(
      "_max_pool_backward",
      [](py::handle grad, py::handle x, py::handle indices, Dims kernel,
         Dims stride, Dims pad_lo, Dims pad_hi, Dims dilation) {
        Operand g = Read(grad);
        return WrapOrNone(
            ValueOrThrow(ops::MaxPoolBackward(
                g.value, Read(x).value, Read(indices).value,
                {std::move(kernel), std::move(stride), std::move(pad_lo),
                 std::move(pad_hi), std::move(dilation)})),
            g.tensor->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("indices"), py::arg("kernel"),
      py::arg("stride"), py::arg("pad_lo"), py::arg("pad_hi"),
      py::arg("dilation"),
      "aten.max_pool{2,3}d_with_indices_backward (ops/pooling_ops.h).");
  m.def(
      "_adaptive_max_pool_backward",
      [](py::handle grad, py::handle x, py::handle indices, int64_t nsp) {
        Operand g = Read(grad);
        return WrapOrNone(
            ValueOrThrow(ops::ScatterToIndices(g.value, Read(x).value,
                                               Read(indices).value, nsp)),
            g.tensor->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("indices"), py::arg("nsp"),
      "aten.adaptive_max_pool{2,3}d_backward over `nsp` spatial dims: grad "
      "added at the saved indices (ops/pooling_ops.h).");
  m.def(
      "_avg_pool",
      [](py::handle x, Dims kernel, Dims stride, Dims pad_lo, Dims pad_hi,
         bool count_include_pad, std::optional<int64_t> divisor_override) {
        Operand in = Read(x);
        Dims ones(kernel.size(), 1);
        return WrapOrNone(
            ValueOrThrow(ops::AvgPool(
                in.value,
                {std::move(kernel), std::move(stride), std::move(pad_lo),
                 std::move(pad_hi), std::move(ones)},
                count_include_pad, divisor_override)),
            in.tensor->device());
      },
      py::arg("x"), py::arg("kernel"), py::arg("stride"), py::arg("pad_lo"),
      py::arg("pad_hi"), py::arg("count_include_pad"),
      py::arg("divisor_override"),
      "aten.avg_pool{2,3}d over the trailing len(kernel) dims "
      "(ops/pooling_ops.h); divisor_override an int (not 0) or None.");
  m.def(
      "_avg_pool_backward",
      [](py::handle grad, py::handle x, Dims kernel, Dims stride, Dims pad_lo,
         Dims pad_hi, bool count_include_pad,
         std::optional<int64_t> divisor_override) {
        Operand g = Read(grad);
        Dims ones(kernel.size(), 1);
        return WrapOrNone(
            ValueOrThrow(ops::AvgPoolBackward(
                g.value, Read(x).value,
                {std::move(kernel), std::move(stride), std::move(pad_lo),
                 std::move(pad_hi), std::move(ones)},
                count_include_pad, divisor_override)),
            g.tensor->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("kernel"), py::arg("stride"),
      py::arg("pad_lo"), py::arg("pad_hi"), py::arg("count_include_pad"),
      py::arg("divisor_override"),
      "aten.avg_pool{2,3}d_backward (ops/pooling_ops.h).");
  m.def(
      "_adaptive_avg_pool",
      [](py::handle x, const Dims& out) {
        Operand in = Read(x);
        return WrapOrNone(ValueOrThrow(ops::AdaptiveAvgPool(in.value, out)),
                          in.tensor->device());
      },
      py::arg("x"), py::arg("output_size"),
      "aten._adaptive_avg_pool{2,3}d to `output_size` (ops/pooling_ops.h).");
  m.def(
      "_adaptive_avg_pool_backward",
      [](py::handle grad, py::handle x, int64_t nsp) {
        Operand g = Read(grad);
        return WrapOrNone(ValueOrThrow(ops::AdaptiveAvgPoolBackward(
                              g.value, Read(x).value, nsp)),
                          g.tensor->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("nsp"),
      "aten._adaptive_avg_pool{2,3}d_backward over `nsp` spatial dims "
      "(ops/pooling_ops.h).");
  m.def(
      "_adaptive_max_pool",
      [](py::handle x, const Dims& out) {
        Operand in = Read(x);
        return Pair(ValueOrThrow(ops::AdaptiveMaxPool(in.value, out)),
                    in.tensor->device());
      },
      py::arg("x"), py::arg("output_size"),
      "aten.adaptive_max_pool{2,3}d to `output_size` (ops/pooling_ops.h) "
      "-> (values, indices).");
}

}  // namespace torch_xla::python
