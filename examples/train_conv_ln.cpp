// Trains a fairseq-style block, ConvTbc then LayerNorm, on openaclnn alone: synthetic inputs, the
// targets from a fixed random teacher block, a squared-error loss on the host and plain SGD.
// Every forward and backward step is an aclnn two-phase call on a stream, as a CANN program makes
// it. Prints a progress line every few steps and exits non-zero when the loss has not fallen by
// the target factor (default 100) between the first and the last steps.
//
//   train_conv_ln [--dtype FLOAT|BFLOAT16] [--steps N] [--time T] [--batch B] [--cin C]
//                 [--cout C] [--kernel K] [--lr LR] [--print-every N] [--target FACTOR]
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

#define CHECK_RET(cond, ...)             \
  do {                                   \
    if (!(cond)) {                       \
      std::fprintf(stderr, __VA_ARGS__); \
      std::fprintf(stderr, "\n");        \
      std::exit(2);                      \
    }                                    \
  } while (0)

#define CHECK_ACLNN(call)                                                           \
  do {                                                                              \
    const aclnnStatus status_ = (call);                                             \
    CHECK_RET(status_ == 0, "%s failed: %d (%s)", #call, static_cast<int>(status_), \
              aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");                    \
  } while (0)

namespace {

struct Options {
  aclDataType dtype = ACL_FLOAT;
  int steps = 300;
  int64_t time = 64;
  int64_t batch = 32;
  int64_t cin = 128;
  int64_t cout = 128;
  int64_t kernel = 3;
  float lr = 3.0f;
  int print_every = 25;
  double target = 100.0;
};

// Host <-> storage-dtype conversions (FLOAT or BFLOAT16, round to nearest even).
uint16_t ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
float FromBf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// A device tensor (contiguous) with its aclTensor, written and read as float from the host.
class Tensor {
 public:
  Tensor(std::vector<int64_t> shape, aclDataType dtype) : shape_(std::move(shape)), dtype_(dtype) {
    numel_ = 1;
    for (int64_t d : shape_) numel_ *= d;
    bytes_ = static_cast<size_t>(numel_) * (dtype_ == ACL_FLOAT ? 4 : 2);
    CHECK_RET(aclrtMalloc(&data_, bytes_ > 0 ? bytes_ : 1, ACL_MEM_MALLOC_HUGE_FIRST) == 0,
              "aclrtMalloc failed");
    std::vector<int64_t> strides(shape_.size(), 1);
    for (int i = static_cast<int>(shape_.size()) - 2; i >= 0; --i) {
      strides[i] = shape_[i + 1] * strides[i + 1];
    }
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides.data(), 0,
                              ACL_FORMAT_ND, shape_.data(), shape_.size(), data_);
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  aclTensor* get() const { return tensor_; }
  int64_t numel() const { return numel_; }

  void Upload(const std::vector<float>& host) {
    if (dtype_ == ACL_FLOAT) {
      CHECK_RET(aclrtMemcpy(data_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE) == 0,
                "aclrtMemcpy failed");
      return;
    }
    std::vector<uint16_t> bits(numel_);
    for (int64_t i = 0; i < numel_; ++i) bits[i] = ToBf16(host[i]);
    CHECK_RET(aclrtMemcpy(data_, bytes_, bits.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE) == 0,
              "aclrtMemcpy failed");
  }
  std::vector<float> Download() const {
    std::vector<float> host(numel_);
    if (dtype_ == ACL_FLOAT) {
      CHECK_RET(aclrtMemcpy(host.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST) == 0,
                "aclrtMemcpy failed");
      return host;
    }
    std::vector<uint16_t> bits(numel_);
    CHECK_RET(aclrtMemcpy(bits.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST) == 0,
              "aclrtMemcpy failed");
    for (int64_t i = 0; i < numel_; ++i) host[i] = FromBf16(bits[i]);
    return host;
  }

 private:
  std::vector<int64_t> shape_;
  aclDataType dtype_;
  int64_t numel_ = 0;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// One growing device workspace shared by every call (the stream runs them in order).
class Workspace {
 public:
  ~Workspace() {
    if (data_ != nullptr) aclrtFree(data_);
  }
  void* Get(uint64_t size) {
    if (size == 0) return nullptr;
    if (size > size_) {
      CHECK_RET(aclrtSynchronizeStream(stream_) == 0, "sync failed");
      if (data_ != nullptr) aclrtFree(data_);
      CHECK_RET(aclrtMalloc(&data_, size, ACL_MEM_MALLOC_HUGE_FIRST) == 0, "aclrtMalloc failed");
      size_ = size;
    }
    return data_;
  }
  void set_stream(aclrtStream stream) { stream_ = stream; }

 private:
  void* data_ = nullptr;
  uint64_t size_ = 0;
  aclrtStream stream_ = nullptr;
};

// The block's parameters on the device and the host (the host copy is the fp32 master).
struct Block {
  Block(const Options& o, aclDataType dtype)
      : w({o.kernel, o.cin, o.cout}, dtype),
        b({o.cout}, ACL_FLOAT),
        gamma({o.cout}, ACL_FLOAT),
        beta({o.cout}, ACL_FLOAT) {}
  Tensor w, b, gamma, beta;
  std::vector<float> hw, hb, hgamma, hbeta;
  void Upload() {
    w.Upload(hw);
    b.Upload(hb);
    gamma.Upload(hgamma);
    beta.Upload(hbeta);
  }
};

// Activations of one forward pass.
struct Activations {
  Activations(const Options& o, aclDataType dtype)
      : h({o.time, o.batch, o.cout}, dtype),
        y({o.time, o.batch, o.cout}, dtype),
        mean({o.time, o.batch, 1}, ACL_FLOAT),
        rstd({o.time, o.batch, 1}, ACL_FLOAT) {}
  Tensor h, y, mean, rstd;
};

void Forward(const Options& o, const Tensor& x, const Block& p, Activations* a, Workspace* ws,
             aclrtStream stream) {
  const int64_t pad = (o.kernel - 1) / 2;
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  CHECK_ACLNN(
      aclnnConvTbcGetWorkspaceSize(x.get(), p.w.get(), p.b.get(), pad, a->h.get(), 0, &size, &ex));
  CHECK_ACLNN(aclnnConvTbc(ws->Get(size), size, ex, stream));
  const int64_t norm_dims[1] = {o.cout};
  aclIntArray* norm = aclCreateIntArray(norm_dims, 1);
  CHECK_ACLNN(aclnnLayerNormGetWorkspaceSize(a->h.get(), norm, p.gamma.get(), p.beta.get(), 1e-5,
                                             a->y.get(), a->mean.get(), a->rstd.get(), &size, &ex));
  CHECK_ACLNN(aclnnLayerNorm(ws->Get(size), size, ex, stream));
  aclDestroyIntArray(norm);
}

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    auto need = [&]() {
      if (value == nullptr) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        return false;
      }
      ++i;
      return true;
    };
    if (arg == "--dtype") {
      if (!need()) return false;
      const std::string v = value;
      if (v == "FLOAT" || v == "float") {
        o->dtype = ACL_FLOAT;
      } else if (v == "BFLOAT16" || v == "bfloat16" || v == "BF16") {
        o->dtype = ACL_BF16;
      } else {
        std::fprintf(stderr, "--dtype must be FLOAT or BFLOAT16, got %s\n", value);
        return false;
      }
    } else if (arg == "--steps") {
      if (!need()) return false;
      o->steps = std::atoi(value);
    } else if (arg == "--time") {
      if (!need()) return false;
      o->time = std::atoll(value);
    } else if (arg == "--batch") {
      if (!need()) return false;
      o->batch = std::atoll(value);
    } else if (arg == "--cin") {
      if (!need()) return false;
      o->cin = std::atoll(value);
    } else if (arg == "--cout") {
      if (!need()) return false;
      o->cout = std::atoll(value);
    } else if (arg == "--kernel") {
      if (!need()) return false;
      o->kernel = std::atoll(value);
    } else if (arg == "--lr") {
      if (!need()) return false;
      o->lr = static_cast<float>(std::atof(value));
    } else if (arg == "--print-every") {
      if (!need()) return false;
      o->print_every = std::atoi(value);
    } else if (arg == "--target") {
      if (!need()) return false;
      o->target = std::atof(value);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--dtype FLOAT|BFLOAT16] [--steps N] [--time T] [--batch B] "
                   "[--cin C] [--cout C] [--kernel K (odd)] [--lr LR] [--print-every N] "
                   "[--target FACTOR]\n",
                   argv[0]);
      return false;
    }
  }
  if (o->steps < 10 || o->time < 1 || o->batch < 1 || o->cin < 1 || o->cout < 2 || o->kernel < 1 ||
      o->kernel % 2 == 0 || o->print_every < 1) {
    std::fprintf(stderr, "need steps >= 10, sizes >= 1, cout >= 2 and an odd kernel\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 2;
  CHECK_RET(aclInit(nullptr) == 0, "aclInit failed");
  CHECK_RET(aclrtSetDevice(0) == 0, "aclrtSetDevice failed");
  aclrtStream stream = nullptr;
  CHECK_RET(aclrtCreateStream(&stream) == 0, "aclrtCreateStream failed");
  std::printf(
      "train_conv_ln: dtype %s, T %lld, B %lld, Cin %lld, Cout %lld, K %lld, %d steps, "
      "lr %g\n",
      o.dtype == ACL_FLOAT ? "FLOAT" : "BFLOAT16", static_cast<long long>(o.time),
      static_cast<long long>(o.batch), static_cast<long long>(o.cin),
      static_cast<long long>(o.cout), static_cast<long long>(o.kernel), o.steps,
      static_cast<double>(o.lr));
  {
    Workspace ws;
    ws.set_stream(stream);
    std::mt19937 rng(2024);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    const float w_scale = 1.0f / std::sqrt(static_cast<float>(o.cin * o.kernel));

    // The teacher (always FLOAT) and the student (the chosen dtype).
    Block teacher(o, ACL_FLOAT), student(o, o.dtype);
    auto init = [&](Block* p, bool is_teacher) {
      p->hw.resize(o.kernel * o.cin * o.cout);
      for (float& v : p->hw) v = w_scale * normal(rng);
      p->hb.resize(o.cout);
      p->hgamma.resize(o.cout);
      p->hbeta.resize(o.cout);
      for (int64_t c = 0; c < o.cout; ++c) {
        p->hb[c] = is_teacher ? 0.5f * uniform(rng) : 0.0f;
        p->hgamma[c] = is_teacher ? 1.0f + 0.5f * uniform(rng) : 1.0f;
        p->hbeta[c] = is_teacher ? 0.5f * uniform(rng) : 0.0f;
      }
      p->Upload();
    };
    init(&teacher, true);
    init(&student, false);

    Tensor x_teacher({o.time, o.batch, o.cin}, ACL_FLOAT);
    Tensor x({o.time, o.batch, o.cin}, o.dtype);
    Activations ta(o, ACL_FLOAT), sa(o, o.dtype);
    Tensor dy({o.time, o.batch, o.cout}, o.dtype);
    Tensor dh({o.time, o.batch, o.cout}, o.dtype);
    Tensor dgamma({o.cout}, ACL_FLOAT), dbeta({o.cout}, ACL_FLOAT);
    Tensor dx({o.time, o.batch, o.cin}, o.dtype);
    Tensor dw({o.kernel, o.cin, o.cout}, ACL_FLOAT), db({o.cout}, ACL_FLOAT);
    const int64_t norm_dims[1] = {o.cout};
    aclIntArray* norm = aclCreateIntArray(norm_dims, 1);
    const bool mask_values[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
    const int64_t pad = (o.kernel - 1) / 2;

    std::vector<double> losses;
    double window_start = Seconds();
    const double run_start = window_start;
    std::vector<float> hx(x.numel());
    for (int step = 1; step <= o.steps; ++step) {
      // A fresh batch; the teacher gives its targets.
      for (float& v : hx) v = uniform(rng);
      x_teacher.Upload(hx);
      x.Upload(hx);
      Forward(o, x_teacher, teacher, &ta, &ws, stream);
      Forward(o, x, student, &sa, &ws, stream);
      CHECK_RET(aclrtSynchronizeStream(stream) == 0, "aclrtSynchronizeStream failed");

      // Loss = mean over every element of (y - target)^2, on the host.
      const std::vector<float> y = sa.y.Download();
      const std::vector<float> target = ta.y.Download();
      std::vector<float> grad(y.size());
      double loss = 0;
      for (size_t i = 0; i < y.size(); ++i) {
        const double d = static_cast<double>(y[i]) - target[i];
        loss += d * d;
        grad[i] = static_cast<float>(2.0 * d / static_cast<double>(y.size()));
      }
      loss /= static_cast<double>(y.size());
      losses.push_back(loss);
      dy.Upload(grad);

      // Backward: LayerNorm, then ConvTbc.
      uint64_t size = 0;
      aclOpExecutor* ex = nullptr;
      CHECK_ACLNN(aclnnLayerNormBackwardGetWorkspaceSize(
          dy.get(), sa.h.get(), norm, sa.mean.get(), sa.rstd.get(), student.gamma.get(),
          student.beta.get(), mask, dh.get(), dgamma.get(), dbeta.get(), &size, &ex));
      CHECK_ACLNN(aclnnLayerNormBackward(ws.Get(size), size, ex, stream));
      CHECK_ACLNN(aclnnConvTbcBackwardGetWorkspaceSize(dh.get(), x.get(), student.w.get(),
                                                       student.b.get(), pad, 0, dx.get(), dw.get(),
                                                       db.get(), &size, &ex));
      CHECK_ACLNN(aclnnConvTbcBackward(ws.Get(size), size, ex, stream));
      CHECK_RET(aclrtSynchronizeStream(stream) == 0, "aclrtSynchronizeStream failed");

      // Plain SGD on the fp32 master copies.
      auto sgd = [&](std::vector<float>* param, const Tensor& g) {
        const std::vector<float> gv = g.Download();
        for (size_t i = 0; i < param->size(); ++i) (*param)[i] -= o.lr * gv[i];
      };
      sgd(&student.hw, dw);
      sgd(&student.hb, db);
      sgd(&student.hgamma, dgamma);
      sgd(&student.hbeta, dbeta);
      student.Upload();

      if (step % o.print_every == 0 || step == 1 || step == o.steps) {
        const double now = Seconds();
        const int in_window =
            step == 1 ? 1 : (step % o.print_every == 0 ? o.print_every : step % o.print_every);
        std::printf("step %5d  loss %.6g  %.3f ms/step\n", step, loss,
                    1e3 * (now - window_start) / in_window);
        std::fflush(stdout);
        window_start = now;
      }
    }
    const double total = Seconds() - run_start;
    aclDestroyIntArray(norm);
    aclDestroyBoolArray(mask);

    // The reduction: the mean loss of the first and of the last five steps.
    const size_t w = 5;
    double first = 0, last = 0;
    for (size_t i = 0; i < w; ++i) {
      first += losses[i] / w;
      last += losses[losses.size() - 1 - i] / w;
    }
    const double factor = first / last;
    const bool ok = std::isfinite(factor) && factor >= o.target;
    std::printf("loss %.6g -> %.6g: reduced %.1fx in %.2f s (target %.0fx): %s\n", first, last,
                factor, total, o.target, ok ? "PASS" : "FAIL");
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return ok ? 0 : 1;
  }
}
