#ifndef TORCH_XLA_CSRC_IR_ERROR_CLASS_H_
#define TORCH_XLA_CSRC_IR_ERROR_CLASS_H_

// Which Python exception a status becomes. python/status_conversion.h maps
// by code: InvalidArgument -> ValueError, OutOfRange -> IndexError, every
// other code -> RuntimeError. For some bad input eager PyTorch raises
// RuntimeError (or TypeError) instead, and 'xla' tensors must raise what
// eager raises: the core keeps the honest code (InvalidArgument) and marks
// the status with the eager class in a payload, which the conversion honours.
// Header-only; no Python here.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"
#include "absl/types/optional.h"

namespace torch_xla {

enum class EagerErrorClass { kDefault, kRuntimeError, kTypeError };

inline constexpr absl::string_view kEagerErrorClassUrl =
    "torch_xla/eager_error_class";

// `status` marked to be raised as `error_class` (OK statuses are unchanged).
inline absl::Status WithEagerErrorClass(absl::Status status,
                                        EagerErrorClass error_class) {
  if (status.ok() || error_class == EagerErrorClass::kDefault) return status;
  status.SetPayload(kEagerErrorClassUrl,
                    absl::Cord(error_class == EagerErrorClass::kTypeError
                                   ? "TypeError"
                                   : "RuntimeError"));
  return status;
}

// The class a status was marked with; kDefault when unmarked.
inline EagerErrorClass GetEagerErrorClass(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kEagerErrorClassUrl);
  if (!payload.has_value()) return EagerErrorClass::kDefault;
  return *payload == "TypeError" ? EagerErrorClass::kTypeError
                                 : EagerErrorClass::kRuntimeError;
}

// Bad input that eager reports as RuntimeError (a value out of its dtype's
// range for fill_, shapes that do not broadcast, ...).
inline absl::Status EagerRuntimeError(absl::string_view message) {
  return WithEagerErrorClass(absl::InvalidArgumentError(message),
                             EagerErrorClass::kRuntimeError);
}

// An argument of the wrong Python type (TypeError in Python).
inline absl::Status WrongTypeError(absl::string_view message) {
  return WithEagerErrorClass(absl::InvalidArgumentError(message),
                             EagerErrorClass::kTypeError);
}

// `status` with `prefix` before its message (context added while
// propagating: "while lowering X: "), keeping its code and payloads.
inline absl::Status WithContext(const absl::Status& status,
                                absl::string_view prefix) {
  if (status.ok()) return status;
  absl::Status out(status.code(),
                   std::string(prefix) + std::string(status.message()));
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& p) {
    out.SetPayload(url, p);
  });
  return out;
}

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_ERROR_CLASS_H_
