#include "conv_tbc_test_util.h"

#include <algorithm>

namespace openaclnn::test {
namespace {

constexpr int64_t kGuardTail = 16;
constexpr uint32_t kGuard32 = 0x7fc0dead;  // a quiet NaN
constexpr uint16_t kGuard16 = 0x7e5d;      // a NaN in FLOAT16 and in BF16

}  // namespace

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kContiguous:
      return "contiguous";
    case Layout::kPermuted:
      return "permuted";
    case Layout::kPadded:
      return "padded";
    case Layout::kOffset:
      return "offset";
    default:
      return "strided-outputs";
  }
}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, aclDataType dtype, Layout layout,
                           bool is_output, aclFormat format)
    : shape_(std::move(shape)), dtype_(dtype) {
  const size_t rank = shape_.size();
  numel_ = 1;
  for (int64_t d : shape_) numel_ *= d;
  strides_.assign(rank, 1);
  auto contiguous = [&] {
    for (int i = static_cast<int>(rank) - 2; i >= 0; --i) {
      strides_[i] = strides_[i + 1] * std::max<int64_t>(shape_[i + 1], 1);
    }
  };
  switch (layout) {
    case Layout::kContiguous:
      contiguous();
      break;
    case Layout::kPermuted:
      if (rank == 3) {
        // Physical order (dim 1, dim 2, dim 0): dim 0 is innermost.
        strides_[0] = 1;
        strides_[2] = std::max<int64_t>(shape_[0], 1);
        strides_[1] = strides_[2] * std::max<int64_t>(shape_[2], 1);
      } else {
        contiguous();
      }
      break;
    case Layout::kPadded:
      if (rank == 3) {
        strides_[2] = 1;
        strides_[1] = shape_[2] + 3;
        strides_[0] = shape_[1] * strides_[1] + 5;
      } else {
        contiguous();
      }
      break;
    case Layout::kOffset:
      contiguous();
      offset_ = 7;
      break;
    case Layout::kReversedTime:
      contiguous();
      strides_[0] = -strides_[0];
      offset_ = std::max<int64_t>(shape_[0] - 1, 0) * -strides_[0];
      break;
    case Layout::kStridedOutputs:
      if (!is_output) {
        contiguous();
      } else if (rank == 3) {
        strides_[2] = 2;
        strides_[1] = 2 * shape_[2] + 1;
        strides_[0] = shape_[1] * strides_[1] + 2;
        offset_ = 3;
      } else {
        strides_[0] = 3;
        offset_ = 2;
      }
      break;
  }
  int64_t high = offset_;
  for (size_t i = 0; i < rank; ++i) {
    high += std::max<int64_t>(std::max<int64_t>(shape_[i] - 1, 0) * strides_[i], 0);
  }
  storage_elems_ = high + 1 + kGuardTail;
  const size_t bytes = storage_elems_ * DTypeSize(dtype_);
  EXPECT_EQ(aclrtMalloc(&device_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<uint8_t> guard(bytes);
  for (int64_t i = 0; i < storage_elems_; ++i) {
    if (DTypeSize(dtype_) == 4) {
      std::memcpy(&guard[i * 4], &kGuard32, 4);
    } else {
      std::memcpy(&guard[i * 2], &kGuard16, 2);
    }
  }
  aclrtMemcpy(device_, bytes, guard.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  std::vector<int64_t> storage_dims{storage_elems_};
  tensor_ = aclCreateTensor(shape_.data(), rank, dtype_, strides_.data(), offset_, format,
                            storage_dims.data(), 1, device_);
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  aclrtFree(device_);
}

int64_t DeviceTensor::StorageIndex(int64_t linear) const {
  int64_t index = offset_;
  for (int i = static_cast<int>(shape_.size()) - 1; i >= 0; --i) {
    index += (linear % shape_[i]) * strides_[i];
    linear /= shape_[i];
  }
  return index;
}

std::vector<float> DeviceTensor::Fill(std::mt19937* rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(numel_);
  for (float& v : values) v = dist(*rng);
  FillValues(values);
  return Read();
}

void DeviceTensor::FillValues(const std::vector<float>& values) {
  const size_t bytes = storage_elems_ * DTypeSize(dtype_);
  std::vector<uint8_t> host = ReadBytes();
  for (int64_t i = 0; i < numel_; ++i)
    StoreFromFloat(host.data(), dtype_, StorageIndex(i), values[i]);
  aclrtMemcpy(device_, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
}

std::vector<uint8_t> DeviceTensor::ReadBytes() const {
  const size_t bytes = storage_elems_ * DTypeSize(dtype_);
  std::vector<uint8_t> host(bytes);
  aclrtMemcpy(host.data(), bytes, device_, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  return host;
}

std::vector<float> DeviceTensor::Read() const {
  std::vector<uint8_t> host = ReadBytes();
  std::vector<float> out(numel_);
  for (int64_t i = 0; i < numel_; ++i) out[i] = LoadAsFloat(host.data(), dtype_, StorageIndex(i));
  return out;
}

std::string DeviceTensor::CheckGuards() const {
  std::vector<uint8_t> host = ReadBytes();
  std::vector<bool> in_view(storage_elems_, false);
  for (int64_t i = 0; i < numel_; ++i) in_view[StorageIndex(i)] = true;
  for (int64_t i = 0; i < storage_elems_; ++i) {
    if (in_view[i]) continue;
    bool intact;
    if (DTypeSize(dtype_) == 4) {
      intact = std::memcmp(&host[i * 4], &kGuard32, 4) == 0;
    } else {
      intact = std::memcmp(&host[i * 2], &kGuard16, 2) == 0;
    }
    if (!intact) return "storage element " + std::to_string(i) + " outside the view was written";
  }
  return "";
}

CallResult CallConvTbcBackward(const aclTensor* self, const aclTensor* input,
                               const aclTensor* weight, const aclTensor* bias, int64_t pad,
                               int8_t cube_math_type, aclTensor* grad_input, aclTensor* grad_weight,
                               aclTensor* grad_bias, aclrtStream stream) {
  CallResult r;
  aclOpExecutor* executor = nullptr;
  r.phase1 = aclnnConvTbcBackwardGetWorkspaceSize(self, input, weight, bias, pad, cube_math_type,
                                                  grad_input, grad_weight, grad_bias, &r.workspace,
                                                  &executor);
  if (r.phase1 != ACLNN_SUCCESS) {
    const char* m = aclGetRecentErrMsg();
    r.message = m == nullptr ? "" : m;
    return r;
  }
  void* ws = nullptr;
  if (r.workspace > 0) {
    EXPECT_EQ(aclrtMalloc(&ws, r.workspace, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  }
  r.phase2 = aclnnConvTbcBackward(ws, r.workspace, executor, stream);
  if (r.phase2 == ACLNN_SUCCESS) r.sync = aclrtSynchronizeStream(stream);
  if (r.phase2 != ACLNN_SUCCESS || r.sync != ACL_SUCCESS) {
    const char* m = aclGetRecentErrMsg();
    r.message = m == nullptr ? "" : m;
  }
  if (ws != nullptr) aclrtFree(ws);
  return r;
}

float EmulationRound(float value, int cube_math_type, aclDataType promoted) {
  if (cube_math_type == 2) return RoundThroughHalf(value);
  if ((cube_math_type == 1 || cube_math_type == 3) && promoted == ACL_FLOAT) {
    return RoundToHf32(value);
  }
  return value;
}

}  // namespace openaclnn::test
