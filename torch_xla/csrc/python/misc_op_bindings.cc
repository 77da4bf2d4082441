// _XLAC bindings of the builders behind the rules that no family binding
// file holds (embedding_renorm_, ...): each is the Python rule's single
// call into C++, converting arguments, calling the builder
// (torch_xla/csrc/ops) and returning the wrapped result or committing the
// in-place one. See op_bindings.h for the conventions.

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ops/embedding_ops.h"
#include "torch_xla/csrc/ops/grid_sampler_ops.h"
#include "torch_xla/csrc/ops/interpolation_ops.h"
#include "torch_xla/csrc/ops/one_hot_ops.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"
#include "torch_xla/csrc/ops/reduction_ops.h"
#include "torch_xla/csrc/ops/unpool_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/device_checks.h"
#include "torch_xla/csrc/python/nn_op_bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/views.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

using Scales = std::vector<std::optional<double>>;

// 0 nearest, 1 nearest-exact, 2 linear, 3 cubic (interpolation.py's
// _KIND_CODES).
ops::InterpolationKind InterpolationKindOf(int code) {
  if (code < 0 || code > 3) {
    ThrowStatus(absl::InvalidArgumentError(
        absl::StrCat("unknown interpolation kind code ", code)));
  }
  return static_cast<ops::InterpolationKind>(code);
}

void InitInterpolationBindings(py::module_& m) {
  m.def(
      "_upsample",
      [](py::handle x, int kind, const std::vector<int64_t>& size,
         const Scales& scales, bool align_corners) {
        Operand in = Read(x);
        return WrapOrNone(
            ValueOrThrow(ops::Upsample(in.value, InterpolationKindOf(kind),
                                       size, scales, align_corners)),
            in.tensor->device());
      },
      py::arg("x"), py::arg("kind"), py::arg("size"), py::arg("scales"),
      py::arg("align_corners"),
      "Upsampling of x [N, C, *spatial] to `size` (ops/interpolation_ops.h; "
      "kind 0 nearest, 1 nearest-exact, 2 linear, 3 cubic; scales None "
      "where not given); returns an 'xla' tensor.");
  m.def(
      "_upsample_backward",
      [](py::handle grad, int kind, const std::vector<int64_t>& input_size,
         const Scales& scales, bool align_corners) {
        Operand g = Read(grad);
        return WrapTensor(ResultTensor(
            ValueOrThrow(ops::UpsampleBackward(g.value,
                                               InterpolationKindOf(kind),
                                               input_size, scales,
                                               align_corners)),
            g.tensor, g.value));
      },
      py::arg("grad"), py::arg("kind"), py::arg("input_size"),
      py::arg("scales"), py::arg("align_corners"),
      "The upsampling's input gradient [input_size] from grad "
      "(ops/interpolation_ops.h); a new 'xla' tensor.");
}

// Every dim of `v`: a reduction over all of it.
std::vector<int64_t> AllDims(const Value& v) {
  return ops::Range(0, static_cast<int64_t>(v.shape().dims.size()));
}

// The _foreach ops without a per-element rule: one call per list, each
// tensor's result from its family's builder.
void InitForeachBindings(py::module_& m) {
  m.def(
      "_foreach_vector_norm",
      [](const py::list& tensors, double ord, std::optional<int> code) {
        py::list out;
        for (py::handle t : tensors) {
          Operand in = Read(t);
          const DType dtype = code ? ToDType(*code) : in.value.shape().dtype;
          const DType acc = ops::OpMathType(dtype);
          Value p, inv_p;
          if (!std::isinf(ord) && ord != 0 && ord != 1 && ord != 2) {
            p = ScalarLeafAtSite(py::float_(ord), acc);
            inv_p = ScalarLeafAtSite(py::float_(1.0 / ord), acc);
          }
          out.append(WrapOrNone(
              ValueOrThrow(ops::VectorNorm(in.value, ord, AllDims(in.value),
                                           false, dtype, std::move(p),
                                           std::move(inv_p))),
              in.tensor->device()));
        }
        return out;
      },
      py::arg("tensors"), py::arg("ord"), py::arg("dtype"),
      "aten._foreach_norm: each tensor's vector norm over all its elements "
      "(ops/reduction_ops.h VectorNorm), in `dtype` (None: the tensor's).");
  m.def(
      "_foreach_max",
      [](const py::list& tensors) {
        py::list out;
        for (py::handle t : tensors) {
          Operand in = Read(t);
          out.append(WrapOrNone(
              ValueOrThrow(ops::ReduceExtreme(in.value, AllDims(in.value),
                                              "max", false)),
              in.tensor->device()));
        }
        return out;
      },
      py::arg("tensors"),
      "aten._foreach_max: each (non-empty) tensor's max, NaN winning "
      "(ops/reduction_ops.h).");
  m.def(
      "_foreach_zero",
      [](const py::list& tensors, bool inplace) {
        py::list out;
        for (py::handle t : tensors) {
          const Shape& shape = ToXlaTensor(t)->shape();
          out.append(Finish(ValueOrThrow(MakeLiteral(0, shape.dtype,
                                                     shape.dims)),
                            t, inplace, "_foreach_zero_"));
        }
        return out;
      },
      py::arg("tensors"), py::arg("inplace"),
      "aten._foreach_zero(_): zeros of each tensor's shape and dtype, new "
      "tensors or (inplace) written into each.");
}

}  // namespace

void InitMiscOpBindings(py::module_& m) {
  m.def(
      "_copy_of",
      [](py::handle x) {
        return WrapTensor(ValueOrThrow(CloneTensor(*ToXlaTensor(x))));
      },
      py::arg("x"),
      "A new 'xla' tensor (new tensor and alias IDs) with x's value: the "
      "rules whose result is their input (abs of an unsigned tensor, "
      "rounding an integer one).");
  m.def(
      "_one_hot",
      [](py::handle x, int64_t num_classes, const py::tuple& checks) {
        Operand in = Read(x);
        Value out = ValueOrThrow(ops::OneHot(in.value, num_classes));
        for (py::handle check : checks) {
          CheckIndex(in.value, in.tensor->device(), check);
        }
        return WrapOrNone(std::move(out), in.tensor->device());
      },
      py::arg("x"), py::arg("num_classes"), py::arg("checks") = py::tuple(),
      "aten.one_hot's s64 encoding of x's values (ops/one_hot_ops.h); "
      "`checks`: the device-side checks of those values (index checks, "
      "python/device_checks.h), registered in this call, in order.");
  InitInterpolationBindings(m);
  InitForeachBindings(m);
  m.def(
      "_grid_sampler_2d",
      [](py::handle input, py::handle grid, int64_t mode, int64_t padding,
         bool align_corners) {
        Operand in = Read(input);
        return WrapOrNone(
            ValueOrThrow(ops::GridSampler2d(in.value, Read(grid).value, mode,
                                            padding, align_corners)),
            in.tensor->device());
      },
      py::arg("input"), py::arg("grid"), py::arg("mode"), py::arg("padding"),
      py::arg("align_corners"),
      "aten.grid_sampler_2d (ops/grid_sampler_ops.h; mode 0 bilinear, 1 "
      "nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection).");
  m.def(
      "_grid_sampler_2d_backward",
      [](py::handle grad, py::handle input, py::handle grid, int64_t mode,
         int64_t padding, bool align_corners, bool input_grad) {
        Operand in = Read(input);
        std::array<Value, 2> out = ValueOrThrow(ops::GridSampler2dBackward(
            Read(grad).value, in.value, Read(grid).value, mode, padding,
            align_corners, input_grad));
        const int device = in.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(out[0]), device),
                              WrapOrNone(std::move(out[1]), device));
      },
      py::arg("grad"), py::arg("input"), py::arg("grid"), py::arg("mode"),
      py::arg("padding"), py::arg("align_corners"), py::arg("input_grad"),
      "aten.grid_sampler_2d_backward (ops/grid_sampler_ops.h): (grad_input, "
      "None without input_grad; grad_grid).");
  m.def(
      "_max_unpool",
      [](py::handle x, py::handle indices,
         const std::vector<int64_t>& output_size,
         const std::string& message) {
        Operand in = Read(x);
        Value index = Read(indices).value;
        int64_t plane = 1;
        for (int64_t size : output_size) plane *= size;
        Value out = ValueOrThrow(ops::MaxUnpool(in.value, index, output_size));
        // Eager's check that every index names a position of the output
        // plane, device-side (python/device_checks.h).
        IndexCheck check;
        check.size = plane;
        check.message = message;
        check.error = CheckError::kRuntimeError;
        ThrowIfError(AddIndexCheck(index, in.tensor->device(), check));
        return WrapOrNone(std::move(out), in.tensor->device());
      },
      py::arg("x"), py::arg("indices"), py::arg("output_size"),
      py::arg("message"),
      "aten.max_unpool{2,3}d (ops/unpool_ops.h): x's values at the flat "
      "plane positions `indices` names in zeros of [..., *output_size]; "
      "registers the check that every index is inside the plane (eager's "
      "`message`).");
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
