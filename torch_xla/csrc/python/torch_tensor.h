#ifndef TORCH_XLA_CSRC_PYTHON_TORCH_TENSOR_H_
#define TORCH_XLA_CSRC_PYTHON_TORCH_TENSOR_H_

// The Python 'xla' tensor (torch_xla._tensor.XlaTensor, a torch.Tensor
// wrapper subclass) seen from C++: it keeps its C++ handle in `_xt` and, for
// views, its ViewInfo in `_view`, both in the instance dict.

#include <cstdint>
#include <vector>

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

// Eager's strides and storage offset for the tensor (roots are contiguous).
std::vector<int64_t> StridesOf(const TorchTensor& tensor);
int64_t StorageOffsetOf(const TorchTensor& tensor);

// A torch.dtype as the core's DType; false for None or an unsupported one.
bool ReadDType(PyObject* object, DType* dtype);

// A new 'xla' torch tensor for `handle`; a view when `view` is set (its
// strides and offset become the tensor's).
pybind11::object WrapTensor(XlaTensorPtr handle, ViewInfoPtr view = nullptr);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_TORCH_TENSOR_H_
