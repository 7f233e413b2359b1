// The determinism suite: a fixed list of cases over every operator, each run on every SIMD target
// this CPU offers (OPENACLNN_CPU_ISA names) and with 1, 2 and 3 threads. Within a run every
// variant of a case must give the same output bytes; the program prints one line per case,
// "<case> <FNV-1a 64 digest of the output bytes>", and writes them to the file given by --out.
// ctest compares the digests of an aarch64 run (under qemu-user) with those of the x86-64 build
// (tests/determinism/compare_digests.cmake): the bits do not depend on the architecture either.
//
// Inputs are integer hashes of the element index turned into floats with plain IEEE arithmetic,
// the same on every architecture (no <random> distribution: their outputs depend on the standard
// library and, through long double, on the architecture).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_apply_adam_w_v2.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "aclnnop/aclnn_sub.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "util/device_tensor.h"
#include "util/ops_fixtures.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

using Dims = std::vector<int64_t>;
using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

aclrtStream g_stream = nullptr;
bool g_failed = false;

uint32_t Hash32(uint32_t seed, uint64_t i) {
  uint64_t z = (i + 0x9E3779B97F4A7C15ull * (seed + 1ull));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>((z ^ (z >> 31)) >> 16);
}

// Element i of input `seed`: lo + (hi - lo) * u with u a 24-bit fraction from the hash, so that
// FLOAT inputs use their whole mantissa and sums depend on their order. Two correctly rounded float
// operations (no contraction: -ffp-contract=off), hence the same bits on every architecture.
float Value(uint32_t seed, uint64_t i, float lo, float hi) {
  const float u = static_cast<float>(Hash32(seed, i) & 0xFFFFFFu) * (1.0f / 16777216.0f);
  return lo + (hi - lo) * u;
}

// A tensor filled with Value(seed, i, lo, hi); integer dtypes get Hash32 % range.
DeviceTensor* Input(std::vector<std::unique_ptr<DeviceTensor>>* keep, Dims dims, aclDataType dtype,
                    uint32_t seed, float lo = -4.0f, float hi = 4.0f,
                    const TensorLayout& layout = TensorLayout::Contiguous()) {
  keep->push_back(std::make_unique<DeviceTensor>(std::move(dims), dtype, layout));
  DeviceTensor* t = keep->back().get();
  const int64_t n = t->numel();
  if (dtype == ACL_INT64 || dtype == ACL_INT32) {
    std::vector<double> values(static_cast<size_t>(n));
    const uint32_t range = static_cast<uint32_t>(hi);
    for (int64_t i = 0; i < n; ++i) values[i] = Hash32(seed, i) % range;
    t->FillDouble(values);
  } else {
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[i] = Value(seed, static_cast<uint64_t>(i), lo, hi);
    t->Fill(values);
  }
  return t;
}

DeviceTensor* Output(std::vector<std::unique_ptr<DeviceTensor>>* keep, Dims dims, aclDataType dtype,
                     const TensorLayout& layout = TensorLayout::Contiguous()) {
  keep->push_back(std::make_unique<DeviceTensor>(std::move(dims), dtype, layout));
  return keep->back().get();
}

// One case: builds its tensors, runs the operator, returns the tensors whose bytes are hashed.
using CaseFn =
    std::function<std::vector<DeviceTensor*>(std::vector<std::unique_ptr<DeviceTensor>>*)>;

struct Case {
  std::string name;
  CaseFn run;
};

void Check(aclnnStatus status, const std::string& what) {
  if (status != ACLNN_SUCCESS) {
    std::fprintf(stderr, "%s: status %d: %s\n", what.c_str(), static_cast<int>(status),
                 RecentError().c_str());
    g_failed = true;
  }
}

void Run(aclnnStatus phase1, uint64_t workspace, aclOpExecutor* executor, Phase2 phase2,
         const char* what) {
  Check(phase1, what);
  if (phase1 != ACLNN_SUCCESS) return;
  Check(RunTwoPhase(phase1, workspace, executor, g_stream, phase2), what);
}

uint64_t Fnv1a(uint64_t h, const std::vector<uint8_t>& bytes) {
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001B3ull;
  }
  return h;
}

uint64_t RunCase(const Case& c) {
  std::vector<std::unique_ptr<DeviceTensor>> keep;
  const std::vector<DeviceTensor*> outputs = c.run(&keep);
  uint64_t h = 0xCBF29CE484222325ull;
  for (const DeviceTensor* t : outputs) h = Fnv1a(h, t->Bytes());
  return h;
}

aclScalar* FloatScalar(float v) { return aclCreateScalar(&v, ACL_FLOAT); }

// Phase 1 into locals first (the executor is read only after phase 1 has set it), then phase 2.
#define OP_RUN(NAME, ...)                                                            \
  do {                                                                               \
    uint64_t ws = 0;                                                                 \
    aclOpExecutor* ex = nullptr;                                                     \
    const aclnnStatus phase1 = aclnn##NAME##GetWorkspaceSize(__VA_ARGS__, &ws, &ex); \
    Run(phase1, ws, ex, aclnn##NAME, #NAME);                                         \
  } while (0)

std::vector<Case> Cases() {
  std::vector<Case> cases;
  using K = std::vector<std::unique_ptr<DeviceTensor>>;
  const aclDataType kFloatTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const char* kTypeNames[] = {"f32", "f16", "bf16"};
  for (int t = 0; t < 3; ++t) {
    const aclDataType dt = kFloatTypes[t];
    const std::string ty = kTypeNames[t];
    cases.push_back({"add_broadcast_alpha_" + ty, [dt](K* k) {
                       auto* a = Input(k, {37, 129}, dt, 1);
                       auto* b = Input(k, {129}, dt, 2);
                       auto* o = Output(k, {37, 129}, dt);
                       aclScalar* alpha = FloatScalar(0.75f);
                       OP_RUN(Add, a->get(), b->get(), alpha, o->get());
                       aclDestroyScalar(alpha);
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"sub_strided_" + ty, [dt](K* k) {
                       auto* a = Input(k, {65, 33}, dt, 3, -4, 4, TensorLayout::Strided(2, 3));
                       auto* b = Input(k, {65, 33}, dt, 4);
                       auto* o = Output(k, {65, 33}, dt);
                       aclScalar* alpha = FloatScalar(1.5f);
                       OP_RUN(Sub, a->get(), b->get(), alpha, o->get());
                       aclDestroyScalar(alpha);
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"mul_" + ty, [dt](K* k) {
                       auto* a = Input(k, {1000, 7}, dt, 5);
                       auto* b = Input(k, {1000, 1}, dt, 6);
                       auto* o = Output(k, {1000, 7}, dt);
                       OP_RUN(Mul, a->get(), b->get(), o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"div_" + ty, [dt](K* k) {
                       auto* a = Input(k, {3001}, dt, 7);
                       auto* b = Input(k, {3001}, dt, 8, 0.25f, 4.0f);
                       auto* o = Output(k, {3001}, dt);
                       OP_RUN(Div, a->get(), b->get(), o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"gelu_" + ty, [dt](K* k) {
                       auto* a = Input(k, {4099}, dt, 9, -8, 8);
                       auto* o = Output(k, {4099}, dt);
                       OP_RUN(Gelu, a->get(), o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"gelu_v2_tanh_" + ty, [dt](K* k) {
                       auto* a = Input(k, {2051}, dt, 10, -8, 8);
                       auto* o = Output(k, {2051}, dt);
                       OP_RUN(GeluV2, a->get(), int64_t{1}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"gelu_backward_" + ty, [dt](K* k) {
                       auto* g = Input(k, {1031}, dt, 11);
                       auto* x = Input(k, {1031}, dt, 12, -8, 8);
                       auto* o = Output(k, {1031}, dt);
                       OP_RUN(GeluBackward, g->get(), x->get(), o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"glu_" + ty, [dt](K* k) {
                       auto* x = Input(k, {17, 258}, dt, 13);
                       auto* o = Output(k, {17, 129}, dt);
                       OP_RUN(Glu, x->get(), int64_t{-1}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"glu_backward_" + ty, [dt](K* k) {
                       auto* g = Input(k, {17, 129}, dt, 14);
                       auto* x = Input(k, {17, 258}, dt, 15);
                       auto* o = Output(k, {17, 258}, dt);
                       OP_RUN(GluBackward, g->get(), x->get(), int64_t{-1}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"softmax_" + ty, [dt](K* k) {
                       auto* x = Input(k, {23, 1001}, dt, 16, -8, 8);
                       auto* o = Output(k, {23, 1001}, dt);
                       OP_RUN(Softmax, x->get(), int64_t{1}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"softmax_dim0_" + ty, [dt](K* k) {
                       auto* x = Input(k, {61, 37}, dt, 17, -8, 8);
                       auto* o = Output(k, {61, 37}, dt);
                       OP_RUN(Softmax, x->get(), int64_t{0}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"log_softmax_" + ty, [dt](K* k) {
                       auto* x = Input(k, {19, 515}, dt, 18, -8, 8);
                       auto* o = Output(k, {19, 515}, dt);
                       OP_RUN(LogSoftmax, x->get(), int64_t{-1}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"softmax_backward_" + ty, [dt](K* k) {
                       auto* g = Input(k, {13, 257}, dt, 19);
                       auto* y = Input(k, {13, 257}, dt, 20, 0, 1);
                       auto* o = Output(k, {13, 257}, dt);
                       OP_RUN(SoftmaxBackward, g->get(), y->get(), int64_t{1}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"log_softmax_backward_" + ty, [dt](K* k) {
                       auto* g = Input(k, {11, 263}, dt, 97);
                       auto* y = Input(k, {11, 263}, dt, 98, -12, 0);
                       auto* o = Output(k, {11, 263}, dt);
                       OP_RUN(LogSoftmaxBackward, g->get(), y->get(), int64_t{1}, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"layer_norm_" + ty, [dt](K* k) {
                       auto* x = Input(k, {67, 515}, dt, 21);
                       auto* w = Input(k, {515}, dt, 22);
                       auto* b = Input(k, {515}, dt, 23);
                       auto* o = Output(k, {67, 515}, dt);
                       auto* mean = Output(k, {67, 1}, ACL_FLOAT);
                       auto* rstd = Output(k, {67, 1}, ACL_FLOAT);
                       const int64_t norm[] = {515};
                       aclIntArray* shape = aclCreateIntArray(norm, 1);
                       OP_RUN(LayerNorm, x->get(), shape, w->get(), b->get(), 1e-5, o->get(),
                              mean->get(), rstd->get());
                       aclDestroyIntArray(shape);
                       return std::vector<DeviceTensor*>{o, mean, rstd};
                     }});
    cases.push_back({"layer_norm_backward_" + ty, [dt](K* k) {
                       const bool mask[3] = {true, true, true};
                       LayerNormCase c({41}, {300}, dt, mask, {}, dt);
                       Check(c.Run(g_stream), "LayerNormBackward");
                       // Moved into `k` so that the hashed tensors outlive this function.
                       std::vector<DeviceTensor*> out = {c.gx.get(), c.gw.get(), c.gb.get()};
                       k->push_back(std::move(c.gx));
                       k->push_back(std::move(c.gw));
                       k->push_back(std::move(c.gb));
                       return out;
                     }});
    cases.push_back({"rms_norm_" + ty, [dt](K* k) {
                       auto* x = Input(k, {33, 1027}, dt, 24);
                       auto* g = Input(k, {1027}, dt, 25);
                       auto* y = Output(k, {33, 1027}, dt);
                       auto* rstd = Output(k, {33, 1}, ACL_FLOAT);
                       OP_RUN(RmsNorm, x->get(), g->get(), 1e-6, y->get(), rstd->get());
                       return std::vector<DeviceTensor*>{y, rstd};
                     }});
    cases.push_back({"rms_norm_grad_" + ty, [dt](K* k) {
                       auto* dy = Input(k, {29, 515}, dt, 26);
                       auto* x = Input(k, {29, 515}, dt, 27);
                       auto* rstd = Input(k, {29, 1}, ACL_FLOAT, 28, 0.25f, 2.0f);
                       auto* g = Input(k, {515}, dt, 29);
                       auto* dx = Output(k, {29, 515}, dt);
                       auto* dg = Output(k, {515}, ACL_FLOAT);
                       OP_RUN(RmsNormGrad, dy->get(), x->get(), rstd->get(), g->get(), dx->get(),
                              dg->get());
                       return std::vector<DeviceTensor*>{dx, dg};
                     }});
    cases.push_back({"reduce_sum_rows_" + ty, [dt](K* k) {
                       auto* x = Input(k, {37, 2049}, dt, 30);
                       auto* o = Output(k, {37}, dt);
                       const int64_t d[] = {1};
                       aclIntArray* dims = aclCreateIntArray(d, 1);
                       OP_RUN(ReduceSum, x->get(), dims, false, dt, o->get());
                       aclDestroyIntArray(dims);
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"reduce_sum_cols_" + ty, [dt](K* k) {
                       auto* x = Input(k, {1031, 3, 19}, dt, 31);
                       auto* o = Output(k, {1, 3, 1}, ACL_FLOAT);
                       const int64_t d[] = {0, 2};
                       aclIntArray* dims = aclCreateIntArray(d, 2);
                       OP_RUN(ReduceSum, x->get(), dims, true, ACL_FLOAT, o->get());
                       aclDestroyIntArray(dims);
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"nll_loss_mean_" + ty, [dt](K* k) {
                       auto* x = Input(k, {203, 11}, dt, 32);
                       auto* target = Input(k, {203}, ACL_INT64, 33, 0, 11);
                       auto* w = Input(k, {11}, dt, 34, 0.25f, 2.0f);
                       auto* o = Output(k, {}, dt);
                       auto* tw = Output(k, {}, dt);
                       OP_RUN(NLLLoss, x->get(), target->get(), w->get(), int64_t{1}, int64_t{3},
                              o->get(), tw->get());
                       return std::vector<DeviceTensor*>{o, tw};
                     }});
    cases.push_back({"nll_loss_backward_" + ty, [dt](K* k) {
                       auto* g = Input(k, {}, dt, 35, 0.5f, 2.0f);
                       auto* x = Input(k, {203, 11}, dt, 36);
                       auto* target = Input(k, {203}, ACL_INT64, 37, 0, 11);
                       auto* w = Input(k, {11}, dt, 38, 0.25f, 2.0f);
                       auto* tw = Input(k, {}, dt, 39, 100.0f, 200.0f);
                       auto* o = Output(k, {203, 11}, dt);
                       OP_RUN(NLLLossBackward, g->get(), x->get(), target->get(), w->get(),
                              int64_t{1}, int64_t{-100}, tw->get(), o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"embedding_" + ty, [dt](K* k) {
                       auto* w = Input(k, {50, 67}, dt, 40);
                       auto* idx = Input(k, {9, 13}, ACL_INT64, 41, 0, 50);
                       auto* o = Output(k, {9, 13, 67}, dt);
                       OP_RUN(Embedding, w->get(), idx->get(), o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"embedding_dense_backward_" + ty, [dt](K* k) {
                       auto* g = Input(k, {9, 13, 67}, dt, 42);
                       auto* idx = Input(k, {9, 13}, ACL_INT64, 43, 0, 20);
                       auto* o = Output(k, {20, 67}, dt);
                       OP_RUN(EmbeddingDenseBackward, g->get(), idx->get(), uint64_t{20},
                              uint64_t{5}, true, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"dropout_do_mask_" + ty, [dt](K* k) {
                       auto* x = Input(k, {5000}, dt, 44);
                       auto* mask = Output(k, {(5000 + 127) / 128 * 16}, ACL_UINT8);
                       auto* o = Output(k, {5000}, dt);
                       const int64_t shape[] = {5000};
                       aclIntArray* s = aclCreateIntArray(shape, 1);
                       OP_RUN(DropoutGenMask, s, 0.3, int64_t{1234}, int64_t{77}, mask->get());
                       aclDestroyIntArray(s);
                       OP_RUN(DropoutDoMask, x->get(), mask->get(), 0.3, o->get());
                       return std::vector<DeviceTensor*>{mask, o};
                     }});
    cases.push_back({"cast_from_f32_to_" + ty, [dt](K* k) {
                       auto* x = Input(k, {7, 1031}, ACL_FLOAT, 45, -100, 100);
                       auto* o = Output(k, {7, 1031}, dt);
                       OP_RUN(Cast, x->get(), dt, o->get());
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back(
        {"copy_transposed_" + ty, [dt](K* k) {
           auto* src = Input(k, {33, 47}, ACL_FLOAT, 46, -4, 4, TensorLayout::Permuted({1, 0}));
           auto* dst = Output(k, {33, 47}, dt);
           OP_RUN(InplaceCopy, dst->get(), src->get());
           return std::vector<DeviceTensor*>{dst};
         }});
    cases.push_back({"fill_scalar_" + ty, [dt](K* k) {
                       auto* x = Output(k, {3, 333}, dt, TensorLayout::Padded(2));
                       aclScalar* v = FloatScalar(1.0f / 3.0f);
                       OP_RUN(InplaceFillScalar, x->get(), v);
                       aclDestroyScalar(v);
                       return std::vector<DeviceTensor*>{x};
                     }});
    cases.push_back({"apply_adam_w_v2_" + ty, [dt](K* k) {
                       auto* var = Input(k, {1037}, dt, 47);
                       auto* m = Input(k, {1037}, dt, 48, -1, 1);
                       auto* v = Input(k, {1037}, dt, 49, 0, 1);
                       auto* g = Input(k, {1037}, dt, 50);
                       auto* step = Output(k, {1}, ACL_INT64);
                       step->FillDouble({5.0});
                       OP_RUN(ApplyAdamWV2, var->get(), m->get(), v->get(), nullptr, g->get(),
                              step->get(), 1e-3f, 0.9f, 0.999f, 1e-2f, 1e-8f, false, false);
                       return std::vector<DeviceTensor*>{var, m, v};
                     }});
    // GEMM products: oneDNN computes them (its own dispatch: see tests/determinism/
    // provider_dependent.txt and docs/numerics.md).
    cases.push_back({"matmul_" + ty, [dt](K* k) {
                       auto* a = Input(k, {3, 37, 70}, dt, 51);
                       auto* b = Input(k, {70, 45}, dt, 52);
                       auto* o = Output(k, {3, 37, 45}, dt);
                       OP_RUN(Matmul, a->get(), b->get(), o->get(), int8_t{1});
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"conv_tbc_" + ty, [dt](K* k) {
                       auto* x = Input(k, {21, 3, 16}, dt, 53);
                       auto* w = Input(k, {3, 16, 24}, dt, 54, -1, 1);
                       auto* b = Input(k, {24}, dt, 55);
                       auto* o = Output(k, {21, 3, 24}, dt);
                       OP_RUN(ConvTbc, x->get(), w->get(), b->get(), int64_t{1}, o->get(),
                              int8_t{1});
                       return std::vector<DeviceTensor*>{o};
                     }});
    cases.push_back({"conv_tbc_backward_" + ty, [dt](K* k) {
                       ConvTbcCase c(19, 3, 16, 24, 3, 1, dt, {});
                       Check(c.Run(g_stream), "ConvTbcBackward");
                       std::vector<DeviceTensor*> out = {c.gx.get(), c.gw.get(), c.gb.get()};
                       k->push_back(std::move(c.gx));
                       k->push_back(std::move(c.gw));
                       k->push_back(std::move(c.gb));
                       return out;
                     }});
  }
  return cases;
}

}  // namespace
}  // namespace openaclnn::test

int main(int argc, char** argv) {
  using namespace openaclnn;
  std::string out_path;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out_path = argv[++i];
    } else if (std::strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--out FILE] [--case NAME]\n", argv[0]);
      return 2;
    }
  }
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
      aclrtCreateStream(&test::g_stream) != ACL_SUCCESS) {
    std::fprintf(stderr, "runtime initialisation failed\n");
    return 1;
  }
  const std::vector<std::string> isas = cpu::AvailableIsas();
  std::string isa_list;
  for (const std::string& isa : isas) isa_list += (isa_list.empty() ? "" : ",") + isa;
  std::fprintf(stderr, "determinism digests: targets %s, threads 1, 2, 3\n", isa_list.c_str());
  std::string lines;
  int mismatches = 0;
  for (const test::Case& c : test::Cases()) {
    if (!only.empty() && c.name != only) continue;
    uint64_t first = 0, printed = 0;
    bool have_first = false;
    for (const std::string& isa : isas) {
      cpu::SetPlanningIsaCap(isa);
      for (int threads : {1, 2, 3}) {
        cpu::SetNumThreads(threads);
        const uint64_t digest = test::RunCase(c);
        printed = digest;
        if (!have_first) {
          first = digest;
          have_first = true;
        } else if (digest != first) {
          std::fprintf(stderr, "MISMATCH %s: target %s, %d threads: %016llx, first run %016llx\n",
                       c.name.c_str(), isa.c_str(), threads,
                       static_cast<unsigned long long>(digest),
                       static_cast<unsigned long long>(first));
          ++mismatches;
        }
      }
    }
    cpu::SetPlanningIsaCap("");
    cpu::SetNumThreads(0);
    char line[256];
    std::snprintf(line, sizeof(line), "%s %016llx\n", c.name.c_str(),
                  static_cast<unsigned long long>(printed));
    std::fputs(line, stdout);
    lines += line;
  }
  aclrtDestroyStream(test::g_stream);
  aclrtResetDevice(0);
  aclFinalize();
  if (!out_path.empty()) {
    std::ofstream out(out_path);
    out << lines;
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", out_path.c_str());
      return 1;
    }
  }
  if (test::g_failed || mismatches != 0) {
    std::fprintf(stderr, "determinism digests: %d mismatches, %s\n", mismatches,
                 test::g_failed ? "operator failures" : "no operator failures");
    return 1;
  }
  return 0;
}
