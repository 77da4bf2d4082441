#include "torch_xla/csrc/python/host_numbers.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/error_class.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

std::string TypeName(py::handle object) {
  return std::string(Py_TYPE(object.ptr())->tp_name);
}

std::string Repr(py::handle object) {
  PyObject* repr = PyObject_Repr(object.ptr());
  if (repr == nullptr) {
    PyErr_Clear();
    return "<" + TypeName(object) + ">";
  }
  const char* text = PyUnicode_AsUTF8(repr);
  std::string out = text != nullptr ? text : "?";
  if (text == nullptr) PyErr_Clear();
  Py_DECREF(repr);
  return out;
}

// A Python int object (exact or subclass) as a HostNumber.
absl::StatusOr<HostNumber> FromLong(PyObject* object, absl::string_view what) {
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(object, &overflow);
  if (value == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot read the integer"));
  }
  if (overflow == 0) return HostNumber::Int(value);
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(object);
    if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
      return HostNumber::Uint(u);
    }
    PyErr_Clear();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": integer ", Repr(py::handle(object)),
      " is out of range; numbers must be in [-2**63, 2**64)"));
}

}  // namespace

absl::StatusOr<HostNumber> ReadHostNumber(py::handle object,
                                          absl::string_view what) {
  PyObject* o = object.ptr();
  if (PyBool_Check(o)) return HostNumber::Int(o == Py_True ? 1 : 0);
  if (PyLong_Check(o)) return FromLong(o, what);
  if (PyFloat_Check(o)) return HostNumber::Double(PyFloat_AS_DOUBLE(o));
  if (PyIndex_Check(o)) {
    PyObject* index = PyNumber_Index(o);
    if (index != nullptr) {
      absl::StatusOr<HostNumber> number = FromLong(index, what);
      Py_DECREF(index);
      return number;
    }
    PyErr_Clear();
  } else if (Py_TYPE(o)->tp_as_number != nullptr &&
             Py_TYPE(o)->tp_as_number->nb_float != nullptr) {
    const double value = PyFloat_AsDouble(o);
    if (!(value == -1.0 && PyErr_Occurred())) return HostNumber::Double(value);
    PyErr_Clear();
  }
  return WrongTypeError(absl::StrCat(what, ": expected a number, got ",
                                     TypeName(object)));
}

absl::StatusOr<int64_t> ReadInt64(py::handle object, absl::string_view what) {
  PyObject* o = object.ptr();
  if (!PyLong_Check(o) && !PyIndex_Check(o)) {
    return WrongTypeError(absl::StrCat(what, ": expected an int, got ",
                                       TypeName(object)));
  }
  absl::StatusOr<HostNumber> number = ReadHostNumber(object, what);
  if (!number.ok()) return number.status();
  if (number->kind != HostNumber::Kind::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": integer ", number->ToString(),
                     " does not fit in int64 (at most 2**63 - 1)"));
  }
  return number->i;
}

absl::StatusOr<std::vector<int64_t>> ReadInt64List(py::handle object,
                                                   absl::string_view what) {
  if (!PySequence_Check(object.ptr()) || PyUnicode_Check(object.ptr())) {
    return WrongTypeError(absl::StrCat(what, ": expected a sequence of ints, "
                                       "got ", TypeName(object)));
  }
  std::vector<int64_t> values;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(object)) {
    absl::StatusOr<int64_t> value = ReadInt64(item, what);
    if (!value.ok()) return value.status();
    values.push_back(*value);
  }
  return values;
}

}  // namespace torch_xla::python
