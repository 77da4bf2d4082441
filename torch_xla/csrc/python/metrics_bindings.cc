// _XLAC metrics functions behind torch_xla.debug.metrics.

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "torch_xla/csrc/metrics/metrics.h"
#include "torch_xla/csrc/python/bindings.h"

namespace py = pybind11;

namespace torch_xla::python {

void InitMetricsBindings(py::module_& m) {
  m.def("_xla_metrics_report", &metrics::MetricsReport);
  m.def("_short_xla_metrics_report", &metrics::ShortMetricsReport);
  m.def("_xla_counter_names", &metrics::CounterNames);
  m.def("_xla_metric_names", &metrics::MetricNames);
  m.def("_xla_counter_value", [](const std::string& name) -> py::object {
    const metrics::Counter* counter = metrics::FindCounter(name);
    if (counter == nullptr) return py::none();
    return py::int_(counter->value());
  });
  m.def("_xla_metric_data", [](const std::string& name) -> py::object {
    const metrics::Metric* metric = metrics::FindMetric(name);
    if (metric == nullptr || metric->count() == 0) return py::none();
    py::list samples;
    for (const metrics::Sample& sample : metric->samples()) {
      samples.append(py::make_tuple(sample.timestamp_ns, sample.value));
    }
    return py::make_tuple(metric->count(), metric->accumulator(), samples);
  });
  m.def("_xla_increment_counter", [](const std::string& name, int64_t delta) {
    metrics::GetCounter(name)->Add(delta);
  });
  m.def("_clear_xla_counters", &metrics::ClearCounters);
  m.def("_clear_xla_metrics", &metrics::ClearMetrics);
}

}  // namespace torch_xla::python
