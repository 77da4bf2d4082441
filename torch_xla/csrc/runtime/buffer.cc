// Buffer ownership, live-byte accounting and dtype mapping.

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/runtime/client.h"

namespace torch_xla::runtime {
namespace {

constexpr int kMaxTrackedDevices = 256;

struct LiveBytes {
  std::atomic<int64_t> total{0};
  std::atomic<int64_t> peak{0};
  std::atomic<int64_t> by_device[kMaxTrackedDevices] = {};
  std::atomic<int64_t> peak_by_device[kMaxTrackedDevices] = {};
};

LiveBytes& Live() {
  static auto* live = new LiveBytes();
  return *live;
}

void RaiseTo(std::atomic<int64_t>& peak, int64_t value) {
  int64_t seen = peak.load(std::memory_order_relaxed);
  while (value > seen &&
         !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

void AddLive(int ordinal, int64_t bytes) {
  LiveBytes& live = Live();
  RaiseTo(live.peak, live.total.fetch_add(bytes) + bytes);
  if (ordinal >= 0 && ordinal < kMaxTrackedDevices) {
    RaiseTo(live.peak_by_device[ordinal],
            live.by_device[ordinal].fetch_add(bytes) + bytes);
  }
}

}  // namespace

int64_t LiveDeviceBytes() { return Live().total.load(); }
int64_t PeakLiveDeviceBytes() { return Live().peak.load(); }
void ResetPeakLiveDeviceBytes() {
  LiveBytes& live = Live();
  live.peak.store(live.total.load());
  for (int i = 0; i < kMaxTrackedDevices; ++i) {
    live.peak_by_device[i].store(live.by_device[i].load());
  }
}

int64_t LiveDeviceBytesOn(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxTrackedDevices) return 0;
  return Live().by_device[ordinal].load();
}

int64_t PeakLiveDeviceBytesOn(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxTrackedDevices) return 0;
  return Live().peak_by_device[ordinal].load();
}

Buffer::Buffer(const PJRT_Api* api, OwnedBuffer buffer, Shape shape,
               int ordinal)
    : api_(api), buffer_(std::move(buffer)), shape_(std::move(shape)),
      ordinal_(ordinal) {
  auto args = PJRT_ARGS(PJRT_Buffer_OnDeviceSizeInBytes);
  args.buffer = buffer_.get();
  absl::Status status = ToStatus(
      api_, api_->PJRT_Buffer_OnDeviceSizeInBytes(&args), "buffer size");
  bytes_ = status.ok() ? static_cast<int64_t>(args.on_device_size_in_bytes)
                       : shape_.byte_size();
  AddLive(ordinal_, bytes_);
  counted_ = true;
}

Buffer::~Buffer() { MarkDonated(); }

void Buffer::MarkDonated() {
  if (!counted_) return;
  counted_ = false;
  AddLive(ordinal_, -bytes_);
}

absl::Status Buffer::AwaitReady() const {
  return ready_ == nullptr ? absl::OkStatus() : ready_->Await();
}

ExecutionEvent::ExecutionEvent(const PJRT_Api* api, PJRT_Event* event,
                               std::string name)
    : api_(api), event_(event), name_(std::move(name)) {}

ExecutionEvent::~ExecutionEvent() { DestroyEvent(api_, event_); }

absl::Status ExecutionEvent::Await() {
  std::lock_guard<std::mutex> lock(mu_);
  if (event_ == nullptr) return status_;
  absl::Status done = AwaitEvent(api_, event_, "execute");  // destroys it
  event_ = nullptr;
  if (!done.ok()) {
    status_ = absl::Status(done.code(), absl::StrCat("execution of ", name_,
                                                     " failed: ",
                                                     done.message()));
  }
  return status_;
}

bool Buffer::IsDeleted() const {
  auto args = PJRT_ARGS(PJRT_Buffer_IsDeleted);
  args.buffer = buffer_.get();
  absl::Status status =
      ToStatus(api_, api_->PJRT_Buffer_IsDeleted(&args), "PJRT_Buffer_IsDeleted");
  return !status.ok() || args.is_deleted;
}

namespace {

struct TypePair {
  DType dtype;
  PJRT_Buffer_Type pjrt;
};

constexpr TypePair kTypePairs[] = {
    {DType::kF32, PJRT_Buffer_Type_F32},   {DType::kF64, PJRT_Buffer_Type_F64},
    {DType::kBF16, PJRT_Buffer_Type_BF16}, {DType::kF16, PJRT_Buffer_Type_F16},
    {DType::kI64, PJRT_Buffer_Type_S64},   {DType::kI32, PJRT_Buffer_Type_S32},
    {DType::kI16, PJRT_Buffer_Type_S16},   {DType::kI8, PJRT_Buffer_Type_S8},
    {DType::kU8, PJRT_Buffer_Type_U8},     {DType::kBool, PJRT_Buffer_Type_PRED},
    {DType::kU32, PJRT_Buffer_Type_U32},   {DType::kU64, PJRT_Buffer_Type_U64},
};

}  // namespace

absl::StatusOr<PJRT_Buffer_Type> ToPjrtType(DType dtype) {
  for (const TypePair& pair : kTypePairs) {
    if (pair.dtype == dtype) return pair.pjrt;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("element type ", DTypeName(dtype), " has no PJRT type"));
}

absl::StatusOr<DType> FromPjrtType(PJRT_Buffer_Type type) {
  for (const TypePair& pair : kTypePairs) {
    if (pair.pjrt == type) return pair.dtype;
  }
  return absl::UnimplementedError(absl::StrCat(
      "PJRT buffer type ", static_cast<int>(type), " is not supported"));
}

}  // namespace torch_xla::runtime
