// _XLAC bindings of the indexing builders (ops/index_ops.h: embedding,
// x[idx], x[idx] = v; ops/scatter_ops.h: gather, the scatters,
// index_select/copy/add/fill, take/put, x[mask] = v, masked_scatter): the
// Python rules' single call per op (embedding.py, advanced_indexing.py,
// gather_scatter.py, index_along_dim.py, masked_ops.py). Each binding
// converts arguments (a cpu index uploaded in the same call), registers the
// device-side check of an index computed on the device (`check`: None, or
// the (low, size, exempt, message, error) tuple that
// torch_xla/_ops/index_util.py makes; python/device_checks.h), calls the
// builder and returns the result: a new 'xla' tensor, or with `inplace` x
// itself updated (op_bindings.h Finish). Eager's argument errors are the
// rules'; these raise only for what a builder refuses.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ops/index_ops.h"
#include "torch_xla/csrc/ops/index_reduce_ops.h"
#include "torch_xla/csrc/ops/scatter_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/device_checks.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/nn_op_bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// A cpu index tensor (its values checked on the host by the rule) as a
// value on `device`: its bytes uploaded in the op's call (HostBytesTensor,
// as every upload).
Value HostIndex(py::handle index, int device) {
  py::object host = index.attr("contiguous")();
  DType dtype;
  if (!ReadDType(host.attr("dtype").ptr(), &dtype)) {
    ThrowStatus(absl::InvalidArgumentError("index: unsupported dtype"));
  }
  XlaTensorPtr tensor = HostBytesTensor(
      host.attr("data_ptr")().cast<uintptr_t>(),
      host.attr("shape").cast<std::vector<int64_t>>(), dtype, device);
  return ValueOrThrow(tensor->GetIrValue());
}

// An op's index on x's `device`: an 'xla' tensor with its device-side
// check (or None) registered, or a cpu tensor uploaded (HostIndex).
Value CheckedIndex(py::handle index, py::handle check, int device) {
  TorchTensor tensor;
  if (!ReadTorchTensor(index.ptr(), &tensor) &&
      !py::isinstance<XlaTensor>(index) && py::hasattr(index, "data_ptr")) {
    return HostIndex(index, device);
  }
  Operand in = Read(index);
  CheckIndex(in.value, in.tensor->device(), check);
  return in.value;
}

// The result of an op on x (read as `in`): a new tensor (a clone where the
// builder returned x's value), or x updated with `inplace`.
py::object Done(Value out, const Operand& in, py::handle x, bool inplace,
                const char* name) {
  if (inplace) return Finish(std::move(out), x, true, name);
  return WrapTensor(ResultTensor(std::move(out), in.tensor, in.value));
}

void InitEmbeddingBindings(py::module_& m) {
  m.def(
      "_embedding",
      [](py::handle weight, py::handle indices, py::handle check) {
        Operand w = Read(weight);
        Value idx = CheckedIndex(indices, check, w.tensor->device());
        return WrapOrNone(ValueOrThrow(ops::Embedding(w.value, idx)),
                          w.tensor->device());
      },
      py::arg("weight"), py::arg("indices"), py::arg("check") = py::none(),
      "weight[indices], one gather of rows (ops/index_ops.h); check: the "
      "indices' device-side check or None.");
  m.def(
      "_embedding_backward",
      [](py::handle grad, py::handle indices, int64_t num_weights,
         py::handle padding_idx, bool scale_grad_by_freq) {
        Operand g = Read(grad);
        Value pad = padding_idx.is_none()
                        ? Value()
                        : ScalarLeafAtSite(padding_idx, DType::kI64);
        return WrapOrNone(ValueOrThrow(ops::EmbeddingBackward(
                              g.value, Read(indices).value, num_weights,
                              std::move(pad), scale_grad_by_freq)),
                          g.tensor->device());
      },
      py::arg("grad"), py::arg("indices"), py::arg("num_weights"),
      py::arg("padding_idx"), py::arg("scale_grad_by_freq"),
      "aten.embedding_dense_backward, one scatter-add of rows (ops/"
      "index_ops.h); padding_idx an int or None.");
}

// The index tensors of x[indices] (None for ':'), each with its check.
std::vector<Value> CheckedIndices(const std::vector<py::handle>& indices,
                                  const std::vector<py::handle>& checks,
                                  int device) {
  if (!checks.empty() && checks.size() != indices.size()) {
    ThrowStatus(absl::InvalidArgumentError(
        "index: one check (or None) per index is needed"));
  }
  std::vector<Value> values;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i].is_none()) {
      values.emplace_back();
      continue;
    }
    values.push_back(
        CheckedIndex(indices[i], checks.empty() ? py::none() : checks[i],
                     device));
  }
  return values;
}

void InitAdvancedIndexBindings(py::module_& m) {
  m.def(
      "_index",
      [](py::handle x, const std::vector<py::handle>& indices,
         const std::vector<py::handle>& checks) {
        Operand in = Read(x);
        std::vector<Value> values =
            CheckedIndices(indices, checks, in.tensor->device());
        return WrapOrNone(ValueOrThrow(ops::AdvancedIndex(in.value, values)),
                          in.tensor->device());
      },
      py::arg("x"), py::arg("indices"), py::arg("checks") = py::list(),
      "x[indices] for integer index tensors (None for ':'), one gather "
      "(ops/index_ops.h); checks: one device-side check (or None) per "
      "index.");
  m.def(
      "_index_put",
      [](py::handle x, const std::vector<py::handle>& indices,
         py::handle values, bool accumulate, bool inplace,
         const std::vector<py::handle>& checks) {
        Operand in = Read(x);
        std::vector<Value> index_values =
            CheckedIndices(indices, checks, in.tensor->device());
        Operand v;
        if (PyFloat_Check(values.ptr()) || PyLong_Check(values.ptr())) {
          v.value = ScalarLeafAtSite(values, in.value.shape().dtype);
        } else {
          v = Read(values);
        }
        Value out = ValueOrThrow(ops::AdvancedIndexPut(
            in.value, index_values, v.value, accumulate));
        if (inplace) {
          TorchTensor target = InPlaceTarget(x);
          return CommitInPlace(
              x.ptr(), target,
              XlaTensor::FromIr(std::move(out), in.tensor->device()));
        }
        if (v.tensor && out == v.value) {  // values itself: a new tensor
          return WrapTensor(ResultTensor(std::move(out), v.tensor, v.value));
        }
        return WrapOrNone(std::move(out), in.tensor->device());
      },
      py::arg("x"), py::arg("indices"), py::arg("values"),
      py::arg("accumulate"), py::arg("inplace"),
      py::arg("checks") = py::list(),
      "x[indices] = values (+= with `accumulate`) for integer index tensors "
      "(None for ':'), one scatter (ops/index_ops.h); values a tensor of "
      "x's dtype or a number. A new tensor, or x updated with `inplace`.");
  m.def(
      "_masked_index_put",
      [](py::handle x, py::handle mask, int64_t mask_at, py::handle values,
         bool accumulate, bool inplace) {
        Operand in = Read(x);
        Value v = OperandValue(values, in.value.shape().dtype);
        Value out = ValueOrThrow(ops::MaskedIndexPut(
            in.value, mask_at, Read(mask).value, std::move(v), accumulate));
        return Done(std::move(out), in, x, inplace, "index_put_");
      },
      py::arg("x"), py::arg("mask"), py::arg("mask_at"), py::arg("values"),
      py::arg("accumulate"), py::arg("inplace"),
      "x[..., mask, ...] = values (+= with `accumulate`), mask at dim "
      "`mask_at`, values not depending on the mask's count: a select (ops/"
      "scatter_ops.h). values: an 'xla' tensor, a number or a cpu 0-d "
      "tensor.");
  m.def(
      "_masked_scatter",
      [](py::handle x, py::handle mask, py::handle source,
         const std::vector<int64_t>& shape, bool inplace) {
        Operand in = Read(x);
        Operand m = Read(mask);
        Value src = OperandValue(source, in.value.shape().dtype);
        ops::MaskedScatterResult r = ValueOrThrow(
            ops::MaskedScatter(in.value, m.value, src, shape));
        if (r.too_many) {
          ThrowIfError(AddDeviceCheck(
              r.too_many, m.tensor->device(),
              "masked_scatter: Number of elements of source < number of "
              "ones in mask",
              CheckError::kRuntimeError));
        }
        return Done(std::move(r.out), in, x, inplace, "masked_scatter_");
      },
      py::arg("x"), py::arg("mask"), py::arg("source"), py::arg("shape"),
      py::arg("inplace"),
      "aten.masked_scatter(_): source's elements at mask's true positions of "
      "x broadcast to `shape` (ops/scatter_ops.h), with the device-side "
      "check that source holds enough elements.");
  m.def(
      "_masked_scatter_backward",
      [](py::handle grad, py::handle mask, const std::vector<int64_t>& sizes) {
        Operand g = Read(grad);
        return Wrapped(ValueOrThrow(ops::MaskedScatterBackward(
                           g.value, Read(mask).value, sizes)),
                       g.tensor->device());
      },
      py::arg("grad"), py::arg("mask"), py::arg("sizes"),
      "aten.masked_scatter_backward: source's gradient (ops/"
      "scatter_ops.h).");
}

void InitGatherScatterBindings(py::module_& m) {
  m.def(
      "_gather",
      [](py::handle x, int64_t dim, py::handle index, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        return Wrapped(ValueOrThrow(ops::GatherAlongDim(in.value, dim, idx)),
                       in.tensor->device());
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("check"),
      "aten.gather along the canonical `dim`, one gather (ops/"
      "scatter_ops.h); check: the index's device-side check or None.");
  m.def(
      "_scatter",
      [](py::handle x, int64_t dim, py::handle index, py::handle src,
         bool src_is_value, bool add, bool inplace, py::handle check,
         const std::string& name) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        const DType dtype = in.value.shape().dtype;
        Value u = src_is_value ? OperandValue(src, dtype) : Read(src).value;
        Value out = ValueOrThrow(
            ops::ScatterAlongDim(in.value, dim, idx, u, src_is_value, add));
        return Done(std::move(out), in, x, inplace, name.c_str());
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("src"),
      py::arg("src_is_value"), py::arg("add"), py::arg("inplace"),
      py::arg("check"), py::arg("name"),
      "aten.scatter (add: scatter_add) along the canonical `dim`, one "
      "scatter (ops/scatter_ops.h); src a tensor, or with src_is_value a "
      "number (or cpu 0-d tensor) for every element.");
  m.def(
      "_scatter_reduce",
      [](py::handle x, int64_t dim, py::handle index, py::handle src,
         bool mean, bool include_self, bool inplace, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        Value out = ValueOrThrow(ops::ScatterReduce(
            in.value, dim, idx, Read(src).value, mean, include_self));
        return Done(std::move(out), in, x, inplace, "scatter_reduce_");
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("src"),
      py::arg("mean"), py::arg("include_self"), py::arg("inplace"),
      py::arg("check"),
      "aten.scatter_reduce with reduce 'sum' or 'mean' (ops/"
      "scatter_ops.h).");
  m.def(
      "_take",
      [](py::handle x, py::handle index, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        return Wrapped(ValueOrThrow(ops::Take(in.value, idx)),
                       in.tensor->device());
      },
      py::arg("x"), py::arg("index"), py::arg("check"),
      "aten.take: x's elements at flat indices, one gather (ops/"
      "scatter_ops.h).");
  m.def(
      "_put",
      [](py::handle x, py::handle index, py::handle source, bool accumulate,
         bool inplace, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        Value src = OperandValue(source, in.value.shape().dtype);
        return Done(ValueOrThrow(ops::Put(in.value, idx, src, accumulate)),
                    in, x, inplace, "put_");
      },
      py::arg("x"), py::arg("index"), py::arg("source"),
      py::arg("accumulate"), py::arg("inplace"), py::arg("check"),
      "aten.put(_): source's elements written (or added) at flat indices, "
      "one scatter (ops/scatter_ops.h).");
}

void InitIndexAlongDimBindings(py::module_& m) {
  m.def(
      "_index_select",
      [](py::handle x, int64_t dim, py::handle index, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        return Done(ValueOrThrow(ops::IndexSelect(in.value, dim, idx)), in, x,
                    false, "index_select");
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("check"),
      "aten.index_select along the canonical `dim` (ops/scatter_ops.h).");
  m.def(
      "_index_copy",
      [](py::handle x, int64_t dim, py::handle index, py::handle source,
         bool inplace, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        Value src = OperandValue(source, in.value.shape().dtype);
        return Done(ValueOrThrow(ops::IndexCopy(in.value, dim, idx, src)), in,
                    x, inplace, "index_copy_");
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("source"),
      py::arg("inplace"), py::arg("check"),
      "aten.index_copy(_) (ops/scatter_ops.h); source a tensor of x's dtype "
      "(a cpu 0-d one for a 0-d x).");
  m.def(
      "_index_add",
      [](py::handle x, int64_t dim, py::handle index, py::handle source,
         py::handle alpha, bool inplace, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        const DType dtype = in.value.shape().dtype;
        Value src = OperandValue(source, dtype);
        Value scale =
            alpha.is_none() ? Value() : ScalarLeafAtSite(alpha, dtype);
        return Done(
            ValueOrThrow(ops::IndexAdd(in.value, dim, idx, src, scale)), in, x,
            inplace, "index_add_");
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("source"),
      py::arg("alpha"), py::arg("inplace"), py::arg("check"),
      "aten.index_add(_) (ops/scatter_ops.h); alpha a number or None for "
      "1.");
  m.def(
      "_index_fill",
      [](py::handle x, int64_t dim, py::handle index, py::handle value,
         bool inplace, py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        Value fill =
            OperandValue(value, in.value.shape().dtype, /*checked=*/true);
        return Done(ValueOrThrow(ops::IndexFill(in.value, dim, idx, fill)), in,
                    x, inplace, "index_fill_");
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("value"),
      py::arg("inplace"), py::arg("check"),
      "aten.index_fill(_) (ops/scatter_ops.h); value a number, a cpu 0-d "
      "tensor (eager's overflow error when x's dtype cannot hold it) or an "
      "'xla' 0-d tensor.");
  m.def(
      "_index_reduce",
      [](py::handle x, int64_t dim, py::handle index, py::handle source,
         const std::string& reduce, bool include_self, bool inplace,
         py::handle check) {
        Operand in = Read(x);
        Value idx = CheckedIndex(index, check, in.tensor->device());
        Value src = OperandValue(source, in.value.shape().dtype);
        return Done(ValueOrThrow(ops::IndexReduce(in.value, dim, idx, src,
                                                  reduce, include_self)),
                    in, x, inplace, "index_reduce_");
      },
      py::arg("x"), py::arg("dim"), py::arg("index"), py::arg("source"),
      py::arg("reduce"), py::arg("include_self"), py::arg("inplace"),
      py::arg("check"),
      "aten.index_reduce(_) along the canonical `dim` (ops/"
      "index_reduce_ops.h).");
}

}  // namespace

void InitIndexOpBindings(py::module_& m) {
  InitDeviceCheckBindings(m);
  InitEmbeddingBindings(m);
  InitAdvancedIndexBindings(m);
  InitGatherScatterBindings(m);
  InitIndexAlongDimBindings(m);
}

}  // namespace torch_xla::python
