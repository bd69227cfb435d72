// Times a training step's matrix products (the gemm_shapes list of `tapegrad bench --model M --json`,
// read from stdin) through every float32 gemm this machine has, in alternating rounds in one process:
// OpenBLAS (whichever kernels OPENBLAS_CORETYPE or its own detection chose before it loaded), oneDNN's
// dnnl_sgemm and BLIS's bli_sgemm (both loaded with dlopen when installed), and libxsmm's JIT small-matrix
// kernels (Debian's libxsmm-dev is a static library: compiled in when CMake finds it). Prints one line of
// GFLOP/s per library; scripts/gemm_backends.sh runs it under each instruction-set setting and writes
// docs/results/gemm_backends.md's table. A measuring tool, not a backend: tapegrad itself calls
// ops/blas.h, which uses only OpenBLAS and oneDNN (BLIS measured slower on every shape list here; libxsmm's
// gain on tiny products is a few per cent of a step, gemm_backends.md).
#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#ifdef TAPEGRAD_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

extern "C" char* openblas_get_corename(void);
extern "C" void openblas_set_num_threads(int);

namespace {
struct Shape {
  bool ta, tb;
  int64_t m, n, k, count;
  float beta;  // 1 for an addmm's product (C += A B), else 0
};
using DnnlSgemm = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                          int64_t, float, float*, int64_t);
// BLIS's typed API with its default 64-bit dim_t / inc_t; trans_t BLIS_TRANSPOSE is 1 << 3 (blis.h)
using BliSgemm = void (*)(int, int, int64_t, int64_t, int64_t, const float*, const float*, int64_t, int64_t,
                          const float*, int64_t, int64_t, const float*, float*, int64_t, int64_t);
constexpr int kBliTranspose = 1 << 3;
#ifdef TAPEGRAD_HAVE_LIBXSMM
constexpr bool kHaveXsmmLib = true;
#else
constexpr bool kHaveXsmmLib = false;
#endif

template <class F>
F symbol(const char* lib, const char* name) {
  void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  return h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(2, std::atoi(argv[1])) : 7;
  const nlohmann::json j = nlohmann::json::parse(std::cin);
  std::vector<Shape> shapes;
  double flop = 0;
  for (const auto& s : j.at("gemm_shapes")) {
    shapes.push_back({s.at("ta"), s.at("tb"), s.at("m"), s.at("n"), s.at("k"), s.at("count"), s.value("beta", 0.f)});
    flop += 2.0 * double(shapes.back().m * shapes.back().n * shapes.back().k) * double(shapes.back().count);
  }
  openblas_set_num_threads(1);  // one thread each: OMP_NUM_THREADS=1 for oneDNN and BLIS (the script sets it)
  const auto dnnl = symbol<DnnlSgemm>("libdnnl.so.2", "dnnl_sgemm");
  const auto bli = symbol<BliSgemm>("libblis.so.4", "bli_sgemm");

  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.f, 0.1f);
  std::vector<std::vector<float>> a, b, c;
  for (const Shape& s : shapes) {
    a.emplace_back(size_t(s.m * s.k)), b.emplace_back(size_t(s.k * s.n)), c.emplace_back(size_t(s.m * s.n));
    for (float& x : a.back()) x = nd(rng);
    for (float& x : b.back()) x = nd(rng);
  }
#ifdef TAPEGRAD_HAVE_LIBXSMM
  // Row-major C = op(A) op(B) is column-major Cᵀ = op(B)ᵀ op(A)ᵀ: libxsmm's first operand is B. Its JIT
  // (1.17) has no kernel for a transposed first operand (our tb): such a B is transposed into a scratch
  // matrix first, inside the timed pass, as a backend would have to.
  libxsmm_init();
  std::vector<libxsmm_smmfunction> xsmm(shapes.size(), nullptr);
  std::vector<std::vector<float>> b_t(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = shapes[i];
    const libxsmm_blasint lda = s.ta ? s.m : s.k, ldc = s.n, ldb = s.n;  // B as stored, or its transpose [k, n]
    const int flags = s.ta ? LIBXSMM_GEMM_FLAG_TRANS_B : 0;
    const float alpha = 1, beta = s.beta;
    xsmm[i] = libxsmm_smmdispatch(s.n, s.m, s.k, &ldb, &lda, &ldc, &alpha, &beta, &flags, nullptr);
    if (s.tb) b_t[i].resize(size_t(s.k * s.n));
  }
  bool xsmm_all = true;
  for (auto f : xsmm) xsmm_all = xsmm_all && f != nullptr;
#endif
  auto pass = [&](int lib) {
    const float one = 1;
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      const int64_t lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
      for (int64_t r = 0; r < s.count; ++r) {
        if (lib == 0)
          cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, int(s.m),
                      int(s.n), int(s.k), 1.f, a[i].data(), int(lda), b[i].data(), int(ldb), s.beta, c[i].data(), int(s.n));
        else if (lib == 1)
          dnnl(s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.m, s.n, s.k, 1.f, a[i].data(), lda, b[i].data(), ldb, s.beta,
               c[i].data(), s.n);
#ifdef TAPEGRAD_HAVE_LIBXSMM
        else if (lib == 3) {
          const float* bk = b[i].data();
          if (s.tb) {  // B is stored [n, k]: its transpose [k, n]
            float* t = b_t[i].data();
            for (int64_t r2 = 0; r2 < s.n; ++r2)
              for (int64_t q = 0; q < s.k; ++q) t[q * s.n + r2] = bk[r2 * s.k + q];
            bk = t;
          }
          xsmm[i](bk, a[i].data(), c[i].data());
        }
#endif
        else  // row-major: a stored matrix's row stride is its leading dimension, its column stride 1
          bli(s.ta ? kBliTranspose : 0, s.tb ? kBliTranspose : 0, s.m, s.n, s.k, &one, a[i].data(), lda, 1,
              b[i].data(), ldb, 1, &s.beta, c[i].data(), s.n, 1);
      }
    }
  };
  const std::string names[4] = {std::string("openblas (") + openblas_get_corename() + ")", "onednn", "blis", "libxsmm"};
#ifdef TAPEGRAD_HAVE_LIBXSMM
  const bool have_xsmm = xsmm_all;  // a shape without a kernel: no figure (it would be another library's)
#else
  const bool have_xsmm = false;
#endif
  const bool have[4] = {true, dnnl != nullptr, bli != nullptr, have_xsmm};
  std::vector<std::vector<double>> ms(4);
  for (int round = 0; round <= rounds; ++round)  // round 0 warms up (oneDNN generates its kernels)
    for (int lib = 0; lib < 4; ++lib) {
      if (!have[lib]) continue;
      const auto t0 = std::chrono::steady_clock::now();
      pass(lib);
      const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (round > 0) ms[size_t(lib)].push_back(t);
    }
  std::printf("%.3f GFLOP per pass in %zu shapes, %d rounds (median)\n", flop * 1e-9, shapes.size(), rounds);
  for (int lib = 0; lib < 4; ++lib) {
    if (!have[lib]) {
      std::printf("%-22s %s\n", names[lib].c_str(), lib == 3 && kHaveXsmmLib ? "has no JIT kernel for a shape" : "not installed");
      continue;
    }
    auto& v = ms[size_t(lib)];
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    const double median = v[v.size() / 2];
    std::printf("%-22s %9.2f ms %8.1f GFLOP/s\n", names[lib].c_str(), median, flop / median * 1e-6);
  }
}
