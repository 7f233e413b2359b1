#include "ops/layer_norm_backward/lnb_test_util.h"

#include <algorithm>

#include "api/dtype.h"
#include "ops/layer_norm_backward/reference.h"

namespace openaclnn::lnb_test {

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kContiguous:
      return "contiguous";
    case Layout::kTransposedLead:
      return "transposed_lead";
    case Layout::kPaddedRows:
      return "padded_rows";
    case Layout::kOffset:
      return "offset";
    case Layout::kStrided:
      return "strided";
  }
  return "?";
}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, aclDataType dtype, int begin, Layout layout)
    : shape_(std::move(shape)), dtype_(dtype) {
  const int rank = static_cast<int>(shape_.size());
  strides_.assign(rank, 0);
  numel_ = 1;
  for (int64_t d : shape_) numel_ *= d;
  int64_t row = 1;
  for (int i = begin; i < rank; ++i) row *= shape_[i];
  int64_t pitch = row;
  int64_t element_stride = 1;
  switch (layout) {
    case Layout::kPaddedRows:
      pitch = row + 3;
      break;
    case Layout::kOffset:
      offset_ = 7;
      break;
    case Layout::kStrided:
      element_stride = 2;
      offset_ = 1;
      break;
    default:
      break;
  }
  // Trailing dims: row-major inside the row block.
  int64_t s = element_stride;
  for (int i = rank - 1; i >= begin; --i) {
    strides_[i] = s;
    s *= shape_[i];
  }
  s = pitch * element_stride;
  if (layout == Layout::kTransposedLead) {
    for (int i = 0; i < begin; ++i) {
      strides_[i] = s;
      s *= shape_[i];
    }
  } else {
    for (int i = begin - 1; i >= 0; --i) {
      strides_[i] = s;
      s *= shape_[i];
    }
  }
  int64_t max_index = offset_;
  for (int i = 0; i < rank; ++i) max_index += (shape_[i] > 0 ? shape_[i] - 1 : 0) * strides_[i];
  storage_elems_ = max_index + 1 + (layout == Layout::kPaddedRows ? 3 : 0);
  const size_t bytes = static_cast<size_t>(storage_elems_) * DTypeSize(dtype_);
  aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::memset(data_, kGuardByte, bytes);
  tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides_.data(), offset_,
                            ACL_FORMAT_ND, &storage_elems_, 1, data_);
}

DeviceTensor::~DeviceTensor() {
  if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  if (data_ != nullptr) aclrtFree(data_);
}

int64_t DeviceTensor::ElementOffset(int64_t i) const {
  int64_t off = offset_;
  for (int d = static_cast<int>(shape_.size()) - 1; d >= 0; --d) {
    off += (i % shape_[d]) * strides_[d];
    i /= shape_[d];
  }
  return off;
}

double DeviceTensor::Set(int64_t i, float v) {
  const int64_t off = ElementOffset(i);
  StoreFromFloat(data_, dtype_, off, v);
  return LoadAsFloat(data_, dtype_, off);
}

float DeviceTensor::Get(int64_t i) const { return LoadAsFloat(data_, dtype_, ElementOffset(i)); }

std::vector<double> DeviceTensor::FillUniform(std::mt19937* rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<double> values(numel_);
  for (int64_t i = 0; i < numel_; ++i) values[i] = Set(i, dist(*rng));
  return values;
}

std::vector<float> DeviceTensor::ReadAll() const {
  std::vector<float> values(numel_);
  for (int64_t i = 0; i < numel_; ++i) values[i] = Get(i);
  return values;
}

bool DeviceTensor::GapsUntouched() const {
  const size_t esize = DTypeSize(dtype_);
  std::vector<bool> in_view(storage_elems_, false);
  for (int64_t i = 0; i < numel_; ++i) in_view[ElementOffset(i)] = true;
  const auto* bytes = static_cast<const uint8_t*>(data_);
  for (int64_t e = 0; e < storage_elems_; ++e) {
    if (in_view[e]) continue;
    for (size_t k = 0; k < esize; ++k) {
      if (bytes[e * esize + k] != kGuardByte) return false;
    }
  }
  return true;
}

bool DeviceTensor::AllUntouched() const {
  const size_t bytes = static_cast<size_t>(storage_elems_) * DTypeSize(dtype_);
  const auto* p = static_cast<const uint8_t*>(data_);
  return std::all_of(p, p + bytes, [](uint8_t b) { return b == kGuardByte; });
}

aclrtStream TestStream() {
  static aclrtStream stream = [] {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream s = nullptr;
    aclrtCreateStream(&s);
    return s;
  }();
  return stream;
}

aclnnStatus RunLayerNormBackward(const aclTensor* dy, const aclTensor* x,
                                 const std::vector<int64_t>& norm, const aclTensor* mean,
                                 const aclTensor* rstd, const aclTensor* w, const aclTensor* b,
                                 const bool mask[3], aclTensor* dx, aclTensor* gw, aclTensor* gb,
                                 uint64_t* workspace_size) {
  aclrtStream stream = TestStream();
  aclIntArray* norm_array = aclCreateIntArray(norm.data(), norm.size());
  aclBoolArray* mask_array = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnLayerNormBackwardGetWorkspaceSize(
      dy, x, norm_array, mean, rstd, w, b, mask_array, dx, gw, gb, &ws, &executor);
  if (status == ACLNN_SUCCESS) {
    if (workspace_size != nullptr) *workspace_size = ws;
    void* workspace = nullptr;
    if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    status = aclnnLayerNormBackward(workspace, ws, executor, stream);
    if (status == ACLNN_SUCCESS) status = aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
  }
  aclDestroyIntArray(norm_array);
  aclDestroyBoolArray(mask_array);
  return status;
}

void GoldenLayerNormBackward(int64_t m, int64_t n, const bool mask[3],
                             const std::vector<double>& dy, const std::vector<double>& x,
                             const std::vector<double>& mean, const std::vector<double>& rstd,
                             const std::vector<double>* w, std::vector<double>* dx,
                             std::vector<double>* gw, std::vector<double>* gb) {
  dx->assign(static_cast<size_t>(m * n), 0.0);
  gw->assign(static_cast<size_t>(n), 0.0);
  gb->assign(static_cast<size_t>(n), 0.0);
  std::vector<double> acc_w(n), acc_b(n);
  layer_norm_backward::ReferenceLayerNormBackward(
      m, n, mask, [&](int64_t r, int64_t c) { return dy[r * n + c]; },
      [&](int64_t r, int64_t c) { return x[r * n + c]; }, [&](int64_t r) { return mean[r]; },
      [&](int64_t r) { return rstd[r]; }, [&](int64_t c) { return w == nullptr ? 1.0 : (*w)[c]; },
      [&](int64_t r, int64_t c, double v) { (*dx)[r * n + c] = v; },
      [&](int64_t c, double v) { (*gw)[c] = v; }, [&](int64_t c, double v) { (*gb)[c] = v; },
      acc_w.data(), acc_b.data());
}

}  // namespace openaclnn::lnb_test
