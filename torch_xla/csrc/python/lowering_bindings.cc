// _XLAC.lowering.LoweringContext, placeholders and buffer-donation controls:
// staging computations out without running them or touching the device.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/data.h"
#include "torch_xla/csrc/lowering/lowering_context.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/python/host_numbers.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// Shape from "bf16[2,3]", a list of ints (f32), or an object with `dims`
// (list) and `dtype` (a torch dtype or a core dtype code).
absl::StatusOr<Shape> ParseShape(py::handle shape) {
  if (py::isinstance<py::str>(shape)) {
    std::string text = shape.cast<std::string>();
    size_t open = text.find('[');
    if (open == std::string::npos || text.back() != ']') {
      return absl::InvalidArgumentError("bad shape '" + text +
                                        "': expected e.g. 'f32[2,3]'");
    }
    TXLA_ASSIGN_OR_RETURN(DType dtype, DTypeFromName(text.substr(0, open)));
    std::vector<int64_t> dims;
    std::string inner = text.substr(open + 1, text.size() - open - 2);
    size_t start = 0;
    while (start < inner.size()) {
      size_t comma = inner.find(',', start);
      if (comma == std::string::npos) comma = inner.size();
      int64_t dim = 0;
      if (!absl::SimpleAtoi(inner.substr(start, comma - start), &dim)) {
        return absl::InvalidArgumentError(
            "bad shape '" + text + "': dimension '" +
            inner.substr(start, comma - start) +
            "' is not an integer (or does not fit in int64)");
      }
      dims.push_back(dim);
      start = comma + 1;
    }
    return CheckedShape(dtype, std::move(dims));
  }
  if (py::hasattr(shape, "dims") && py::hasattr(shape, "dtype")) {
    py::object dtype = shape.attr("dtype");
    DType type;
    if (py::isinstance<py::int_>(dtype)) {
      TXLA_ASSIGN_OR_RETURN(int64_t code, ReadInt64(dtype, "shape dtype code"));
      TXLA_ASSIGN_OR_RETURN(type, DTypeFromCode(code));
    } else if (!ReadDType(dtype.ptr(), &type)) {
      return absl::InvalidArgumentError(
          "bad shape: dtype " + py::str(dtype).cast<std::string>() +
          " is not supported on the XLA device (see _XLAC._dtype_names())");
    }
    TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          ReadInt64List(shape.attr("dims"), "shape dims"));
    return CheckedShape(type, std::move(dims));
  }
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                        ReadInt64List(shape, "shape"));
  return CheckedShape(DType::kF32, std::move(dims));
}

// A new tensor over existing data, on the data's device: no transfer.
XlaTensorPtr TensorForData(const DataPtr& data) {
  int device = data->kind() == DataKind::kDevice
                   ? static_cast<const DeviceData*>(data.get())->device_ordinal()
                   : 0;
  return XlaTensor::FromData(data, device);
}

// Python view of a LoweringContext built from tensors.
class PyLoweringContext {
 public:
  explicit PyLoweringContext(std::string name)
      : name_(std::move(name)), context_(name_) {}

  void Build(const py::iterable& tensors) {
    std::vector<Value> results;
    for (const XlaTensorPtr& tensor : ToXlaTensors(tensors)) {
      results.push_back(ValueOrThrow(tensor->GetIrValue()));
    }
    ThrowIfError(context_.Build(results));
    built_ = true;
  }

  std::string HloText() const {
    ThrowIfError(CheckBuilt());
    return ValueOrThrow(context_.HloText());
  }

  // {parameter index: CPU tensor}: copies of the parameters that have data.
  py::dict ParameterIdTensorMapping() const {
    ThrowIfError(CheckBuilt());
    py::dict out;
    const auto& parameters = context_.parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (parameters[i]->kind() == DataKind::kPlaceholder) continue;
      out[py::int_(i)] = ToHostTensor(TensorForData(parameters[i]));
    }
    return out;
  }

  // {parameter index: xla tensor} backed by the very same data: no
  // transfer, no copy (and, for sharded data, no gathering).
  py::dict DeviceParameterIdTensorMapping() const {
    ThrowIfError(CheckBuilt());
    py::dict out;
    const auto& parameters = context_.parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (parameters[i]->kind() == DataKind::kPlaceholder) continue;
      out[py::int_(i)] = WrapTensor(TensorForData(parameters[i]));
    }
    return out;
  }

  int64_t TensorParameterId(py::handle tensor) const {
    ThrowIfError(CheckBuilt());
    XlaTensorPtr t = ToXlaTensor(tensor);
    if (t->data() == nullptr) return -1;
    return context_.ParameterIndex(t->data()->id());
  }

  const std::string& name() const { return name_; }

 private:
  absl::Status CheckBuilt() const {
    if (built_) return absl::OkStatus();
    return absl::FailedPreconditionError("LoweringContext '" + name_ +
                                         "': call build(tensors) first");
  }

  std::string name_;
  LoweringContext context_;
  bool built_ = false;
};

}  // namespace

void InitLoweringBindings(py::module_& m) {
  py::module_ lowering = m.def_submodule("lowering", "Lowering contexts");
  py::class_<PyLoweringContext>(lowering, "LoweringContext")
      .def(py::init<std::string>(), py::arg("name") = "LoweringContext")
      .def("build", &PyLoweringContext::Build, py::arg("tensors"),
           "Lowers the IR of these tensors into one module; runs nothing, "
           "transfers nothing.")
      .def("hlo_text", &PyLoweringContext::HloText)
      .def("parameter_id_tensor_mapping",
           &PyLoweringContext::ParameterIdTensorMapping)
      .def("device_parameter_id_tensor_mapping",
           &PyLoweringContext::DeviceParameterIdTensorMapping)
      .def("tensor_parameter_id", &PyLoweringContext::TensorParameterId)
      .def("get_name_string", &PyLoweringContext::name);

  m.def(
      "_xla_create_placeholder_tensor",
      [](py::handle shape, int device) {
        return WrapTensor(XlaTensor::FromData(
            MakePlaceholder(ValueOrThrow(ParseShape(shape))), device));
      },
      py::arg("shape"), py::arg("device") = 0,
      "A tensor with shape and dtype but no data: it lowers to a parameter "
      "and never allocates; reading it is an error.");
  // Upstream's name and spelling (its tests and torch_xla code call it).
  m.def(
      "_is_placecholder",
      [](py::handle tensor) {
        TensorState state = ToXlaTensor(tensor)->state();
        return state == TensorState::kPlaceholder ||
               state == TensorState::kDeleted;
      },
      py::arg("tensor"),
      "Whether the tensor holds no data: a placeholder, or donated.");
  m.def("_get_tensors_handle", [](const py::iterable& tensors) {
    std::vector<int64_t> handles;
    for (const XlaTensorPtr& t : ToXlaTensors(tensors)) {
      if (t->state() == TensorState::kDeleted) {
        ThrowStatus(absl::FailedPreconditionError(absl::StrCat(
            "tensor ", t->id(), " is deleted (its buffer was donated); it "
            "has no handle")));
      }
      if (t->data() == nullptr) {
        ThrowStatus(absl::FailedPreconditionError(absl::StrCat(
            "tensor ", t->id(), " has pending IR and no data handle yet; "
            "call torch_xla.sync() first")));
      }
      handles.push_back(t->data()->id());
    }
    return handles;
  });

  m.def("_set_buffer_donation", [](py::handle tensor, bool donate) {
    XlaTensorPtr t = ToXlaTensor(tensor);
    if (donate && t->state() != TensorState::kDeviceData) {
      ThrowStatus(absl::FailedPreconditionError(absl::StrCat(
          "_set_buffer_donation: tensor ", t->id(), " is a ",
          TensorStateName(t->state()), ", not device data; only a tensor "
          "holding a device buffer can donate it (sync first)")));
    }
    // Upstream's counter: how many times a tensor was marked as a donor.
    static metrics::Counter* marked = metrics::GetCounter("XlaSetBufferDonation");
    if (donate) marked->Add(1);
    t->set_buffer_donation(donate);
    return true;
  });
  m.def("_get_buffer_donation", [](py::handle tensor) {
    return ToXlaTensor(tensor)->buffer_donation();
  });
  m.def("_xla_set_enable_alias_with_buffer_donor_config",
        &SetEnableBufferDonorAliasing);
  m.def("_xla_get_enable_alias_with_buffer_donor_config",
        &GetEnableBufferDonorAliasing);
  m.def("_get_xla_tensor_debug_info", [](py::handle tensor) {
    XlaTensorPtr t = ToXlaTensor(tensor);
    const DataPtr& data = t->data();
    // Under SPMD every tensor but a local shard (one device's buffer, no
    // sharding) lives on the virtual device, upstream's "SPMD:0".
    const bool local_shard = data != nullptr &&
                             data->kind() == DataKind::kDevice &&
                             data->sharding() == nullptr;
    const std::string device =
        spmd::IsSpmd() && !local_shard
            ? "SPMD:0"
            : absl::StrCat("xla:", t->device());
    std::string info = absl::StrCat(
        "XLATensor {\nTensorID: ", t->id(), "\nAliasID: ", t->alias_id(),
        "\nDevice: ", device, "\nXLA Shape: ", t->shape().ToString(),
        "\nState: ", TensorStateName(t->state()), "\nIR: ");
    if (t->state() == TensorState::kIrValue) {
      absl::StrAppend(&info, t->ir_value().node->ToString(), "\n");
    } else if (data != nullptr && data->kind() == DataKind::kDevice) {
      // What the tensor lowers to in a graph.
      absl::StrAppend(&info, t->shape().ToString(), " xla::device_data()\n");
    } else {
      absl::StrAppend(&info, "None\n");
    }
    absl::StrAppend(&info, "XLAData: ");
    if (data != nullptr && data->kind() == DataKind::kDevice &&
        data->sharding() != nullptr) {
      // SPMD data: one buffer per device.
      const auto& sharded = static_cast<const DeviceData&>(*data);
      absl::StrAppend(&info, "\n  XLAShardedData",
                      "\n  Data Shape: ", data->shape().ToString(),
                      "\n  OpSharding: ", data->sharding()->ToString(),
                      "\n  NumShards: ", sharded.buffers().size(), "\n");
    } else if (data != nullptr && data->kind() == DataKind::kDevice) {
      absl::StrAppend(&info, "\n  Data Shape: ", data->shape().ToString(),
                      "\n  Data Handle: ", data->id(), "\n");
    } else {
      absl::StrAppend(&info, "None\n");
    }
    absl::StrAppend(&info, "Tensor on host: ");
    if (data != nullptr && data->kind() == DataKind::kHost) {
      absl::StrAppend(&info, "with size [",
                      absl::StrJoin(data->shape().dims, ", "), "]\n");
    } else {
      absl::StrAppend(&info, "None\n");
    }
    if (ShardingPtr sharding = t->sharding(); sharding != nullptr &&
        (data == nullptr || data->kind() != DataKind::kDevice)) {
      absl::StrAppend(&info, "Sharding: ", sharding->ToString(), "\n");
    }
    absl::StrAppend(&info, "}\n");
    return info;
  });
}

}  // namespace torch_xla::python
