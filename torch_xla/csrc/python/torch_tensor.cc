#include "torch_xla/csrc/python/torch_tensor.h"

#include <utility>

#include "pybind11/stl.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// What building a wrapper needs from Python, looked up once.
struct WrapperApi {
  py::object make_wrapper;  // torch.Tensor._make_wrapper_subclass
  py::object cls;           // torch_xla._tensor.XlaTensor
  py::tuple dtypes;         // torch dtype by DType code
  py::list devices;         // torch.device('xla', i) by index
  py::tuple plain_names;    // keyword names: dtype, device
  py::tuple strided_names;  // strides, storage_offset, dtype, device
  py::str xt_key, view_key;

  static const WrapperApi& Get() {
    static const WrapperApi* api = [] {
      auto* api = new WrapperApi();
      py::module_ tensor = py::module_::import("torch_xla._tensor");
      api->make_wrapper = py::module_::import("torch").attr("Tensor").attr(
          "_make_wrapper_subclass");
      api->cls = tensor.attr("XlaTensor");
      api->dtypes = tensor.attr("_from_code");
      api->devices = tensor.attr("_DEVICES");
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
};

py::list IntList(const std::vector<int64_t>& values) {
  py::list list(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    PyList_SET_ITEM(list.ptr(), i, PyLong_FromLongLong(values[i]));
  }
  return list;
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
  if (tensor.view != nullptr) RefreshView(tensor.handle, *tensor.view);
  return tensor.handle;
}

std::vector<int64_t> StridesOf(const TorchTensor& tensor) {
  if (tensor.view != nullptr) return tensor.view->strides;
  return ContiguousStrides(tensor.handle->shape().dims);
}

int64_t StorageOffsetOf(const TorchTensor& tensor) {
  return tensor.view != nullptr ? tensor.view->storage_offset : 0;
}

bool ReadDType(PyObject* object, DType* dtype) {
  const py::tuple& dtypes = WrapperApi::Get().dtypes;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dtypes.ptr()); ++i) {
    if (PyTuple_GET_ITEM(dtypes.ptr(), i) == object) {
      *dtype = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

py::object WrapTensor(XlaTensorPtr handle, ViewInfoPtr view) {
  const WrapperApi& api = WrapperApi::Get();
  const Shape& shape = handle->shape();
  bool strided =
      view != nullptr && (view->storage_offset != 0 ||
                          view->strides != ContiguousStrides(shape.dims));
  py::list dims = IntList(shape.dims);
  PyObject* dtype =
      PyTuple_GET_ITEM(api.dtypes.ptr(), static_cast<int>(shape.dtype));
  // _DEVICES caches the common ordinals; any other is made here (a client
  // may have more devices than the cache holds).
  py::object device_object;
  PyObject* device;
  if (handle->device() >= 0 &&
      handle->device() < PyList_GET_SIZE(api.devices.ptr())) {
    device = PyList_GET_ITEM(api.devices.ptr(), handle->device());
  } else {
    device_object = py::module_::import("torch").attr("device")(
        "xla", handle->device());
    device = device_object.ptr();
  }
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

}  // namespace torch_xla::python
