// The torch_xla._XLAC extension module.

#include "pybind11/pybind11.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/op_bindings.h"

PYBIND11_MODULE(_XLAC, m) {
  m.doc() = "torch_xla C++ core: runtime, lazy tensors, lowering, metrics";
  torch_xla::python::InitRuntimeBindings(m);
  torch_xla::python::InitMetricsBindings(m);
  torch_xla::python::InitTensorBindings(m);
  torch_xla::python::InitElementwiseBindings(m);
  torch_xla::python::InitOpBindings(m);
  torch_xla::python::InitNnOpBindings(m);
  torch_xla::python::InitIndexOpBindings(m);
  torch_xla::python::InitPoolingBindings(m);
  torch_xla::python::InitShapeOpBindings(m);
  torch_xla::python::InitLoweringBindings(m);
  torch_xla::python::InitViewBindings(m);
  torch_xla::python::InitDispatchBindings(m);
  torch_xla::python::InitShapeBindings(m);
  torch_xla::python::InitTorchTensorBindings(m);
  torch_xla::python::InitStagingBindings(m);
  torch_xla::python::InitStableHloBindings(m);
  torch_xla::python::InitCallBindings(m);
  torch_xla::python::InitSpmdBindings(m);
  torch_xla::python::InitDistributedBindings(m);
  torch_xla::python::InitSamplingBindings(m);
  torch_xla::python::InitMiscOpBindings(m);
  torch_xla::python::InitForeachOpBindings(m);
}
