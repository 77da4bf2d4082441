// The `_foreach_*` list ops' one call into C++ per list
// (torch_xla/_ops/optim_ops.py): each binding takes the lists (and the
// dtype each element computes in, which the Python rule promoted as the
// single-tensor rule does) and builds every element as the single-tensor
// binding does: arithmetic, reciprocal, lerp and addcmul/addcdiv through
// that binding's own element call (op_bindings.h ArithmeticCall,
// ReciprocalCall, LerpCall, AddcCall), the others with its builder
// (ops/unary_ops.h, float_math_ops.h, select_ops.h, an elementwise node): a
// foreach op's math is never written a second time. An in-place list op
// commits each element's result into it in list order (op_bindings.h's
// Finish, eager's errors prefixed with the op's name) and returns None; a
// functional one returns the list of new tensors.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ops/float_math_ops.h"
#include "torch_xla/csrc/ops/select_ops.h"
#include "torch_xla/csrc/ops/unary_ops.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// Builds a list op's elements, element(i) for each index: the list of new
// tensors, or None in place (each element committed by element(i)). Every
// list (tensors, operands or dtype codes) has `n` entries; the Python rules
// check eager's errors first, so a mismatch here is a bug.
template <typename Element>
py::object EachElement(const char* op, size_t n,
                       std::initializer_list<size_t> others, bool inplace,
                       const Element& element) {
  for (size_t m : others) {
    if (m != n) {
      ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
          op, ": every list must have ", n, " entries, got one of ", m)));
    }
  }
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    py::object result = element(i);
    if (!inplace) out.append(std::move(result));
  }
  return inplace ? py::object(py::none()) : py::object(std::move(out));
}

void InitForeachElementwise(py::module_& m) {
  m.def(
      "_foreach_arithmetic",
      [](int op, const py::list& selves, const py::list& others,
         const std::vector<int>& codes, const py::list& alphas,
         bool inplace, const std::string& name) {
        return EachElement(
            "_foreach_arithmetic", selves.size(),
            {others.size(), codes.size(), alphas.size()}, inplace,
            [&](size_t i) {
              return ArithmeticCall(op, selves[i], others[i], codes[i],
                                    alphas[i], inplace, name);
            });
      },
      py::arg("op"), py::arg("selves"), py::arg("others"), py::arg("dtypes"),
      py::arg("alphas"), py::arg("inplace") = false,
      py::arg("name") = "",
      "_foreach_add/sub/mul/div: selves[i] op others[i] (tensors or numbers) "
      "in dtypes[i] (ops/arithmetic_ops.h, as _arithmetic), others[i] times "
      "alphas[i] first (None for 1). A list of new tensors, or (inplace) each "
      "of selves updated and None.");
  m.def(
      "_foreach_binary",
      [](int kind, const py::list& selves, const py::list& others,
         const std::vector<int>& codes, bool inplace,
         const std::string& name) {
        const OpKind op = ToOpKind(kind);
        return EachElement(
            "_foreach_binary", selves.size(), {others.size(), codes.size()},
            inplace, [&](size_t i) {
              int device = 0;
              std::vector<Value> v = ResolveOperands(
                  py::make_tuple(selves[i], others[i]), ToDType(codes[i]),
                  &device);
              return Finish(Value(ValueOrThrow(MakeNode(op, std::move(v)))),
                            selves[i], inplace, name);
            });
      },
      py::arg("kind"), py::arg("selves"), py::arg("others"),
      py::arg("dtypes"), py::arg("inplace") = false, py::arg("name") = "",
      "_foreach_maximum/minimum/pow of two tensors: one elementwise op "
      "(kind) of selves[i] and others[i] in dtypes[i], as _elementwise_op. "
      "A list of new tensors, or (inplace) each of selves updated and None.");
  m.def(
      "_foreach_clamp",
      [](const py::list& selves, const py::list& lows, const py::list& highs,
         const std::vector<int>& codes, bool inplace,
         const std::string& name) {
        return EachElement(
            "_foreach_clamp", selves.size(),
            {lows.size(), highs.size(), codes.size()}, inplace,
            [&](size_t i) {
              const DType dtype = ToDType(codes[i]);
              auto bound = [&](py::handle b) {
                return b.is_none() ? Value()
                                   : OperandValue(b, dtype, /*checked=*/true);
              };
              Value out = ValueOrThrow(ops::Clamp(
                  ValueOf(ToXlaTensor(selves[i])), bound(lows[i]),
                  bound(highs[i]), dtype));
              return Finish(std::move(out), selves[i], inplace, name);
            });
      },
      py::arg("selves"), py::arg("lows"), py::arg("highs"), py::arg("dtypes"),
      py::arg("inplace") = false, py::arg("name") = "",
      "_foreach_clamp_min/max (and maximum/minimum with a scalar): "
      "clamp(selves[i], lows[i], highs[i]) in dtypes[i] (ops/select_ops.h, "
      "as _clamp; None for no bound). A list of new tensors, or (inplace) "
      "each of selves updated and None.");
  m.def(
      "_foreach_unary",
      [](int kind, const py::list& selves, const std::vector<int>& codes,
         bool opmath, bool inplace, const std::string& name) {
        const OpKind op = ToOpKind(kind);
        return EachElement(
            "_foreach_unary", selves.size(), {codes.size()}, inplace,
            [&](size_t i) {
              Value out = ValueOrThrow(
                  ops::Unary(op, ValueOf(ToXlaTensor(selves[i])),
                             ToDType(codes[i]), opmath));
              return Finish(std::move(out), selves[i], inplace, name);
            });
      },
      py::arg("kind"), py::arg("selves"), py::arg("dtypes"),
      py::arg("opmath") = false, py::arg("inplace") = false,
      py::arg("name") = "",
      "_foreach_sqrt, exp, ...: kind(selves[i]) in dtypes[i] "
      "(ops/unary_ops.h, as _unary). A list of new tensors, or (inplace) "
      "each of selves updated and None.");
  m.def(
      "_foreach_reciprocal",
      [](const py::list& selves, const std::vector<int>& codes, bool inplace,
         const std::string& name) {
        return EachElement(
            "_foreach_reciprocal", selves.size(), {codes.size()}, inplace,
            [&](size_t i) {
              return ReciprocalCall(selves[i], codes[i], inplace, name);
            });
      },
      py::arg("selves"), py::arg("dtypes"), py::arg("inplace") = false,
      py::arg("name") = "",
      "_foreach_reciprocal: 1 / selves[i] in dtypes[i] (as _reciprocal). A "
      "list of new tensors, or (inplace) each of selves updated and None.");
  m.def(
      "_foreach_float_math",
      [](int op, const py::list& selves, const std::vector<int>& codes,
         bool inplace, const std::string& name) {
        const ops::FloatMathOp kind =
            ValueOrThrow(ops::FloatMathOpFromCode(op));
        return EachElement(
            "_foreach_float_math", selves.size(), {codes.size()}, inplace,
            [&](size_t i) {
              int device = 0;
              std::vector<Value> v = ResolveOperands(
                  py::make_tuple(selves[i]), ToDType(codes[i]), &device);
              Value out = ValueOrThrow(ops::FloatMath(kind, std::move(v), 0));
              return Finish(std::move(out), selves[i], inplace, name);
            });
      },
      py::arg("op"), py::arg("selves"), py::arg("dtypes"),
      py::arg("inplace") = false, py::arg("name") = "",
      "_foreach_atan, log2, log10, trunc: op(selves[i]) in dtypes[i] "
      "(ops/float_math_ops.h, as _float_math; floating dtypes, so never the "
      "identity). A list of new tensors, or (inplace) each of selves updated "
      "and None.");
}

void InitForeachOptim(py::module_& m) {
  m.def(
      "_foreach_addc",
      [](int kind, const py::list& selves, const py::list& t1s,
         const py::list& t2s, const py::list& values,
         const std::vector<int>& codes, bool inplace,
         const std::string& name) {
        return EachElement(
            "_foreach_addc", selves.size(),
            {t1s.size(), t2s.size(), values.size(), codes.size()}, inplace,
            [&](size_t i) {
              return AddcCall(kind, selves[i], t1s[i], t2s[i], values[i],
                              codes[i], inplace, name);
            });
      },
      py::arg("kind"), py::arg("selves"), py::arg("t1s"), py::arg("t2s"),
      py::arg("values"), py::arg("dtypes"), py::arg("inplace") = false,
      py::arg("name") = "",
      "_foreach_addcmul/addcdiv (kind multiply/divide): selves[i] + "
      "values[i] * t1s[i] (* or /) t2s[i] in opmath, result in dtypes[i] "
      "(ops/optim_ops.h, as _addc; values[i] None for 1). A list of new "
      "tensors, or (inplace) each of selves updated and None.");
  m.def(
      "_foreach_lerp",
      [](const py::list& selves, const py::list& ends, const py::list& weights,
         bool inplace, const std::string& name) {
        return EachElement(
            "_foreach_lerp", selves.size(), {ends.size(), weights.size()},
            inplace, [&](size_t i) {
              return LerpCall(selves[i], ends[i], weights[i], inplace, name);
            });
      },
      py::arg("selves"), py::arg("ends"), py::arg("weights"),
      py::arg("inplace") = false, py::arg("name") = "",
      "_foreach_lerp: lerp(selves[i], ends[i], weights[i]) in opmath, "
      "result in selves[i]'s dtype (ops/optim_ops.h, as _lerp; a weight a "
      "tensor or a number). A list of new tensors, or (inplace) each of "
      "selves updated and None.");
}

}  // namespace

void InitForeachOpBindings(py::module_& m) {
  InitForeachElementwise(m);
  InitForeachOptim(m);
}

}  // namespace torch_xla::python
