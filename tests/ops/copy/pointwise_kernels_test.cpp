// The pointwise engine's kernels below the operators, on every SIMD target: the non-temporal
// output stores (which the operators only take beyond 32 MiB moved) and the register tile
// transpose give the same bits as the typed loops, at every alignment and ragged size, and write
// nothing outside their runs.
#include "kernels/cpu/pointwise_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/isa.h"

namespace openaclnn::test {
namespace {

constexpr unsigned char kCanary = 0xa5;

// Random fp32 values with a few specials, stored as `type` at `p` (n elements).
void FillRandom(ElemType type, void* p, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  for (int64_t i = 0; i < n; ++i) {
    float v = u(rng);
    if (i % 97 == 5) v = std::numeric_limits<float>::quiet_NaN();
    if (i % 89 == 7) v = std::numeric_limits<float>::infinity();
    if (i % 83 == 3) v = 1e-40f;  // subnormal
    cpu::StoreF32(type, p, i, v);
  }
  if (n > 11 && type == ElemType::kFloat32) {  // a signalling NaN: copies keep its bits
    const uint32_t snan = 0x7f800001u;
    std::memcpy(static_cast<unsigned char*>(p) + 11 * 4, &snan, 4);
  }
}

struct RunCase {
  cpu::RunOp op;
  ElemType a, out;
  bool b_tensor;  // else b is the scalar
};

TEST(PointwiseKernels, StreamingStoresMatchTheTypedLoop) {
  const RunCase cases[] = {
      {cpu::RunOp::kAdd, ElemType::kFloat32, ElemType::kFloat32, true},
      {cpu::RunOp::kAdd, ElemType::kBFloat16, ElemType::kBFloat16, true},
      {cpu::RunOp::kMul, ElemType::kFloat16, ElemType::kFloat16, true},
      {cpu::RunOp::kAdd, ElemType::kFloat32, ElemType::kFloat32, false},
      {cpu::RunOp::kSub, ElemType::kBFloat16, ElemType::kBFloat16, false},
      {cpu::RunOp::kCopy, ElemType::kFloat32, ElemType::kBFloat16, false},
      {cpu::RunOp::kCopy, ElemType::kBFloat16, ElemType::kFloat32, false},
      {cpu::RunOp::kCopy, ElemType::kFloat32, ElemType::kFloat16, false},
      {cpu::RunOp::kCopy, ElemType::kFloat32, ElemType::kFloat32, false},
      {cpu::RunOp::kCopy, ElemType::kBFloat16, ElemType::kBFloat16, false},
  };
  const int64_t sizes[] = {0, 1, 7, 16, 33, 64, 100, 1000, 4099};
  uint32_t seed = 1;
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    const cpu::KernelTarget target = cpu::PlanningTarget();
    for (const RunCase& c : cases) {
      cpu::RunArgs args;
      args.op = c.op;
      args.a = c.a;
      args.b = c.a;
      args.out = c.out;
      args.compute = ElemType::kFloat32;
      args.b_is_scalar = !c.b_tensor && c.op != cpu::RunOp::kCopy;
      args.scalar_f = 1.5;
      args.alpha_f = c.op == cpu::RunOp::kAdd || c.op == cpu::RunOp::kSub ? 2.0 : 1.0;
      ASSERT_TRUE(cpu::SimdHandles(args));
      const int64_t in_size = static_cast<int64_t>(ElemSize(c.a));
      const int64_t out_size = static_cast<int64_t>(ElemSize(c.out));
      for (int64_t n : sizes) {
        for (int64_t shift = 0; shift < 5; ++shift) {  // output misalignment, in elements
          std::vector<unsigned char> a(n * in_size + 8), b(n * in_size + 8);
          FillRandom(c.a, a.data(), n, seed++);
          FillRandom(c.a, b.data(), n, seed++);
          const int64_t bytes = (n + 40) * out_size + 64;
          std::vector<unsigned char> expected(bytes, kCanary), got(bytes, kCanary);
          // The output starts `shift` elements past a 64-byte boundary.
          const int64_t lead = (64 - reinterpret_cast<uintptr_t>(got.data()) % 64) % 64;
          const int64_t lead_ref = (64 - reinterpret_cast<uintptr_t>(expected.data()) % 64) % 64;
          unsigned char* out = got.data() + lead + shift * out_size;
          unsigned char* ref = expected.data() + lead_ref + shift * out_size;
          const void* bp = c.b_tensor ? b.data() : nullptr;
          cpu::RunStrided(args, a.data(), 1, bp, 1, ref, 1, n);
          args.stream_out = true;
          cpu::RunContiguousSimd(target, args, a.data(), 0.f, bp, 1.5f, out, n);
          args.stream_out = false;
          ASSERT_EQ(0, std::memcmp(expected.data() + lead_ref, got.data() + lead,
                                   bytes - std::max(lead, lead_ref)))
              << isa << " op " << static_cast<int>(c.op) << " n " << n << " shift " << shift;
        }
      }
    }
  }
  ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
}

// In place (the output is the first input's bytes, as InplaceAdd binds selfRef): every line is
// read before it is streamed out.
TEST(PointwiseKernels, StreamingStoresInPlace) {
  uint32_t seed = 900;
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    const cpu::KernelTarget target = cpu::PlanningTarget();
    for (ElemType t : {ElemType::kFloat32, ElemType::kBFloat16, ElemType::kFloat16}) {
      for (cpu::RunOp op : {cpu::RunOp::kAdd, cpu::RunOp::kMul, cpu::RunOp::kCopy}) {
        for (bool b_tensor : {true, false}) {
          for (int64_t shift : {0, 3}) {
            cpu::RunArgs args;
            args.op = op;
            args.a = args.b = args.out = t;
            args.compute = ElemType::kFloat32;
            args.b_is_scalar = !b_tensor && op != cpu::RunOp::kCopy;
            args.scalar_f = 1.5;
            args.alpha_f = op == cpu::RunOp::kAdd ? 2.0 : 1.0;
            const int64_t n = 4099, size = static_cast<int64_t>(ElemSize(t));
            std::vector<unsigned char> x((n + 64) * size), y(n * size), ref(n * size);
            unsigned char* xs = x.data() + shift * size;
            FillRandom(t, xs, n, seed++);
            FillRandom(t, y.data(), n, seed++);
            const void* bp = b_tensor && op != cpu::RunOp::kCopy ? y.data() : nullptr;
            cpu::RunStrided(args, xs, 1, bp, 1, ref.data(), 1, n);
            args.stream_out = true;
            cpu::RunContiguousSimd(target, args, xs, 0.f, bp, 1.5f, xs, n);
            ASSERT_EQ(0, std::memcmp(ref.data(), xs, n * size))
                << isa << " op " << static_cast<int>(op) << " shift " << shift;
          }
        }
      }
    }
  }
  ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
}

TEST(PointwiseKernels, TileTransposeMatchesElementMoves) {
  const int64_t rows_list[] = {1, 8, 15, 16, 17, 40, 129};
  const int64_t cols_list[] = {1, 8, 16, 31, 32, 33, 70};
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    const cpu::KernelTarget target = cpu::PlanningTarget();
    for (int64_t esize : {2, 4}) {
      for (int64_t rows : rows_list) {
        for (int64_t cols : cols_list) {
          for (bool stream : {false, true}) {
            // Source columns of `rows` elements at stride ss; destination rows at stride ds (a
            // multiple of 32 elements when streaming, so whole rows of a block are aligned).
            const int64_t ss = rows + 3, ds = stream ? (cols + 31) / 32 * 32 + 32 : cols + 5;
            std::vector<unsigned char> src(ss * cols * esize);
            for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
            const int64_t bytes = ds * rows * esize + 128;
            std::vector<unsigned char> expected(bytes, kCanary), got(bytes, kCanary);
            const int64_t lead = (64 - reinterpret_cast<uintptr_t>(got.data()) % 64) % 64;
            const int64_t lead_ref = (64 - reinterpret_cast<uintptr_t>(expected.data()) % 64) % 64;
            for (int64_t c = 0; c < cols; ++c) {
              for (int64_t i = 0; i < rows; ++i) {
                std::memcpy(expected.data() + lead_ref + (i * ds + c) * esize,
                            src.data() + (c * ss + i) * esize, esize);
              }
            }
            cpu::TransposeTile(target, src.data(), ss, got.data() + lead, ds, rows, cols, esize,
                               stream, src.data(), cols);
            ASSERT_EQ(0, std::memcmp(expected.data() + lead_ref, got.data() + lead,
                                     bytes - std::max(lead, lead_ref)))
                << isa << " esize " << esize << " rows " << rows << " cols " << cols << " stream "
                << stream;
          }
        }
      }
    }
  }
  ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
}

}  // namespace
}  // namespace openaclnn::test
