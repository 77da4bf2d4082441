#include "torch_xla/csrc/python/torch_tensor.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/runtime/client.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/views.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// What building a wrapper needs from Python: the registered types, and
// public torch API looked up once.
struct WrapperApi {
  py::object make_wrapper;  // torch.Tensor._make_wrapper_subclass
  py::object torch_tensor;  // torch.Tensor
  py::object torch_device;  // torch.device
  py::object torch_empty;   // torch.empty
  py::object cls;           // registered: torch_xla._tensor.XlaTensor
  py::tuple dtypes;         // registered: torch dtype by DType code
  std::vector<py::object> devices;  // torch.device('xla', i), made on demand
  py::tuple plain_names;    // keyword names: dtype, device
  py::tuple strided_names;  // strides, storage_offset, dtype, device
  py::str xt_key, view_key;

  static WrapperApi& Get() {
    static WrapperApi* api = [] {
      auto* api = new WrapperApi();
      py::module_ torch = py::module_::import("torch");
      api->torch_tensor = torch.attr("Tensor");
      api->make_wrapper = api->torch_tensor.attr("_make_wrapper_subclass");
      api->torch_device = torch.attr("device");
      api->torch_empty = torch.attr("empty");
      api->plain_names = py::make_tuple("dtype", "device");
      api->strided_names =
          py::make_tuple("strides", "storage_offset", "dtype", "device");
      api->xt_key =
          py::reinterpret_steal<py::str>(PyUnicode_InternFromString("_xt"));
      api->view_key =
          py::reinterpret_steal<py::str>(PyUnicode_InternFromString("_view"));
      return api;
    }();
    return *api;
  }

  // The registered types; an error before torch_xla._tensor registered them.
  static WrapperApi& Registered() {
    WrapperApi& api = Get();
    if (!api.cls) {
      ThrowStatus(absl::FailedPreconditionError(
          "torch_xla._tensor has not registered its tensor class with "
          "_XLAC._register_python_types; import torch_xla first"));
    }
    return api;
  }

  // A tensor on a device this process does not have raises when it is
  // made, not at its first op. Checked once per ordinal (devices caches).
  static void CheckExists(int ordinal) {
    absl::StatusOr<runtime::Client*> client = runtime::Client::Global();
    if (!client.ok()) return;  // no runtime: the first op says why
    const int count = static_cast<int>((*client)->devices().size());
    if (ordinal < count) return;
    ThrowStatus(EagerRuntimeError(absl::StrCat(
        "device xla:", ordinal, " does not exist: this process has ", count,
        " XLA device", count == 1 ? "" : "s", " (xla:0",
        count > 1 ? absl::StrCat(" to xla:", count - 1) : "",
        "). Use an index below ", count,
        " (torch_xla.runtime.addressable_device_count())")));
  }

  PyObject* Device(int ordinal) {
    if (ordinal < 0) {
      ThrowStatus(absl::InvalidArgumentError(
          absl::StrCat("negative device ordinal ", ordinal)));
    }
    if (static_cast<int>(devices.size()) <= ordinal) CheckExists(ordinal);
    while (static_cast<int>(devices.size()) <= ordinal) {
      devices.push_back(
          torch_device("xla", static_cast<int>(devices.size())));
    }
    return devices[ordinal].ptr();
  }
};

py::list IntList(const std::vector<int64_t>& values) {
  py::list list(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    PyList_SET_ITEM(list.ptr(), i, PyLong_FromLongLong(values[i]));
  }
  return list;
}

void RegisterPythonTypes(py::object tensor_class, py::tuple dtypes) {
  if (static_cast<int>(dtypes.size()) != kNumDTypes) {
    ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
        "_register_python_types: expected ", kNumDTypes,
        " torch dtypes (one per _XLAC._dtype_names() entry), got ",
        dtypes.size())));
  }
  WrapperApi& api = WrapperApi::Get();
  if (api.cls) {
    ThrowStatus(absl::FailedPreconditionError(
        "_register_python_types: already registered (torch_xla._tensor "
        "registers its types once at import)"));
  }
  api.cls = std::move(tensor_class);
  api.dtypes = std::move(dtypes);
}

}  // namespace

bool ReadTorchTensor(PyObject* object, TorchTensor* tensor) {
  PyObject** dict = _PyObject_GetDictPtr(object);
  if (dict == nullptr || *dict == nullptr) return false;
  const WrapperApi& api = WrapperApi::Get();
  PyObject* handle = PyDict_GetItem(*dict, api.xt_key.ptr());  // borrowed
  if (handle == nullptr) return false;
  tensor->handle = py::cast<XlaTensorPtr>(py::handle(handle));
  PyObject* view = PyDict_GetItem(*dict, api.view_key.ptr());
  tensor->view = view == nullptr || view == Py_None
                     ? nullptr
                     : py::cast<ViewInfoPtr>(py::handle(view));
  return true;
}

const XlaTensorPtr& CurrentHandle(const TorchTensor& tensor) {
  if (tensor.view != nullptr) {
    ThrowIfError(RefreshView(*tensor.handle, *tensor.view));
  }
  return tensor.handle;
}

absl::StatusOr<XlaTensorPtr> AsXlaTensor(py::handle object) {
  TorchTensor tensor;
  if (ReadTorchTensor(object.ptr(), &tensor)) return CurrentHandle(tensor);
  if (py::isinstance<XlaTensor>(object)) return py::cast<XlaTensorPtr>(object);
  const WrapperApi& api = WrapperApi::Get();
  if (py::isinstance(object, api.torch_tensor)) {
    return WrongTypeError(absl::StrCat(
        "expected an 'xla' tensor, got a tensor on ",
        py::str(object.attr("device")).cast<std::string>(),
        "; move it with .to('xla') first"));
  }
  return WrongTypeError(absl::StrCat(
      "expected an 'xla' tensor, got ",
      std::string(py::str(py::type::handle_of(object)))));
}

XlaTensorPtr ToXlaTensor(py::handle object) {
  return ValueOrThrow(AsXlaTensor(object));
}

std::vector<XlaTensorPtr> ToXlaTensors(const py::iterable& objects) {
  std::vector<XlaTensorPtr> tensors;
  for (py::handle object : objects) tensors.push_back(ToXlaTensor(object));
  return tensors;
}

std::vector<int64_t> StridesOf(const TorchTensor& tensor) {
  if (tensor.view != nullptr) return tensor.view->strides;
  return torch_xla::ContiguousStrides(tensor.handle->shape().dims);
}

int64_t StorageOffsetOf(const TorchTensor& tensor) {
  return tensor.view != nullptr ? tensor.view->storage_offset : 0;
}

bool ReadDType(PyObject* object, DType* dtype) {
  const py::tuple& dtypes = WrapperApi::Registered().dtypes;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dtypes.ptr()); ++i) {
    if (PyTuple_GET_ITEM(dtypes.ptr(), i) == object) {
      *dtype = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

py::object WrapTensor(XlaTensorPtr handle, ViewInfoPtr view) {
  WrapperApi& api = WrapperApi::Registered();
  const Shape& shape = handle->shape();
  bool strided = view != nullptr &&
                 (view->storage_offset != 0 ||
                  view->strides != torch_xla::ContiguousStrides(shape.dims));
  py::list dims = IntList(shape.dims);
  PyObject* dtype =
      PyTuple_GET_ITEM(api.dtypes.ptr(), static_cast<int>(shape.dtype));
  PyObject* device = api.Device(handle->device());
  if (view != nullptr) handle->set_view(view);
  py::object result;
  if (strided) {
    py::list strides = IntList(view->strides);
    py::int_ offset(view->storage_offset);
    PyObject* argv[] = {api.cls.ptr(), dims.ptr(), strides.ptr(),
                        offset.ptr(),  dtype,      device};
    result = py::reinterpret_steal<py::object>(PyObject_Vectorcall(
        api.make_wrapper.ptr(), argv, 2, api.strided_names.ptr()));
  } else {
    PyObject* argv[] = {api.cls.ptr(), dims.ptr(), dtype, device};
    result = py::reinterpret_steal<py::object>(PyObject_Vectorcall(
        api.make_wrapper.ptr(), argv, 2, api.plain_names.ptr()));
  }
  if (!result) throw py::error_already_set();
  if (PyObject_SetAttr(result.ptr(), api.xt_key.ptr(),
                       py::cast(std::move(handle)).ptr()) != 0) {
    throw py::error_already_set();
  }
  if (view != nullptr &&
      PyObject_SetAttr(result.ptr(), api.view_key.ptr(),
                       py::cast(std::move(view)).ptr()) != 0) {
    throw py::error_already_set();
  }
  return result;
}

void CheckDeviceExists(int ordinal) {
  WrapperApi::Registered().Device(ordinal);
}

py::object ToHostTensor(const XlaTensorPtr& tensor) {
  WrapperApi& api = WrapperApi::Registered();
  const Shape& shape = tensor->shape();
  py::object out = api.torch_empty(
      py::tuple(IntList(shape.dims)),
      py::arg("dtype") = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(
          api.dtypes.ptr(), static_cast<int>(shape.dtype))));
  if (shape.num_elements() == 0) return out;
  const auto address = out.attr("data_ptr")().cast<uintptr_t>();
  const auto nbytes = out.attr("nbytes").cast<int64_t>();
  absl::Status status;
  {
    py::gil_scoped_release release;
    status = TensorToHost(tensor, reinterpret_cast<void*>(address), nbytes);
  }
  ThrowIfError(status);
  return out;
}

absl::Status CheckSameDevice(const std::string& op_name, py::handle object) {
  const WrapperApi& api = WrapperApi::Registered();
  if (!py::isinstance(object, api.torch_tensor) ||
      py::isinstance(object, api.cls)) {
    return absl::OkStatus();
  }
  py::object device = object.attr("device");
  if (object.attr("dim")().cast<int64_t>() == 0 &&
      device.attr("type").cast<std::string>() == "cpu") {
    return absl::OkStatus();  // cpu scalars are allowed, as in eager
  }
  return absl::FailedPreconditionError(absl::StrCat(
      op_name.empty() ? "" : op_name + ": ",
      "Expected all tensors to be on the same device, but found at least "
      "two devices, xla:0 and ",
      py::str(device).cast<std::string>(),
      "! Move the tensor with .to('xla') first"));
}

void InitTorchTensorBindings(py::module_& m) {
  m.def("_register_python_types", &RegisterPythonTypes,
        py::arg("tensor_class"), py::arg("dtypes"),
        "The only Python -> C++ hook, called once by torch_xla._tensor: the "
        "'xla' tensor subclass the bindings create, and the torch dtypes in "
        "_XLAC._dtype_names() order.");
  // The one way an 'xla' torch tensor is made (WrapTensor): the C++ fast
  // rules and op bindings call it directly, torch_xla._tensor's wrap
  // through this binding.
  m.def(
      "_wrap",
      [](XlaTensorPtr handle, ViewInfoPtr view) {
        return WrapTensor(std::move(handle), std::move(view));
      },
      py::arg("handle"), py::arg("view").none(true) = py::none(),
      "A new 'xla' torch tensor for a C++ handle (raises for a device this "
      "process does not have). With `view` (another tensor's view info), an "
      "alias of that view: in-place updates are shared.");
  m.def(
      "_check_same_device",
      [](const std::string& op_name, const py::args& tensors) {
        for (py::handle t : tensors) ThrowIfError(CheckSameDevice(op_name, t));
      },
      py::arg("op_name"),
      "Raises eager's error when a tensor is on another device than 'xla' "
      "(cpu 0-dim tensors are allowed, as in eager).");
  m.def(
      "_to_cpu_tensor",
      [](py::handle tensor) {
        return ToHostTensor(ToXlaTensor(tensor));
      },
      py::arg("tensor"),
      "A new CPU tensor with the value of an 'xla' tensor or handle (runs "
      "its pending IR).");
}

}  // namespace torch_xla::python
