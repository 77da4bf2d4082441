// _XLAC bindings of the shape, copy and convolution core builders
// (torch_xla/csrc/ops: shape_ops, copy_ops, conv_ops) and the factories'
// host fills: the Python rules' single call per op (torch_xla/_ops/
// shape_ops.py, copy_ops.py, convolution.py). Each binding only converts
// arguments (tensors through ToXlaTensor, Python numbers as scalar
// parameters) and returns the op's result as a new 'xla' tensor, or, for
// an in-place op, commits it into its target (views written back) and
// returns the target. Eager's argument checks and errors are the rules'.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/conv_ops.h"
#include "torch_xla/csrc/ops/copy_ops.h"
#include "torch_xla/csrc/ops/cumulative_ops.h"
#include "torch_xla/csrc/ops/shape_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/device_checks.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/nn_op_bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/spmd/spmd_tensors.h"
#include "torch_xla/csrc/tensor/device_copy.h"
#include "torch_xla/csrc/tensor/view_ops.h"
#include "torch_xla/csrc/tensor/views.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

using Dims = std::vector<int64_t>;

// A builder's result for the operand `in`: a clone where it returned `in`'s
// value unchanged (flip of no dims, roll by 0), never an alias.
py::object Result(Value value, const Operand& in) {
  return WrapTensor(ResultTensor(std::move(value), in.tensor, in.value));
}

// `value` committed into the 'xla' tensor `target` (views written back).
py::object Commit(py::handle target, const TorchTensor& x, Value value) {
  return CommitInPlace(target.ptr(), x,
                       XlaTensor::FromIr(std::move(value), x.handle->device()));
}

// copy_ and fill_'s commit: where the value is `source`'s own (no cast, no
// broadcast), `source` itself is committed, so the target takes its data
// as it is (device data stays device data, not a graph reading it).
py::object CommitFrom(py::handle target, const TorchTensor& x, Value value,
                      const Operand* source) {
  if (source != nullptr && value == source->value) {
    return CommitInPlace(target.ptr(), x, source->tensor);
  }
  return Commit(target, x, std::move(value));
}

// An 'xla' tensor argument (or a bare handle) read; false for a number or
// a tensor of another device.
bool ReadXlaOperand(py::handle object, Operand* operand) {
  TorchTensor tensor;
  if (!ReadTorchTensor(object.ptr(), &tensor) &&
      !py::isinstance<XlaTensor>(object)) {
    return false;
  }
  *operand = Read(object);
  return true;
}

// A builder's result over several operands: a clone of the operand whose
// value it returned unchanged (cat of one non-empty tensor), never an alias.
py::object ResultOf(Value value, const std::vector<Operand>& ins,
                    int device) {
  for (const Operand& in : ins) {
    if (value == in.value) return Result(std::move(value), in);
  }
  return Wrapped(std::move(value), device);
}

std::vector<Operand> Operands(const py::sequence& tensors,
                              std::vector<Value>* values) {
  std::vector<Operand> ins;
  for (py::handle t : tensors) {
    ins.push_back(Read(t));
    values->push_back(ins.back().value);
  }
  return ins;
}

// A scatter's source `src` checked to have the shape `expected` (eager's
// RuntimeError naming `what`: slice, select) and converted to x's dtype.
Value ScatterSource(const Operand& x, const Operand& src,
                    const Dims& expected, const char* what) {
  const Dims& got = src.value.shape().dims;
  if (got != expected) {
    ThrowStatus(EagerRuntimeError(absl::StrCat(
        "expected src to have a size equal to the ", what,
        " of self. src size = [", absl::StrJoin(got, ", "), "], ", what,
        " size = [", absl::StrJoin(expected, ", "), "]")));
  }
  return ValueOrThrow(MakeConvert(src.value, x.value.shape().dtype));
}

// slice_scatter and select_scatter write through the slice view's inverse
// (tensor/views.h MakeUpdateStridedSlice), the one definition of a strided
// slice's update.
void InitScatterBindings(py::module_& m) {
  m.def(
      "_slice_scatter",
      [](py::handle x, py::handle src, int64_t dim,
         std::optional<int64_t> start, std::optional<int64_t> end,
         int64_t step) {
        Operand in = Read(x);
        Dims shape = in.value.shape().dims;
        auto [from, to] = ClampSlice(shape[dim], start, end);
        shape[dim] = std::max<int64_t>(0, (to - from + step - 1) / step);
        Value value = ScatterSource(in, Read(src), shape, "slice");
        return Result(ValueOrThrow(MakeUpdateStridedSlice(
                          in.value, std::move(value), dim, from, step)),
                      in);
      },
      py::arg("x"), py::arg("src"), py::arg("dim"), py::arg("start"),
      py::arg("end"), py::arg("step"),
      "aten.slice_scatter at canonical `dim` with step > 0 (bounds clamped "
      "as a slice's; eager's error for a src of another shape).");
  m.def(
      "_select_scatter",
      [](py::handle x, py::handle src, int64_t dim, int64_t index) {
        Operand in = Read(x);
        Dims shape = in.value.shape().dims;
        const int64_t at =
            ValueOrThrow(view_ops::WrapIndex(shape, dim, index,
                                             "select_scatter()"));
        Dims kept = shape;
        kept[dim] = 1;
        shape.erase(shape.begin() + dim);
        Value value = ValueOrThrow(MakeReshape(
            ScatterSource(in, Read(src), shape, "select"), kept));
        return Result(ValueOrThrow(MakeUpdateStridedSlice(
                          in.value, std::move(value), dim, at, 1)),
                      in);
      },
      py::arg("x"), py::arg("src"), py::arg("dim"), py::arg("index"),
      "aten.select_scatter at canonical `dim` (eager's IndexError for an "
      "index out of range, RuntimeError for a src of another shape).");
}

// The ops that write a diagonal, through ops/shape_ops.h's DiagonalValue /
// DiagonalUpdate (as the diagonal view's step, tensor/storage_views.h).
void InitDiagonalBindings(py::module_& m) {
  m.def(
      "_diagonal_scatter",
      [](py::handle x, py::handle src, int64_t offset, int64_t dim1,
         int64_t dim2) {
        Operand in = Read(x);
        const auto [d1, d2] = ValueOrThrow(view_ops::DiagonalDims(
            static_cast<int64_t>(in.value.shape().dims.size()), dim1, dim2));
        Value diagonal = ValueOrThrow(ops::DiagonalValue(in.value, offset, d1,
                                                         d2));
        Value value = ScatterSource(in, Read(src), diagonal.shape().dims,
                                    "diagonal");
        return Result(ValueOrThrow(ops::DiagonalUpdate(
                          in.value, std::move(value), offset, d1, d2)),
                      in);
      },
      py::arg("x"), py::arg("src"), py::arg("offset"), py::arg("dim1"),
      py::arg("dim2"),
      "aten.diagonal_scatter (eager's errors for the dims, as the diagonal "
      "view's, and for a src of another shape).");
  m.def(
      "_diagonal_backward",
      [](py::handle grad, const Dims& sizes, int64_t offset, int64_t d1,
         int64_t d2) {
        Operand g = Read(grad);
        Value zeros =
            ValueOrThrow(MakeLiteral(0, g.value.shape().dtype, sizes));
        return Wrapped(ValueOrThrow(ops::DiagonalUpdate(
                           std::move(zeros), g.value, offset, d1, d2)),
                       g.tensor->device());
      },
      py::arg("grad"), py::arg("sizes"), py::arg("offset"), py::arg("dim1"),
      py::arg("dim2"),
      "aten.diagonal_backward: `grad` on the diagonal of zeros of `sizes`.");
}

void InitShapeBuilderBindings(py::module_& m) {
  m.def(
      "_cat",
      [](const py::sequence& tensors, int64_t dim, int code) {
        std::vector<Value> values;
        std::vector<Operand> ins = Operands(tensors, &values);
        return ResultOf(
            ValueOrThrow(ops::Cat(std::move(values), dim, ToDType(code))),
            ins, ins.at(0).tensor->device());
      },
      py::arg("tensors"), py::arg("dim"), py::arg("dtype"),
      "aten.cat of checked tensors along canonical `dim` in `dtype` "
      "(ops/shape_ops.h; legacy 1-d empty tensors skipped).");
  m.def(
      "_stack",
      [](const py::sequence& tensors, int64_t dim, int code) {
        std::vector<Value> values;
        std::vector<Operand> ins = Operands(tensors, &values);
        return ResultOf(
            ValueOrThrow(ops::Stack(std::move(values), dim, ToDType(code))),
            ins, ins.at(0).tensor->device());
      },
      py::arg("tensors"), py::arg("dim"), py::arg("dtype"),
      "aten.stack of same-shape tensors at canonical `dim` in `dtype` "
      "(ops/shape_ops.h).");
  m.def(
      "_flip",
      [](py::handle x, const Dims& dims) {
        Operand in = Read(x);
        return Result(ValueOrThrow(ops::Flip(in.value, dims)), in);
      },
      py::arg("x"), py::arg("dims"),
      "aten.flip along distinct canonical `dims` (ops/shape_ops.h).");
  m.def(
      "_roll",
      [](py::handle x, const Dims& shifts, const Dims& dims) {
        Operand in = Read(x);
        return Result(ValueOrThrow(ops::Roll(in.value, shifts, dims)), in);
      },
      py::arg("x"), py::arg("shifts"), py::arg("dims"),
      "aten.roll by `shifts` along canonical `dims` (none: flattened; "
      "ops/shape_ops.h).");
  m.def(
      "_repeat",
      [](py::handle x, const Dims& repeats) {
        Operand in = Read(x);
        return Result(ValueOrThrow(ops::Repeat(in.value, repeats)), in);
      },
      py::arg("x"), py::arg("repeats"),
      "aten.repeat with checked `repeats` (ops/shape_ops.h).");
  m.def(
      "_triangle",
      [](py::handle x, py::handle diagonal, bool lower, bool inplace) {
        Operand in = Read(x);
        Value k = ScalarLeafAtSite(diagonal, DType::kI64);
        return Finish(ValueOrThrow(ops::Triangle(in.value, std::move(k),
                                                 lower)),
                      x, inplace);
      },
      py::arg("x"), py::arg("diagonal"), py::arg("lower"),
      py::arg("inplace") = false,
      "aten.tril (lower) / triu of x (rank >= 2); the diagonal is a scalar "
      "parameter. With `inplace`, x is updated (ops/shape_ops.h).");
  m.def(
      "_constant_pad",
      [](py::handle x, py::handle value, Dims low, Dims high) {
        Operand in = Read(x);
        Value fill = ScalarLeafAtSite(value, in.value.shape().dtype);
        return Result(ValueOrThrow(ops::ConstantPad(in.value, std::move(fill),
                                                    std::move(low),
                                                    std::move(high))),
                      in);
      },
      py::arg("x"), py::arg("value"), py::arg("low"), py::arg("high"),
      "aten.constant_pad_nd with per-dim `low`/`high` padding; the value is "
      "a scalar parameter of x's dtype (ops/shape_ops.h).");
  m.def(
      "_mode_pad",
      [](py::handle x, const Dims& dims, const Dims& low, const Dims& high,
         bool reflect) {
        Operand in = Read(x);
        return Result(
            ValueOrThrow(ops::ModePad(in.value, dims, low, high, reflect)),
            in);
      },
      py::arg("x"), py::arg("dims"), py::arg("low"), py::arg("high"),
      py::arg("reflect"),
      "reflection (`reflect`) / replication padding of x along `dims` by "
      "checked `low`/`high` (ops/shape_ops.h).");
  m.def(
      "_mode_pad_backward",
      [](py::handle grad, const Dims& sizes, const Dims& dims, const Dims& low,
         const Dims& high, bool reflect) {
        Operand g = Read(grad);
        return Result(ValueOrThrow(ops::ModePadBackward(g.value, sizes, dims,
                                                        low, high, reflect)),
                      g);
      },
      py::arg("grad"), py::arg("sizes"), py::arg("dims"), py::arg("low"),
      py::arg("high"), py::arg("reflect"),
      "The gradient of _mode_pad for an input of shape `sizes` "
      "(ops/shape_ops.h).");
  m.def(
      "_select_backward",
      [](py::handle grad, const Dims& sizes, int64_t dim, int64_t index) {
        Operand g = Read(grad);
        return Wrapped(ValueOrThrow(ops::SelectBackward(g.value, sizes, dim,
                                                        index)),
                       g.tensor->device());
      },
      py::arg("grad"), py::arg("sizes"), py::arg("dim"), py::arg("index"),
      "aten.select_backward at canonical `dim` and in-range `index` "
      "(ops/shape_ops.h).");
  m.def(
      "_arange",
      [](int64_t n, int code, int compute_code, py::handle start,
         py::handle step, int device) {
        const DType compute = ToDType(compute_code);
        Value from, by;
        if (!start.is_none()) {
          from = ScalarLeafAtSite(start, compute);
          by = ScalarLeafAtSite(step, compute);
        }
        return Wrapped(ValueOrThrow(ops::Arange(n, ToDType(code), compute,
                                                std::move(from),
                                                std::move(by))),
                       device);
      },
      py::arg("n"), py::arg("dtype"), py::arg("compute"), py::arg("start"),
      py::arg("step"), py::arg("device"),
      "arange of `n` elements in `dtype`: start + i * step in `compute` "
      "(start and step scalar parameters; None: the plain iota; "
      "ops/shape_ops.h).");
  m.def(
      "_cumulative",
      [](py::handle x, int64_t dim, const std::string& kind, int code,
         bool inplace) {
        if (kind != "add" && kind != "multiply") {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "kind must be 'add' or 'multiply', got '", kind, "'")));
        }
        Operand in = Read(x);
        Value out = ValueOrThrow(ops::Cumulative(
            in.value, dim, kind == "add" ? OpKind::kAdd : OpKind::kMultiply,
            ToDType(code)));
        if (!inplace) return Result(std::move(out), in);
        // cumsum_ / cumprod_: the result converted back to x's dtype.
        TorchTensor target = InPlaceTarget(x);
        return Commit(x, target,
                      ValueOrThrow(MakeConvert(std::move(out),
                                               in.value.shape().dtype)));
      },
      py::arg("x"), py::arg("dim"), py::arg("kind"), py::arg("dtype"),
      py::arg("inplace") = false,
      "cumsum ('add') / cumprod ('multiply') of x along canonical `dim`, "
      "accumulated in opmath and returned in `dtype` "
      "(ops/cumulative_ops.h); with `inplace`, x is updated to it (in x's "
      "dtype) and returned.");
}

// `tensor` on `device`, copied device to device (pending IR runs first on
// its own device).
XlaTensorPtr OnDevice(const XlaTensorPtr& tensor, int device) {
  absl::StatusOr<XlaTensorPtr> copy;
  {
    py::gil_scoped_release release;
    copy = CopyTensorToDevice(tensor, device);
  }
  return ValueOrThrow(std::move(copy));
}

void InitCopyBindings(py::module_& m) {
  m.def(
      "_to_dtype",
      [](py::handle x, int code, int device) {
        Operand in = Read(x);
        if (device >= 0 && in.tensor->device() != device) {
          XlaTensorPtr moved = OnDevice(in.tensor, device);
          in = {moved, ValueOrThrow(moved->GetIrValue())};
        }
        return Result(ValueOrThrow(MakeConvert(in.value, ToDType(code))), in);
      },
      py::arg("x"), py::arg("dtype"), py::arg("device") = -1,
      "aten._to_copy between 'xla' devices: a new tensor with x's value in "
      "`dtype` on `device` (-1: x's own; another is copied device to device "
      "first).");
  m.def(
      "_copy_",
      [](py::handle dst, py::handle src) {
        TorchTensor target = InPlaceTarget(dst);
        const Shape& shape = target.handle->shape();
        const int device = target.handle->device();
        Operand source;
        const bool tensor = ReadXlaOperand(src, &source);
        if (tensor && source.tensor->device() != device) {
          // Another device's tensor: copied device to device first.
          XlaTensorPtr moved = OnDevice(source.tensor, device);
          source = {moved, ValueOrThrow(moved->GetIrValue())};
        }
        Value value = tensor ? source.value : OperandValue(src, shape.dtype);
        return CommitFrom(dst, target,
                          ValueOrThrow(ops::CopyValue(std::move(value), shape)),
                          tensor ? &source : nullptr);
      },
      py::arg("dst"), py::arg("src"),
      "aten.copy_ from an 'xla' tensor (of any device) or a number (a cpu "
      "0-dim tensor): cast, broadcast and committed into dst "
      "(ops/copy_ops.h); returns dst.");
  m.def(
      "_copy_from_host",
      [](py::handle dst, uintptr_t address, Dims dims) {
        TorchTensor target = InPlaceTarget(dst);
        const Shape& shape = target.handle->shape();
        XlaTensorPtr host = HostBytesTensor(
            address, std::move(dims), shape.dtype, target.handle->device());
        // The data itself is committed, never its IR value: under SPMD it
        // stays on the host until the target's sharding is known.
        if (host->shape().dims == shape.dims) {
          return CommitInPlace(dst.ptr(), target, host);
        }
        return Commit(dst, target,
                      ValueOrThrow(ops::CopyValue(ValueOf(host), shape)));
      },
      py::arg("dst"), py::arg("address"), py::arg("dims"),
      "aten.copy_ from a cpu tensor already in dst's dtype (contiguous "
      "bytes at `address` of `dims`): uploaded and committed into dst, "
      "broadcast to it where `dims` differ; returns dst.");
  m.def(
      "_read_host",
      [](py::handle x, bool item) {
        XlaTensorPtr tensor = ToXlaTensor(x);
        absl::Status checks;
        {
          py::gil_scoped_release release;
          checks = DeviceChecksBeforeRead(tensor);
        }
        ThrowIfError(checks);
        py::object host = ToHostTensor(tensor);
        return item ? host.attr("item")() : host;
      },
      py::arg("x"), py::arg("item") = false,
      "x's value as a new cpu tensor (with `item`, its one element as a "
      "Python number): the device-side checks pending (python/"
      "device_checks.h) are read with it in one execution first.");
  m.def(
      "_fill",
      [](py::handle x, py::handle value, bool inplace) {
        TorchTensor target = InPlaceTarget(x);
        const Shape& shape = target.handle->shape();
        const int device = target.handle->device();
        Operand source;
        if (ReadXlaOperand(value, &source)) {
          Value out = ValueOrThrow(ops::FillValue(source.value, shape));
          if (!inplace) return Result(std::move(out), source);
          return CommitFrom(x, target, std::move(out), &source);
        }
        XlaTensorPtr filled = HostFillTensor(
            value, shape.dims, static_cast<int>(shape.dtype), device);
        if (!inplace) return WrapTensor(std::move(filled));
        return CommitInPlace(x.ptr(), target, filled);
      },
      py::arg("x"), py::arg("value"), py::arg("inplace"),
      "x's shape and dtype filled with a number (host data: a parameter) or "
      "a 0-dim 'xla' tensor (ops/copy_ops.h); with `inplace`, x is updated "
      "and returned.");
  m.def(
      "_from_host",
      [](uintptr_t address, Dims dims, int code, int device) {
        return WrapTensor(
            HostBytesTensor(address, std::move(dims), ToDType(code), device));
      },
      py::arg("address"), py::arg("dims"), py::arg("dtype"),
      py::arg("device"),
      "_tensor_from_host's transfer as a new 'xla' tensor (an empty shape "
      "is a literal: nothing to send): x.to('xla') in one call.");
  m.def(
      "_full",
      [](py::handle value, Dims dims, int code, int device) {
        return WrapTensor(HostFillTensor(value, std::move(dims), code, device));
      },
      py::arg("value"), py::arg("dims"), py::arg("dtype"), py::arg("device"),
      "A new 'xla' tensor of `dims` filled with `value` (_tensor_fill's host "
      "data, wrapped).");
}

ops::ConvWindow Window(Dims stride, Dims padding, Dims dilation,
                       bool transposed, Dims output_padding, int64_t groups) {
  ops::ConvWindow window;
  window.stride = std::move(stride);
  window.padding = std::move(padding);
  window.dilation = std::move(dilation);
  window.output_padding = std::move(output_padding);
  window.groups = groups;
  window.transposed = transposed;
  return window;
}

void InitConvBindings(py::module_& m) {
  m.def(
      "_convolution",
      [](py::handle x, py::handle w, py::handle bias, Dims stride,
         Dims padding, Dims dilation, bool transposed, Dims output_padding,
         int64_t groups) {
        Operand in = Read(x);
        return Wrapped(
            ValueOrThrow(ops::Convolution(
                in.value, Read(w).value, OptionalValue(bias),
                Window(std::move(stride), std::move(padding),
                       std::move(dilation), transposed,
                       std::move(output_padding), groups))),
            in.tensor->device());
      },
      py::arg("x"), py::arg("w"), py::arg("bias"), py::arg("stride"),
      py::arg("padding"), py::arg("dilation"), py::arg("transposed"),
      py::arg("output_padding"), py::arg("groups"),
      "aten.convolution with a checked window, one entry per spatial dim "
      "(ops/conv_ops.h); `bias` a tensor or None.");
  m.def(
      "_convolution_backward",
      [](py::handle grad, py::handle x, py::handle w, Dims stride,
         Dims padding, Dims dilation, bool transposed, Dims output_padding,
         int64_t groups, std::array<bool, 3> mask) {
        Operand in = Read(x);
        ops::ConvGrads grads = ValueOrThrow(ops::ConvolutionBackward(
            Read(grad).value, in.value, Read(w).value,
            Window(std::move(stride), std::move(padding), std::move(dilation),
                   transposed, std::move(output_padding), groups),
            mask));
        const int device = in.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(grads.input), device),
                              WrapOrNone(std::move(grads.weight), device),
                              WrapOrNone(std::move(grads.bias), device));
      },
      py::arg("grad"), py::arg("x"), py::arg("w"), py::arg("stride"),
      py::arg("padding"), py::arg("dilation"), py::arg("transposed"),
      py::arg("output_padding"), py::arg("groups"), py::arg("output_mask"),
      "aten.convolution_backward (ops/conv_ops.h) -> (grad_input, "
      "grad_weight, grad_bias), None where output_mask leaves one out.");
}

}  // namespace

void InitShapeOpBindings(py::module_& m) {
  InitShapeBuilderBindings(m);
  InitScatterBindings(m);
  InitDiagonalBindings(m);
  InitCopyBindings(m);
  InitConvBindings(m);
}

}  // namespace torch_xla::python
