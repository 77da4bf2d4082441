// _XLAC functions for staging traced loop bodies out into While loops
// (torch_xla/experimental: scan, scan_layers, gradient_accumulation): graph
// rewrites, the invariant/residual analysis, sub-graphs and the while node.
// Tensors in and out are C++ handles (or objects carrying one in `_xt`);
// variables are named by the data ids their placeholders had when traced.

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/replace_values.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/host_numbers.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/rewrites/loop_partition.h"
#include "torch_xla/csrc/tensor/host_constants.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

struct Values {
  std::vector<Value> values;
  int device = 0;
};

Values ToValues(const py::iterable& tensors) {
  Values out;
  bool first = true;
  for (const XlaTensorPtr& t : ToXlaTensors(tensors)) {
    out.values.push_back(ValueOrThrow(t->GetIrValue()));
    if (first) out.device = t->device();
    first = false;
  }
  return out;
}

std::vector<XlaTensorPtr> ToTensors(const std::vector<Value>& values,
                                    int device) {
  std::vector<XlaTensorPtr> out;
  out.reserve(values.size());
  for (const Value& v : values) out.push_back(XlaTensor::FromIr(v, device));
  return out;
}

// Python's handle on an immutable sub-graph (pybind11 cannot hold a
// shared_ptr to const).
struct PySubGraph {
  SubGraphPtr graph;
};

DataIdSet ToIdSet(const std::vector<int64_t>& ids) {
  return DataIdSet(ids.begin(), ids.end());
}

// See _HandleList below.
struct HandleList {
  std::vector<XlaTensorPtr> tensors;
};

std::vector<XlaTensorPtr> Call(const PySubGraph& fn,
                               const py::iterable& operands) {
  std::vector<Value> values;
  int device = -1;
  auto add = [&](const XlaTensorPtr& t) {
    values.push_back(ValueOrThrow(t->GetIrValue()));
    if (device < 0) device = t->device();
  };
  for (py::handle operand : operands) {
    if (py::isinstance<HandleList>(operand)) {
      for (const XlaTensorPtr& t : operand.cast<const HandleList&>().tensors) {
        add(t);
      }
    } else {
      add(ToXlaTensor(operand));
    }
  }
  NodePtr node = ValueOrThrow(
      MakeNode(OpKind::kCall, std::move(values), Attrs().Set("fn", fn.graph)));
  std::vector<XlaTensorPtr> out;
  out.reserve(node->num_outputs());
  for (size_t i = 0; i < node->num_outputs(); ++i) {
    out.push_back(XlaTensor::FromIr(Value(node, static_cast<int>(i)),
                                    std::max(device, 0)));
  }
  return out;
}

// The part of a staged call's cache key its tensors make (see
// torch_xla/experimental/assume_pure.py): (device, bytes of each tensor's
// dtype, requires_grad and dims), or None when one is not an 'xla' tensor
// or they span devices (the caller then names the fault). One crossing
// instead of three Python attribute reads per tensor.
py::object CallSignature(const py::sequence& tensors) {
  static PyObject* const requires_grad =
      PyUnicode_InternFromString("requires_grad");
  std::string key;
  int device = 0;
  const size_t n = tensors.size();
  key.reserve(n * (3 + 4 * sizeof(int64_t)));
  for (size_t i = 0; i < n; ++i) {
    py::object object = tensors[i];
    TorchTensor t;
    if (!ReadTorchTensor(object.ptr(), &t)) return py::none();
    const XlaTensorPtr& handle = CurrentHandle(t);
    if (i == 0) {
      device = handle->device();
    } else if (handle->device() != device) {
      return py::none();
    }
    py::object grad =
        py::reinterpret_steal<py::object>(PyObject_GetAttr(object.ptr(),
                                                            requires_grad));
    if (!grad) throw py::error_already_set();
    const Shape& shape = handle->shape();
    key.push_back(static_cast<char>(shape.dtype));
    key.push_back(grad.ptr() == Py_True ? 1 : 0);
    key.push_back(static_cast<char>(shape.dims.size()));
    key.append(reinterpret_cast<const char*>(shape.dims.data()),
               shape.dims.size() * sizeof(int64_t));
  }
  return py::make_tuple(device, py::bytes(key));
}

// A staged call's replay in one crossing (assume_pure's steady calls,
// torch_xla/experimental/assume_pure.py): reads the operands, makes the
// call node, writes the results the call writes in place into their
// inputs, and wraps fn's results as 'xla' torch tensors. What Python did
// per tensor (read a handle, wrap a result, commit a write) is one loop
// here.
//
// `operands`: 'xla' torch tensors, bare handles or _HandleLists (standing
// for their handles, in order). Results [0, keep) come back as new torch
// tensors; result keep + k is written in place into operands[writes[k]]
// (a torch tensor; a view writes back into its root), as `commit` does.
// With `split`, the results after those come back as one _HandleList
// (residuals); without it, there must be none. `save`: operand positions
// whose values from before the writes come back as one _HandleList
// (clones: new tensors over the same value).
py::tuple StagedCall(const PySubGraph& fn, const py::sequence& operands,
                     size_t keep, const std::vector<size_t>& writes,
                     bool split, const std::vector<size_t>& save) {
  const size_t n = operands.size();
  std::vector<Value> values;
  values.reserve(n);
  std::vector<TorchTensor> read(n);  // a torch tensor operand's handle/view
  int device = -1;
  auto add = [&](const XlaTensorPtr& t) {
    values.push_back(ValueOrThrow(t->GetIrValue()));
    if (device < 0) device = t->device();
  };
  for (size_t i = 0; i < n; ++i) {
    py::object item = operands[i];
    if (ReadTorchTensor(item.ptr(), &read[i])) {
      add(CurrentHandle(read[i]));
    } else if (py::isinstance<HandleList>(item)) {
      for (const XlaTensorPtr& t : item.cast<const HandleList&>().tensors) {
        add(t);
      }
    } else {
      read[i].handle = ToXlaTensor(item);
      add(read[i].handle);
    }
  }
  auto position = [&](size_t i, const char* what) -> TorchTensor& {
    if (i >= n || read[i].handle == nullptr) {
      throw py::value_error(absl::StrCat(
          "_staged_call: ", what, " index ", i, " is not a tensor operand (",
          n, " operands)"));
    }
    return read[i];
  };
  auto saved = std::make_shared<HandleList>();
  for (size_t i : save) {
    saved->tensors.push_back(
        ValueOrThrow(CloneTensor(*position(i, "save").handle)));
  }
  NodePtr node = ValueOrThrow(
      MakeNode(OpKind::kCall, std::move(values), Attrs().Set("fn", fn.graph)));
  const size_t total = node->num_outputs();
  const size_t used = keep + writes.size();
  if (used > total || (!split && used != total)) {
    throw py::value_error(absl::StrCat(
        "_staged_call: the call has ", total, " results, but keep=", keep,
        " and ", writes.size(), " writes", split ? "" : " (and no split)",
        " account for ", used));
  }
  device = std::max(device, 0);
  auto result = [&](size_t k) {
    return XlaTensor::FromIr(Value(node, static_cast<int>(k)), device);
  };
  py::list outputs(keep);
  for (size_t k = 0; k < keep; ++k) {
    outputs[k] = WrapTensor(result(k));
  }
  for (size_t k = 0; k < writes.size(); ++k) {
    TorchTensor& t = position(writes[k], "writes");
    XlaTensorPtr value = result(keep + k);
    ThrowIfError(t.view != nullptr ? CommitView(*t.handle, *t.view, value)
                                   : AssignValue(*t.handle, *value, true));
  }
  py::object rest = py::none();
  if (split) {
    auto list = std::make_shared<HandleList>();
    list->tensors.reserve(total - used);
    for (size_t k = used; k < total; ++k) list->tensors.push_back(result(k));
    rest = py::cast(list);
  }
  return py::make_tuple(outputs, rest,
                        save.empty() ? py::none() : py::cast(saved));
}

}  // namespace

void InitStagingBindings(py::module_& m) {
  m.def("_call_signature", &CallSignature, py::arg("tensors"),
        "(device, key) of a staged call's tensors (dtype, requires_grad and "
        "dims of each), or None when one is not an 'xla' tensor or they "
        "span devices.");
  py::class_<PySubGraph>(m, "SubGraph")
      .def_property_readonly(
          "signature",
          [](const PySubGraph& g) { return g.graph->SignatureString(); })
      .def_property_readonly("hash",
                             [](const PySubGraph& g) { return g.graph->hash(); })
      .def("__repr__", [](const PySubGraph& g) {
        return "SubGraph" + g.graph->SignatureString();
      });

  m.def(
      "_subgraph",
      [](const py::iterable& parameters, const py::iterable& results) {
        std::vector<DataPtr> data;
        for (const XlaTensorPtr& p : ToXlaTensors(parameters)) {
          if (p->data() == nullptr || p->data()->kind() != DataKind::kPlaceholder) {
            ThrowStatus(absl::InvalidArgumentError(
                "_subgraph: parameters must be placeholder tensors, got " +
                p->DebugString()));
          }
          data.push_back(p->data());
        }
        std::vector<Value> values =
            ValueOrThrow(InlineHostData(ToValues(results).values));
        return PySubGraph{ValueOrThrow(
            SubGraph::CreateFromDataLeaves(data, std::move(values)))};
      },
      py::arg("parameters"), py::arg("results"),
      "A closed sub-graph of `results` whose parameters are these "
      "placeholders (host scalars and fills become constants).");
  m.def(
      "_while",
      [](const PySubGraph& cond, const PySubGraph& body,
         const py::iterable& operands) {
        Values in = ToValues(operands);
        NodePtr node = ValueOrThrow(
            MakeNode(OpKind::kWhile, std::move(in.values),
                     Attrs().Set("cond", cond.graph).Set("body", body.graph)));
        std::vector<Value> results;
        for (size_t i = 0; i < node->num_outputs(); ++i) {
          results.emplace_back(node, static_cast<int>(i));
        }
        return ToTensors(results, in.device);
      },
      py::arg("cond"), py::arg("body"), py::arg("operands"),
      "A while loop over the carried `operands`; a tensor per result.");
  m.def(
      "_replace",
      [](const py::iterable& roots, const py::list& from,
         const py::iterable& to) {
        Values r = ToValues(roots), t = ToValues(to);
        if (from.size() != t.values.size()) {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "_replace: `from` has ", from.size(), " entries and `to` ",
              t.values.size(), "; pass one replacement per entry")));
        }
        Replacements replacements;
        for (size_t i = 0; i < from.size(); ++i) {
          if (py::isinstance<py::int_>(from[i])) {
            replacements.AddData(
                ValueOrThrow(ReadInt64(from[i], "_replace: data id")),
                t.values[i]);
          } else {
            ThrowIfError(replacements.Add(
                ValueOrThrow(ToXlaTensor(from[i])->GetIrValue()),
                t.values[i]));
          }
        }
        return ToTensors(ValueOrThrow(ReplaceValues(r.values, replacements)),
                         r.device);
      },
      py::arg("roots"), py::arg("from"), py::arg("to"),
      "The values of `roots` with each value of `from` (a tensor, or an int: "
      "every leaf of the data with that id) replaced by the one of `to` at "
      "the same position.");
  m.def(
      "_inline_host_data",
      [](const py::iterable& roots) {
        Values r = ToValues(roots);
        return ToTensors(ValueOrThrow(InlineHostData(r.values)), r.device);
      },
      "The values of `roots` with host scalars and fills as constants.");
  m.def(
      "_leaf_data_id",
      [](py::handle tensor) -> int64_t {
        XlaTensorPtr t = ToXlaTensor(tensor);
        if (t->data() != nullptr) return t->data()->id();
        const Value& v = t->ir_value();
        return v && v.node->data() != nullptr ? v.node->data()->id() : -1;
      },
      "The id of the data a tensor's value is a leaf of (-1: none).");
  m.def(
      "_loop_invariants",
      [](const py::iterable& roots, const std::vector<int64_t>& variables) {
        Values r = ToValues(roots);
        return ToTensors(LoopInvariants(r.values, ToIdSet(variables)),
                         r.device);
      },
      py::arg("roots"), py::arg("variables"));
  m.def(
      "_saved_for_backward",
      [](const py::iterable& roots, const std::vector<int64_t>& primals,
         const std::vector<int64_t>& available,
         const std::vector<int64_t>& tangents, bool rematerialize,
         const py::iterable& forward_roots) {
        Values r = ToValues(roots);
        Values forward = ToValues(forward_roots);
        return ToTensors(
            SavedForBackward(r.values, ToIdSet(primals), ToIdSet(available),
                             ToIdSet(tangents), rematerialize, forward.values),
            r.device);
      },
      py::arg("roots"), py::arg("primals"), py::arg("available"),
      py::arg("tangents"), py::arg("rematerialize"),
      py::arg("forward_roots") = py::list());
  m.def(
      "_trace_key",
      [](const py::iterable& roots, const std::vector<int64_t>& variables) {
        return TraceKey(ToValues(roots).values, variables);
      },
      py::arg("roots"), py::arg("variables"));
  // Trace-once calls (assume_pure, torch.compile).
  py::class_<HandleList, std::shared_ptr<HandleList>>(
      m, "_HandleList",
      "Handles kept together in C++ (a staged call's residuals): one Python "
      "object for hundreds of them. An operand of _call stands for its "
      "handles, in order.")
      .def("__len__",
           [](const HandleList& list) { return list.tensors.size(); });
  m.def(
      "_call",
      [](const PySubGraph& fn, const py::iterable& operands) {
        return Call(fn, operands);
      },
      py::arg("fn"), py::arg("operands"),
      "One call node applying the sub-graph `fn` to `operands` (tensors, or "
      "_HandleLists standing for theirs); a tensor per result.");
  m.def(
      "_call_split",
      [](const PySubGraph& fn, const py::iterable& operands, size_t keep) {
        std::vector<XlaTensorPtr> out = Call(fn, operands);
        if (keep > out.size()) {
          throw py::value_error(absl::StrCat("_call_split: keep=", keep,
                                             " but the call has ",
                                             out.size(), " results"));
        }
        auto rest = std::make_shared<HandleList>();
        rest->tensors.assign(out.begin() + keep, out.end());
        out.resize(keep);
        return py::make_tuple(py::cast(out), py::cast(rest));
      },
      py::arg("fn"), py::arg("operands"), py::arg("keep"),
      "_call, with the results after the first `keep` in one _HandleList.");
  m.def("_staged_call", &StagedCall, py::arg("fn"), py::arg("operands"),
        py::arg("keep"), py::arg("writes"), py::arg("split"),
        py::arg("save"),
        "A staged call in one crossing: (fn's first `keep` results as 'xla' "
        "torch tensors, the rest as a _HandleList when `split` else None, "
        "the clones of the operands at `save` from before the writes as a "
        "_HandleList or None); results keep + k are written in place into "
        "operands[writes[k]] (see StagedCall).");
}

}  // namespace torch_xla::python
