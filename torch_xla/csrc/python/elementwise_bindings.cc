// Fast paths for the most frequent traced ops: operand resolution (tensors
// and Python scalars), dtype conversion and numpy broadcasting done in one
// C++ call instead of several Python-level IR calls.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/ir_values.h"
#include "torch_xla/csrc/python/scalar_leaves.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/tensor/device_data.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

bool IsNumber(py::handle h) {
  return py::isinstance<py::float_>(h) || py::isinstance<py::int_>(h);
}

// An operand as the rules pass it: a C++ handle, a torch 'xla' tensor (its
// up-to-date handle: views re-derive first), a
// Python number, or a cpu 0-dim tensor (a number, as in eager). Any other
// cpu tensor is a device mismatch, reported like eager does.
struct Operand {
  XlaTensorPtr tensor;  // set for tensors
  py::object number;    // set for numbers
};

Operand ToOperand(py::handle object) {
  if (py::isinstance<XlaTensor>(object)) {
    return {py::cast<XlaTensorPtr>(object), {}};
  }
  if (IsNumber(object)) {
    return {nullptr, py::reinterpret_borrow<py::object>(object)};
  }
  TorchTensor tensor;
  if (ReadTorchTensor(object.ptr(), &tensor)) {
    return {CurrentHandle(tensor), {}};
  }
  if (py::hasattr(object, "dim") && object.attr("dim")().cast<int64_t>() == 0) {
    return {nullptr, object.attr("item")()};
  }
  // A cpu tensor: eager's device-mismatch error (torch_tensor.h).
  ThrowIfError(CheckSameDevice("", object));
  ThrowStatus(WrongTypeError(absl::StrCat(
      "expected an 'xla' tensor or a number, got ",
      py::str(py::type::handle_of(object)).cast<std::string>())));
}

}  // namespace

std::vector<Value> ResolveOperands(const py::sequence& objects, DType dtype,
                                   int* device) {
  std::vector<Operand> operands;
  operands.reserve(objects.size());
  *device = -1;
  for (py::handle object : objects) {
    operands.push_back(ToOperand(object));
    if (*device < 0 && operands.back().tensor) {
      *device = operands.back().tensor->device();
    }
  }
  if (*device < 0) *device = 0;
  std::vector<Value> values;
  values.reserve(operands.size());
  for (const Operand& operand : operands) {
    if (operand.tensor) {
      values.push_back(
          Convert(ValueOrThrow(operand.tensor->GetIrValue()), dtype));
    } else {
      values.push_back(ScalarLeafAtSite(operand.number, dtype));
    }
  }
  std::vector<const Shape*> shapes;
  bool same = true;
  for (const Value& v : values) {
    shapes.push_back(&v.shape());
    same = same && v.shape().dims == values[0].shape().dims;
  }
  if (!same) {
    std::vector<int64_t> dims = BroadcastShape(shapes);
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = operands[i].tensor ? BroadcastTo(std::move(values[i]), dims)
                                     : BroadcastScalarLeaf(values[i], dims);
    }
  }
  return values;
}

void InitElementwiseBindings(py::module_& m) {
  m.def(
      "_scalar",
      [](py::object number, int code, int device) {
        Value leaf = ScalarLeafAtSite(number, ToDType(code));
        return XlaTensor::FromData(leaf.node->data(), device);
      },
      py::arg("value"), py::arg("dtype"), py::arg("device") = 0,
      "The scalar parameter for a Python number, shared with equal numbers "
      "from the same user code site (python/scalar_leaves.h).");
  m.def(
      "_elementwise",
      [](int kind, const py::sequence& operands, int code,
         const py::object& direction) {
        int device = 0;
        std::vector<Value> values =
            ResolveOperands(operands, ToDType(code), &device);
        Attrs attrs;
        if (!direction.is_none()) {
          attrs.Set("direction",
                    absl::string_view(direction.cast<std::string>()));
        }
        NodePtr node = ValueOrThrow(
            MakeNode(ToOpKind(kind), std::move(values), std::move(attrs)));
        return XlaTensor::FromIr(Value(node), device);
      },
      py::arg("kind"), py::arg("operands"), py::arg("dtype"),
      py::arg("direction") = py::none(),
      "Operands (tensors or numbers) converted to `dtype` and broadcast, "
      "then one elementwise op (compare takes `direction`).");
  m.def(
      "_broadcast_operands",
      [](const py::sequence& operands, int code) {
        int device = 0;
        std::vector<Value> values =
            ResolveOperands(operands, ToDType(code), &device);
        std::vector<XlaTensorPtr> out;
        for (Value& v : values)
          out.push_back(XlaTensor::FromIr(std::move(v), device));
        return out;
      },
      py::arg("operands"), py::arg("dtype"));
}

}  // namespace torch_xla::python
