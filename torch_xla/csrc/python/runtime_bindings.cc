// _XLAC._runtime: the PJRT client as Python sees it. Host memory crosses as
// (address, byte size) of a contiguous CPU tensor that the caller keeps
// alive for the duration of the call; no torch headers needed here.

#include <cstdint>
#include <string>
#include <vector>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/device_guard/xla_device_guard.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/runtime/plugin.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

using runtime::Buffer;
using runtime::BufferPtr;
using runtime::Client;
using runtime::Executable;
using runtime::ExecutablePtr;

Client* GlobalClient() { return ValueOrThrow(Client::Global()); }

int DeviceCountOrOne() {
  absl::StatusOr<Client*> client = Client::Global();
  return client.ok() ? static_cast<int>((*client)->devices().size()) : 1;
}

Shape MakeShape(const std::vector<int64_t>& dims, int dtype) {
  return ValueOrThrow(CheckedShape(ToDType(dtype), dims));
}

}  // namespace

void InitRuntimeBindings(py::module_& m) {
  py::module_ rt = m.def_submodule("_runtime", "PJRT client internals");

  rt.def("set_plugin_search_path", &runtime::SetPluginSearchPath,
         py::arg("directories"));
  rt.def("register_device_guard",
         [] { RegisterXlaDeviceGuard(&DeviceCountOrOne); });
  rt.def("device_type", [] { return GlobalClient()->device_type(); });
  rt.def("platform_name", [] { return GlobalClient()->platform_name(); });
  rt.def("platform_version", [] { return GlobalClient()->platform_version(); });
  rt.def("plugin_path", [] { return GlobalClient()->plugin_path(); });
  rt.def("plugin_api_version",
         [] { return GlobalClient()->plugin_api_version(); });
  rt.def("devices", [] {
    py::list out;
    for (const runtime::Device& device : GlobalClient()->devices()) {
      py::dict d;
      d["id"] = device.id;
      d["ordinal"] = device.ordinal;
      d["kind"] = device.kind;
      out.append(d);
    }
    return out;
  });
  rt.def(
      "memory_info",
      [](int ordinal) {
        runtime::MemoryInfo info =
            ValueOrThrow(GlobalClient()->GetMemoryInfo(ordinal));
        py::dict d;
        d["bytes_used"] = info.bytes_in_use;
        d["peak_bytes_used"] = info.peak_bytes_in_use;
        d["bytes_limit"] = info.bytes_limit;
        return d;
      },
      py::arg("ordinal") = 0);
  rt.def("live_device_bytes", &runtime::LiveDeviceBytes);
  rt.def("peak_live_device_bytes", &runtime::PeakLiveDeviceBytes);
  rt.def("reset_peak_live_device_bytes", &runtime::ResetPeakLiveDeviceBytes);

  py::class_<Buffer, BufferPtr>(rt, "Buffer")
      .def_property_readonly("dims",
                             [](const Buffer& b) { return b.shape().dims; })
      .def_property_readonly(
          "dtype", [](const Buffer& b) { return static_cast<int>(b.shape().dtype); })
      .def_property_readonly("shape",
                             [](const Buffer& b) { return b.shape().ToString(); })
      .def_property_readonly("device", &Buffer::device_ordinal)
      .def_property_readonly("nbytes", &Buffer::on_device_bytes)
      .def("is_deleted", &Buffer::IsDeleted);

  py::class_<Executable, ExecutablePtr>(rt, "Executable")
      .def_property_readonly("num_outputs", &Executable::num_outputs)
      .def_property_readonly("alias_bytes", &Executable::alias_bytes)
      .def_property_readonly(
          "output_shapes",
          [](const Executable& e) {
            std::vector<std::string> shapes;
            for (const Shape& shape : e.output_shapes()) {
              shapes.push_back(shape.ToString());
            }
            return shapes;
          },
          "Per-device output shapes (shards under SPMD).")
      .def(
          "optimized_program",
          [](const Executable& e) {
            runtime::Client::Program program;
            {
              py::gil_scoped_release release;
              program = ValueOrThrow(GlobalClient()->OptimizedProgram(e));
            }
            return py::make_tuple(program.format, py::bytes(program.code));
          },
          "(format, bytes): the program XLA compiled, serialized.");

  rt.def(
      "transfer_to_device",
      [](uintptr_t address, std::vector<int64_t> dims, int dtype, int device) {
        Shape shape = MakeShape(dims, dtype);
        py::gil_scoped_release release;
        return ValueOrThrow(GlobalClient()->TransferToDevice(
            reinterpret_cast<const void*>(address), shape, device));
      },
      py::arg("address"), py::arg("dims"), py::arg("dtype"),
      py::arg("device") = 0);
  rt.def(
      "transfer_from_device",
      [](const BufferPtr& buffer, uintptr_t address, int64_t nbytes) {
        py::gil_scoped_release release;
        ThrowIfError(GlobalClient()->TransferFromDevice(
            *buffer, reinterpret_cast<void*>(address), nbytes));
      },
      py::arg("buffer"), py::arg("address"), py::arg("nbytes"));
  rt.def(
      "compile",
      [](const std::string& text, int num_replicas, int num_partitions,
         bool spmd, std::vector<int> device_ids) {
        runtime::CompileSpec spec;
        spec.num_replicas = num_replicas;
        spec.num_partitions = num_partitions;
        spec.use_spmd_partitioning = spmd;
        spec.device_ids = std::move(device_ids);
        py::gil_scoped_release release;
        return ValueOrThrow(GlobalClient()->Compile(text, spec));
      },
      py::arg("text"), py::arg("num_replicas") = 1,
      py::arg("num_partitions") = 1, py::arg("spmd") = false,
      py::arg("device_ids") = std::vector<int>());
  rt.def(
      "execute",
      [](const ExecutablePtr& executable,
         const std::vector<std::vector<BufferPtr>>& arguments,
         std::vector<int64_t> non_donatable) {
        py::gil_scoped_release release;
        return ValueOrThrow(
            GlobalClient()->Execute(*executable, arguments, non_donatable));
      },
      py::arg("executable"), py::arg("arguments"),
      py::arg("non_donatable") = std::vector<int64_t>());
}

}  // namespace torch_xla::python
