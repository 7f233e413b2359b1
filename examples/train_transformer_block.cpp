// Trains a one-block transformer language model on openaclnn alone, as a CANN program would: token
// and position embeddings, pre-LayerNorm causal multi-head self-attention (with dropout on the
// attention probabilities), a GELU MLP, residuals, a vocabulary projection, LogSoftmax and the NLL
// loss. Every forward, backward and AdamW step is an aclnn two-phase call on a stream; the host
// only initialises the parameters, writes the data batches and reads the loss back.
//
// The task is synthetic: each sequence is L random tokens, a separator, then the same tokens
// reversed; the loss counts the reversed half only (the first half is unpredictable and carries
// ignoreIndex). Tokens are stored sequence-major (row s * batch + b), so that a head of q, k or v
// is a strided 3-D view [batch * heads, seq, head_dim] that BatchMatMul reads in place.
//
// With --dtype BFLOAT16 the activations and the matrix parameters' compute copies are BFLOAT16;
// the parameters' fp32 masters, their gradients, the AdamW state, the logits and the loss stay
// FLOAT (the copies are refreshed from the masters with aclnnCast after each step).
//
//   train_transformer_block [--dtype FLOAT|BFLOAT16] [--steps N] [--vocab V] [--seq S (even)]
//       [--batch B] [--d-model D] [--heads H] [--d-ff F] [--lr LR] [--weight-decay WD]
//       [--dropout P] [--seed N] [--print-every N] [--target FACTOR] [--bench]
//       [--dump-gradients DIR]
//
// --target: exit 1 unless the mean loss of the first five steps is at least FACTOR times that of
// the last five. --bench: print the median step time (steps after the first five).
// --dump-gradients DIR: one step (FLOAT unless --dtype is given, without dropout unless --dropout
// is given); writes the batch, the initial parameters (fp32 masters), every parameter's gradient
// (and the dropout keep mask) as raw .bin files with an index.json (check_gradients.py compares
// them with PyTorch in float64).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_apply_adam_w_v2.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"

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

// One two-phase aclnn call on the trainer's stream, with the shared workspace.
#define RUN(op, ...)                                                 \
  do {                                                               \
    uint64_t ws_size_ = 0;                                           \
    aclOpExecutor* ex_ = nullptr;                                    \
    CHECK_ACLNN(op##GetWorkspaceSize(__VA_ARGS__, &ws_size_, &ex_)); \
    CHECK_ACLNN(op(ws_.Get(ws_size_), ws_size_, ex_, stream_));      \
  } while (0)

namespace {

constexpr int64_t kIgnoreIndex = -100;
constexpr double kLayerNormEps = 1e-5;
constexpr float kMaskValue = -1e9f;

struct Options {
  aclDataType dtype = ACL_FLOAT;
  int steps = 400;
  int64_t vocab = 16;
  int64_t seq = 16;
  int64_t batch = 32;
  int64_t d_model = 64;
  int64_t heads = 4;
  int64_t d_ff = 256;
  float lr = 3e-3f;
  float weight_decay = 0.01f;
  double dropout = 0.1;
  uint64_t seed = 1;
  int print_every = 50;
  double target = 0;
  bool bench = false;
  std::string dump_dir;
};

// Host <-> BFLOAT16 (round to nearest even).
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

size_t ElementSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return 4;
    case ACL_BF16:
      return 2;
    case ACL_INT64:
      return 8;
    case ACL_UINT8:
      return 1;
    default:
      CHECK_RET(false, "unexpected dtype %d", static_cast<int>(dtype));
  }
  return 0;
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  return strides;
}

// A contiguous device tensor with its aclTensor, written and read from the host.
class Tensor {
 public:
  Tensor(std::vector<int64_t> shape, aclDataType dtype) : shape_(std::move(shape)), dtype_(dtype) {
    numel_ = 1;
    for (int64_t d : shape_) numel_ *= d;
    bytes_ = static_cast<size_t>(numel_) * ElementSize(dtype_);
    CHECK_RET(aclrtMalloc(&data_, bytes_ > 0 ? bytes_ : 1, ACL_MEM_MALLOC_HUGE_FIRST) == 0,
              "aclrtMalloc failed");
    const std::vector<int64_t> strides = ContiguousStrides(shape_);
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides.data(), 0,
                              ACL_FORMAT_ND, shape_.data(), shape_.size(), data_);
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() {
    for (aclTensor* v : views_) aclDestroyTensor(v);
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  aclTensor* get() const { return tensor_; }
  aclDataType dtype() const { return dtype_; }
  int64_t numel() const { return numel_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  void* data() const { return data_; }

  // Another aclTensor on the same memory (destroyed with this tensor); strides and offset in
  // elements. Without strides, the view is contiguous.
  aclTensor* View(const std::vector<int64_t>& shape, std::vector<int64_t> strides = {},
                  int64_t offset = 0) {
    if (strides.empty()) strides = ContiguousStrides(shape);
    const int64_t storage[1] = {numel_};
    aclTensor* v = aclCreateTensor(shape.data(), shape.size(), dtype_, strides.data(), offset,
                                   ACL_FORMAT_ND, storage, 1, data_);
    CHECK_RET(v != nullptr, "aclCreateTensor failed");
    views_.push_back(v);
    return v;
  }

  void UploadBytes(const void* host) {
    CHECK_RET(aclrtMemcpy(data_, bytes_, host, bytes_, ACL_MEMCPY_HOST_TO_DEVICE) == 0,
              "aclrtMemcpy failed");
  }
  void Upload(const std::vector<float>& host) {
    CHECK_RET(static_cast<int64_t>(host.size()) == numel_, "upload size mismatch");
    if (dtype_ == ACL_FLOAT) return UploadBytes(host.data());
    CHECK_RET(dtype_ == ACL_BF16, "Upload needs a float tensor");
    std::vector<uint16_t> bits(numel_);
    for (int64_t i = 0; i < numel_; ++i) bits[i] = ToBf16(host[i]);
    UploadBytes(bits.data());
  }
  std::vector<float> Download() const {
    std::vector<float> host(numel_);
    if (dtype_ == ACL_FLOAT) {
      CHECK_RET(aclrtMemcpy(host.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST) == 0,
                "aclrtMemcpy failed");
      return host;
    }
    CHECK_RET(dtype_ == ACL_BF16, "Download needs a float tensor");
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
  std::vector<aclTensor*> views_;
};

// One growing device workspace shared by every call (the stream runs them in order).
class Workspace {
 public:
  explicit Workspace(aclrtStream stream) : stream_(stream) {}
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    if (data_ != nullptr) aclrtFree(data_);
  }
  void* Get(uint64_t size) {
    if (size == 0) return nullptr;
    if (size > size_) {
      CHECK_RET(aclrtSynchronizeStream(stream_) == 0, "sync failed: %s", aclGetRecentErrMsg());
      if (data_ != nullptr) aclrtFree(data_);
      CHECK_RET(aclrtMalloc(&data_, size, ACL_MEM_MALLOC_HUGE_FIRST) == 0, "aclrtMalloc failed");
      size_ = size;
    }
    return data_;
  }

 private:
  aclrtStream stream_;
  void* data_ = nullptr;
  uint64_t size_ = 0;
};

// A trained parameter: the fp32 master (what AdamW updates), its state and gradient, and a
// BFLOAT16 compute copy where the forward needs one.
struct Param {
  std::string name;
  std::unique_ptr<Tensor> master, m, v, grad, copy;
  bool decay = false;
  Tensor& compute() const { return copy ? *copy : *master; }
};

class Trainer {
 public:
  Trainer(const Options& o, aclrtStream stream) : o_(o), stream_(stream), ws_(stream) {
    S_ = o.seq;
    B_ = o.batch;
    D_ = o.d_model;
    H_ = o.heads;
    F_ = o.d_ff;
    V_ = o.vocab;
    N_ = S_ * B_;
    dh_ = D_ / H_;
    BH_ = B_ * H_;
    const aclDataType a = o.dtype;
    const bool bf16 = a == ACL_BF16;

    // Parameters: (name, shape, compute copy needed in BF16, weight decay).
    auto add = [&](const char* name, std::vector<int64_t> shape, bool matrix) {
      auto p = std::make_unique<Param>();
      p->name = name;
      p->master = std::make_unique<Tensor>(shape, ACL_FLOAT);
      p->m = std::make_unique<Tensor>(shape, ACL_FLOAT);
      p->v = std::make_unique<Tensor>(shape, ACL_FLOAT);
      // The embedding gradient has the activations' dtype (EmbeddingDenseBackward's out = grad's
      // dtype); AdamW reads it as it is.
      const bool emb = std::strcmp(name, "tok_emb") == 0;
      p->grad = std::make_unique<Tensor>(shape, emb ? a : ACL_FLOAT);
      if (matrix && bf16) p->copy = std::make_unique<Tensor>(shape, ACL_BF16);
      p->decay = matrix;
      params_.push_back(std::move(p));
      return params_.back().get();
    };
    tok_ = add("tok_emb", {V_, D_}, true);
    pos_ = add("pos_emb", {S_, D_}, false);
    ln1_g_ = add("ln1_weight", {D_}, false);
    ln1_b_ = add("ln1_bias", {D_}, false);
    wq_ = add("wq", {D_, D_}, true);
    bq_ = add("bq", {D_}, false);
    wk_ = add("wk", {D_, D_}, true);
    bk_ = add("bk", {D_}, false);
    wv_ = add("wv", {D_, D_}, true);
    bv_ = add("bv", {D_}, false);
    wo_ = add("wo", {D_, D_}, true);
    bo_ = add("bo", {D_}, false);
    ln2_g_ = add("ln2_weight", {D_}, false);
    ln2_b_ = add("ln2_bias", {D_}, false);
    w1_ = add("w1", {D_, F_}, true);
    b1_ = add("b1", {F_}, false);
    w2_ = add("w2", {F_, D_}, true);
    b2_ = add("b2", {D_}, false);
    wout_ = add("wout", {D_, V_}, true);
    bout_ = add("bout", {V_}, false);

    auto T = [](std::vector<int64_t> shape, aclDataType dtype) {
      return std::make_unique<Tensor>(std::move(shape), dtype);
    };
    // Data.
    tokens_ = T({S_, B_}, ACL_INT64);
    targets_ = T({N_}, ACL_INT64);
    class_weight_ = T({V_}, ACL_FLOAT);
    causal_ = T({S_, S_}, ACL_FLOAT);
    // Activations.
    emb_ = T({S_, B_, D_}, a);
    x0_ = T({N_, D_}, a);
    x1_ = T({N_, D_}, a);
    mean1_ = T({N_, 1}, ACL_FLOAT);
    rstd1_ = T({N_, 1}, ACL_FLOAT);
    q_ = T({N_, D_}, a);
    k_ = T({N_, D_}, a);
    v_ = T({N_, D_}, a);
    scores_ = T({BH_, S_, S_}, a);
    probs_ = T({BH_, S_, S_}, a);
    const int64_t mask_bytes = (BH_ * S_ * S_ + 127) / 128 * 16;
    if (o_.dropout > 0) {
      keep_bits_ = T({mask_bytes}, ACL_UINT8);
      probs_kept_ = T({BH_, S_, S_}, a);
    }
    ctx_ = T({N_, D_}, a);
    attn_ = T({N_, D_}, a);
    x2_ = T({N_, D_}, a);
    x3_ = T({N_, D_}, a);
    mean2_ = T({N_, 1}, ACL_FLOAT);
    rstd2_ = T({N_, 1}, ACL_FLOAT);
    h_ = T({N_, F_}, a);
    g_ = T({N_, F_}, a);
    mlp_ = T({N_, D_}, a);
    x4_ = T({N_, D_}, a);
    logits_ = T({N_, V_}, ACL_FLOAT);
    logp_ = T({N_, V_}, ACL_FLOAT);
    loss_ = T({1}, ACL_FLOAT);
    total_weight_ = T({1}, ACL_FLOAT);
    // Gradients of the activations.
    grad_one_ = T({1}, ACL_FLOAT);
    dlogp_ = T({N_, V_}, ACL_FLOAT);
    dlogits_ = T({N_, V_}, ACL_FLOAT);
    if (bf16) dlogits_a_ = T({N_, V_}, a);
    dx4_ = T({N_, D_}, a);
    dg_ = T({N_, F_}, a);
    dh_t_ = T({N_, F_}, a);
    dx3_ = T({N_, D_}, a);
    dx2_ = T({N_, D_}, a);
    dctx_ = T({N_, D_}, a);
    dprobs_kept_ = T({BH_, S_, S_}, a);
    if (o_.dropout > 0) dprobs_ = T({BH_, S_, S_}, a);
    dscores_ = T({BH_, S_, S_}, a);
    dq_ = T({N_, D_}, a);
    dk_ = T({N_, D_}, a);
    dv_ = T({N_, D_}, a);
    dx1_ = T({N_, D_}, a);
    dx0_ = T({N_, D_}, a);
    step_ = T({1}, ACL_FLOAT);

    // Head views: element (b * H + h, s, j) of q, k, v, ctx (rows s * B + b, columns h * dh + j)
    // is at s * B * D + (b * H + h) * dh + j.
    auto heads = [&](Tensor& t) { return t.View({BH_, S_, dh_}, {dh_, B_ * D_, 1}); };
    auto heads_t = [&](Tensor& t) { return t.View({BH_, dh_, S_}, {dh_, 1, B_ * D_}); };
    auto square_t = [&](Tensor& t) { return t.View({BH_, S_, S_}, {S_ * S_, 1, S_}); };
    auto rows_t = [&](Tensor& t) {  // [rows, cols] seen as its transpose [cols, rows]
      const int64_t rows = t.shape()[0], cols = t.shape()[1];
      return t.View({cols, rows}, {1, cols});
    };
    qh_ = heads(*q_);
    kh_ = heads(*k_);
    vh_ = heads(*v_);
    kh_t_ = heads_t(*k_);
    vh_t_ = heads_t(*v_);
    ctxh_ = heads(*ctx_);
    dctxh_ = heads(*dctx_);
    dqh_ = heads(*dq_);
    dkh_ = heads(*dk_);
    dvh_ = heads(*dv_);
    probs_used_t_ = square_t(o_.dropout > 0 ? *probs_kept_ : *probs_);
    dscores_t_ = square_t(*dscores_);
    x0_3d_ = x0_->View({S_, B_, D_});
    dx0_3d_ = dx0_->View({S_, B_, D_});
    pos_bcast_ = pos_->master->View({S_, 1, D_});
    x1_t_ = rows_t(*x1_);
    ctx_t_ = rows_t(*ctx_);
    x3_t_ = rows_t(*x3_);
    g_t_ = rows_t(*g_);
    x4_t_ = rows_t(*x4_);
    wq_t_ = rows_t(wq_->compute());
    wk_t_ = rows_t(wk_->compute());
    wv_t_ = rows_t(wv_->compute());
    wo_t_ = rows_t(wo_->compute());
    w1_t_ = rows_t(w1_->compute());
    w2_t_ = rows_t(w2_->compute());
    wout_t_ = rows_t(wout_->compute());

    float one = 1.0f, scale = 1.0f / std::sqrt(static_cast<float>(dh_));
    one_ = aclCreateScalar(&one, ACL_FLOAT);
    scale_ = aclCreateScalar(&scale, ACL_FLOAT);
    const int64_t d_model[1] = {D_};
    norm_shape_ = aclCreateIntArray(d_model, 1);
    const int64_t dim0[1] = {0}, dim1[1] = {1};
    dims0_ = aclCreateIntArray(dim0, 1);
    dims1_ = aclCreateIntArray(dim1, 1);
    const int64_t scores_shape[3] = {BH_, S_, S_};
    scores_shape_ = aclCreateIntArray(scores_shape, 3);
    const bool all3[3] = {true, true, true};
    ln_mask_ = aclCreateBoolArray(all3, 3);
  }

  ~Trainer() {
    aclDestroyScalar(one_);
    aclDestroyScalar(scale_);
    aclDestroyIntArray(norm_shape_);
    aclDestroyIntArray(dims0_);
    aclDestroyIntArray(dims1_);
    aclDestroyIntArray(scores_shape_);
    aclDestroyBoolArray(ln_mask_);
  }

  // Host initialisation: parameters, AdamW state, the constants.
  void Init(std::mt19937_64* rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto& p : params_) {
      const int64_t n = p->master->numel();
      std::vector<float> host(n, 0.0f);
      const std::string& name = p->name;
      if (name == "ln1_weight" || name == "ln2_weight") {
        std::fill(host.begin(), host.end(), 1.0f);
      } else if (name == "tok_emb" || name == "pos_emb") {
        for (float& x : host) x = normal(*rng);
      } else if (p->master->shape().size() == 2) {
        const float std_dev = 1.0f / std::sqrt(static_cast<float>(p->master->shape()[0]));
        for (float& x : host) x = std_dev * normal(*rng);
      }
      p->master->Upload(host);
      const std::vector<float> zeros(n, 0.0f);
      p->m->Upload(zeros);
      p->v->Upload(zeros);
    }
    RefreshCopies();
    class_weight_->Upload(std::vector<float>(V_, 1.0f));
    std::vector<float> causal(S_ * S_, 0.0f);
    for (int64_t i = 0; i < S_; ++i) {
      for (int64_t j = i + 1; j < S_; ++j) causal[i * S_ + j] = kMaskValue;
    }
    causal_->Upload(causal);
    grad_one_->Upload({1.0f});
    step_->Upload({0.0f});
  }

  // A batch of the reversal task: L = seq / 2 random tokens in [0, vocab - 2], the separator
  // vocab - 1, then the tokens reversed; only the reversed half is scored.
  void WriteBatch(std::mt19937_64* rng) {
    const int64_t L = S_ / 2, sep = V_ - 1;
    std::uniform_int_distribution<int64_t> token(0, V_ - 2);
    host_tokens_.assign(N_, 0);
    host_targets_.assign(N_, kIgnoreIndex);
    std::vector<int64_t> x(L);
    for (int64_t b = 0; b < B_; ++b) {
      for (int64_t& t : x) t = token(*rng);
      for (int64_t s = 0; s < S_; ++s) {
        int64_t in;
        if (s < L) {
          in = x[s];
        } else if (s == L) {
          in = sep;
        } else {
          in = x[L - 1 - (s - L - 1)];
        }
        host_tokens_[s * B_ + b] = in;
        if (s >= L) host_targets_[s * B_ + b] = x[L - 1 - (s - L)];
      }
    }
    tokens_->UploadBytes(host_tokens_.data());
    targets_->UploadBytes(host_targets_.data());
  }

  void Forward(int step, double dropout) {
    RUN(aclnnEmbedding, tok_->compute().get(), tokens_->get(), emb_->get());
    RUN(aclnnAdd, emb_->get(), pos_bcast_, one_, x0_3d_);
    RUN(aclnnLayerNorm, x0_->get(), norm_shape_, ln1_g_->master->get(), ln1_b_->master->get(),
        kLayerNormEps, x1_->get(), mean1_->get(), rstd1_->get());
    RUN(aclnnAddmm, bq_->master->get(), x1_->get(), wq_->compute().get(), one_, one_, q_->get(), 0);
    RUN(aclnnAddmm, bk_->master->get(), x1_->get(), wk_->compute().get(), one_, one_, k_->get(), 0);
    RUN(aclnnAddmm, bv_->master->get(), x1_->get(), wv_->compute().get(), one_, one_, v_->get(), 0);
    // scores = q k^T / sqrt(dh) + causal mask; probs = softmax(scores) (then dropout).
    RUN(aclnnBatchMatMul, qh_, kh_t_, scores_->get(), 0);
    RUN(aclnnInplaceMuls, scores_->get(), scale_);
    RUN(aclnnInplaceAdd, scores_->get(), causal_->get(), one_);
    RUN(aclnnSoftmax, scores_->get(), -1, probs_->get());
    Tensor* used = probs_.get();
    dropout_now_ = dropout;
    if (dropout > 0) {
      RUN(aclnnDropoutGenMaskV2, scores_shape_, dropout, static_cast<int64_t>(o_.seed), step,
          ACL_FLOAT, keep_bits_->get());
      RUN(aclnnDropoutDoMask, probs_->get(), keep_bits_->get(), dropout, probs_kept_->get());
      used = probs_kept_.get();
    }
    RUN(aclnnBatchMatMul, used->get(), vh_, ctxh_, 0);
    RUN(aclnnAddmm, bo_->master->get(), ctx_->get(), wo_->compute().get(), one_, one_, attn_->get(),
        0);
    RUN(aclnnAdd, x0_->get(), attn_->get(), one_, x2_->get());
    RUN(aclnnLayerNorm, x2_->get(), norm_shape_, ln2_g_->master->get(), ln2_b_->master->get(),
        kLayerNormEps, x3_->get(), mean2_->get(), rstd2_->get());
    RUN(aclnnAddmm, b1_->master->get(), x3_->get(), w1_->compute().get(), one_, one_, h_->get(), 0);
    RUN(aclnnGeluV2, h_->get(), 0, g_->get());  // the erf form, as GeluBackward differentiates
    RUN(aclnnAddmm, b2_->master->get(), g_->get(), w2_->compute().get(), one_, one_, mlp_->get(),
        0);
    RUN(aclnnAdd, x2_->get(), mlp_->get(), one_, x4_->get());
    RUN(aclnnAddmm, bout_->master->get(), x4_->get(), wout_->compute().get(), one_, one_,
        logits_->get(), 0);
    RUN(aclnnLogSoftmax, logits_->get(), 1, logp_->get());
    RUN(aclnnNLLLoss, logp_->get(), targets_->get(), class_weight_->get(), 1, kIgnoreIndex,
        loss_->get(), total_weight_->get());
  }

  void Backward() {
    const bool bf16 = o_.dtype == ACL_BF16;
    // Loss, LogSoftmax, the vocabulary projection.
    RUN(aclnnNLLLossBackward, grad_one_->get(), logp_->get(), targets_->get(), class_weight_->get(),
        1, kIgnoreIndex, total_weight_->get(), dlogp_->get());
    RUN(aclnnLogSoftmaxBackward, dlogp_->get(), logp_->get(), 1, dlogits_->get());
    Tensor* dlogits = dlogits_.get();
    if (bf16) {
      RUN(aclnnCast, dlogits_->get(), ACL_BF16, dlogits_a_->get());
      dlogits = dlogits_a_.get();
    }
    LinearBackward(x4_t_, dlogits->get(), wout_t_, wout_, bout_, dlogits_->get(), dx4_->get());
    // MLP.
    LinearBackward(g_t_, dx4_->get(), w2_t_, w2_, b2_, dx4_->get(), dg_->get());
    RUN(aclnnGeluBackward, dg_->get(), h_->get(), dh_t_->get());
    LinearBackward(x3_t_, dh_t_->get(), w1_t_, w1_, b1_, dh_t_->get(), dx3_->get());
    RUN(aclnnLayerNormBackward, dx3_->get(), x2_->get(), norm_shape_, mean2_->get(), rstd2_->get(),
        ln2_g_->master->get(), ln2_b_->master->get(), ln_mask_, dx2_->get(), ln2_g_->grad->get(),
        ln2_b_->grad->get());
    RUN(aclnnInplaceAdd, dx2_->get(), dx4_->get(), one_);  // the residual
    // Attention output projection.
    LinearBackward(ctx_t_, dx2_->get(), wo_t_, wo_, bo_, dx2_->get(), dctx_->get());
    // ctx = probs_used @ v: d probs_used = dctx v^T, dv = probs_used^T dctx.
    RUN(aclnnBatchMatMul, dctxh_, vh_t_, dprobs_kept_->get(), 0);
    RUN(aclnnBatchMatMul, probs_used_t_, dctxh_, dvh_, 0);
    Tensor* dprobs = dprobs_kept_.get();
    if (dropout_now_ > 0) {
      RUN(aclnnDropoutDoMask, dprobs_kept_->get(), keep_bits_->get(), dropout_now_, dprobs_->get());
      dprobs = dprobs_.get();
    }
    RUN(aclnnSoftmaxBackward, dprobs->get(), probs_->get(), -1, dscores_->get());
    RUN(aclnnInplaceMuls, dscores_->get(), scale_);
    // scores = q k^T: dq = dscores k, dk = dscores^T q.
    RUN(aclnnBatchMatMul, dscores_->get(), kh_, dqh_, 0);
    RUN(aclnnBatchMatMul, dscores_t_, qh_, dkh_, 0);
    // q, k, v projections; dx1 sums the three input gradients.
    WeightBackward(x1_t_, dq_->get(), wq_, bq_);
    WeightBackward(x1_t_, dk_->get(), wk_, bk_);
    WeightBackward(x1_t_, dv_->get(), wv_, bv_);
    RUN(aclnnMm, dq_->get(), wq_t_, dx1_->get(), 0);
    RUN(aclnnInplaceAddmm, dx1_->get(), dk_->get(), wk_t_, one_, one_, 0);
    RUN(aclnnInplaceAddmm, dx1_->get(), dv_->get(), wv_t_, one_, one_, 0);
    RUN(aclnnLayerNormBackward, dx1_->get(), x0_->get(), norm_shape_, mean1_->get(), rstd1_->get(),
        ln1_g_->master->get(), ln1_b_->master->get(), ln_mask_, dx0_->get(), ln1_g_->grad->get(),
        ln1_b_->grad->get());
    RUN(aclnnInplaceAdd, dx0_->get(), dx2_->get(), one_);  // the residual
    // Embeddings: the token table by EmbeddingDenseBackward, the positions summed over the batch.
    RUN(aclnnEmbeddingDenseBackward, dx0_3d_, tokens_->get(), static_cast<uint64_t>(V_),
        static_cast<uint64_t>(-1), false, tok_->grad->get());
    RUN(aclnnReduceSum, dx0_3d_, dims1_, false, ACL_FLOAT, pos_->grad->get());
  }

  // AdamW on every parameter's master, then the BFLOAT16 copies refreshed.
  void Update() {
    RUN(aclnnInplaceAdds, step_->get(), one_, one_);  // the step count lives on the device
    for (auto& p : params_) {
      RUN(aclnnApplyAdamWV2, p->master->get(), p->m->get(), p->v->get(), nullptr, p->grad->get(),
          step_->get(), o_.lr, 0.9f, 0.98f, p->decay ? o_.weight_decay : 0.0f, 1e-8f, false, false);
    }
    RefreshCopies();
  }

  double ReadLoss() {
    CHECK_RET(aclrtSynchronizeStream(stream_) == 0, "aclrtSynchronizeStream failed: %s",
              aclGetRecentErrMsg());
    return loss_->Download()[0];
  }

  // Writes the batch, the parameters and their gradients (FLOAT) with an index.
  bool Dump(const std::string& dir, double loss) {
    CHECK_RET(aclrtSynchronizeStream(stream_) == 0, "aclrtSynchronizeStream failed");
    std::string index = "{\n";
    char line[512];
    std::snprintf(line, sizeof(line),
                  "  \"vocab\": %lld, \"seq\": %lld, \"batch\": %lld, \"d_model\": %lld, "
                  "\"heads\": %lld, \"d_ff\": %lld,\n  \"dtype\": \"%s\", \"dropout\": %.17g, "
                  "\"layer_norm_eps\": %g, "
                  "\"mask_value\": "
                  "%g, \"ignore_index\": %lld, \"loss\": %.9g,\n  \"layout\": \"tokens and "
                  "targets are [seq, batch] (row s * batch + b)\",\n  \"tensors\": [\n",
                  static_cast<long long>(V_), static_cast<long long>(S_),
                  static_cast<long long>(B_), static_cast<long long>(D_),
                  static_cast<long long>(H_), static_cast<long long>(F_),
                  o_.dtype == ACL_FLOAT ? "FLOAT" : "BFLOAT16", dropout_now_, kLayerNormEps,
                  static_cast<double>(kMaskValue), static_cast<long long>(kIgnoreIndex), loss);
    index += line;
    bool first = true;
    auto entry = [&](const std::string& name, const std::vector<int64_t>& shape, const char* dtype,
                     const void* data, size_t bytes) {
      const std::string file = name + ".bin";
      FILE* f = std::fopen((dir + "/" + file).c_str(), "wb");
      if (f == nullptr) return false;
      const bool ok = std::fwrite(data, 1, bytes, f) == bytes;
      std::fclose(f);
      if (!ok) return false;
      std::string dims;
      for (size_t i = 0; i < shape.size(); ++i) {
        dims += (i ? ", " : "") + std::to_string(shape[i]);
      }
      index += std::string(first ? "" : ",\n") + "    {\"name\": \"" + name + "\", \"file\": \"" +
               file + "\", \"dtype\": \"" + dtype + "\", \"shape\": [" + dims + "]}";
      first = false;
      return true;
    };
    bool ok = entry("tokens", {S_, B_}, "int64", host_tokens_.data(), host_tokens_.size() * 8) &&
              entry("targets", {S_, B_}, "int64", host_targets_.data(), host_targets_.size() * 8);
    if (dropout_now_ > 0) {  // bit i (LSB first) of byte i / 8: element i of [B*H, S, S] kept
      const int64_t bytes = keep_bits_->numel();
      std::vector<uint8_t> bits(bytes);
      CHECK_RET(aclrtMemcpy(bits.data(), bytes, keep_bits_->data(), bytes,
                            ACL_MEMCPY_DEVICE_TO_HOST) == 0,
                "aclrtMemcpy failed");
      ok = ok && entry("keep_mask", {bytes}, "uint8", bits.data(), bits.size());
    }
    for (auto& p : params_) {
      const std::vector<float> value = p->master->Download();
      const std::vector<float> grad = p->grad->Download();
      ok = ok &&
           entry("param_" + p->name, p->master->shape(), "float32", value.data(),
                 value.size() * 4) &&
           entry("grad_" + p->name, p->master->shape(), "float32", grad.data(), grad.size() * 4);
    }
    index += "\n  ]\n}\n";
    FILE* f = std::fopen((dir + "/index.json").c_str(), "w");
    if (f == nullptr) return false;
    ok = ok && std::fputs(index.c_str(), f) >= 0;
    std::fclose(f);
    return ok;
  }

 private:
  // y = x @ W + b: dW = x^T dy (xt: x seen transposed), db = sum of dy's rows (dy_float: dy in
  // FLOAT where there is such a copy), dx = dy W^T.
  void LinearBackward(aclTensor* xt, aclTensor* dy, aclTensor* wt, Param* w, Param* b,
                      aclTensor* dy_float, aclTensor* dx) {
    RUN(aclnnMm, xt, dy, w->grad->get(), 0);
    RUN(aclnnReduceSum, dy_float, dims0_, false, ACL_FLOAT, b->grad->get());
    RUN(aclnnMm, dy, wt, dx, 0);
  }
  void WeightBackward(aclTensor* xt, aclTensor* dy, Param* w, Param* b) {
    RUN(aclnnMm, xt, dy, w->grad->get(), 0);
    RUN(aclnnReduceSum, dy, dims0_, false, ACL_FLOAT, b->grad->get());
  }
  void RefreshCopies() {
    for (auto& p : params_) {
      if (p->copy) RUN(aclnnCast, p->master->get(), ACL_BF16, p->copy->get());
    }
  }

  const Options& o_;
  aclrtStream stream_;
  Workspace ws_;
  int64_t S_, B_, D_, H_, F_, V_, N_, dh_, BH_;
  double dropout_now_ = 0;
  std::vector<std::unique_ptr<Param>> params_;
  Param *tok_, *pos_, *ln1_g_, *ln1_b_, *wq_, *bq_, *wk_, *bk_, *wv_, *bv_, *wo_, *bo_, *ln2_g_,
      *ln2_b_, *w1_, *b1_, *w2_, *b2_, *wout_, *bout_;
  std::vector<int64_t> host_tokens_, host_targets_;
  std::unique_ptr<Tensor> tokens_, targets_, class_weight_, causal_, emb_, x0_, x1_, mean1_, rstd1_,
      q_, k_, v_, scores_, probs_, keep_bits_, probs_kept_, ctx_, attn_, x2_, x3_, mean2_, rstd2_,
      h_, g_, mlp_, x4_, logits_, logp_, loss_, total_weight_, grad_one_, dlogp_, dlogits_,
      dlogits_a_, dx4_, dg_, dh_t_, dx3_, dx2_, dctx_, dprobs_kept_, dprobs_, dscores_, dq_, dk_,
      dv_, dx1_, dx0_, step_;
  aclTensor *qh_, *kh_, *vh_, *kh_t_, *vh_t_, *ctxh_, *dctxh_, *dqh_, *dkh_, *dvh_, *probs_used_t_,
      *dscores_t_, *x0_3d_, *dx0_3d_, *pos_bcast_, *x1_t_, *ctx_t_, *x3_t_, *g_t_, *x4_t_, *wq_t_,
      *wk_t_, *wv_t_, *wo_t_, *w1_t_, *w2_t_, *wout_t_;
  aclScalar *one_, *scale_;
  aclIntArray *norm_shape_, *dims0_, *dims1_, *scores_shape_;
  aclBoolArray* ln_mask_;
};

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool ParseOptions(int argc, char** argv, Options* o) {
  bool dropout_given = false, dtype_given = false;
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
    if (arg == "--bench") {
      o->bench = true;
      continue;
    }
    if (arg == "--dtype") {
      if (!need()) return false;
      const std::string v = value;
      dtype_given = true;
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
    } else if (arg == "--vocab") {
      if (!need()) return false;
      o->vocab = std::atoll(value);
    } else if (arg == "--seq") {
      if (!need()) return false;
      o->seq = std::atoll(value);
    } else if (arg == "--batch") {
      if (!need()) return false;
      o->batch = std::atoll(value);
    } else if (arg == "--d-model") {
      if (!need()) return false;
      o->d_model = std::atoll(value);
    } else if (arg == "--heads") {
      if (!need()) return false;
      o->heads = std::atoll(value);
    } else if (arg == "--d-ff") {
      if (!need()) return false;
      o->d_ff = std::atoll(value);
    } else if (arg == "--lr") {
      if (!need()) return false;
      o->lr = static_cast<float>(std::atof(value));
    } else if (arg == "--weight-decay") {
      if (!need()) return false;
      o->weight_decay = static_cast<float>(std::atof(value));
    } else if (arg == "--dropout") {
      if (!need()) return false;
      o->dropout = std::atof(value);
      dropout_given = true;
    } else if (arg == "--seed") {
      if (!need()) return false;
      o->seed = std::strtoull(value, nullptr, 10);
    } else if (arg == "--print-every") {
      if (!need()) return false;
      o->print_every = std::atoi(value);
    } else if (arg == "--target") {
      if (!need()) return false;
      o->target = std::atof(value);
    } else if (arg == "--dump-gradients") {
      if (!need()) return false;
      o->dump_dir = value;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--dtype FLOAT|BFLOAT16] [--steps N] [--vocab V] [--seq S (even)] "
                   "[--batch B] [--d-model D] [--heads H] [--d-ff F] [--lr LR] "
                   "[--weight-decay WD] [--dropout P] [--seed N] [--print-every N] "
                   "[--target FACTOR] [--bench] [--dump-gradients DIR]\n",
                   argv[0]);
      return false;
    }
  }
  if (!o->dump_dir.empty()) {
    o->steps = 1;
    if (!dropout_given) o->dropout = 0;
    if (!dtype_given) o->dtype = ACL_FLOAT;
  }
  if ((o->steps < 10 && o->dump_dir.empty()) || o->vocab < 3 || o->seq < 2 || o->seq % 2 != 0 ||
      o->batch < 1 || o->d_model < 1 || o->heads < 1 || o->d_model % o->heads != 0 || o->d_ff < 1 ||
      o->print_every < 1 || !(o->dropout >= 0 && o->dropout < 1)) {
    std::fprintf(stderr,
                 "need steps >= 10, vocab >= 3, an even seq >= 2, sizes >= 1, d_model divisible "
                 "by heads and dropout in [0, 1)\n");
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
      "train_transformer_block: dtype %s, vocab %lld, seq %lld, batch %lld, d_model %lld, heads "
      "%lld, d_ff %lld, %d steps, lr %g, dropout %g, seed %llu\n",
      o.dtype == ACL_FLOAT ? "FLOAT" : "BFLOAT16", static_cast<long long>(o.vocab),
      static_cast<long long>(o.seq), static_cast<long long>(o.batch),
      static_cast<long long>(o.d_model), static_cast<long long>(o.heads),
      static_cast<long long>(o.d_ff), o.steps, static_cast<double>(o.lr), o.dropout,
      static_cast<unsigned long long>(o.seed));
  int rc = 0;
  {
    Trainer trainer(o, stream);
    std::mt19937_64 rng(o.seed);
    trainer.Init(&rng);

    std::vector<double> losses, step_times;
    double window_start = Seconds();
    const double run_start = window_start;
    for (int step = 1; step <= o.steps; ++step) {
      const double step_start = Seconds();
      trainer.WriteBatch(&rng);
      trainer.Forward(step, o.dropout);
      trainer.Backward();
      if (!o.dump_dir.empty()) {
        const double loss = trainer.ReadLoss();
        std::printf("loss %.9g\n", loss);
        const bool ok = trainer.Dump(o.dump_dir, loss);
        std::printf("dump to %s: %s\n", o.dump_dir.c_str(), ok ? "written" : "FAILED");
        rc = ok ? 0 : 1;
        break;
      }
      trainer.Update();
      const double loss = trainer.ReadLoss();
      step_times.push_back(Seconds() - step_start);
      losses.push_back(loss);
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
    if (o.dump_dir.empty()) {
      const double total = Seconds() - run_start;
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
      if (o.bench) {
        std::vector<double> timed(step_times.begin() + w, step_times.end());
        std::sort(timed.begin(), timed.end());
        std::printf("bench: median step %.3f ms over %zu steps (min %.3f ms)\n",
                    1e3 * timed[timed.size() / 2], timed.size(), 1e3 * timed.front());
      }
      rc = ok ? 0 : 1;
    }
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return rc;
}
