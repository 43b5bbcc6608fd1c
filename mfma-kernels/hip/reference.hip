// HIP equivalents of two kernels of mfma-kernels, so that
// scripts/check-device.sh can set the metadata clang emits beside rustc's
// (mfma-device-check compare). Same names, parameters, launch and LDS use:
//
//   mfma_f32_32x32x8f16(a, b, c, d)         one wave; D = A·B + C
//   gemm_f32_32x32x2f32(a, b, c, m, n, k)   (ceil(n/64), ceil(m/64)) workgroups of
//                                           256 threads, 8192 bytes of dynamic LDS
//
// Compiled device-only without HIP's headers (clang-14 -x hip --cuda-device-only
// -nogpuinc -nogpulib --offload-arch=gfx90a): the few HIP spellings used are
// defined here, as HIP's headers define them.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
typedef __SIZE_TYPE__ size_t;
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef _Float16 halfx4 __attribute__((ext_vector_type(4)));

// HIP's __syncthreads().
__device__ static inline void syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

__device__ static inline unsigned lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

// Row of C held by register g of lane l (32x32 layouts, one block).
__device__ static inline unsigned c_row(unsigned g, unsigned l) {
  return 8 * (g / 4) + 4 * (l / 32) + g % 4;
}

// A: 32 x 8, B: 8 x 32, C, D: 32 x 32 f32, all row-major.
extern "C" __global__ void mfma_f32_32x32x8f16(const void *pa, const void *pb, const void *pc,
                                               void *pd) {
  const _Float16 *a = (const _Float16 *)pa, *b = (const _Float16 *)pb;
  const float *c = (const float *)pc;
  float *d = (float *)pd;
  unsigned l = lane_id();
  halfx4 av, bv;
  for (int e = 0; e < 4; ++e) {
    unsigned k = 4 * (l / 32) + e;
    av[e] = a[(l % 32) * 8 + k];
    bv[e] = b[k * 32 + l % 32];
  }
  floatx16 cv;
  for (int g = 0; g < 16; ++g) cv[g] = c[c_row(g, l) * 32 + l % 32];
  floatx16 dv = __builtin_amdgcn_mfma_f32_32x32x8f16(av, bv, cv, 0, 0, 0);
  for (int g = 0; g < 16; ++g) d[c_row(g, l) * 32 + l % 32] = dv[g];
}

// The tutorial GEMM on StagedTiles<64, 64, 8, 2>: 2 x 2 waves of 32 x 32,
// K strips of 8 of A and B^T double buffered in dynamic LDS, zero padded.
enum { BM = 64, BN = 64, KT = 8, THREADS = 256 };
extern __shared__ float lds[];

__device__ static void stage(float *sa, float *sb, const float *a, const float *b, size_t m,
                             size_t n, size_t k, size_t row0, size_t col0, size_t k0,
                             unsigned tid) {
  for (unsigned q = tid; q < BM * KT; q += THREADS) {
    size_t r = row0 + q / KT, c = k0 + q % KT;
    sa[q] = r < m && c < k ? a[r * k + c] : 0.0f;
  }
  for (unsigned q = tid; q < BN * KT; q += THREADS) {
    size_t j = col0 + q % BN, c = k0 + q / BN;
    sb[(q % BN) * KT + q / BN] = j < n && c < k ? b[c * n + j] : 0.0f;
  }
}

extern "C" __global__ void gemm_f32_32x32x2f32(const void *pa, const void *pb, void *pc, size_t m,
                                               size_t n, size_t k) {
  const float *a = (const float *)pa, *b = (const float *)pb;
  float *c = (float *)pc;
  unsigned tid = __builtin_amdgcn_workitem_id_x(), l = tid % 64, wave = tid / 64;
  size_t row0 = (size_t)__builtin_amdgcn_workgroup_id_y() * BM;
  size_t col0 = (size_t)__builtin_amdgcn_workgroup_id_x() * BN;
  unsigned wr = wave / 2 * 32, wc = wave % 2 * 32;
  float *sa = lds, *sb = lds + 2 * BM * KT;
  size_t tiles = (k + KT - 1) / KT;
  floatx16 acc = {};
  stage(sa, sb, a, b, m, n, k, row0, col0, 0, tid);
  syncthreads();
  for (size_t t = 0; t < tiles; ++t) {
    unsigned cur = t % 2;
    if (t + 1 < tiles)
      stage(sa + (1 - cur) * BM * KT, sb + (1 - cur) * BN * KT, a, b, m, n, k, row0, col0,
            (t + 1) * KT, tid);
    const float *ta = sa + cur * BM * KT, *tb = sb + cur * BN * KT;
    size_t len = k - t * KT < KT ? k - t * KT : KT;
    for (unsigned ki = 0; ki < len; ki += 2) {
      float av = ta[(wr + l % 32) * KT + ki + l / 32];
      float bv = tb[(wc + l % 32) * KT + ki + l / 32];
      acc = __builtin_amdgcn_mfma_f32_32x32x2f32(av, bv, acc, 0, 0, 0);
    }
    syncthreads();
  }
  for (int g = 0; g < 16; ++g) {
    size_t i = row0 + wr + c_row(g, l), j = col0 + wc + l % 32;
    if (i < m && j < n) c[i * n + j] = acc[g];
  }
}
