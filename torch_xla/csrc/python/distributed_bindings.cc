// _XLAC._distributed: a process's place in a multi-process job and the
// key-value store the processes meet through (runtime/distributed.h).
// Python supplies the store as two callables (a torch.distributed TCPStore
// behind them); the client calls them from PJRT_Client_Create and while
// agreeing on the global device list, so initialize_client releases the GIL
// and each call takes it back.

#include <memory>
#include <string>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/runtime/distributed.h"
#include "torch_xla/csrc/runtime/replication.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

using runtime::KeyValueStore;

// get(key: str, timeout_ms: int) -> bytes; put(key: str, value: bytes).
class PythonKeyValueStore : public KeyValueStore {
 public:
  PythonKeyValueStore(py::object get, py::object put)
      : get_(std::move(get)), put_(std::move(put)) {}
  ~PythonKeyValueStore() override {
    py::gil_scoped_acquire gil;
    get_ = py::object();
    put_ = py::object();
  }

  absl::StatusOr<std::string> Get(absl::string_view key,
                                  int timeout_ms) override {
    py::gil_scoped_acquire gil;
    try {
      py::object value = get_(py::str(key.data(), key.size()), timeout_ms);
      return std::string(py::bytes(value));
    } catch (py::error_already_set& e) {
      return ToStatus(e, key);
    }
  }

  absl::Status Put(absl::string_view key, absl::string_view value) override {
    py::gil_scoped_acquire gil;
    try {
      put_(py::str(key.data(), key.size()),
           py::bytes(value.data(), value.size()));
      return absl::OkStatus();
    } catch (py::error_already_set& e) {
      return ToStatus(e, key);
    }
  }

 private:
  static absl::Status ToStatus(py::error_already_set& e,
                               absl::string_view key) {
    std::string message = e.what();
    e.restore();
    PyErr_Clear();
    std::string text = "key-value store, key '" + std::string(key) +
                       "': " + message;
    if (message.find("imeout") != std::string::npos ||
        message.find("timed out") != std::string::npos) {
      return absl::DeadlineExceededError(text);
    }
    return absl::UnavailableError(text);
  }

  py::object get_;
  py::object put_;
};

}  // namespace

void InitDistributedBindings(py::module_& m) {
  py::module_ d = m.def_submodule(
      "_distributed", "multi-process runtime: topology and key-value store");
  d.def(
      "set_process_topology",
      [](int process_index, int process_count, int timeout_ms) {
        if (runtime::Client::GlobalCreated()) {
          throw std::runtime_error(
              "set_process_topology: the XLA runtime is already initialized "
              "in this process; a process joins a job before it first uses "
              "an XLA device");
        }
        if (process_count < 1 || process_index < 0 ||
            process_index >= process_count) {
          throw std::invalid_argument(
              "set_process_topology: process_index " +
              std::to_string(process_index) + " is not in [0, " +
              std::to_string(process_count) + ")");
        }
        runtime::SetProcessTopology({process_index, process_count, timeout_ms});
      },
      py::arg("process_index"), py::arg("process_count"),
      py::arg("timeout_ms") = 300000);
  d.def(
      "set_key_value_store",
      [](py::object get, py::object put) {
        if (runtime::Client::GlobalCreated()) {
          throw std::runtime_error(
              "set_key_value_store: the XLA runtime is already initialized");
        }
        runtime::SetKeyValueStore(std::make_shared<PythonKeyValueStore>(
            std::move(get), std::move(put)));
      },
      py::arg("get"), py::arg("put"));
  d.def(
      "set_join_hook",
      [](py::object hook) {
        auto shared = std::make_shared<py::object>(std::move(hook));
        runtime::SetJoinHook([shared]() -> absl::Status {
          py::gil_scoped_acquire gil;
          try {
            (*shared)();
            return absl::OkStatus();
          } catch (py::error_already_set& e) {
            std::string message = e.what();
            return absl::UnavailableError(message);
          }
        });
      },
      py::arg("hook"),
      "hook() runs once, before the client is created: it joins the job.");
  d.def("is_initialized", &runtime::Client::GlobalCreated);
  d.def("set_replica_devices", &runtime::SetReplicaDevices,
        py::arg("ordinals"),
        "This process's replica devices (threads as replicas); [] for none.");
  d.def("replica_devices", &runtime::GetReplicaDevices);
  d.def("initialize_client", [] {
    py::gil_scoped_release release;
    absl::StatusOr<runtime::Client*> client = runtime::Client::Global();
    py::gil_scoped_acquire gil;
    ThrowIfError(client.status());
  });
  d.def("process_index", [] {
    return ValueOrThrow(runtime::Client::Global())->topology().process_index;
  });
  d.def("process_count", [] {
    return ValueOrThrow(runtime::Client::Global())->topology().process_count;
  });
  d.def("global_devices", [] {
    py::list out;
    for (const runtime::GlobalDevice& device :
         ValueOrThrow(runtime::Client::Global())->global_devices()) {
      py::dict item;
      item["id"] = device.id;
      item["process_index"] = device.process_index;
      item["kind"] = device.kind;
      out.append(item);
    }
    return out;
  });
}

}  // namespace torch_xla::python
