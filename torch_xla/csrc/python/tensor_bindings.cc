// _XLAC functions over lazy tensors: creation, IR ops, in-place updates,
// sync, reading values back and the debug dumps. Functions taking tensors
// accept the C++ handle (_XLAC.TensorHandle) or any object carrying one in
// `_xt` (the Python 'xla' tensor subclass).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/ir_dump.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/host_numbers.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/python/view_info.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/spmd/spmd_tensors.h"
#include "torch_xla/csrc/tensor/compiled_hlo.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/views.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {

absl::StatusOr<DType> DTypeFromCode(int64_t code) {
  if (code < 0 || code >= kNumDTypes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown element type code ", code, "; codes are 0..", kNumDTypes - 1,
        " (torch_xla._dtypes.to_code maps a torch dtype to its code)"));
  }
  return static_cast<DType>(code);
}

DType ToDType(int code) { return ValueOrThrow(DTypeFromCode(code)); }

OpKind ToOpKind(int kind) {
  if (kind < 0 || kind >= kNumOpKinds) {
    ThrowStatus(absl::InvalidArgumentError(
        absl::StrCat("unknown op kind ", kind,
                     "; get kinds by name with _XLAC._op_kind")));
  }
  return static_cast<OpKind>(kind);
}

absl::StatusOr<Shape> CheckedShape(DType dtype, std::vector<int64_t> dims) {
  Shape shape(dtype, std::move(dims));
  int64_t elements = 1;
  for (int64_t d : shape.dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad shape ", shape.ToString(), ": dimensions must be >= 0"));
    }
    if (d != 0 && elements > INT64_MAX / DTypeByteSize(dtype) / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad shape ", shape.ToString(), ": its byte size overflows int64"));
    }
    elements *= d;
  }
  return shape;
}

namespace {

// Python attribute values -> IR attributes. bool before int (bool is an
// int in Python); DType enum values stay dtypes.
absl::StatusOr<Attrs> ToAttrs(const py::dict& dict) {
  Attrs attrs;
  for (auto [key, value] : dict) {
    std::string name = py::cast<std::string>(key);
    const std::string what = "attribute '" + name + "'";
    if (py::isinstance<DType>(value)) {
      attrs.Set(name, py::cast<DType>(value));
    } else if (py::isinstance<py::bool_>(value)) {
      attrs.Set(name, py::cast<bool>(value));
    } else if (py::isinstance<py::int_>(value)) {
      TXLA_ASSIGN_OR_RETURN(int64_t i, ReadInt64(value, what));
      attrs.Set(name, i);
    } else if (py::isinstance<py::float_>(value)) {
      attrs.Set(name, py::cast<double>(value));
    } else if (py::isinstance<py::str>(value)) {
      attrs.Set(name, absl::string_view(py::cast<std::string>(value)));
    } else if (py::isinstance<py::sequence>(value)) {
      TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> list,
                            ReadInt64List(value, what));
      attrs.Set(name, list);
    } else {
      return WrongTypeError(absl::StrCat(
          what, " has unsupported type ",
          std::string(py::str(py::type::handle_of(value)))));
    }
  }
  return attrs;
}

std::vector<Value> OperandValues(const std::vector<XlaTensorPtr>& operands) {
  std::vector<Value> values;
  values.reserve(operands.size());
  for (const XlaTensorPtr& tensor : operands) {
    values.push_back(ValueOrThrow(tensor->GetIrValue()));
  }
  return values;
}

NodePtr BuildNode(OpKind kind, const py::list& operands,
                  const py::object& attrs) {
  std::vector<Value> values;
  values.reserve(operands.size());
  for (py::handle operand : operands) {
    values.push_back(ValueOrThrow(ToXlaTensor(operand)->GetIrValue()));
  }
  return ValueOrThrow(MakeNode(
      kind, std::move(values),
      attrs.is_none() ? Attrs()
                      : ValueOrThrow(ToAttrs(py::cast<py::dict>(attrs)))));
}

int DeviceOf(const py::list& operands, int device) {
  if (device >= 0 || operands.empty()) return device < 0 ? 0 : device;
  return ToXlaTensor(operands[0])->device();
}

// Live tensors on `device` ("xla:N"), or on every device for "".
std::vector<XlaTensorPtr> LiveTensorsOn(const std::string& device) {
  std::vector<XlaTensorPtr> live = LiveTensors();
  if (device.empty()) return live;
  int ordinal = -1;
  if (!absl::StartsWith(device, "xla:") ||
      !absl::SimpleAtoi(absl::string_view(device).substr(4), &ordinal) ||
      ordinal < 0) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        "device '", device, "' is not an XLA device; pass 'xla:N' or ''")));
  }
  std::vector<XlaTensorPtr> on_device;
  for (const XlaTensorPtr& tensor : live) {
    if (tensor->device() == ordinal) on_device.push_back(tensor);
  }
  return on_device;
}

}  // namespace

XlaTensorPtr HostFillTensor(py::handle value, std::vector<int64_t> dims,
                            int dtype, int device) {
  Shape shape = ValueOrThrow(CheckedShape(ToDType(dtype), std::move(dims)));
  HostNumber number = ValueOrThrow(ReadHostNumber(value, "fill value"));
  absl::StatusOr<std::shared_ptr<HostData>> element =
      MakeCheckedHostScalar(number, shape.dtype);
  if (!element.ok()) {
    ThrowStatus(WithContext(element.status(),
                            absl::StrCat("filling a tensor of shape ",
                                         shape.ToString(), ": ")));
  }
  return XlaTensor::FromData(MakeHostFill(**element, std::move(shape)),
                             device);
}

XlaTensorPtr HostBytesTensor(uintptr_t address, std::vector<int64_t> dims,
                             DType dtype, int device) {
  CheckDeviceExists(device);
  Shape shape = ValueOrThrow(CheckedShape(dtype, std::move(dims)));
  if (NumElements(shape.dims) == 0) {  // no bytes to send
    return XlaTensor::FromIr(
        ValueOrThrow(MakeLiteral(0, shape.dtype, shape.dims)), device);
  }
  absl::StatusOr<XlaTensorPtr> tensor;
  {
    py::gil_scoped_release release;
    tensor = TensorFromHost(reinterpret_cast<const void*>(address),
                            std::move(shape), device);
  }
  return ValueOrThrow(std::move(tensor));
}

void InitTensorBindings(py::module_& m) {
  py::enum_<DType> dtype(m, "DType");
  for (int i = 0; i < kNumDTypes; ++i) {
    DType value = static_cast<DType>(i);
    dtype.value(std::string(DTypeName(value)).c_str(), value);
  }

  // Exported as TensorHandle: the Python 'xla' tensor subclass is the one
  // named XlaTensor (torch_xla._tensor); this is the handle it holds.
  py::class_<XlaTensor, XlaTensorPtr>(m, "TensorHandle")
      .def_property_readonly("id", &XlaTensor::id)
      .def_property_readonly("alias_id", &XlaTensor::alias_id)
      .def_property_readonly("dims",
                             [](const XlaTensor& t) { return t.shape().dims; })
      .def_property_readonly(
          "dtype",
          [](const XlaTensor& t) { return static_cast<int>(t.shape().dtype); })
      .def_property_readonly(
          "shape", [](const XlaTensor& t) { return t.shape().ToString(); })
      .def_property_readonly("device", &XlaTensor::device)
      .def_property_readonly("version", &XlaTensor::version)
      .def_property_readonly("state",
                             [](const XlaTensor& t) {
                               return std::string(TensorStateName(t.state()));
                             })
      .def_property_readonly("data_id",
                             [](const XlaTensor& t) -> int64_t {
                               return t.data() == nullptr ? -1 : t.data()->id();
                             })
      // True for a placeholder or a value traced on one (it can be lowered,
      // never run: e.g. inside a scan body).
      .def_property_readonly("reads_placeholder",
                             [](const XlaTensor& t) {
                               return t.state() == TensorState::kPlaceholder ||
                                      (t.state() == TensorState::kIrValue &&
                                       t.ir_value().node->reads_placeholder());
                             })
      .def("__repr__", &XlaTensor::DebugString);

  m.def("_op_kind", [](const std::string& name) {
    return static_cast<int>(ValueOrThrow(OpKindFromName(name)));
  });
  m.def(
      "_op",
      [](int kind, const py::list& operands, const py::object& attrs,
         int device) {
        NodePtr node = BuildNode(ToOpKind(kind), operands, attrs);
        return XlaTensor::FromIr(Value(node, 0), DeviceOf(operands, device));
      },
      py::arg("kind"), py::arg("operands"), py::arg("attrs") = py::none(),
      py::arg("device") = -1,
      "Builds one IR node; returns a tensor for its (first) result.");
  m.def(
      "_op_wrapped",
      [](int kind, const py::list& operands, const py::object& attrs,
         int device) {
        NodePtr node = BuildNode(ToOpKind(kind), operands, attrs);
        return WrapTensor(
            XlaTensor::FromIr(Value(node, 0), DeviceOf(operands, device)));
      },
      py::arg("kind"), py::arg("operands"), py::arg("attrs") = py::none(),
      py::arg("device") = -1,
      "_op's node as a new 'xla' torch tensor (one call where a rule would "
      "call _op and then _wrap).");
  m.def(
      "_op_multi",
      [](int kind, const py::list& operands, const py::object& attrs,
         int device) {
        NodePtr node = BuildNode(ToOpKind(kind), operands, attrs);
        int target = DeviceOf(operands, device);
        std::vector<XlaTensorPtr> out;
        for (size_t i = 0; i < node->num_outputs(); ++i) {
          out.push_back(
              XlaTensor::FromIr(Value(node, static_cast<int>(i)), target));
        }
        return out;
      },
      py::arg("kind"), py::arg("operands"), py::arg("attrs") = py::none(),
      py::arg("device") = -1, "Builds one IR node; a tensor per result.");
  m.def(
      "_tensor_from_host",
      [](uintptr_t address, std::vector<int64_t> dims, int dtype, int device) {
        Shape shape =
            ValueOrThrow(CheckedShape(ToDType(dtype), std::move(dims)));
        py::gil_scoped_release release;
        return ValueOrThrow(TensorFromHost(
            reinterpret_cast<const void*>(address), std::move(shape), device));
      },
      py::arg("address"), py::arg("dims"), py::arg("dtype"),
      py::arg("device") = 0,
      "Copies contiguous host memory (kept alive by the caller) to a device "
      "(under SPMD: keeps a host copy on the virtual device).");
  // Eager's checked conversion (fill_, full, scalar_tensor): a value the
  // dtype cannot hold is an error, never garbage.
  auto checked_scalar = [](py::handle value, int dtype) {
    DType type = ToDType(dtype);
    HostNumber number = ValueOrThrow(ReadHostNumber(value, "scalar value"));
    return ValueOrThrow(MakeCheckedHostScalar(number, type));
  };
  m.def(
      "_tensor_scalar",
      [checked_scalar](py::handle value, int dtype, int device) {
        return XlaTensor::FromData(checked_scalar(value, dtype), device);
      },
      py::arg("value"), py::arg("dtype"), py::arg("device") = 0,
      "A scalar sent to the device only when a graph using it runs. A value "
      "the dtype cannot hold raises RuntimeError, as eager does.");
  m.def(
      "_check_scalar",
      [checked_scalar](py::handle value, int dtype) {
        checked_scalar(value, dtype);
      },
      py::arg("value"), py::arg("dtype"),
      "Raises eager's RuntimeError when `dtype` cannot hold the number "
      "`value` (masked_fill, where, clamp check their scalars with it).");
  m.def("_tensor_fill", &HostFillTensor, py::arg("value"), py::arg("dims"),
        py::arg("dtype"), py::arg("device") = 0,
        "`dims` filled with `value`: nothing is allocated or sent until a "
        "graph reading it runs (it is a parameter, so new values never "
        "recompile). A value the dtype cannot hold raises RuntimeError, as "
        "eager's fill_ does.");
  m.def(
      "_tensor_placeholder",
      [](std::vector<int64_t> dims, int dtype, int device) {
        return XlaTensor::FromData(
            MakePlaceholder(
                ValueOrThrow(CheckedShape(ToDType(dtype), std::move(dims)))),
            device);
      },
      py::arg("dims"), py::arg("dtype"), py::arg("device") = 0);
  m.def(
      "_tensor_to_host",
      [](py::handle tensor, uintptr_t address, int64_t nbytes) {
        XlaTensorPtr t = ToXlaTensor(tensor);
        py::gil_scoped_release release;
        ThrowIfError(TensorToHost(t, reinterpret_cast<void*>(address), nbytes));
      },
      py::arg("tensor"), py::arg("address"), py::arg("nbytes"));
  m.def(
      "_set_ir_value",
      [](py::handle destination, py::handle source, bool bump_version) {
        ThrowIfError(AssignValue(*ToXlaTensor(destination),
                                 *ToXlaTensor(source), bump_version));
      },
      py::arg("destination"), py::arg("source"), py::arg("bump_version") = true,
      "In-place update: `destination` takes `source`'s value and keeps its "
      "own tensor ID and alias ID. The version counts in-place updates "
      "(views of the tensor re-derive when it changes).");
  m.def(
      "_clone",
      [](py::handle source) {
        return ValueOrThrow(CloneTensor(*ToXlaTensor(source)));
      },
      "A new tensor (new tensor ID and alias ID) with the same value.");
  // Upstream's signature. `devices` changes nothing here (a tensor's device
  // is its own; synced tensors always hold device data), nor does
  // `sync_xla_data`: a subset sync never aliases in place. With the
  // buffer-donor config on it donates buffers marked with
  // _set_buffer_donation (tensor/donation.h).
  m.def(
      "_xla_sync_multi",
      [](const py::iterable& tensors, const py::object& /*devices*/, bool wait,
         bool /*sync_xla_data*/) {
        std::vector<XlaTensorPtr> list = ToXlaTensors(tensors);
        py::gil_scoped_release release;
        ThrowIfError(SyncTensors(list, /*donate_marked=*/true));
        if (wait) ThrowIfError(WaitForDevice());
      },
      py::arg("tensors"), py::arg("devices") = py::list(),
      py::arg("wait") = true, py::arg("sync_xla_data") = true);
  m.def(
      "_sync_for_read",
      [](const py::iterable& tensors) {
        std::vector<XlaTensorPtr> list = ToXlaTensors(tensors);
        py::gil_scoped_release release;
        ThrowIfError(SyncTensors(list));
      },
      py::arg("tensors"),
      "Computes the pending values of `tensors` in one execution that "
      "donates nothing (xm.save, CPU copies): reading never deletes a "
      "tensor, even one marked with _set_buffer_donation.");
  m.def(
      "_xla_sync_live_tensors",
      [](bool wait) {
        py::gil_scoped_release release;
        ThrowIfError(SyncLiveTensors());
        if (wait) ThrowIfError(WaitForDevice());
      },
      py::arg("wait") = false,
      "Enqueues the pending computation of every live tensor; with "
      "wait=True also waits for the device to finish it.");
  m.def(
      "_xla_wait_device_ops",
      [](const py::object& /*devices*/) {
        py::gil_scoped_release release;
        ThrowIfError(WaitForDevice());
      },
      py::arg("devices") = py::list(),
      "Waits for every enqueued execution; raises the first failure.");
  m.def("_get_xla_tensors_text", [](const py::iterable& tensors) {
    return DumpIrText(OperandValues(ToXlaTensors(tensors)));
  });
  m.def(
      "_get_xla_tensors_hlo",
      [](const py::iterable& tensors) {
        std::vector<XlaTensorPtr> list = ToXlaTensors(tensors);
        py::gil_scoped_release release;
        return ValueOrThrow(TensorsToCompiledHloText(list));
      },
      py::arg("tensors"),
      "The program XLA compiles for these tensors' pending graph, in XLA's "
      "HLO text (compiled, not run; no data moves). _get_stablehlo gives "
      "the StableHLO module it is compiled from.");
  m.def(
      "_get_stablehlo",
      [](const py::iterable& tensors, const std::string& device,
         const py::object& /*devices*/, bool emit_bytecode) {
        std::vector<XlaTensorPtr> list = ToXlaTensors(tensors);
        if (list.empty()) list = LiveTensorsOn(device);
        std::string text = ValueOrThrow(TensorsToHloText(list));
        // We keep no MLIR bytecode writer: the "bytecode" is the module's
        // text, which MLIR parsers also accept (as in stablehlo.py).
        (void)emit_bytecode;
        return py::bytes(text);
      },
      py::arg("tensors"), py::arg("device") = "",
      py::arg("devices") = py::list(), py::arg("emit_bytecode") = false,
      "The StableHLO module a sync of `tensors` would compile, as bytes "
      "(upstream's signature). No tensors: every live tensor on `device` "
      "('xla:N'; empty for all devices).");
  m.def(
      "_get_graph_hash",
      [](const py::iterable& tensors) {
        return ValueOrThrow(TensorsGraphHash(ToXlaTensors(tensors)));
      },
      py::arg("tensors"),
      "The hash a sync of `tensors` compiles under (graph, aliases, "
      "shardings); upstream's name.");
  m.def("_live_tensor_count", &LiveTensorCount);
  m.def("_compile_cache_size", &CompileCacheSize);
  m.def("_clear_compile_cache", &ClearCompileCache);
}

}  // namespace torch_xla::python
