// _XLAC bindings of the random and order-statistic builders
// (ops/random_ops.h, ops/order_ops.h): the Python rules' single call per op
// (torch_xla/_ops/random_ops.py, random_sampling.py, order_stats.py and
// reductions.py's sort/topk). Each binding only converts arguments: the
// seed (a Python int drawn from PyTorch's generator becomes a fresh u64
// scalar parameter; a seed computed in a traced loop body comes as a C++
// handle), user numbers as scalar parameters (python/scalar_leaves.h),
// tensors through ToXlaTensor. It returns the result as 'xla' tensors, or
// with a `target` updates that tensor in place (op_bindings.h's Finish).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/order_ops.h"
#include "torch_xla/csrc/ops/random_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/device_data.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// A seed as a u64 0-d value: a fresh parameter for a Python int (never
// shared: every seed is new), the value of a handle otherwise.
Value SeedValue(py::handle seed) {
  if (PyLong_Check(seed.ptr())) {
    return Value(
        MakeDataNode(MakeHostScalarInt(seed.cast<int64_t>(), DType::kU64)));
  }
  return ValueOf(ToXlaTensor(seed));
}

// A user number as a scalar parameter of `dtype`; null for None.
Value Param(py::handle number, DType dtype) {
  if (number.is_none()) return Value();
  return ScalarLeafAtSite(number, dtype);
}

// Where a draw goes: into `target` (an 'xla' tensor, updated in place), or
// a new tensor of `dims` and `dtype` on `device` when target is None.
struct Destination {
  Shape shape;
  int device = 0;
};

Destination DestinationOf(py::handle target, const std::vector<int64_t>& dims,
                          int dtype, int device) {
  if (target.is_none()) return {Shape(ToDType(dtype), dims), device};
  XlaTensorPtr t = ToXlaTensor(target);
  return {t->shape(), t->device()};
}

py::object Deliver(Value value, py::handle target, int device) {
  if (target.is_none()) return Wrapped(std::move(value), device);
  return Finish(std::move(value), target, /*inplace=*/true);
}

py::tuple Pair(std::pair<Value, Value> values, const XlaTensorPtr& input,
               const Value& input_value) {
  return py::make_tuple(
      WrapTensor(ResultTensor(std::move(values.first), input, input_value)),
      Wrapped(std::move(values.second), input->device()));
}

void InitRandomBindings(py::module_& m) {
  m.def(
      "_random",
      [](const std::string& kind, py::handle seed, py::handle a, py::handle b,
         py::handle target, std::vector<int64_t> dims, int dtype,
         int device) {
        const ops::Distribution distribution =
            ValueOrThrow(ops::DistributionFromName(kind));
        Destination to = DestinationOf(target, dims, dtype, device);
        const DType cc = ops::RandomComputeType(to.shape.dtype);
        Value value = ValueOrThrow(ops::Draw(distribution, SeedValue(seed),
                                             to.shape, Param(a, cc),
                                             Param(b, cc)));
        return Deliver(std::move(value), target, to.device);
      },
      py::arg("kind"), py::arg("seed"), py::arg("a"), py::arg("b"),
      py::arg("target"), py::arg("dims") = std::vector<int64_t>{},
      py::arg("dtype") = 0, py::arg("device") = 0,
      "A continuous draw (ops/random_ops.h Draw: kind uniform, normal, "
      "exponential, log_normal, cauchy or geometric, numbers a and b or "
      "None) into the 'xla' tensor `target`, or a new tensor of dims and "
      "dtype on device when target is None. `seed`: an int or a handle.");
  m.def(
      "_bernoulli",
      [](py::handle seed, py::handle p, int compute, py::handle target,
         std::vector<int64_t> dims, int dtype, int device) {
        Destination to = DestinationOf(target, dims, dtype, device);
        const DType cc = ToDType(compute);
        Value pv = PyFloat_Check(p.ptr()) || PyLong_Check(p.ptr())
                       ? ScalarLeafAtSite(p, cc)
                       : ValueOf(ToXlaTensor(p));
        Value value = ValueOrThrow(ops::Bernoulli(
            SeedValue(seed), to.shape.dims, to.shape.dtype,
            ValueOrThrow(MakeConvert(std::move(pv), cc))));
        return Deliver(std::move(value), target, to.device);
      },
      py::arg("seed"), py::arg("p"), py::arg("compute"), py::arg("target"),
      py::arg("dims") = std::vector<int64_t>{}, py::arg("dtype") = 0,
      py::arg("device") = 0,
      "u < p (ops/random_ops.h Bernoulli) compared in the float dtype "
      "`compute`; p a number or an 'xla' tensor broadcastable to the "
      "result. Into `target` or a new tensor, as _random.");
  m.def(
      "_random_integer",
      [](py::handle seed, py::handle span, py::handle start,
         py::handle target, std::vector<int64_t> dims, int dtype,
         int device) {
        Destination to = DestinationOf(target, dims, dtype, device);
        Value value = ValueOrThrow(ops::RandomInteger(
            SeedValue(seed), to.shape, Param(span, DType::kU64),
            Param(start, DType::kI64)));
        return Deliver(std::move(value), target, to.device);
      },
      py::arg("seed"), py::arg("span"), py::arg("start"), py::arg("target"),
      py::arg("dims") = std::vector<int64_t>{}, py::arg("dtype") = 0,
      py::arg("device") = 0,
      "Integers in [start, start + span) (ops/random_ops.h RandomInteger; "
      "span an int64 holding the u64 span, None for 2^64) into `target` or "
      "a new tensor, as _random.");
  m.def(
      "_dropout",
      [](py::handle x, py::handle seed, double keep, double scale) {
        XlaTensorPtr t = ToXlaTensor(x);
        const DType dtype = t->shape().dtype;
        auto r = ValueOrThrow(ops::Dropout(
            SeedValue(seed), ValueOf(t),
            ScalarLeafAtSite(py::float_(keep), ops::RandomComputeType(dtype)),
            ScalarLeafAtSite(py::float_(scale), dtype)));
        return py::make_tuple(Wrapped(std::move(r.first), t->device()),
                              Wrapped(std::move(r.second), t->device()));
      },
      py::arg("x"), py::arg("seed"), py::arg("keep"), py::arg("scale"),
      "aten.native_dropout in training (ops/random_ops.h Dropout) -> "
      "(x * mask * scale, mask).");
  m.def(
      "_dropout_backward",
      [](py::handle grad, py::handle mask, double scale) {
        XlaTensorPtr g = ToXlaTensor(grad);
        return Wrapped(
            ValueOrThrow(ops::DropoutBackward(
                ValueOf(g), ValueOf(ToXlaTensor(mask)),
                ScalarLeafAtSite(py::float_(scale), g->shape().dtype))),
            g->device());
      },
      py::arg("grad"), py::arg("mask"), py::arg("scale"),
      "aten.native_dropout_backward (ops/random_ops.h DropoutBackward).");
  m.def(
      "_randperm",
      [](int64_t n, py::handle seed, py::handle out, int dtype, int device) {
        Destination to = DestinationOf(out, {n}, dtype, device);
        Value value = ValueOrThrow(
            ops::Randperm(SeedValue(seed), n, to.shape.dtype));
        return Deliver(std::move(value), out, to.device);
      },
      py::arg("n"), py::arg("seed"), py::arg("out"), py::arg("dtype") = 0,
      py::arg("device") = 0,
      "A random permutation of range(n) (ops/random_ops.h Randperm) written "
      "into the 'xla' tensor `out`, or for None a new tensor of dtype on "
      "device.");
  m.def(
      "_multinomial",
      [](py::handle probs, py::handle seed, int64_t num_samples,
         bool replacement, bool checked) {
        XlaTensorPtr t = ToXlaTensor(probs);
        Value p = ValueOf(t);
        py::list checks;
        if (checked && !p.node->reads_placeholder()) {
          auto found = ValueOrThrow(ops::MultinomialChecks(
              p, replacement && num_samples > 1));
          for (auto& [bad, message] : found) {
            checks.append(py::make_tuple(
                XlaTensor::FromIr(std::move(bad), t->device()), message));
          }
        }
        Value index = ValueOrThrow(
            ops::Multinomial(SeedValue(seed), p, num_samples, replacement));
        return py::make_tuple(Wrapped(std::move(index), t->device()), checks);
      },
      py::arg("probs"), py::arg("seed"), py::arg("num_samples"),
      py::arg("replacement"), py::arg("checked") = true,
      "aten.multinomial (ops/random_ops.h) -> (indices, [(bad, message)]): "
      "the device-side checks of the weights (pred handles, none for a "
      "traced body) for torch_xla/_device_checks.py.");
}

void InitOrderBindings(py::module_& m) {
  m.def(
      "_sort",
      [](py::handle x, int64_t dim, int64_t k, bool descending) {
        XlaTensorPtr t = ToXlaTensor(x);
        Value v = ValueOf(t);
        return Pair(ValueOrThrow(ops::SortFirst(v, dim, k, descending)), t, v);
      },
      py::arg("x"), py::arg("dim"), py::arg("k"), py::arg("descending"),
      "(values, indices) of the first k of x sorted along the canonical dim "
      "(ops/order_ops.h SortFirst): sort with k = the dim's size, topk.");
  m.def(
      "_order_statistic",
      [](const std::string& kind, py::handle x, int64_t k, int64_t dim,
         bool keepdim) {
        XlaTensorPtr t = ToXlaTensor(x);
        Value v = ValueOf(t);
        if (kind == "kthvalue") {
          return Pair(ValueOrThrow(ops::KthValue(v, k, dim, keepdim)), t, v);
        }
        if (kind != "median") {
          ThrowStatus(absl::InvalidArgumentError(
              "kind must be 'kthvalue' or 'median', got '" + kind + "'"));
        }
        return Pair(ValueOrThrow(ops::Median(v, dim, keepdim)), t, v);
      },
      py::arg("kind"), py::arg("x"), py::arg("k"), py::arg("dim"),
      py::arg("keepdim"),
      "(values, indices) of kthvalue (the k-th smallest) or median along "
      "the canonical dim (ops/order_ops.h).");
}

}  // namespace

void InitSamplingBindings(py::module_& m) {
  InitRandomBindings(m);
  InitOrderBindings(m);
}

}  // namespace torch_xla::python
