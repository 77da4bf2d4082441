#include "torch_xla/csrc/python/fast_rule_util.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/view_info.h"

namespace py = pybind11;

namespace torch_xla::python {

bool KwargsAre(PyObject* kwargs, std::initializer_list<const char*> allowed,
               bool must_be_none) {
  if (kwargs == nullptr) return true;
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    const char* name = PyUnicode_AsUTF8(key);
    if (name == nullptr) {
      PyErr_Clear();
      return false;
    }
    bool known = false;
    for (const char* a : allowed) known = known || std::strcmp(a, name) == 0;
    if (!known || (must_be_none && value != Py_None)) return false;
  }
  return true;
}

bool ReadInt(PyObject* object, int64_t* value) {
  if (!PyLong_CheckExact(object)) return false;
  int overflow = 0;
  *value = PyLong_AsLongLongAndOverflow(object, &overflow);
  if (*value == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return overflow == 0;
}

bool ReadIntList(PyObject* object, std::vector<int64_t>* values) {
  if (!PyList_CheckExact(object) && !PyTuple_CheckExact(object)) return false;
  PyObject** items = PySequence_Fast_ITEMS(object);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(object);
  values->resize(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!ReadInt(items[i], &(*values)[i])) return false;
  }
  return true;
}

bool ReadOptionalInt(PyObject* const* args, Py_ssize_t nargs, Py_ssize_t i,
                     int64_t* value) {
  if (i >= nargs || args[i] == Py_None) return true;
  return ReadInt(args[i], value);
}

bool IsNumber(PyObject* object) {
  return PyFloat_CheckExact(object) || PyLong_CheckExact(object);
}

bool CanonicalDim(int64_t dim, int64_t rank, int64_t* out) {
  const int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound) return false;
  *out = dim < 0 ? dim + bound : dim;
  return true;
}

absl::StatusOr<Value> CurrentValue(const TorchTensor& tensor) {
  return CurrentHandle(tensor)->GetIrValue();
}

py::object WrapValue(Value value, const TorchTensor& like) {
  return WrapTensor(XlaTensor::FromIr(std::move(value), like.handle->device()));
}

py::object CommitInPlace(PyObject* object, const TorchTensor& x,
                         const XlaTensorPtr& value) {
  if (x.view != nullptr) {
    ThrowIfError(CommitView(*x.handle, *x.view, value));
  } else {
    ThrowIfError(AssignValue(*x.handle, *value, /*bump_version=*/true));
  }
  return py::reinterpret_borrow<py::object>(object);
}

}  // namespace torch_xla::python
