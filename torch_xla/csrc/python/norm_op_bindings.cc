// _XLAC bindings of the norm builders (torch_xla/csrc/ops: norm_ops,
// batch_norm_ops, softmax_ops' SafeSoftmax): layer, RMS, group and batch
// norm and their backwards, and _safe_softmax, the Python rules' single
// call per op (normalization.py, group_norm.py).
// Multi-output ops return tuples, None where an output is not asked for;
// batch norm commits the new running statistics into the 'xla' tensors
// it was given. See nn_op_bindings.h.

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/batch_norm_ops.h"
#include "torch_xla/csrc/ops/norm_ops.h"
#include "torch_xla/csrc/ops/softmax_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/nn_op_bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

void InitNormBindings(py::module_& m) {
  m.def(
      "_safe_softmax",
      [](py::handle x, const std::vector<int64_t>& dims, int code) {
        Operand in = Read(x);
        return WrapOrNone(
            ValueOrThrow(ops::SafeSoftmax(in.value, dims, ToDType(code))),
            in.tensor->device());
      },
      py::arg("x"), py::arg("dims"), py::arg("dtype"),
      "aten._safe_softmax over `dims` ({} or one canonical dim) in `dtype`: "
      "0 for fully masked (all -inf) rows (ops/softmax_ops.h).");
  m.def(
      "_rms_norm",
      [](py::handle x, int64_t axis, py::handle weight, py::handle eps) {
        Operand in = Read(x);
        std::array<Value, 2> r = ValueOrThrow(ops::RmsNorm(
            in.value, axis, OptionalValue(weight), OpMathScalar(eps, in)));
        const int device = in.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                              WrapOrNone(std::move(r[1]), device));
      },
      py::arg("x"), py::arg("axis"), py::arg("weight"), py::arg("eps"),
      "aten._fused_rms_norm over the dims from `axis` on (ops/norm_ops.h) "
      "-> (out, rstd); weight a tensor or None.");
  m.def(
      "_rms_norm_backward",
      [](py::handle grad, py::handle x, int64_t axis, py::handle rstd,
         py::handle weight, std::array<bool, 2> output_mask) {
        Operand g = Read(grad);
        std::array<Value, 2> r = ValueOrThrow(ops::RmsNormBackward(
            g.value, Read(x).value, axis, Read(rstd).value,
            OptionalValue(weight), output_mask));
        const int device = g.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                              WrapOrNone(std::move(r[1]), device));
      },
      py::arg("grad"), py::arg("x"), py::arg("axis"), py::arg("rstd"),
      py::arg("weight"), py::arg("output_mask"),
      "aten._fused_rms_norm_backward (ops/norm_ops.h) -> (grad_input, "
      "grad_weight), None where not asked for.");
  m.def(
      "_layer_norm",
      [](py::handle x, int64_t axis, py::handle weight, py::handle bias,
         py::handle eps) {
        Operand in = Read(x);
        std::array<Value, 3> r = ValueOrThrow(ops::LayerNorm(
            in.value, axis, OptionalValue(weight), OptionalValue(bias),
            OpMathScalar(eps, in)));
        const int device = in.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                              WrapOrNone(std::move(r[1]), device),
                              WrapOrNone(std::move(r[2]), device));
      },
      py::arg("x"), py::arg("axis"), py::arg("weight"), py::arg("bias"),
      py::arg("eps"),
      "aten.native_layer_norm over the dims from `axis` on (ops/"
      "norm_ops.h) -> (out, mean, rstd); weight and bias tensors or None.");
  m.def(
      "_layer_norm_backward",
      [](py::handle grad, py::handle x, int64_t axis, py::handle mean,
         py::handle rstd, py::handle weight, py::handle bias,
         std::array<bool, 3> output_mask) {
        Operand g = Read(grad);
        std::array<Value, 3> r = ValueOrThrow(ops::LayerNormBackward(
            g.value, Read(x).value, axis, Read(mean).value, Read(rstd).value,
            OptionalValue(weight), OptionalValue(bias), output_mask));
        const int device = g.tensor->device();
        // grad_bias is grad itself for a 1-d input in its dtype: a new
        // tensor, never an alias of grad.
        py::object grad_bias =
            r[2] ? WrapTensor(ResultTensor(std::move(r[2]), g.tensor, g.value))
                 : py::none();
        return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                              WrapOrNone(std::move(r[1]), device),
                              std::move(grad_bias));
      },
      py::arg("grad"), py::arg("x"), py::arg("axis"), py::arg("mean"),
      py::arg("rstd"), py::arg("weight"), py::arg("bias"),
      py::arg("output_mask"),
      "aten.native_layer_norm_backward (ops/norm_ops.h) -> (grad_input, "
      "grad_weight, grad_bias), None where not asked for.");
}

void InitGroupNormBindings(py::module_& m) {
  m.def(
      "_group_norm",
      [](py::handle x, py::handle weight, py::handle bias, int64_t n,
         int64_t c, int64_t hw, int64_t groups, py::handle eps) {
        Operand in = Read(x);
        std::array<Value, 3> r = ValueOrThrow(ops::GroupNorm(
            in.value, OptionalValue(weight), OptionalValue(bias),
            {n, c, hw, groups}, OpMathScalar(eps, in)));
        const int device = in.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                              WrapOrNone(std::move(r[1]), device),
                              WrapOrNone(std::move(r[2]), device));
      },
      py::arg("x"), py::arg("weight"), py::arg("bias"), py::arg("n"),
      py::arg("c"), py::arg("hw"), py::arg("groups"), py::arg("eps"),
      "aten.native_group_norm (ops/norm_ops.h) -> (out, mean, rstd).");
  m.def(
      "_group_norm_backward",
      [](py::handle grad, py::handle x, py::handle mean, py::handle rstd,
         py::handle weight, int64_t n, int64_t c, int64_t hw, int64_t groups,
         std::array<bool, 3> output_mask) {
        Operand g = Read(grad);
        std::array<Value, 3> r = ValueOrThrow(ops::GroupNormBackward(
            g.value, Read(x).value, Read(mean).value, Read(rstd).value,
            OptionalValue(weight), {n, c, hw, groups}, output_mask));
        const int device = g.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                              WrapOrNone(std::move(r[1]), device),
                              WrapOrNone(std::move(r[2]), device));
      },
      py::arg("grad"), py::arg("x"), py::arg("mean"), py::arg("rstd"),
      py::arg("weight"), py::arg("n"), py::arg("c"), py::arg("hw"),
      py::arg("groups"), py::arg("output_mask"),
      "aten.native_group_norm_backward (ops/norm_ops.h) -> (grad_input, "
      "grad_weight, grad_bias), None where not asked for.");
}

// Commits `value` (a running statistic's new value) into the 'xla' tensor
// `object`, as an in-place update (written back through views).
void CommitStat(py::handle object, Value value) {
  TorchTensor target;
  if (!ReadTorchTensor(object.ptr(), &target)) {
    ThrowStatus(WrongTypeError(
        "batch_norm: the running statistics must be 'xla' tensors"));
  }
  CommitInPlace(object.ptr(), target,
                XlaTensor::FromIr(std::move(value), target.handle->device()));
}

void InitBatchNormBindings(py::module_& m) {
  m.def(
      "_batch_norm",
      [](py::handle x, py::handle weight, py::handle bias,
         py::handle running_mean, py::handle running_var, bool training,
         py::handle momentum, py::handle keep, py::handle eps,
         int stats_code, bool functional, bool reserve) {
        Operand in = Read(x);
        Value mean = OptionalValue(running_mean);
        Value var = OptionalValue(running_var);
        Value m, k;
        if (training && (mean || var)) {
          m = OpMathScalar(momentum, in);
          k = OpMathScalar(keep, in);
        }
        ops::BatchNormResult r = ValueOrThrow(ops::BatchNorm(
            in.value, OptionalValue(weight), OptionalValue(bias), mean, var,
            training, std::move(m), std::move(k), OpMathScalar(eps, in),
            ToDType(stats_code)));
        const int device = in.tensor->device();
        py::list out;
        out.append(WrapOrNone(std::move(r.out), device));
        out.append(WrapOrNone(std::move(r.save_mean), device));
        out.append(WrapOrNone(std::move(r.save_invstd), device));
        if (reserve) {
          out.append(WrapOrNone(
              ValueOrThrow(MakeLiteral(0, DType::kU8, {0})), device));
        }
        if (functional) {
          // Not updated: the running statistics as they are, as new tensors.
          auto stat = [&](Value updated, py::handle old, const Value& value) {
            if (updated) return WrapOrNone(std::move(updated), device);
            return WrapTensor(ResultTensor(value, ToXlaTensor(old), value));
          };
          out.append(stat(std::move(r.new_mean), running_mean, mean));
          out.append(stat(std::move(r.new_var), running_var, var));
        } else {
          if (r.new_mean) CommitStat(running_mean, std::move(r.new_mean));
          if (r.new_var) CommitStat(running_var, std::move(r.new_var));
        }
        return py::tuple(out);
      },
      py::arg("x"), py::arg("weight"), py::arg("bias"),
      py::arg("running_mean"), py::arg("running_var"), py::arg("training"),
      py::arg("momentum"), py::arg("keep"), py::arg("eps"),
      py::arg("stats_dtype"), py::arg("functional"), py::arg("reserve"),
      "Batch norm (ops/batch_norm_ops.h) -> (out, save_mean, save_invstd"
      "[, reserve: an empty uint8 tensor][, new_mean, new_var with "
      "`functional`]); without `functional` the new running statistics "
      "are committed into running_mean / running_var. keep: 1 - momentum.");
  m.def(
      "_batch_norm_backward",
      [](py::handle grad, py::handle x, py::handle weight,
         py::handle running_mean, py::handle running_var,
         py::handle save_mean, py::handle save_invstd, bool training,
         py::handle eps, std::array<bool, 3> output_mask) {
        Operand in = Read(x);
        Value eps_value = training ? Value() : OpMathScalar(eps, in);
        std::array<Value, 3> r = ValueOrThrow(ops::BatchNormBackward(
            Read(grad).value, in.value, OptionalValue(weight),
            OptionalValue(running_mean), OptionalValue(running_var),
            OptionalValue(save_mean), OptionalValue(save_invstd), training,
            std::move(eps_value), output_mask));
        const int device = in.tensor->device();
        return py::make_tuple(WrapOrNone(std::move(r[0]), device),
                              WrapOrNone(std::move(r[1]), device),
                              WrapOrNone(std::move(r[2]), device));
      },
      py::arg("grad"), py::arg("x"), py::arg("weight"),
      py::arg("running_mean"), py::arg("running_var"), py::arg("save_mean"),
      py::arg("save_invstd"), py::arg("training"), py::arg("eps"),
      py::arg("output_mask"),
      "aten.native_batch_norm_backward (ops/batch_norm_ops.h) -> "
      "(grad_input, grad_weight, grad_bias), None where not asked for.");
}

}  // namespace

void InitNormOpBindings(py::module_& m) {
  InitNormBindings(m);
  InitGroupNormBindings(m);
  InitBatchNormBindings(m);
}

}  // namespace torch_xla::python
