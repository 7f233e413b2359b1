// aclnnEmbedding (forward) and aclnnEmbeddingDenseBackward (backward) on language-model shapes
// (tables of 1000 to 50257 rows of 64 to 1024 elements, 4096 to 262144 random indices), FLOAT and
// BFLOAT16 with INT64 indices. For each shape and direction: the median time of phase 2 plus
// synchronisation; GB/s counting the bytes the operator must move (forward: read the indices and
// the gathered rows, write out; backward: read the indices and grad, write the whole table); the
// bandwidth of a multi-threaded read-and-sum of the same number of bytes on the pool's threads,
// timed in alternation with the operator call by call (the "stream floor"); the fraction of it the
// operator reaches; and, with --torch_results=FILE (written by bench/bench_embedding.py),
// PyTorch's torch.nn.functional.embedding and aten::embedding_dense_backward on the same shapes
// and threads. The PyTorch ratio uses our median of back-to-back calls (RepeatedMedian), timed as
// the peer is: operands that fit in the L3 cache stay there for both libraries.
//
//   bench_embedding [--quick] [--shape=INDEX] [--torch_results=FILE]
// The last line sums the table up for scripts: "embedding: median ...".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::Median;
using openaclnn::bench::TimeAgainstStream;

struct Shape {
  int64_t rows, dim, indices;
};
// The Python script has the same list; --quick runs the first one.
const Shape kShapes[] = {
    {32000, 1024, 4096}, {50257, 768, 8192}, {8192, 128, 131072}, {1000, 64, 262144}};

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

void* Alloc(size_t bytes) {
  void* p = nullptr;
  aclrtMalloc(&p, std::max<size_t>(bytes, 64), ACL_MEM_MALLOC_HUGE_FIRST);
  return p;
}

struct Result {
  double ours = 0, stream = 0, bytes = 0, fraction = 0;
  double repeated = 0;  // back to back, as the PyTorch peer is timed
};

Result Measure(const Shape& s, aclDataType dt, bool backward, aclrtStream stream, int pairs,
               double seconds) {
  const size_t esize = openaclnn::DTypeSize(dt);
  const size_t table = static_cast<size_t>(s.rows * s.dim) * esize;
  const size_t rows = static_cast<size_t>(s.indices * s.dim) * esize;
  const size_t index_bytes = static_cast<size_t>(s.indices) * 8;
  void* weight = Alloc(table);   // forward: the table; backward: out
  void* gathered = Alloc(rows);  // forward: out; backward: grad
  void* idx = Alloc(index_bytes);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < s.rows * s.dim; ++i) openaclnn::StoreFromFloat(weight, dt, i, u(rng));
  for (int64_t i = 0; i < s.indices * s.dim; ++i) {
    openaclnn::StoreFromFloat(gathered, dt, i, u(rng));
  }
  for (int64_t i = 0; i < s.indices; ++i) static_cast<int64_t*>(idx)[i] = rng() % s.rows;
  aclTensor* tw = Make({s.rows, s.dim}, dt, weight);
  aclTensor* tg = Make({s.indices, s.dim}, dt, gathered);
  aclTensor* ti = Make({s.indices}, ACL_INT64, idx);
  aclOpExecutor* ex = nullptr;
  uint64_t ws = 0;
  bool ok = backward ? aclnnEmbeddingDenseBackwardGetWorkspaceSize(
                           tg, ti, static_cast<uint64_t>(s.rows), static_cast<uint64_t>(-1), false,
                           tw, &ws, &ex) == 0
                     : aclnnEmbeddingGetWorkspaceSize(tw, ti, tg, &ws, &ex) == 0;
  ok = ok && aclSetAclOpExecutorRepeatable(ex) == 0;
  Result r;
  r.bytes = static_cast<double>(backward ? index_bytes + rows + table : index_bytes + 2 * rows);
  if (ok) {
    const size_t stream_bytes = static_cast<size_t>(r.bytes) / 128 * 128;
    void* stream_buf = Alloc(stream_bytes);
    std::memset(stream_buf, 0, stream_bytes);
    void* workspace = ws > 0 ? Alloc(ws) : nullptr;
    const auto run = [&](int64_t) {
      if (backward) {
        aclnnEmbeddingDenseBackward(workspace, ws, ex, stream);
      } else {
        aclnnEmbedding(workspace, ws, ex, stream);
      }
      aclrtSynchronizeStream(stream);
    };
    TimeAgainstStream(run, stream_buf, stream_bytes, nullptr, 0, pairs, seconds, &r.ours, &r.stream,
                      &r.fraction, &r.repeated);
    if (workspace != nullptr) aclrtFree(workspace);
    aclrtFree(stream_buf);
  } else {
    std::fprintf(stderr, "%lld x %lld, %lld indices: %s\n", static_cast<long long>(s.rows),
                 static_cast<long long>(s.dim), static_cast<long long>(s.indices),
                 aclGetRecentErrMsg());
  }
  if (ex != nullptr) aclDestroyAclOpExecutor(ex);
  for (aclTensor* t : {tw, tg, ti}) aclDestroyTensor(t);
  for (void* p : {weight, gathered, idx}) aclrtFree(p);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  openaclnn::bench::TableBenchArgs args;
  if (!openaclnn::bench::ParseTableBenchArgs(argc, argv, &args)) return 2;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  const std::vector<int> shapes = openaclnn::bench::SelectShapes(
      static_cast<int>(std::size(kShapes)), args.quick, args.only_shape);
  const int pairs = args.quick ? 15 : 51;
  const double seconds = args.quick ? 0.2 : 1.0;
  openaclnn::bench::TorchColumn torch(args.torch_path);

  std::printf("openaclnn Embedding / EmbeddingDenseBackward, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| table | indices | dtype | direction | openaclnn ms | GB/s | stream GB/s | of stream | "
      "openaclnn ms back to back | PyTorch ms | PyTorch / ours |\n");
  std::printf("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<double> fractions;
  for (int si : shapes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      for (bool backward : {false, true}) {
        const Shape& s = kShapes[si];
        const Result r = Measure(s, dt, backward, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        fractions.push_back(r.fraction);
        const char* dname = dt == ACL_BF16 ? "bf16" : "f32";
        const auto torch_cells = torch.Cells(
            std::to_string(si) + "/" + dname + (backward ? "_bwd" : "_fwd"), r.repeated);
        std::printf(
            "| %lld x %lld | %lld | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %.3f | %s | %s |\n",
            static_cast<long long>(s.rows), static_cast<long long>(s.dim),
            static_cast<long long>(s.indices), dt == ACL_BF16 ? "BF16" : "FLOAT",
            backward ? "backward" : "forward", r.ours * 1e3, r.bytes / r.ours / 1e9,
            r.bytes / r.stream / 1e9, 100.0 * r.fraction, r.repeated * 1e3, torch_cells.ms.c_str(),
            torch_cells.ratio.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!fractions.empty()) {
    std::printf("\nembedding: median %.0f %% of stream bandwidth", 100 * Median(fractions));
    std::printf("%s", torch.Summary().c_str());
    std::printf("\n");
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
