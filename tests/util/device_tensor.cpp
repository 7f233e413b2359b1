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

TensorLayout TensorLayout::Padded(int64_t gap) {
  TensorLayout layout;
  layout.gap = gap;
  layout.name = "padded";
  return layout;
}

TensorLayout TensorLayout::Offset(int64_t offset) {
  TensorLayout layout;
  layout.offset = offset;
  layout.name = "offset";
  return layout;
}

TensorLayout TensorLayout::Permuted(std::vector<int> order) {
  TensorLayout layout;
  layout.order = std::move(order);
  layout.name = "permuted";
  return layout;
}

TensorLayout TensorLayout::Broadcast(std::vector<int> dims) {
  TensorLayout layout;
  layout.broadcast = std::move(dims);
  layout.name = "broadcast";
  return layout;
}

TensorLayout TensorLayout::Strided(int64_t step, int64_t offset) {
  TensorLayout layout;
  layout.step = step;
  layout.offset = offset;
  layout.name = "strided";
  return layout;
}

TensorLayout TensorLayout::PaddedRows(int row_dims, int64_t row_gap) {
  TensorLayout layout;
  layout.row_dims = row_dims;
  layout.row_gap = row_gap;
  layout.name = "padded-rows";
  return layout;
}

TensorLayout TensorLayout::Explicit(std::vector<int64_t> strides, int64_t offset) {
  TensorLayout layout;
  layout.strides = std::move(strides);
  layout.offset = offset;
  layout.name = "explicit";
  return layout;
}

TensorLayout TensorLayout::Scrambled(int rank) {
  TensorLayout layout;
  layout.gap = 3;
  layout.offset = 5;
  layout.tail = 2;
  for (int d = rank - 1; d >= 0; --d) layout.order.push_back(d);
  layout.name = "scrambled";
  return layout;
}

TensorLayout TensorLayout::WithOffset(int64_t elements) const {
  TensorLayout layout = *this;
  layout.offset = elements;
  return layout;
}

TensorLayout TensorLayout::WithTail(int64_t elements) const {
  TensorLayout layout = *this;
  layout.tail = elements;
  return layout;
}

TensorLayout TensorLayout::WithFormat(aclFormat value) const {
  TensorLayout layout = *this;
  layout.format = value;
  return layout;
}

TensorLayout TensorLayout::WithNanCanary() const {
  TensorLayout layout = *this;
  layout.canary = kNanCanaryByte;
  return layout;
}

TensorLayout TensorLayout::Named(std::string label) const {
  TensorLayout layout = *this;
  layout.name = std::move(label);
  return layout;
}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, int64_t gap,
                           int64_t offset, int64_t tail)
    : DeviceTensor(std::move(dims), dtype, [&] {
        TensorLayout layout;
        layout.gap = gap;
        layout.offset = offset;
        layout.tail = tail;
        return layout;
      }()) {}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, const TensorLayout& layout)
    : dims_(std::move(dims)),
      offset_(layout.offset),
      dtype_(dtype),
      esize_(DTypeSize(dtype)),
      canary_(layout.canary) {
  const size_t rank = dims_.size();
  if (!layout.strides.empty()) {
    if (layout.strides.size() != rank)
      throw std::invalid_argument("TensorLayout: explicit strides must give one stride per dim");
    strides_ = layout.strides;
  } else {
    std::vector<int> order = layout.order;
    if (order.empty()) {
      order.resize(rank);
      std::iota(order.begin(), order.end(), 0);
    }
    if (order.size() != rank)
      throw std::invalid_argument("TensorLayout: order must name every dim");
    std::vector<bool> broadcast(rank, false);
    for (int d : layout.broadcast) broadcast.at(static_cast<size_t>(d)) = true;
    strides_.assign(rank, 0);
    int64_t step = layout.step;
    int stored = 0;
    for (size_t k = rank; k-- > 0;) {
      const size_t d = static_cast<size_t>(order[k]);
      if (broadcast[d]) continue;  // stride 0: the storage holds one element along d
      strides_[d] = step;
      step *= std::max<int64_t>(dims_[d], 1) + layout.gap;
      if (++stored == layout.row_dims) step += layout.row_gap * layout.step;
    }
  }
  // The lowest and highest element the view reaches (negative strides reach below the offset).
  int64_t low = offset_, high = offset_;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t reach = (std::max<int64_t>(dims_[d], 1) - 1) * strides_[d];
    (reach < 0 ? low : high) += reach;
  }
  if (low < 0) throw std::invalid_argument("TensorLayout: the view reaches below its buffer");
  bytes_ = static_cast<size_t>(high + 1 + layout.tail) * esize_;
  if (aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    throw std::runtime_error("DeviceTensor: aclrtMalloc failed");
  Reset();
  std::vector<int64_t> storage{static_cast<int64_t>(bytes_ / esize_)};
  tensor_ = aclCreateTensor(dims_.data(), dims_.size(), dtype_, strides_.data(), offset_,
                            layout.format, storage.data(), 1, data_);
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  aclrtFree(data_);
}

std::vector<uint8_t> DeviceTensor::Bytes() const {
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

double DeviceTensor::Set(int64_t i, float value) {
  uint8_t element[8];
  StoreDouble(element, dtype_, 0, value);
  const size_t at = static_cast<size_t>(Index(i)) * esize_;
  if (aclrtMemcpy(static_cast<uint8_t*>(data_) + at, esize_, element, esize_,
                  ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
    throw std::runtime_error("DeviceTensor: aclrtMemcpy to the device failed");
  return LoadDouble(element, dtype_, 0);
}

std::vector<double> DeviceTensor::FillUniform(std::mt19937* rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<double> values(static_cast<size_t>(numel()));
  for (double& v : values) v = dist(*rng);
  FillDouble(values);
  return ValuesDouble();
}

void DeviceTensor::Fill(const std::vector<float>& values) {
  FillDouble(std::vector<double>(values.begin(), values.end()));
}

void DeviceTensor::FillDouble(const std::vector<double>& values) {
  std::vector<uint8_t> bytes = Bytes();
  for (int64_t i = 0; i < numel(); ++i)
    StoreDouble(bytes.data(), dtype_, Index(i), values[static_cast<size_t>(i) % values.size()]);
  Upload(bytes);
}

std::vector<float> DeviceTensor::Values() const {
  const std::vector<double> v = ValuesDouble();
  return std::vector<float>(v.begin(), v.end());
}

std::vector<double> DeviceTensor::ValuesDouble() const {
  const std::vector<uint8_t> bytes = Bytes();
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

void DeviceTensor::Reset() { Upload(std::vector<uint8_t>(bytes_, canary_)); }

int64_t DeviceTensor::DamagedCanaries() const {
  std::vector<bool> inside(bytes_, false);
  for (int64_t i = 0; i < numel(); ++i) {
    const size_t at = static_cast<size_t>(Index(i)) * esize_;
    std::fill(inside.begin() + at, inside.begin() + at + esize_, true);
  }
  const std::vector<uint8_t> p = Bytes();
  int64_t damaged = 0;
  for (size_t b = 0; b < bytes_; ++b) damaged += !inside[b] && p[b] != canary_;
  return damaged;
}

bool DeviceTensor::Untouched() const {
  const std::vector<uint8_t> p = Bytes();
  return std::all_of(p.begin(), p.end(), [this](uint8_t b) { return b == canary_; });
}

}  // namespace openaclnn::test
