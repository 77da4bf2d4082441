#ifndef TORCH_XLA_CSRC_PYTHON_TORCH_TENSOR_H_
#define TORCH_XLA_CSRC_PYTHON_TORCH_TENSOR_H_

// The Python 'xla' tensor (torch_xla._tensor.XlaTensor, a torch.Tensor
// wrapper subclass) seen from C++: it keeps its C++ handle in `_xt` and, for
// views, its ViewInfo in `_view`, both in the instance dict.
//
// The only Python -> C++ hook: torch_xla/_tensor.py calls
// _XLAC._register_python_types(tensor_class, dtypes) once at import, handing
// over the subclass and the torch dtypes by DType code. Everything else the
// bindings need from Python is public torch API (torch.device, torch.empty).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pybind11/pybind11.h"
#include "torch_xla/csrc/python/view_info.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

struct TorchTensor {
  XlaTensorPtr handle;
  ViewInfoPtr view;  // null for a root
};

// False when `object` is not an 'xla' torch tensor.
bool ReadTorchTensor(PyObject* object, TorchTensor* tensor);

// The handle to compute with: a view is re-derived first if its root moved.
const XlaTensorPtr& CurrentHandle(const TorchTensor& tensor);

// The one way bindings read a tensor argument: an 'xla' torch tensor gives
// its current handle (ReadTorchTensor, then CurrentHandle); a bare C++
// handle (an _XLAC tensor, as the _ir functions pass) is taken as it is.
// Anything else is a TypeError status naming what was passed (a torch
// tensor on another device says which and how to move it). ToXlaTensor(s)
// raise it.
absl::StatusOr<XlaTensorPtr> AsXlaTensor(pybind11::handle object);
XlaTensorPtr ToXlaTensor(pybind11::handle object);
std::vector<XlaTensorPtr> ToXlaTensors(const pybind11::iterable& objects);

// Eager's strides and storage offset for the tensor (roots are contiguous).
std::vector<int64_t> StridesOf(const TorchTensor& tensor);
int64_t StorageOffsetOf(const TorchTensor& tensor);

// A torch.dtype as the core's DType; false for None or an unsupported one.
bool ReadDType(PyObject* object, DType* dtype);

// A new 'xla' torch tensor for `handle`; a view when `view` is set (its
// strides and offset become the tensor's).
pybind11::object WrapTensor(XlaTensorPtr handle, ViewInfoPtr view = nullptr);

// A new CPU torch tensor with the tensor's value (runs pending IR).
pybind11::object ToHostTensor(const XlaTensorPtr& tensor);

// Raises eager's RuntimeError for an 'xla' device this process does not
// have (what wrapping a tensor on it raises), before any data moves there.
void CheckDeviceExists(int ordinal);

// FailedPrecondition with eager's text when `object` is a torch tensor on
// another device than 'xla' (a cpu 0-dim tensor is allowed, as in eager);
// `op_name` prefixes the message when not empty.
absl::Status CheckSameDevice(const std::string& op_name,
                             pybind11::handle object);

void InitTorchTensorBindings(pybind11::module_& m);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_TORCH_TENSOR_H_
