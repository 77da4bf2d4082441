#include "torch_xla/csrc/python/scalar_leaves.h"

#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/python/host_numbers.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/tensor/device_data.h"

namespace py = pybind11;

namespace torch_xla::python {
namespace {

constexpr size_t kCapacity = 4096;

// Whether a code object belongs to torch_xla (our rules, registry and tensor
// subclass): scalars they make are attributed to the user code calling them.
// Holds a reference to each code object it has seen, so that an address
// used in a ScalarLeaves key is never reused while the key exists.
class OwnCode {
 public:
  size_t size() const { return known_.size(); }

  bool Contains(PyCodeObject* code) {
    auto it = known_.find(code);
    if (it != known_.end()) return it->second;
    bool ours = false;
    if (PyObject* file = code->co_filename; file && PyUnicode_Check(file)) {
      const char* path = PyUnicode_AsUTF8(file);
      ours = path != nullptr && std::strstr(path, "/torch_xla/") != nullptr;
      if (path == nullptr) PyErr_Clear();
    }
    Py_INCREF(code);
    known_.emplace(code, ours);
    return ours;
  }

  void Clear() {
    for (auto& [code, ours] : known_) Py_DECREF(code);
    known_.clear();
  }

 private:
  std::unordered_map<PyCodeObject*, bool> known_;
};

// The site of the running Python code: (code object, instruction offset) of
// the innermost frame outside torch_xla; (nullptr, -1) when there is none.
std::pair<PyCodeObject*, int> CurrentSite(OwnCode& own) {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
    Py_DECREF(code);  // still alive: the frame holds it
    if (!own.Contains(code)) {
      const int lasti = PyFrame_GetLasti(frame);
      Py_DECREF(frame);
      return {code, lasti};
    }
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  return {nullptr, -1};
}

class ScalarLeaves {
 public:
  Value Get(py::handle number, DType dtype) {
    // Wraps like eager's arithmetic with a Python number (device_data.h).
    const HostNumber value =
        ValueOrThrow(ReadHostNumber(number, "scalar operand"));
    int64_t bits = value.i;
    if (value.kind == HostNumber::Kind::kUint64) {
      bits = static_cast<int64_t>(value.u);
    } else if (value.kind == HostNumber::Kind::kDouble) {
      std::memcpy(&bits, &value.d, sizeof(bits));
    }
    if (leaves_.size() >= kCapacity || own_.size() >= kCapacity) {
      // Together: the code objects own_ keeps alive key the leaves.
      leaves_.clear();
      broadcasts_.clear();
      own_.Clear();
    }
    const auto [code, lasti] = CurrentSite(own_);
    Key key{code, lasti, static_cast<int>(value.kind), bits,
            static_cast<int>(dtype)};
    auto it = leaves_.find(key);
    if (it != leaves_.end()) return Value(it->second);
    NodePtr leaf = MakeDataNode(MakeHostScalarNumber(value, dtype));
    leaves_.emplace(key, leaf);
    return Value(leaf);
  }

  Value Broadcast(const Value& leaf, const std::vector<int64_t>& dims) {
    auto key = std::make_pair(leaf.node.get(), dims);
    auto it = broadcasts_.find(key);
    if (it != broadcasts_.end()) return Value(it->second);
    if (broadcasts_.size() >= kCapacity) broadcasts_.clear();
    NodePtr node = ValueOrThrow(
        MakeNode(OpKind::kBroadcastInDim, {leaf},
                 Attrs().Set("dims", dims).Set("broadcast_dims",
                                               std::vector<int64_t>{})));
    broadcasts_.emplace(std::move(key), node);
    return Value(node);
  }

 private:
  // (site code, instruction offset, number kind, value bits, dtype). The code
  // object is kept alive by own_ while it is a key.
  using Key = std::tuple<PyCodeObject*, int, int, int64_t, int>;
  std::map<Key, NodePtr> leaves_;
  // Keyed by the leaf's address: the cached broadcast holds its leaf, so the
  // address cannot be reused while the entry exists.
  std::map<std::pair<const Node*, std::vector<int64_t>>, NodePtr> broadcasts_;
  OwnCode own_;
};

ScalarLeaves& Leaves() {
  static auto* leaves = new ScalarLeaves();
  return *leaves;
}

}  // namespace

Value ScalarLeafAtSite(py::handle number, DType dtype) {
  return Leaves().Get(number, dtype);
}

Value BroadcastScalarLeaf(const Value& leaf, const std::vector<int64_t>& dims) {
  return Leaves().Broadcast(leaf, dims);
}

}  // namespace torch_xla::python
