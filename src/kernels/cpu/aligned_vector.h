#pragma once
// std::vector whose storage starts on a 64-byte boundary (a cache line, a zmm register), for the
// buffers that GEMM kernels read or write as operands: scratch tiles, packed operands, oneDNN's
// scratchpad. The AMX tile loads are the reason: oneDNN 2.6's AMX brgemm ran a 512 x 512 x 1024
// BFLOAT16 product at 1,720-1,800 GFLOP/s on one core with A and the blocked B 64-byte aligned,
// and at 1,020 (A) and 726 (B) with one of them 16 bytes off, where malloc's large blocks start
// (a standalone oneDNN timing program, not under bench/, Intel Xeon with AMX, 2026-12-07).

#include <cstddef>
#include <new>
#include <vector>

namespace openaclnn::cpu {

constexpr std::size_t kOperandAlignment = 64;

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  explicit CacheLineAllocator(const CacheLineAllocator<U>& /*other*/) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kOperandAlignment}));
  }
  void deallocate(T* p, std::size_t /*n*/) {
    ::operator delete (p, std::align_val_t{kOperandAlignment});
  }
  template <class U>
  bool operator==(const CacheLineAllocator<U>& /*other*/) const {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>& /*other*/) const {
    return false;
  }
};

template <class T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace openaclnn::cpu
