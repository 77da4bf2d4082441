#ifndef TORCH_XLA_CSRC_PYTHON_DEVICE_CHECKS_H_
#define TORCH_XLA_CSRC_PYTHON_DEVICE_CHECKS_H_

// Checks of values only the device knows (indices computed on the device,
// a probability tensor, ...), reported as eager CUDA reports its
// device-side asserts: at a later sync or read (docs/device_checks.md).
//
// Design. The registry is C++, so that an op's binding registers its check
// (predicate, fold, message) inside the op's one call into C++. Each device
// keeps one pending s32 code per step: 0, or the number of the first failed
// check (ops::FoldCheck), an ordinary live tensor that the step's sync
// computes with everything else, and the messages of its checks. A sync
// moves the step's codes to `launched` and reads those of earlier steps
// (their programs ran before this one was queued, so the host waits for
// nothing new); a read computes this step's codes in the read's own
// execution and reads them all; xm.wait_device_ops reads them all. A failed
// check raises the class eager raises (IndexError for an index,
// RuntimeError for a value check), naming the op; the step's checks are
// then forgotten. One mutex guards the registry (replica threads trace
// concurrently); no read happens under it.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

// The exception a failed check raises.
enum class CheckError { kIndexError, kRuntimeError };

// An index check: every element of an index is in [low, size) or equals
// `exempt`; else `message` (naming the op) is raised as `error`.
struct IndexCheck {
  int64_t low = 0;
  int64_t size = 0;
  std::optional<int64_t> exempt;
  std::string message;
  CheckError error = CheckError::kIndexError;
};

// Registers the check that fails when `bad` (a pred 0-d value on `device`)
// holds. A value traced on placeholders (a scan body, assume_pure) is not
// checked: the trace never runs by itself, so its flag could never be read.
absl::Status AddDeviceCheck(const Value& bad, int device, std::string message,
                            CheckError error);

// Registers `check` of the integer `index` (on `device`).
absl::Status AddIndexCheck(const Value& index, int device,
                           const IndexCheck& check);

// Python's description of an index check: None, or the tuple
// (low, size, exempt, message, error) where exempt is an int or None and
// error is IndexError or RuntimeError (the class, as in
// torch_xla/_ops/index_util.py). TypeError for anything else.
std::optional<IndexCheck> IndexCheckFrom(pybind11::handle check);

// IndexCheckFrom(check) registered for `index`; nothing for None.
void CheckIndex(const Value& index, int device, pybind11::handle check);

// _device_checks_after_sync, _before_read(x) (x may be null: wait_all's
// own small sync), as described above. The first failed check's error.
absl::Status DeviceChecksAfterSync();
absl::Status DeviceChecksBeforeRead(const XlaTensorPtr& x);

void InitDeviceCheckBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_DEVICE_CHECKS_H_
