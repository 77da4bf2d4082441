// _XLAC's SPMD functions: the mode switch, shardings (XLA's HloSharding text
// form is what users see), mark/clear, local shards.

#include "pybind11/stl.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/sharding.h"
#include "torch_xla/csrc/python/bindings.h"
#include "torch_xla/csrc/python/status_conversion.h"
#include "torch_xla/csrc/python/torch_tensor.h"
#include "torch_xla/csrc/spmd/spmd_mode.h"
#include "torch_xla/csrc/spmd/spmd_tensors.h"
#include "torch_xla/csrc/tensor/graph_executor.h"
#include "torch_xla/csrc/tensor/views.h"

namespace torch_xla::python {
namespace py = pybind11;

void InitSpmdBindings(py::module_& m) {
  py::class_<Sharding, std::shared_ptr<Sharding>>(
      m, "OpSharding",
      "How a tensor is split over the SPMD devices (XLA HloSharding).")
      .def(py::init([](std::vector<int64_t> tile_dims,
                       std::vector<int64_t> devices, bool replicate_last_dim) {
             return std::make_shared<Sharding>(ValueOrThrow(Sharding::Tiled(
                 std::move(tile_dims), std::move(devices),
                 replicate_last_dim)));
           }),
           py::arg("tile_dims"), py::arg("devices"),
           py::arg("replicate_last_dim") = false,
           "Tiles per dimension (plus a last replication dimension when "
           "replicate_last_dim) and the device of each tile, row-major.")
      .def_static("replicated",
                  [] { return std::make_shared<Sharding>(Sharding()); })
      .def_property_readonly(
          "type", [](const Sharding& s) { return static_cast<int>(s.type); })
      .def_readonly("tile_dims", &Sharding::tile_dims)
      .def_readonly("devices", &Sharding::devices)
      .def("__str__", &Sharding::ToString)
      .def("__repr__", [](const Sharding& s) {
        return "OpSharding(" + s.ToString() + ")";
      });

  m.def("_xla_use_spmd", [] { ThrowIfError(spmd::EnableSpmd()); });
  m.def("_xla_is_spmd", &spmd::IsSpmd);
  m.def("_xla_spmd_device_count", &spmd::SpmdDeviceCount);
  m.def(
      "_xla_mark_sharding",
      [](py::handle tensor, const Sharding& sharding) {
        ThrowIfError(MarkSharding(ToXlaTensor(tensor),
                                  std::make_shared<const Sharding>(sharding)));
      },
      py::arg("tensor"), py::arg("sharding"));
  m.def(
      "_xla_sharding_annotation",
      [](py::handle tensor, const std::string& text) {
        XlaTensorPtr t = ToXlaTensor(tensor);
        Value value = ValueOrThrow(t->GetIrValue());
        NodePtr node = ValueOrThrow(
            MakeNode(OpKind::kSharding, {value},
                     Attrs().Set("sharding", absl::string_view(text))));
        return XlaTensor::FromIr(Value(node), t->device());
      },
      py::arg("tensor"), py::arg("sharding"),
      "A new tensor: `tensor`'s value annotated with an HLO sharding text "
      "for the partitioner (e.g. '{unknown shard_as 0}').");
  m.def("_xla_clear_sharding", [](py::handle tensor) {
    ThrowIfError(ClearSharding(ToXlaTensor(tensor)));
  });
  m.def(
      "_get_xla_sharding_spec",
      [](py::handle tensor) -> std::string {
        XlaTensorPtr t = ToXlaTensor(tensor);
        ShardingPtr sharding = t->sharding();
        // A view of synced data (say a gradient that is a slice of a
        // stacked one) is re-derived lazily after a sync, so it holds no
        // buffers of its own; upstream's views are materialized and report
        // the layout the partitioner gave them. Materialize it the same
        // way (as reading it would) to report that layout.
        ViewInfoPtr view = t->view();
        if (sharding == nullptr && spmd::IsSpmd() &&
            t->state() == TensorState::kIrValue && view != nullptr &&
            view->root != nullptr &&
            view->root->state() == TensorState::kDeviceData &&
            view->root->sharding() != nullptr) {
          {
            py::gil_scoped_release release;
            ThrowIfError(SyncTensors({t}));
          }
          sharding = t->sharding();
        }
        return sharding == nullptr ? "" : sharding->ToString();
      },
      "The tensor's sharding in HLO text form; '' when it has none.");
  m.def("_get_xla_sharding_type", [](py::handle tensor) -> py::object {
    ShardingPtr sharding = ToXlaTensor(tensor)->sharding();
    if (sharding == nullptr) return py::none();
    return py::int_(static_cast<int>(sharding->type));
  });
  m.def(
      "_get_local_shards",
      [](const py::iterable& tensors) {
        py::list out;
        for (const XlaTensorPtr& tensor : ToXlaTensors(tensors)) {
          std::vector<LocalShard> shards;
          {
            py::gil_scoped_release release;
            shards = ValueOrThrow(LocalShards(tensor));
          }
          py::list per_tensor;
          for (LocalShard& shard : shards) {
            py::list box;
            for (size_t i = 0; i < shard.box.start.size(); ++i) {
              box.append(py::make_tuple(shard.box.start[i],
                                        shard.box.start[i] + shard.box.size[i]));
            }
            per_tensor.append(py::make_tuple(shard.tensor, box, shard.device));
          }
          out.append(per_tensor);
        }
        return out;
      },
      "For each tensor: (shard handle on xla:d, [(start, stop) per dim], d) "
      "per device. No transfer.");
}

}  // namespace torch_xla::python
