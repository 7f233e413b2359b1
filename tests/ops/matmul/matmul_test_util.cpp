#include "matmul_test_util.h"

#include <algorithm>

#include "backend/cpu/thread_pool.h"
#include "util/ops_fixtures.h"
#include "util/precision.h"

namespace openaclnn::test::matmul {

CallResult CallApi(const Phase1& phase1, Phase2 phase2, aclrtStream stream) {
  CallResult r;
  aclOpExecutor* executor = nullptr;
  r.phase1 = phase1(&r.workspace, &executor);
  if (r.phase1 != 0) {
    r.message = RecentError();
    return r;
  }
  r.phase2 = RunTwoPhase(r.phase1, r.workspace, executor, stream, phase2);
  if (r.phase2 != 0) r.message = RecentError();
  return r;
}

void MatmulTest::SetUp() {
  RuntimeTest::SetUp();
  ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
}

void MatmulTest::TearDown() {
  cpu::SetNumThreads(0);
  EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
  RuntimeTest::TearDown();
}

Scalar::Scalar(float value) : scalar_(aclCreateScalar(&value, ACL_FLOAT)) {}
Scalar::Scalar(const void* value, aclDataType dtype)
    : scalar_(aclCreateScalar(const_cast<void*>(value), dtype)) {}
Scalar::~Scalar() { aclDestroyScalar(scalar_); }

namespace {

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= dims[i];
  return p;
}

// Row-major strides of `dims` with stride 0 for dims of extent 1 (broadcast).
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& dims, size_t rank) {
  std::vector<int64_t> s(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = dims.size() - 1 - i;
    s[rank - 1 - i] = dims[d] == 1 ? 0 : stride;
    stride *= dims[d];
  }
  return s;
}

}  // namespace

std::vector<int64_t> MatmulShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t ba = a.size() > 2 ? a.size() - 2 : 0, bb = b.size() > 2 ? b.size() - 2 : 0;
  const size_t br = std::max(ba, bb);
  std::vector<int64_t> out(br);
  for (size_t d = 0; d < br; ++d) {
    const int64_t ea = d + ba >= br ? a[d + ba - br] : 1;
    const int64_t eb = d + bb >= br ? b[d + bb - br] : 1;
    out[d] = ea == 1 ? eb : ea;
  }
  if (a.size() > 1) out.push_back(a[a.size() - 2]);
  if (b.size() > 1) out.push_back(b.back());
  return out;
}

std::vector<double> MatmulGolden(const std::vector<double>& a, const std::vector<int64_t>& a_dims,
                                 const std::vector<double>& b, const std::vector<int64_t>& b_dims,
                                 const std::function<double(double)>& round_input) {
  // Promote to [batch..., m, k] and [batch..., k, n].
  std::vector<int64_t> a3 = a_dims, b3 = b_dims;
  if (a3.size() == 1) a3.insert(a3.begin(), 1);
  if (b3.size() == 1) b3.push_back(1);
  const int64_t m = a3[a3.size() - 2], k = a3.back(), n = b3.back();
  const std::vector<int64_t> a_batch(a3.begin(), a3.end() - 2), b_batch(b3.begin(), b3.end() - 2);
  const size_t br = std::max(a_batch.size(), b_batch.size());
  std::vector<int64_t> batch(br);
  for (size_t d = 0; d < br; ++d) {
    const int64_t ea = d + a_batch.size() >= br ? a_batch[d + a_batch.size() - br] : 1;
    const int64_t eb = d + b_batch.size() >= br ? b_batch[d + b_batch.size() - br] : 1;
    batch[d] = ea == 1 ? eb : ea;
  }
  const std::vector<int64_t> sa = BroadcastStrides(a_batch, br), sb = BroadcastStrides(b_batch, br);
  const int64_t batches = Product(batch, 0, br);
  std::vector<double> out(static_cast<size_t>(batches * m * n));
  auto r = [&](double v) { return round_input ? round_input(v) : v; };
  for (int64_t l = 0; l < batches; ++l) {
    int64_t oa = 0, ob = 0, rem = l;
    for (size_t i = 0; i < br; ++i) {
      const size_t d = br - 1 - i;
      const int64_t idx = rem % batch[d];
      rem /= batch[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < k; ++q) {
          sum += r(a[(oa * m + i) * k + q]) * r(b[(ob * k + q) * n + j]);
        }
        out[(l * m + i) * n + j] = sum;
      }
    }
  }
  return out;
}

std::vector<double> AddScaled(const std::vector<double>& product,
                              const std::vector<int64_t>& out_dims, const std::vector<double>& self,
                              const std::vector<int64_t>& self_dims, double beta, double alpha) {
  const size_t rank = out_dims.size();
  const std::vector<int64_t> ss = BroadcastStrides(self_dims, rank);
  std::vector<double> out(product.size());
  for (size_t e = 0; e < product.size(); ++e) {
    int64_t rem = static_cast<int64_t>(e), off = 0;
    for (size_t i = 0; i < rank; ++i) {
      const size_t d = rank - 1 - i;
      off += (rem % out_dims[d]) * ss[d];
      rem /= out_dims[d];
    }
    out[e] = alpha * product[e] + (beta == 0 ? 0.0 : beta * self[off]);
  }
  return out;
}

std::vector<double> Values(const DeviceTensor& t) {
  const std::vector<float> v = t.Values();
  return std::vector<double>(v.begin(), v.end());
}

TensorLayout Transposed(int rank) {
  std::vector<int> order;
  for (int d = 0; d < rank; ++d) order.push_back(d);
  if (rank >= 2) std::swap(order[rank - 1], order[rank - 2]);
  return TensorLayout::Permuted(order).Named("transposed");
}

TensorLayout RandomLayout(int rank, std::mt19937* rng) {
  switch ((*rng)() % 7) {
    case 0:
      return TensorLayout::Contiguous();
    case 1:
      return Transposed(rank);
    case 2:
      return TensorLayout::Padded(3).WithOffset(2);
    case 3:
      return TensorLayout::Scrambled(rank);
    case 4:
      return TensorLayout::Strided(2, 1);
    case 5: {
      TensorLayout t = Transposed(rank);
      t.gap = 2;
      t.offset = 7;
      return t.Named("transposed-padded");
    }
    default:
      return TensorLayout::Offset(9);
  }
}

void ExpectMatches(const DeviceTensor& out, const std::vector<double>& golden,
                   const std::string& what) {
  const std::vector<float> actual = out.Values();
  ASSERT_EQ(actual.size(), golden.size()) << what;
  const std::string failure = CheckMixedTolerance(out.dtype(), actual.data(), golden.data(),
                                                  static_cast<int64_t>(golden.size()), what);
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_EQ(out.DamagedCanaries(), 0) << what;
}

}  // namespace openaclnn::test::matmul
