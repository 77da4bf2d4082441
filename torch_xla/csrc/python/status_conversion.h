#ifndef TORCH_XLA_CSRC_PYTHON_STATUS_CONVERSION_H_
#define TORCH_XLA_CSRC_PYTHON_STATUS_CONVERSION_H_

// The one place where absl::Status becomes a Python exception: pybind11
// turns std::runtime_error into RuntimeError, std::invalid_argument into
// ValueError, std::out_of_range into IndexError.

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace torch_xla::python {

[[noreturn]] inline void ThrowStatus(const absl::Status& status) {
  std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kOutOfRange:
      throw std::out_of_range(message);
    default:
      throw std::runtime_error(message);
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
