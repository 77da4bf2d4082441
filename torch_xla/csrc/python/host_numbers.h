#ifndef TORCH_XLA_CSRC_PYTHON_HOST_NUMBERS_H_
#define TORCH_XLA_CSRC_PYTHON_HOST_NUMBERS_H_

// Python numbers read into C++ without overflow or a Python error left set:
// the one place the bindings call PyLong_As* / PyFloat_As* (the fast rules
// have their own readers that decline instead).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "pybind11/pybind11.h"
#include "torch_xla/csrc/tensor/device_data.h"

namespace torch_xla::python {

// A bool, int (in [-2^63, 2^64)), float, or an object with __index__ or
// __float__ (numpy scalars). Integers outside that range are
// InvalidArgument; other objects a TypeError status. `what` names the
// argument in messages.
absl::StatusOr<HostNumber> ReadHostNumber(pybind11::handle object,
                                          absl::string_view what);

// An int that fits int64 (bools count); InvalidArgument otherwise.
absl::StatusOr<int64_t> ReadInt64(pybind11::handle object,
                                  absl::string_view what);

// A sequence of ints that fit int64.
absl::StatusOr<std::vector<int64_t>> ReadInt64List(pybind11::handle object,
                                                   absl::string_view what);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_HOST_NUMBERS_H_
