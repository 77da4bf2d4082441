#ifndef TORCH_XLA_CSRC_PYTHON_FAST_RULE_UTIL_H_
#define TORCH_XLA_CSRC_PYTHON_FAST_RULE_UTIL_H_

// The C++ fast rules: ATen ops that dominate traced training steps, run by
// the dispatch entry (dispatch.cc) before the op's Python rule. Contract of
// a rule: it reads the op's arguments and either handles the common, valid
// case by calling the op's one definition, which the Python rule calls too
// (math and nn ops: the core builders in torch_xla/csrc/ops; views:
// tensor/view_ops.h), or returns a null object to decline (the Python rule
// then runs: it owns every user-facing error message of those ops). A
// non-OK status is an internal failure; dispatch.cc raises it. The view
// rules return the definition's error status for bad arguments (the same
// text either way).
//
// The rules live by op family in fast_view_rules.cc, fast_math_rules.cc
// and fast_nn_rules.cc; each family adds its rows to the table with one
// Add*FastRules call. This header has the argument readers they share.

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/python/torch_tensor.h"

namespace torch_xla::python {

// The op's result, a null object to decline, or an internal error.
using FastRuleResult = absl::StatusOr<pybind11::object>;
// `kwargs` is null when the call has no keyword arguments.
using FastRule = FastRuleResult (*)(PyObject* const* args, Py_ssize_t nargs,
                                    PyObject* kwargs);
using PositionalRule = FastRuleResult (*)(PyObject* const* args,
                                          Py_ssize_t nargs);

// {qualified overload name ("aten::add.Tensor"), rule}.
using FastRuleTable = std::vector<std::pair<const char*, FastRule>>;

void AddViewFastRules(FastRuleTable* table);
void AddMathFastRules(FastRuleTable* table);
void AddNnFastRules(FastRuleTable* table);

// Most rules take positional arguments only: any keyword declines.
template <PositionalRule kRule>
FastRuleResult Positional(PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwargs) {
  if (kwargs != nullptr) return pybind11::object();
  return kRule(args, nargs);
}

// True when every keyword argument is one of `allowed` and, where
// `must_be_none`, is None.
bool KwargsAre(PyObject* kwargs, std::initializer_list<const char*> allowed,
               bool must_be_none);

// Argument readers: false when the argument is not the plain kind.
bool ReadInt(PyObject* object, int64_t* value);
bool ReadIntList(PyObject* object, std::vector<int64_t>* values);
// An optional int argument: absent or None leaves `value` unchanged.
bool ReadOptionalInt(PyObject* const* args, Py_ssize_t nargs, Py_ssize_t i,
                     int64_t* value);
// A Python float or int (not bool, not a tensor).
bool IsNumber(PyObject* object);

// `dim` in [-rank, rank) (rank 0 counts as 1) made non-negative.
bool CanonicalDim(int64_t dim, int64_t rank, int64_t* out);

// The tensor's up-to-date IR value (a view re-derives first).
absl::StatusOr<Value> CurrentValue(const TorchTensor& tensor);
// A new 'xla' tensor for `value` on `like`'s device.
pybind11::object WrapValue(Value value, const TorchTensor& like);
// In-place update of `x` (the Python object `object`) to `value` (x's dtype
// and shape), written back through views; returns `object`.
pybind11::object CommitInPlace(PyObject* object, const TorchTensor& x,
                               const XlaTensorPtr& value);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_FAST_RULE_UTIL_H_
