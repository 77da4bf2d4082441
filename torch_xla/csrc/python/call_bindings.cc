// _XLAC functions for trace-once calls (torch_xla/experimental/
// assume_pure.py, torch_xla/_dynamo): the checks a trace runs to catch
// impure functions (which live tensors a trace wrote to) and graph sizes.
// The call node itself (`_call`) is made in staging_bindings.cc, beside the
// sub-graph type it takes.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// A token that changes whenever the tensor gets a new value (in-place op,
// new data).
int64_t ValueToken(const XlaTensor& t) {
  const Value& v = t.ir_value();
  return static_cast<int64_t>(absl::HashOf(
      reinterpret_cast<uintptr_t>(v.node.get()), v.index,
      reinterpret_cast<uintptr_t>(t.data().get()), t.version()));
}

}  // namespace

void InitCallBindings(py::module_& m) {
  m.def(
      "_live_tensor_tokens",
      []() {
        std::vector<std::pair<int64_t, int64_t>> out;
        for (const XlaTensorPtr& t : LiveTensors()) {
          out.emplace_back(t->id(), ValueToken(*t));
        }
        return out;
      },
      "(tensor id, value token) of every live tensor; a token changes when "
      "the tensor gets a new value.");
  m.def(
      "_ir_node_count",
      [](const py::iterable& tensors) {
        std::vector<Value> roots;
        for (const XlaTensorPtr& t : ToXlaTensors(tensors)) {
          if (t->ir_value()) roots.push_back(t->ir_value());
        }
        return static_cast<int64_t>(ComputePostOrder(roots).nodes.size());
      },
      "The number of IR nodes the pending values of `tensors` reach (call "
      "and while bodies count as one node).");
}

}  // namespace torch_xla::python
