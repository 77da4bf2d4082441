#include "torch_xla/csrc/python/device_checks.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ops/index_ops.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/graph_executor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

// One device's checks of one step: the code tensor and, for check number
// i + 1, messages[i].
struct StepChecks {
  XlaTensorPtr code;
  std::vector<std::pair<std::string, CheckError>> messages;
};

struct Registry {
  std::mutex mu;
  std::map<int, StepChecks> pending;  // by device
  std::vector<StepChecks> launched;   // oldest first
};

Registry& Checks() {
  static Registry* registry = new Registry();
  return *registry;
}

std::vector<StepChecks> TakePending(Registry& r) {
  std::vector<StepChecks> out;
  for (auto& [device, step] : r.pending) out.push_back(std::move(step));
  r.pending.clear();
  return out;
}

// Reads every code; the first failed check's error (OK when none failed).
absl::Status RaiseFirst(const std::vector<StepChecks>& steps) {
  absl::Status failure;
  for (const StepChecks& step : steps) {
    if (step.messages.empty()) continue;
    int32_t n = 0;
    TXLA_RETURN_IF_ERROR(TensorToHost(step.code, &n, sizeof(n)));
    if (n <= 0 || !failure.ok() ||
        n > static_cast<int32_t>(step.messages.size())) {
      continue;
    }
    const auto& [message, error] = step.messages[n - 1];
    const bool index = error == CheckError::kIndexError;
    std::string text = absl::StrCat(
        message, " (a device-side ", index ? "index check" : "check",
        " of an earlier op; the values computed with it are not valid)");
    failure = index ? absl::OutOfRangeError(text) : EagerRuntimeError(text);
  }
  return failure;
}

}  // namespace

absl::Status AddDeviceCheck(const Value& bad, int device, std::string message,
                            CheckError error) {
  if (bad.node->reads_placeholder()) return absl::OkStatus();
  Registry& r = Checks();
  std::lock_guard<std::mutex> lock(r.mu);
  StepChecks& step = r.pending[device];
  Value code;
  if (step.code) {
    TXLA_ASSIGN_OR_RETURN(code, step.code->GetIrValue());
  }
  TXLA_ASSIGN_OR_RETURN(
      Value folded,
      ops::FoldCheck(std::move(code), bad,
                     static_cast<int64_t>(step.messages.size()) + 1));
  step.code = XlaTensor::FromIr(std::move(folded), device);
  step.messages.emplace_back(std::move(message), error);
  return absl::OkStatus();
}

absl::Status AddIndexCheck(const Value& index, int device,
                           const IndexCheck& check) {
  if (index.node->reads_placeholder()) return absl::OkStatus();
  TXLA_ASSIGN_OR_RETURN(
      Value bad,
      ops::IndexOutOfRange(index, check.low, check.size, check.exempt));
  return AddDeviceCheck(bad, device, check.message, check.error);
}

namespace {

CheckError ErrorFrom(py::handle error) {
  if (error.ptr() == PyExc_IndexError) return CheckError::kIndexError;
  if (error.ptr() == PyExc_RuntimeError) return CheckError::kRuntimeError;
  ThrowStatus(WrongTypeError(absl::StrCat(
      "a device check raises IndexError or RuntimeError, got ",
      std::string(py::str(error)))));
}

}  // namespace

std::optional<IndexCheck> IndexCheckFrom(py::handle check) {
  if (check.is_none()) return std::nullopt;
  if (!py::isinstance<py::tuple>(check) || py::len(check) != 5) {
    ThrowStatus(WrongTypeError(absl::StrCat(
        "an index check is None or (low, size, exempt, message, error), got ",
        std::string(py::repr(check)))));
  }
  py::tuple t = py::reinterpret_borrow<py::tuple>(check);
  IndexCheck out;
  out.low = t[0].cast<int64_t>();
  out.size = t[1].cast<int64_t>();
  if (!t[2].is_none()) out.exempt = t[2].cast<int64_t>();
  out.message = t[3].cast<std::string>();
  out.error = ErrorFrom(t[4]);
  return out;
}

void CheckIndex(const Value& index, int device, py::handle check) {
  std::optional<IndexCheck> parsed = IndexCheckFrom(check);
  if (parsed.has_value()) ThrowIfError(AddIndexCheck(index, device, *parsed));
}

absl::Status DeviceChecksAfterSync() {
  Registry& r = Checks();
  std::vector<StepChecks> earlier;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.pending.empty() && r.launched.empty()) return absl::OkStatus();
    earlier = std::move(r.launched);
    r.launched = TakePending(r);
  }
  return RaiseFirst(earlier);
}

absl::Status DeviceChecksBeforeRead(const XlaTensorPtr& x) {
  Registry& r = Checks();
  std::vector<StepChecks> this_step, earlier;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.pending.empty() && r.launched.empty()) return absl::OkStatus();
    this_step = TakePending(r);
    earlier = std::move(r.launched);
    r.launched.clear();
  }
  if (!this_step.empty()) {
    // One execution: the read's value and this step's codes together.
    std::vector<XlaTensorPtr> tensors;
    if (x != nullptr) tensors.push_back(x);
    for (const StepChecks& step : this_step) tensors.push_back(step.code);
    TXLA_RETURN_IF_ERROR(SyncTensors(tensors, /*donate_marked=*/true));
  }
  for (StepChecks& step : this_step) earlier.push_back(std::move(step));
  return RaiseFirst(earlier);
}

void InitDeviceCheckBindings(py::module_& m) {
  m.def(
      "_add_device_check",
      [](py::handle bad, const std::string& message, py::handle error) {
        XlaTensorPtr flag = ToXlaTensor(bad);
        Value value = ValueOrThrow(flag->GetIrValue());
        ThrowIfError(
            AddDeviceCheck(value, flag->device(), message, ErrorFrom(error)));
      },
      py::arg("bad"), py::arg("message"), py::arg("error"),
      "Registers a device-side check (python/device_checks.h): `bad`, a pred "
      "0-d tensor or handle, true when it failed; `message` names the op; "
      "`error` is IndexError or RuntimeError.");
  m.def(
      "_check_index_on_device",
      [](py::handle index, py::handle check) {
        XlaTensorPtr t = ToXlaTensor(index);
        CheckIndex(ValueOrThrow(t->GetIrValue()), t->device(), check);
      },
      py::arg("index"), py::arg("check"),
      "Registers the device-side check `check` (None, or (low, size, "
      "exempt, message, error)) of the integer `index` (python/"
      "device_checks.h, ops/index_ops.h IndexOutOfRange).");
  m.def(
      "_device_checks_after_sync",
      []() {
        py::gil_scoped_release release;
        ThrowIfError(DeviceChecksAfterSync());
      },
      "After a sync enqueued the step: its checks become launched, and those "
      "of earlier steps are read; raises the first that failed.");
  m.def(
      "_device_checks_before_read",
      [](py::handle x) {
        XlaTensorPtr tensor = x.is_none() ? nullptr : ToXlaTensor(x);
        py::gil_scoped_release release;
        ThrowIfError(DeviceChecksBeforeRead(tensor));
      },
      py::arg("x"),
      "Before a read of `x` (None: xm.wait_device_ops): this step's checks "
      "computed with x in one execution, then every check read; raises the "
      "first that failed.");
}

}  // namespace torch_xla::python
