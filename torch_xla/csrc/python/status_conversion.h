#ifndef TORCH_XLA_CSRC_PYTHON_STATUS_CONVERSION_H_
#define TORCH_XLA_CSRC_PYTHON_STATUS_CONVERSION_H_

// The one place where an absl::Status becomes a Python exception, message
// intact: InvalidArgument -> ValueError, OutOfRange -> IndexError, any other
// code -> RuntimeError; a status marked with an eager error class
// (ir/error_class.h) raises that class instead (RuntimeError or TypeError),
// so 'xla' tensors raise what eager PyTorch raises. Binding code returns
// statuses and calls ThrowIfError / ValueOrThrow at the boundary; it throws
// nothing else itself (a Python exception already set by a Python call
// propagates as pybind11::error_already_set).

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/error_class.h"

namespace torch_xla::python {

[[noreturn]] inline void ThrowStatus(const absl::Status& status) {
  std::string message(status.message());
  switch (GetEagerErrorClass(status)) {
    case EagerErrorClass::kRuntimeError:
      throw std::runtime_error(message);
    case EagerErrorClass::kTypeError:
      throw pybind11::type_error(message);
    case EagerErrorClass::kDefault:
      break;
  }
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      throw std::invalid_argument(message);  // ValueError
    case absl::StatusCode::kOutOfRange:
      throw std::out_of_range(message);  // IndexError
    default:
      throw std::runtime_error(message);  // RuntimeError
  }
}

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) ThrowStatus(value.status());
  return *std::move(value);
}

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_STATUS_CONVERSION_H_
