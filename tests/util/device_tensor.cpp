#include "util/device_tensor.h"

#include <algorithm>
#include <cstring>

#include "api/dtype.h"

namespace openaclnn::test {

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, int64_t gap,
                           int64_t offset, int64_t tail)
    : dims_(std::move(dims)), offset_(offset), dtype_(dtype), esize_(DTypeSize(dtype)) {
  strides_.assign(dims_.size(), 1);
  int64_t step = 1;
  for (size_t d = dims_.size(); d-- > 0;) {
    strides_[d] = step;
    step *= std::max<int64_t>(dims_[d], 1) + gap;
  }
  int64_t last = offset_;
  for (size_t d = 0; d < dims_.size(); ++d)
    last += (std::max<int64_t>(dims_[d], 1) - 1) * strides_[d];
  bytes_ = static_cast<size_t>(last + 1 + tail) * esize_;
  aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST);
  std::memset(data_, kCanary, bytes_);
  std::vector<int64_t> storage{static_cast<int64_t>(bytes_ / esize_)};
  tensor_ = aclCreateTensor(dims_.data(), dims_.size(), dtype_, strides_.data(), offset_,
                            ACL_FORMAT_ND, storage.data(), 1, data_);
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  aclrtFree(data_);
}

int64_t DeviceTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

int64_t DeviceTensor::Index(int64_t i) const {
  int64_t at = offset_;
  for (size_t d = dims_.size(); d-- > 0;) {
    at += (i % dims_[d]) * strides_[d];
    i /= dims_[d];
  }
  return at;
}

float DeviceTensor::Get(int64_t i) const { return LoadAsFloat(data_, dtype_, Index(i)); }
void DeviceTensor::Set(int64_t i, float value) { StoreFromFloat(data_, dtype_, Index(i), value); }

void DeviceTensor::Fill(const std::vector<float>& values) {
  for (int64_t i = 0; i < numel(); ++i) Set(i, values[static_cast<size_t>(i) % values.size()]);
}

std::vector<float> DeviceTensor::Values() const {
  std::vector<float> v(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) v[static_cast<size_t>(i)] = Get(i);
  return v;
}

int64_t DeviceTensor::DamagedCanaries() const {
  std::vector<bool> inside(bytes_, false);
  for (int64_t i = 0; i < numel(); ++i) {
    const size_t at = static_cast<size_t>(Index(i)) * esize_;
    std::fill(inside.begin() + at, inside.begin() + at + esize_, true);
  }
  const auto* p = static_cast<const uint8_t*>(data_);
  int64_t damaged = 0;
  for (size_t b = 0; b < bytes_; ++b) damaged += !inside[b] && p[b] != kCanary;
  return damaged;
}

bool DeviceTensor::Untouched() const {
  const auto* p = static_cast<const uint8_t*>(data_);
  return std::all_of(p, p + bytes_, [](uint8_t b) { return b == kCanary; });
}

}  // namespace openaclnn::test
