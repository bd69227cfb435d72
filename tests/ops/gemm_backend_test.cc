// The float32 gemm backends (ops/blas.h): oneDNN's sgemm, used for large products when libdnnl.so.2
// loads, agrees with OpenBLAS on every transpose, leading dimension and beta; small products stay on
// OpenBLAS bit for bit; a product repeats bit-identically at a fixed thread count; a bad choice is one
// clear error; the gemm clock counts products only while on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/error.h"
#include "ops/blas.h"

namespace tg::blas {
namespace {

// GCC defines __SANITIZE_ADDRESS__, clang answers __has_feature (which GCC's preprocessor cannot parse
// in the same #if)
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

struct Product {
  bool ta, tb;
  int m, n, k, pad;  // pad: extra columns in every stored matrix (leading dimension > its width)
  float beta;
};

// C = op(A) op(B) + beta C with `choice`, on fixed random operands.
std::vector<float> run(const Product& p, const std::string& choice) {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.f, 1.f);
  const int a_rows = p.ta ? p.k : p.m, a_cols = (p.ta ? p.m : p.k) + p.pad;
  const int b_rows = p.tb ? p.n : p.k, b_cols = (p.tb ? p.k : p.n) + p.pad, ldc = p.n + p.pad;
  std::vector<float> a(static_cast<size_t>(a_rows * a_cols)), b(static_cast<size_t>(b_rows * b_cols)),
      c(static_cast<size_t>(p.m * ldc));
  for (float& x : a) x = nd(rng);
  for (float& x : b) x = nd(rng);
  for (float& x : c) x = nd(rng);
  set_gemm_backend(choice);
  gemm(p.ta, p.tb, p.m, p.n, p.k, 1.f, a.data(), a_cols, b.data(), b_cols, p.beta, c.data(), ldc);
  set_gemm_backend("openblas");  // the program's default
  return c;
}

bool need_onednn() {
  std::string why;
  if (onednn_available(&why)) return true;
  // CI installs it (scripts/setup.sh): there its absence is a failure, elsewhere a skip
  if (std::getenv("CI")) ADD_FAILURE() << "oneDNN is not available on CI: " << why;
  return false;
}

TEST(GemmBackend, OneDnnAgreesWithOpenBlas) {
  if (!need_onednn()) GTEST_SKIP() << "libdnnl.so.2 not installed";
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (Product p : {Product{ta, tb, 64, 96, 48, 0, 0.f}, Product{ta, tb, 32, 1024, 256, 3, 1.f},
                        Product{ta, tb, 200, 70, 130, 5, 0.5f}}) {
        ASSERT_GE(static_cast<long>(p.m) * p.n * p.k, kOneDnnMinWork);
        const std::vector<float> ref = run(p, "openblas"), got = run(p, "onednn");
        double worst = 0;
        for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::abs(double(ref[i]) - got[i]));
        // sums of k products of N(0,1) numbers: float32 rounding differs by ~1e-6 sqrt(k) |terms|
        EXPECT_LT(worst, 1e-4 * std::sqrt(p.k)) << "ta " << ta << " tb " << tb << " m " << p.m << " n " << p.n
                                                 << " k " << p.k;
        // the padding columns of C are never written
        for (int r = 0; r < p.m; ++r)
          for (int j = p.n; j < p.n + p.pad; ++j) EXPECT_EQ(got[static_cast<size_t>(r * (p.n + p.pad) + j)],
                                                            ref[static_cast<size_t>(r * (p.n + p.pad) + j)]);
      }
}

TEST(GemmBackend, SmallProductsStayOnOpenBlas) {
  if (!need_onednn()) GTEST_SKIP() << "libdnnl.so.2 not installed";
  const Product small{false, true, 8, 16, 32, 0, 1.f};  // 4,096 multiply-adds
  EXPECT_EQ(run(small, "onednn"), run(small, "openblas"));
}

TEST(GemmBackend, OneDnnRepeatsBitIdenticallyAtAFixedThreadCount) {
  if (!need_onednn()) GTEST_SKIP() << "libdnnl.so.2 not installed";
  const Product p{true, false, 256, 1024, 3200, 0, 0.f};  // a weight gradient's shape: oneDNN may split k
  // under AddressSanitizer one thread: LeakSanitizer's exit-time tracer crashes on libgomp's idle team
  // threads (scripts/sanitize.sh)
  const std::vector<int> counts = kAddressSanitizer ? std::vector<int>{1} : std::vector<int>{1, 2};
  for (int threads : counts) {
    set_threads(threads);  // this thread's oneDNN products, which run() makes
    EXPECT_EQ(run(p, "onednn"), run(p, "onednn")) << threads << " threads";
  }
  set_threads(1);
}

TEST(GemmBackend, BadChoiceIsOneClearError) {
  try {
    set_gemm_backend("mkl");
    FAIL() << "an unknown backend was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "gemm backend 'mkl': want auto, openblas or onednn");
  }
  set_gemm_backend("openblas");
  EXPECT_EQ(gemm_backend(), "openblas");
  EXPECT_EQ(resolve_gemm_backend("openblas"), "openblas");
  EXPECT_EQ(resolve_gemm_backend("auto"), onednn_available() ? "onednn" : "openblas");
}

// The gemm clock (tapegrad bench's same-shape efficiency) counts float32 products only while it is on,
// and the count starts again at reset; it does not change a product.
TEST(GemmClock, CountsProductsOnlyWhileOn) {
  const Product p{false, false, 96, 80, 64, 0, 0.f};
  reset_gemm_clock();
  const std::vector<float> uncounted = run(p, "openblas");
  EXPECT_EQ(gemm_clock_ms(), 0.0) << "the clock counted while off";
  count_gemm_time(true);
  const std::vector<float> counted = run(p, "openblas");
  count_gemm_time(false);
  const double after_one = gemm_clock_ms();
  EXPECT_GT(after_one, 0.0) << "a product while the clock was on was not counted";
  EXPECT_EQ(counted, uncounted);
  run(p, "openblas");
  EXPECT_EQ(gemm_clock_ms(), after_one) << "the clock counted after it was turned off";
  reset_gemm_clock();
  EXPECT_EQ(gemm_clock_ms(), 0.0);
}

}  // namespace
}  // namespace tg::blas
