#include "torch_xla/csrc/device_guard/xla_device_guard.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <atomic>

namespace torch_xla {
namespace {

std::atomic<int (*)()> g_device_count{nullptr};
thread_local c10::DeviceIndex t_current_device = 0;

// XLA has no streams or per-thread device state that PyTorch must manage:
// the lazy runtime picks devices from the tensors themselves. The guard only
// remembers which index the caller asked for.
class XlaDeviceGuardImpl final : public c10::impl::DeviceGuardImplInterface {
 public:
  c10::DeviceType type() const override { return c10::DeviceType::XLA; }

  c10::Device exchangeDevice(c10::Device device) const override {
    c10::Device previous = getDevice();
    t_current_device = device.index();
    return previous;
  }
  c10::Device getDevice() const override {
    return c10::Device(c10::DeviceType::XLA, t_current_device);
  }
  void setDevice(c10::Device device) const override {
    t_current_device = device.index();
  }
  void uncheckedSetDevice(c10::Device device) const noexcept override {
    t_current_device = device.index();
  }
  c10::Stream getStream(c10::Device device) const override {
    return c10::Stream(c10::Stream::DEFAULT, device);
  }
  c10::Stream exchangeStream(c10::Stream stream) const override {
    return c10::Stream(c10::Stream::DEFAULT, stream.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override {
    int (*count)() = g_device_count.load();
    return static_cast<c10::DeviceIndex>(count == nullptr ? 1 : count());
  }
};

}  // namespace

void RegisterXlaDeviceGuard(int (*device_count)()) {
  g_device_count.store(device_count);
  if (c10::impl::hasDeviceGuardImpl(c10::DeviceType::XLA)) return;
  // c10's registry does not own its entries and expects them to be leaked.
  static auto* impl = new XlaDeviceGuardImpl();
  c10::impl::registerDeviceGuard(c10::DeviceType::XLA, impl);
}

}  // namespace torch_xla
