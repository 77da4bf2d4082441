// The one C++ entry of 'xla' tensors' __torch_dispatch__: torch_xla/_tensor.py
// binds _XLAC._torch_dispatch as XlaTensor.__torch_dispatch__. For an ATen
// op it runs, in order:
//   1. the op's C++ fast rule, when it has one and the rule accepts the call
//      (fast_rule_util.h states the rules' contract);
//   2. the op's Python rule from the registry's table (torch_xla/_ops);
//   3. the registry's dispatch(func, args, kwargs): out= variants,
//      decompositions, CPU fallback.
// torch_xla._ops hands its table and dispatch function over once, with
// _XLAC._register_dispatch, naming the overloads whose fast rules to use
// (none with TORCH_XLA_FAST_RULES=0).

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/fast_rule_util.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/execution_scope.h"
#include "torch_xla/csrc/tensor/graph_executor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

const FastRuleTable& AllFastRules() {
  static const FastRuleTable* table = [] {
    auto* rules = new FastRuleTable();
    AddViewFastRules(rules);
    AddMathFastRules(rules);
    AddNnFastRules(rules);
    return rules;
  }();
  return *table;
}

// A fast rule in use for one OpOverload, and how many calls it handled (it
// declined the rest to the Python rule).
struct InstalledRule {
  FastRule rule;
  std::string name;
  int64_t hits = 0;
};

// What _register_dispatch handed over. OpOverload keys are held (inc_ref)
// for the life of the process.
struct Registry {
  bool registered = false;
  bool fast_rules_enabled = true;
  py::dict rules;       // OpOverload -> Python rule
  py::object dispatch;  // dispatch(func, args, kwargs)
  std::unordered_map<PyObject*, InstalledRule> fast;
  // Calls that went to Python (the op's rule or the registry's dispatch).
  std::unordered_map<PyObject*, int64_t> python_calls;
};

Registry& GetRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

absl::Status Register(py::dict rules, py::object dispatch,
                      const py::dict& fast_rules) {
  Registry& registry = GetRegistry();
  if (registry.registered) {
    return absl::FailedPreconditionError(
        "_register_dispatch: an op registry is already registered (torch_xla."
        "_ops registers it once at import)");
  }
  std::unordered_map<PyObject*, InstalledRule> fast;
  std::vector<std::string> unknown, without_python_rule;
  for (auto [name_object, overload] : fast_rules) {
    const std::string name = py::cast<std::string>(name_object);
    const FastRule* rule = nullptr;
    for (const auto& [row_name, row_rule] : AllFastRules()) {
      if (name == row_name) rule = &row_rule;
    }
    if (rule == nullptr) {
      unknown.push_back(name);
      continue;
    }
    if (!rules.contains(overload)) without_python_rule.push_back(name);
    fast[overload.ptr()] = InstalledRule{*rule, name};
  }
  if (!unknown.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "_register_dispatch: no C++ fast rule for ",
        absl::StrJoin(unknown, ", "), "; _XLAC._fast_rule_names() lists them"));
  }
  if (!without_python_rule.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "_register_dispatch: fast rules without a Python rule: ",
        absl::StrJoin(without_python_rule, ", "),
        "; every fast rule declines unusual calls to the op's Python rule, "
        "so register one with @op"));
  }
  for (auto& [overload, installed] : fast) Py_INCREF(overload);
  registry.fast = std::move(fast);
  registry.rules = std::move(rules);
  registry.dispatch = std::move(dispatch);
  registry.registered = true;
  return absl::OkStatus();
}

// __torch_dispatch__(cls, func, types, args=(), kwargs=None)
py::object TorchDispatch(py::handle /*cls*/, py::handle func,
                         py::handle /*types*/, py::handle args,
                         py::handle kwargs) {
  Registry& registry = GetRegistry();
  if (!registry.registered) {
    ThrowStatus(absl::FailedPreconditionError(absl::StrCat(
        "no op registry: ", py::str(func).cast<std::string>(),
        " reached an 'xla' tensor before torch_xla._ops registered its rules "
        "(import torch_xla first)")));
  }
  if (!PyTuple_Check(args.ptr())) {
    ThrowStatus(absl::InvalidArgumentError(
        "__torch_dispatch__: args must be a tuple"));
  }
  PyObject* keywords = nullptr;  // null: no keyword arguments
  if (PyDict_Check(kwargs.ptr())) {
    if (PyDict_GET_SIZE(kwargs.ptr()) > 0) keywords = kwargs.ptr();
  } else if (!kwargs.is_none()) {
    ThrowStatus(absl::InvalidArgumentError(
        "__torch_dispatch__: kwargs must be a dict or None"));
  }
  if (registry.fast_rules_enabled) {
    auto it = registry.fast.find(func.ptr());
    if (it != registry.fast.end()) {
      py::object result = ValueOrThrow(
          it->second.rule(&PyTuple_GET_ITEM(args.ptr(), 0),
                          PyTuple_GET_SIZE(args.ptr()), keywords));
      if (result) {
        ++it->second.hits;
        return result;
      }
    }
  }
  auto [count, inserted] =
      registry.python_calls.try_emplace(func.ptr(), int64_t{0});
  if (inserted) Py_INCREF(func.ptr());
  ++count->second;
  PyObject* rule = PyDict_GetItem(registry.rules.ptr(), func.ptr());  // borrowed
  if (rule != nullptr) {
    PyObject* result = PyObject_Call(rule, args.ptr(), keywords);
    if (result == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(result);
  }
  py::object keyword_dict = keywords == nullptr
                                ? py::dict()
                                : py::reinterpret_borrow<py::object>(keywords);
  return registry.dispatch(func, args, keyword_dict);
}

// The calling thread's execution scope (tensor/execution_scope.h), set by
// torch_xla.compile and eager mode (torch_xla/experimental/eager.py).
void InitExecutionScopeBindings(py::module_& m) {
  m.def(
      "_set_allow_execution",
      [](bool allow, const std::string& message) {
        CurrentExecutionScope().refuse_execution =
            allow ? ""
                  : (message.empty() ? "Unexpected execution happens inside "
                                       "the compiled function, exiting"
                                     : message);
      },
      py::arg("allow"), py::arg("message") = "",
      "allow=False: every graph execution on this thread raises "
      "RuntimeError(message) until allowed again.");
  m.def("_get_allow_execution", [] {
    return CurrentExecutionScope().refuse_execution.empty();
  });
  m.def(
      "_set_current_graph_name",
      [](const std::string& name) {
        CurrentExecutionScope().graph_name = name;
      },
      py::arg("name"),
      "Names the graphs this thread runs ('' for the default): module "
      "name, dump file name, CompileTime.<name>/ExecuteTime.<name>.");
  m.def("_get_current_graph_name",
        [] { return CurrentExecutionScope().graph_name; });
  m.def(
      "_set_graph_limit",
      [](int64_t max_graphs, const std::vector<std::string>& seen) {
        auto limit = std::make_shared<GraphLimit>();
        limit->max_graphs = max_graphs;
        limit->seen.insert(seen.begin(), seen.end());
        CurrentExecutionScope().limit = std::move(limit);
      },
      py::arg("max_graphs"), py::arg("seen"),
      "Until _take_graph_limit: a graph whose key is not in `seen` raises "
      "once `seen` holds max_graphs keys (else it joins `seen`).");
  m.def(
      "_take_graph_limit",
      [] {
        std::vector<std::string> seen;
        std::shared_ptr<GraphLimit> limit =
            std::move(CurrentExecutionScope().limit);
        CurrentExecutionScope().limit = nullptr;
        if (limit != nullptr) {
          seen.assign(limit->seen.begin(), limit->seen.end());
        }
        return seen;
      },
      "Ends the graph limit; returns the keys seen.");
  m.def(
      "_xla_eager_sync",
      [](const py::iterable& tensors) {
        std::vector<XlaTensorPtr> list = ToXlaTensors(tensors);
        py::gil_scoped_release release;
        ExecutionScope& scope = CurrentExecutionScope();
        scope.eager_op = true;
        absl::Status status = SyncTensors(list);
        scope.eager_op = false;
        ThrowIfError(status);
      },
      py::arg("tensors"),
      "Eager mode: runs the pending value of these tensors (one op's "
      "outputs) as one graph, timed as EagerOpCompileTime/"
      "EagerOpExecuteTime.");
}

}  // namespace

void InitDispatchBindings(py::module_& m) {
  InitExecutionScopeBindings(m);
  m.def("_torch_dispatch", &TorchDispatch, py::arg("cls"), py::arg("func"),
        py::arg("types"), py::arg("args") = py::tuple(),
        py::arg("kwargs") = py::none(),
        "XlaTensor.__torch_dispatch__: the op's C++ fast rule when one "
        "applies, else its Python rule, else the registry's dispatch.");
  m.def(
      "_register_dispatch",
      [](py::dict rules, py::object dispatch, const py::dict& fast_rules) {
        ThrowIfError(Register(std::move(rules), std::move(dispatch),
                              fast_rules));
      },
      py::arg("rules"), py::arg("dispatch"), py::arg("fast_rules"),
      "Hands the op registry to the dispatch entry, once: `rules` "
      "{OpOverload: rule}, `dispatch(func, args, kwargs)` for ops without "
      "a rule, `fast_rules` {qualified name: OpOverload} whose C++ fast "
      "rules to use (each must have a Python rule too).");
  m.def(
      "_set_fast_rules_enabled",
      [](bool enabled) {
        bool previous = GetRegistry().fast_rules_enabled;
        GetRegistry().fast_rules_enabled = enabled;
        return previous;
      },
      py::arg("enabled"),
      "Turns the registered fast rules on or off (tests compare the two "
      "paths); returns the previous setting.");
  m.def(
      "_fast_rule_names",
      [] {
        std::vector<std::string> names;
        for (const auto& [name, rule] : AllFastRules()) names.push_back(name);
        return names;
      },
      "Qualified overload names (aten::add.Tensor) with a C++ fast rule.");
  m.def(
      "_fast_rule_hits",
      [] {
        std::map<std::string, int64_t> hits;
        for (const auto& [overload, installed] : GetRegistry().fast) {
          hits[installed.name] += installed.hits;
        }
        return hits;
      },
      "{qualified name: calls its registered fast rule handled} (calls it "
      "declined went to the Python rule and are not counted).");
  m.def(
      "_python_dispatch_calls",
      [] {
        py::dict calls;
        for (const auto& [func, count] : GetRegistry().python_calls) {
          calls[py::handle(func)] = count;
        }
        return calls;
      },
      "{OpOverload: calls the dispatch entry sent to Python (the op's "
      "Python rule, or the registry's dispatch when it has none)}.");
}

}  // namespace torch_xla::python
