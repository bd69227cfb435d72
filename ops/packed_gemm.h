// float32 products whose B operand was reordered once, ahead of them, into the blocked layout oneDNN's
// matmul primitive computes from. dnnl_sgemm packs B again on every call: for a recurrence's weight,
// multiplied T times a step by the same B, that is T packings of the same matrix (on this project's
// AVX-512 machine, one thread: [128,512] x [512,2048] 2,472-2,535 us packed ahead against 2,620-2,745 us,
// [32,256] x [256,1024] 149-152 us against 189-190 us; docs/results/engine_bench.md).
//
// A packed operand is a float tensor: a header of kPackedHeader floats, then the packed bytes. The
// header names the layout it was packed in; a product whose primitive wants another layout (another
// thread count, another backend since) is told so and runs the ordinary gemm on B instead. So a packed
// operand is only ever a hint: the result is C + A B either way.
//
// oneDNN is loaded with dlopen, as for dnnl_sgemm (ops/blas.cc): a build without its header has no
// packing, and a machine without the library never packs.
#pragma once
#include <cstdint>

namespace tg::blas {

constexpr int64_t kPackedHeader = 16;  // floats: 64 bytes, so the packed data keeps the buffer's alignment

// Whether products can be packed now: float32 products go to oneDNN (blas.h) and its matmul primitive
// loads.
bool packing_available();
// The packed operand's size in floats, header included: kPackedHeader alone when packing is not
// available (the header then says "not packed").
int64_t packed_floats(int m, int k, int n);
// Writes B [k,n] (row-major, ldb = n) packed for products with m rows into out (out_floats floats), or
// the "not packed" header when packing is not available or out is sized for another layout.
void pack_b(int m, int k, int n, const float* b, float* out, int64_t out_floats);
// The header of a "not packed" operand (all zeros).
inline void write_unpacked_header(float* out) {
  for (int64_t i = 0; i < kPackedHeader; ++i) out[i] = 0.f;
}
// C [m,n] = A [m,k] B + beta C (beta 0 or 1) from B's packed form (packed_floats floats), true; false (C
// untouched) when the packed operand's layout is not the one this product's primitive computes from now.
bool packed_gemm(int m, int n, int k, const float* a, const float* packed, int64_t packed_floats, float beta, float* c);
// How many products packed_gemm has computed in this process (the tests' proof that the packed path ran).
int64_t packed_products_run();

}  // namespace tg::blas
