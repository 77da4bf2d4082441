#ifndef TORCH_XLA_CSRC_PYTHON_BINDINGS_H_
#define TORCH_XLA_CSRC_PYTHON_BINDINGS_H_

// Each Init*Bindings adds one concept's functions to the _XLAC module.
// Reading a tensor argument (AsXlaTensor, ToXlaTensor) is torch_tensor.h's.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla::python {

void InitRuntimeBindings(pybind11::module_& m);
void InitMetricsBindings(pybind11::module_& m);
void InitTensorBindings(pybind11::module_& m);
void InitElementwiseBindings(pybind11::module_& m);
void InitLoweringBindings(pybind11::module_& m);
void InitViewBindings(pybind11::module_& m);
void InitDispatchBindings(pybind11::module_& m);
void InitShapeBindings(pybind11::module_& m);
void InitTorchTensorBindings(pybind11::module_& m);
void InitStagingBindings(pybind11::module_& m);
void InitStableHloBindings(pybind11::module_& m);
void InitCallBindings(pybind11::module_& m);
void InitSpmdBindings(pybind11::module_& m);
void InitDistributedBindings(pybind11::module_& m);
// nn_op_bindings.cc: losses, layer norm, embedding (ops/loss_ops.h & co.).
void InitNnOpBindings(pybind11::module_& m);
// index_bindings.cc: embedding, x[idx], gather/scatter, index_select & co,
// and the device-side checks' registry (device_checks.h).
void InitIndexOpBindings(pybind11::module_& m);
// pooling_bindings.cc: max, average and adaptive pooling (ops/pooling_ops.h).
void InitPoolingBindings(pybind11::module_& m);
// shape_op_bindings.cc: shape, copy, factory, cumulative and convolution
// ops (ops/shape_ops.h, copy_ops.h, cumulative_ops.h, conv_ops.h).
void InitShapeOpBindings(pybind11::module_& m);
// sampling_bindings.cc: random draws and order statistics
// (ops/random_ops.h, order_ops.h).
void InitSamplingBindings(pybind11::module_& m);
// misc_op_bindings.cc: the builders of rules outside the family files
// (embedding_renorm_, ...; ops/embedding_ops.h & co.).
void InitMiscOpBindings(pybind11::module_& m);
// foreach_bindings.cc: the _foreach_* list ops, one call per list.
void InitForeachOpBindings(pybind11::module_& m);

// A DType code from Python; InvalidArgument (ValueError) for an unknown one.
absl::StatusOr<DType> DTypeFromCode(int64_t code);
DType ToDType(int code);
// An OpKind from Python (as _XLAC._op_kind gives it); ValueError for an
// unknown one.
OpKind ToOpKind(int kind);

// `dims` as a shape of `dtype`; InvalidArgument (ValueError) for a negative
// dimension or a byte size beyond int64.
absl::StatusOr<Shape> CheckedShape(DType dtype, std::vector<int64_t> dims);

// A tensor of `dims` filled with the Python number `value` as host data
// (_XLAC._tensor_fill): a parameter sent only when a graph reads it. A value
// `dtype` cannot hold raises eager's RuntimeError.
XlaTensorPtr HostFillTensor(pybind11::handle value, std::vector<int64_t> dims,
                            int dtype, int device);

// The contiguous host bytes at `address` (`dims` of `dtype`) as a tensor on
// `device` (raises for a device this process does not have): host data
// under SPMD until a sharding is known (spmd/spmd_tensors.h), else sent now;
// a literal when there are no bytes. _from_host, copy_ from cpu and a cpu
// index all upload through it.
XlaTensorPtr HostBytesTensor(uintptr_t address, std::vector<int64_t> dims,
                             DType dtype, int device);

// Elementwise operands (tensors, Python numbers, cpu 0-dim tensors) as
// values of `dtype` broadcast to one shape; `device` is the tensors' device.
std::vector<Value> ResolveOperands(const pybind11::sequence& objects,
                                   DType dtype, int* device);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_BINDINGS_H_
