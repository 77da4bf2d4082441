// _XLAC bindings of the random, order-statistic and counting builders
// (ops/random_ops.h, order_ops.h, histogram_ops.h, distance_ops.h and
// select_ops.h's Heaviside): the Python rules' single call per op
// (torch_xla/_ops/random_ops.py, random_sampling.py, order_stats.py,
// histogram.py, distances.py, reductions.py's sort/topk, elementwise.py's
// heaviside). Each binding only converts arguments: the
// seed (a Python int drawn from PyTorch's generator becomes a fresh u64
// scalar parameter; a seed computed in a traced loop body comes as a C++
// handle), user numbers as scalar parameters (python/scalar_leaves.h),
// tensors through ToXlaTensor. It returns the result as 'xla' tensors, or
// with a `target` updates that tensor in place (op_bindings.h's Finish).

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/distance_ops.h"
#include "torch_xla/csrc/ops/histogram_ops.h"
#include "torch_xla/csrc/ops/loss_ops.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/order_ops.h"
#include "torch_xla/csrc/ops/random_ops.h"
#include "torch_xla/csrc/ops/select_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/device_checks.h"
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
      "_normal",
      [](py::handle seed, py::handle mean, py::handle std, int code,
         int mul_code, int add_code) {
        const DType dtype = ToDType(code);
        const DType add_type = ToDType(add_code);
        const bool std_is_number =
            std.is_none() || PyFloat_Check(std.ptr()) || PyLong_Check(std.ptr());
        XlaTensorPtr like = ToXlaTensor(std_is_number ? mean : std);
        const int device = like->device();
        Value std_value, std_number;
        if (std_is_number) {
          std_number = Param(std, ops::RandomComputeType(dtype));
        } else {
          std_value = ValueOf(like);
          // Eager's check that every std is >= 0 (NaN fails), device-side.
          ThrowIfError(AddDeviceCheck(
              ValueOrThrow(ops::AnyNegativeStd(std_value)), device,
              "normal expects all elements of std >= 0.0",
              CheckError::kRuntimeError));
        }
        Value mean_value = PyFloat_Check(mean.ptr()) || PyLong_Check(mean.ptr())
                               ? Param(mean, add_type)
                               : ValueOf(ToXlaTensor(mean));
        return Wrapped(ValueOrThrow(ops::NormalOf(
                           SeedValue(seed), dtype, std::move(mean_value),
                           std::move(std_value), std::move(std_number),
                           ToDType(mul_code), add_type)),
                       device);
      },
      py::arg("seed"), py::arg("mean"), py::arg("std"), py::arg("dtype"),
      py::arg("mul_dtype"), py::arg("add_dtype"),
      "torch.normal(mean, std) with a tensor mean or std (ops/random_ops.h "
      "NormalOf): a new tensor of `dtype`; std a tensor (registers eager's "
      "std >= 0 check, python/device_checks.h), a number or None for 1; "
      "mean a tensor or a number. `seed`: an int or a handle.");
  m.def(
      "_bernoulli",
      [](py::handle seed, py::handle p, int compute, py::handle target,
         std::vector<int64_t> dims, int dtype, int device,
         bool check_p) {
        Destination to = DestinationOf(target, dims, dtype, device);
        const DType cc = ToDType(compute);
        Value pv = PyFloat_Check(p.ptr()) || PyLong_Check(p.ptr())
                       ? ScalarLeafAtSite(p, cc)
                       : ValueOf(ToXlaTensor(p));
        if (check_p) {
          // Eager's check that every probability is in [0, 1] (NaN fails),
          // device-side; BCE's predicate.
          ThrowIfError(AddDeviceCheck(
              ValueOrThrow(ops::OutsideUnitInterval(pv)), to.device,
              "Expected p_in >= 0 && p_in <= 1 to be true, but got false.",
              CheckError::kRuntimeError));
        }
        Value value = ValueOrThrow(ops::Bernoulli(
            SeedValue(seed), to.shape.dims, to.shape.dtype,
            ValueOrThrow(MakeConvert(std::move(pv), cc))));
        return Deliver(std::move(value), target, to.device);
      },
      py::arg("seed"), py::arg("p"), py::arg("compute"), py::arg("target"),
      py::arg("dims") = std::vector<int64_t>{}, py::arg("dtype") = 0,
      py::arg("device") = 0, py::arg("check_p") = false,
      "u < p (ops/random_ops.h Bernoulli) compared in the float dtype "
      "`compute`; p a number or an 'xla' tensor broadcastable to the "
      "result. Into `target` or a new tensor, as _random. With `check_p` "
      "(a float tensor p) registers eager's [0, 1] check of p "
      "(python/device_checks.h).");
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
         bool replacement) {
        XlaTensorPtr t = ToXlaTensor(probs);
        Value p = ValueOf(t);
        auto checks = ValueOrThrow(
            ops::MultinomialChecks(p, replacement && num_samples > 1));
        for (auto& [bad, message] : checks) {
          ThrowIfError(AddDeviceCheck(bad, t->device(), std::move(message),
                                      CheckError::kRuntimeError));
        }
        return Wrapped(ValueOrThrow(ops::Multinomial(
                           SeedValue(seed), p, num_samples, replacement)),
                       t->device());
      },
      py::arg("probs"), py::arg("seed"), py::arg("num_samples"),
      py::arg("replacement"),
      "aten.multinomial (ops/random_ops.h) -> indices; registers eager's "
      "device-side checks of the weights (python/device_checks.h).");
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
        if (kind == "nanmedian") {
          return Pair(ValueOrThrow(ops::NanMedian(v, dim, keepdim)), t, v);
        }
        if (kind != "median") {
          ThrowStatus(absl::InvalidArgumentError(
              "kind must be 'kthvalue', 'median' or 'nanmedian', got '" +
              kind + "'"));
        }
        return Pair(ValueOrThrow(ops::Median(v, dim, keepdim)), t, v);
      },
      py::arg("kind"), py::arg("x"), py::arg("k"), py::arg("dim"),
      py::arg("keepdim"),
      "(values, indices) of kthvalue (the k-th smallest), median or "
      "nanmedian along the canonical dim (ops/order_ops.h).");
}

// The row-major pairs i < j of n rows as two s64 [n (n - 1) / 2] host
// tables (parameters sent when a graph runs), kept for the last few n.
std::pair<Value, Value> PairTables(int64_t n) {
  static auto* cache = new std::map<int64_t, std::pair<NodePtr, NodePtr>>();
  auto it = cache->find(n);
  if (it != cache->end()) return {Value(it->second.first),
                                  Value(it->second.second)};
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      rows.push_back(i);
      cols.push_back(j);
    }
  }
  auto table = [](const std::vector<int64_t>& v) {
    std::vector<uint8_t> bytes(v.size() * sizeof(int64_t));
    if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
    return MakeDataNode(std::make_shared<HostData>(
        Shape(DType::kI64, {static_cast<int64_t>(v.size())}),
        std::move(bytes)));
  };
  if (cache->size() >= 8) cache->clear();
  auto& entry = (*cache)[n] = {table(rows), table(cols)};
  return {Value(entry.first), Value(entry.second)};
}

void InitCountingBindings(py::module_& m) {
  m.def(
      "_histc",
      [](py::handle x, int64_t bins, py::handle low, py::handle high,
         bool exact) {
        XlaTensorPtr t = ToXlaTensor(x);
        const DType dtype = t->shape().dtype;
        ops::HistcBounds bounds;
        bounds.exact = exact;
        if (!low.is_none()) {
          const DType type =
              exact ? DType::kI64
                    : ops::OpMathType(IsFloating(dtype) ? dtype
                                                        : DType::kF64);
          bounds.low = ScalarLeafAtSite(low, type);
          bounds.high = ScalarLeafAtSite(high, type);
          py::object span = high.attr("__sub__")(low);
          bounds.span = ScalarLeafAtSite(span, type);
        }
        ops::HistcResult r =
            ValueOrThrow(ops::Histc(ValueOf(t), bins, bounds));
        if (r.bad_range) {
          ThrowIfError(AddDeviceCheck(
              r.bad_range, t->device(),
              "torch.histc: range of [min, max] of the data is not finite",
              CheckError::kRuntimeError));
        }
        return Wrapped(std::move(r.counts), t->device());
      },
      py::arg("x"), py::arg("bins"), py::arg("low"), py::arg("high"),
      py::arg("exact"),
      "torch.histc (ops/histogram_ops.h): low and high numbers (ints with "
      "`exact`), or None for the data's range (its finiteness a device-side "
      "check, python/device_checks.h).");
  m.def(
      "_pdist",
      [](py::handle x, double p) {
        XlaTensorPtr t = ToXlaTensor(x);
        const int64_t n = t->shape().rank() ? t->shape().dims[0] : 0;
        auto [rows, cols] = PairTables(n);
        return Wrapped(ValueOrThrow(ops::Pdist(ValueOf(t), p, rows, cols)),
                       t->device());
      },
      py::arg("x"), py::arg("p"),
      "aten._pdist_forward (ops/distance_ops.h): x [n, m] -> [n (n-1) / 2].");
  m.def(
      "_pdist_backward",
      [](py::handle grad, py::handle x, double p, py::handle pdist) {
        XlaTensorPtr t = ToXlaTensor(x);
        const int64_t n = t->shape().rank() ? t->shape().dims[0] : 0;
        auto [rows, cols] = PairTables(n);
        return Wrapped(
            ValueOrThrow(ops::PdistBackward(
                ValueOf(ToXlaTensor(grad)), ValueOf(t), p,
                ValueOf(ToXlaTensor(pdist)), rows, cols)),
            t->device());
      },
      py::arg("grad"), py::arg("x"), py::arg("p"), py::arg("pdist"),
      "aten._pdist_backward (ops/distance_ops.h): the gradient for x.");
  m.def(
      "_heaviside",
      [](py::handle x, py::handle values, bool inplace) {
        return Finish(ValueOrThrow(ops::Heaviside(
                          ValueOf(ToXlaTensor(x)),
                          ValueOf(ToXlaTensor(values)))),
                      x, inplace);
      },
      py::arg("x"), py::arg("values"), py::arg("inplace") = false,
      "heaviside(x, values) of one dtype (ops/select_ops.h); with `inplace` "
      "x updated to it.");
}

}  // namespace

void InitSamplingBindings(py::module_& m) {
  InitRandomBindings(m);
  InitOrderBindings(m);
  InitCountingBindings(m);
}

}  // namespace torch_xla::python
