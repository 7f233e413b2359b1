#include "util/device_tensor.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "api/dtype.h"

namespace openaclnn::test {
namespace {

double LoadDouble(const uint8_t* base, aclDataType dtype, int64_t i) {
  const size_t at = static_cast<size_t>(i) * DTypeSize(dtype);
  auto load = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, base + at, sizeof(v));
    return static_cast<double>(v);
  };
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_FLOAT:
      return LoadAsFloat(base, dtype, i);
    case ACL_DOUBLE:
      return load(double{});
    case ACL_INT8:
      return load(int8_t{});
    case ACL_UINT8:
      return load(uint8_t{});
    case ACL_INT16:
      return load(int16_t{});
    case ACL_INT32:
      return load(int32_t{});
    case ACL_INT64:
      return load(int64_t{});
    case ACL_BOOL:
      return load(uint8_t{}) != 0 ? 1.0 : 0.0;
    default:
      throw std::invalid_argument("DeviceTensor: unsupported dtype");
  }
}

// Integers take the value converted (truncated, wrapping as C++ does for in-range casts); BOOL
// takes value != 0.
void StoreDouble(uint8_t* base, aclDataType dtype, int64_t i, double value) {
  const size_t at = static_cast<size_t>(i) * DTypeSize(dtype);
  auto store = [&](auto v) { std::memcpy(base + at, &v, sizeof(v)); };
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_FLOAT:
      StoreFromFloat(base, dtype, i, static_cast<float>(value));
      break;
    case ACL_DOUBLE:
      store(value);
      break;
    case ACL_INT8:
      store(static_cast<int8_t>(value));
      break;
    case ACL_UINT8:
      store(static_cast<uint8_t>(value));
      break;
    case ACL_INT16:
      store(static_cast<int16_t>(value));
      break;
    case ACL_INT32:
      store(static_cast<int32_t>(value));
      break;
    case ACL_INT64:
      store(static_cast<int64_t>(value));
      break;
    case ACL_BOOL:
      store(static_cast<uint8_t>(value != 0.0 ? 1 : 0));
      break;
    default:
      throw std::invalid_argument("DeviceTensor: unsupported dtype");
  }
}

}  // namespace

TensorLayout TensorLayout::Scrambled(int rank) {
  TensorLayout layout;
  layout.gap = 3;
  layout.offset = 5;
  layout.tail = 2;
  for (int d = rank - 1; d >= 0; --d) layout.order.push_back(d);
  return layout;
}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, int64_t gap,
                           int64_t offset, int64_t tail)
    : DeviceTensor(std::move(dims), dtype, TensorLayout{gap, offset, tail, {}, {}}) {}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, const TensorLayout& layout)
    : dims_(std::move(dims)), offset_(layout.offset), dtype_(dtype), esize_(DTypeSize(dtype)) {
  const size_t rank = dims_.size();
  std::vector<int> order = layout.order;
  if (order.empty()) {
    order.resize(rank);
    std::iota(order.begin(), order.end(), 0);
  }
  if (order.size() != rank) throw std::invalid_argument("TensorLayout: order must name every dim");
  std::vector<bool> broadcast(rank, false);
  for (int d : layout.broadcast) broadcast.at(static_cast<size_t>(d)) = true;
  strides_.assign(rank, 0);
  int64_t step = 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t d = static_cast<size_t>(order[k]);
    if (broadcast[d]) continue;  // stride 0: the storage holds one element along d
    strides_[d] = step;
    step *= std::max<int64_t>(dims_[d], 1) + layout.gap;
  }
  int64_t last = offset_;
  for (size_t d = 0; d < rank; ++d) last += (std::max<int64_t>(dims_[d], 1) - 1) * strides_[d];
  bytes_ = static_cast<size_t>(last + 1 + layout.tail) * esize_;
  if (aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    throw std::runtime_error("DeviceTensor: aclrtMalloc failed");
  Upload(std::vector<uint8_t>(bytes_, kCanary));
  std::vector<int64_t> storage{static_cast<int64_t>(bytes_ / esize_)};
  tensor_ = aclCreateTensor(dims_.data(), dims_.size(), dtype_, strides_.data(), offset_,
                            ACL_FORMAT_ND, storage.data(), 1, data_);
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  aclrtFree(data_);
}

std::vector<uint8_t> DeviceTensor::Download() const {
  std::vector<uint8_t> bytes(bytes_);
  if (aclrtMemcpy(bytes.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
    throw std::runtime_error("DeviceTensor: aclrtMemcpy to the host failed");
  return bytes;
}

void DeviceTensor::Upload(const std::vector<uint8_t>& bytes) {
  if (aclrtMemcpy(data_, bytes_, bytes.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
    throw std::runtime_error("DeviceTensor: aclrtMemcpy to the device failed");
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

float DeviceTensor::Get(int64_t i) const {
  uint8_t element[8];
  const size_t at = static_cast<size_t>(Index(i)) * esize_;
  aclrtMemcpy(element, sizeof(element), static_cast<const uint8_t*>(data_) + at, esize_,
              ACL_MEMCPY_DEVICE_TO_HOST);
  return static_cast<float>(LoadDouble(element, dtype_, 0));
}

void DeviceTensor::Set(int64_t i, float value) {
  uint8_t element[8];
  StoreDouble(element, dtype_, 0, value);
  const size_t at = static_cast<size_t>(Index(i)) * esize_;
  aclrtMemcpy(static_cast<uint8_t*>(data_) + at, esize_, element, esize_,
              ACL_MEMCPY_HOST_TO_DEVICE);
}

void DeviceTensor::Fill(const std::vector<float>& values) {
  FillDouble(std::vector<double>(values.begin(), values.end()));
}

void DeviceTensor::FillDouble(const std::vector<double>& values) {
  std::vector<uint8_t> bytes = Download();
  for (int64_t i = 0; i < numel(); ++i)
    StoreDouble(bytes.data(), dtype_, Index(i), values[static_cast<size_t>(i) % values.size()]);
  Upload(bytes);
}

std::vector<float> DeviceTensor::Values() const {
  const std::vector<double> v = ValuesDouble();
  return std::vector<float>(v.begin(), v.end());
}

std::vector<double> DeviceTensor::ValuesDouble() const {
  const std::vector<uint8_t> bytes = Download();
  std::vector<double> v(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i)
    v[static_cast<size_t>(i)] = LoadDouble(bytes.data(), dtype_, Index(i));
  return v;
}

double DeviceTensor::GetDouble(int64_t i) const {
  uint8_t element[8];
  const size_t at = static_cast<size_t>(Index(i)) * esize_;
  aclrtMemcpy(element, sizeof(element), static_cast<const uint8_t*>(data_) + at, esize_,
              ACL_MEMCPY_DEVICE_TO_HOST);
  return LoadDouble(element, dtype_, 0);
}

int64_t DeviceTensor::DamagedCanaries() const {
  std::vector<bool> inside(bytes_, false);
  for (int64_t i = 0; i < numel(); ++i) {
    const size_t at = static_cast<size_t>(Index(i)) * esize_;
    std::fill(inside.begin() + at, inside.begin() + at + esize_, true);
  }
  const std::vector<uint8_t> p = Download();
  int64_t damaged = 0;
  for (size_t b = 0; b < bytes_; ++b) damaged += !inside[b] && p[b] != kCanary;
  return damaged;
}

bool DeviceTensor::Untouched() const {
  const std::vector<uint8_t> p = Download();
  return std::all_of(p.begin(), p.end(), [](uint8_t b) { return b == kCanary; });
}

}  // namespace openaclnn::test
