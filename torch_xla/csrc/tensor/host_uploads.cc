#include "torch_xla/csrc/tensor/host_uploads.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/tensor/lru_cache.h"

namespace torch_xla {
namespace {

constexpr int64_t kMaxCachedUploadBytes = 64 << 10;

absl::StatusOr<runtime::BufferPtr> UploadSmallHostValue(
    runtime::Client* client, const HostData& host, int device) {
  static auto* cache = new LruCache<runtime::Buffer>(256);
  std::string key = absl::StrCat(device, ":", host.shape().ToString(), ":");
  key.append(host.bytes().begin(), host.bytes().end());
  runtime::BufferPtr cached = cache->Find(key);
  if (cached != nullptr && !cached->IsDeleted()) return cached;
  if (cached != nullptr) cache->Erase(key);
  absl::StatusOr<runtime::BufferPtr> buffer =
      client->TransferToDevice(host.bytes().data(), host.shape(), device);
  if (buffer.ok()) cache->Insert(key, *buffer);
  return buffer;
}

}  // namespace

absl::StatusOr<runtime::BufferPtr> UploadHostData(runtime::Client* client,
                                                  const HostData& host,
                                                  int device, bool fresh) {
  if (!host.is_fill() && host.shape().byte_size() <= kMaxCachedUploadBytes &&
      !fresh) {
    return UploadSmallHostValue(client, host, device);
  }
  if (host.is_fill()) {
    std::vector<uint8_t> dense = host.DenseBytes();
    return client->TransferToDevice(dense.data(), host.shape(), device);
  }
  return client->TransferToDevice(host.bytes().data(), host.shape(), device);
}

}  // namespace torch_xla
