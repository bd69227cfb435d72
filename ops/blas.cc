#include "ops/blas.h"

#include <cblas.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error.h"

extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}

namespace tg::blas {

namespace {
// oneDNN is loaded with dlopen rather than linked: a tapegrad built without it uses it wherever it is
// installed, and OpenBLAS remains when it is not.
using DnnlSgemm = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                          int64_t, float, float*, int64_t);
using OmpSetThreads = void (*)(int);

struct OneDnn {
  DnnlSgemm sgemm = nullptr;
  OmpSetThreads set_threads = nullptr;  // its OpenMP runtime's thread count
  std::string why_not;
};

const OneDnn& onednn() {
  static const OneDnn lib = [] {
    OneDnn d;
    void* h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      d.why_not = std::string("libdnnl.so.2 does not load (") + dlerror() + "); Debian package libdnnl2";
      return d;
    }
    d.sgemm = reinterpret_cast<DnnlSgemm>(dlsym(h, "dnnl_sgemm"));
    // Debian's oneDNN runs on OpenMP (libgomp, which it loaded): its threads are OpenMP's
    if (void* omp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD))
      d.set_threads = reinterpret_cast<OmpSetThreads>(dlsym(omp, "omp_set_num_threads"));
    if (!d.sgemm) d.why_not = "libdnnl.so.2 has no dnnl_sgemm";
    return d;
  }();
  return lib;
}

enum class Choice { openblas, onednn_large };

bool onednn_usable(std::string* why_not) {
  const OneDnn& d = onednn();
  if (!d.sgemm) {
    if (why_not) *why_not = d.why_not;
    return false;
  }
  if (!d.set_threads) {  // another OpenMP runtime: its products would run on every core, unasked
    if (why_not) *why_not = "its threads cannot be set (it does not run on libgomp)";
    return false;
  }
  return true;
}

std::string chosen(const std::string& choice) {
  if (!choice.empty()) return choice;
  const char* env = std::getenv("TAPEGRAD_GEMM");
  return env && *env ? env : "auto";
}

Choice choice_of(const std::string& choice) {
  const std::string name = chosen(choice);
  const std::string source = choice.empty() ? " (environment variable TAPEGRAD_GEMM)" : "";
  if (name == "openblas") return Choice::openblas;
  if (name == "auto") return onednn_usable(nullptr) ? Choice::onednn_large : Choice::openblas;
  if (name == "onednn") {
    std::string why;
    if (!onednn_usable(&why)) throw Error("gemm backend 'onednn'" + source + ": " + why);
    return Choice::onednn_large;
  }
  throw Error("gemm backend '" + name + "'" + source + ": want auto, openblas or onednn");
}

// OpenBLAS until a backend is set: a program that never sets one gets the products it always had.
Choice g_choice = Choice::openblas;

std::atomic<bool> g_clock_on{false};
std::atomic<int64_t> g_clock_ns{0};

void sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
           float beta, float* c, int ldc) {
  if (g_choice == Choice::onednn_large &&
      static_cast<int64_t>(m) * static_cast<int64_t>(n) * static_cast<int64_t>(k) >= kOneDnnMinWork) {
    const int status = onednn().sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (status != 0)  // e.g. out of memory for its packed copies: the library's failure, not a bug here
      throw Error(fmt::format("dnnl_sgemm failed with status {} on a [{}, {}] x [{}, {}] product", status, m, k, k, n));
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
              lda, b, ldb, beta, c, ldc);
}
}  // namespace

void count_gemm_time(bool on) { g_clock_on.store(on, std::memory_order_relaxed); }
void reset_gemm_clock() { g_clock_ns.store(0, std::memory_order_relaxed); }
double gemm_clock_ms() { return static_cast<double>(g_clock_ns.load(std::memory_order_relaxed)) * 1e-6; }

bool gemm_clock_on() { return g_clock_on.load(std::memory_order_relaxed); }
void add_gemm_time(int64_t ns) { g_clock_ns.fetch_add(ns, std::memory_order_relaxed); }

bool onednn_available(std::string* why_not) { return onednn_usable(why_not); }
bool onednn_in_use() { return g_choice == Choice::onednn_large; }

void set_gemm_backend(const std::string& choice) {
  g_choice = choice_of(choice);
  if (g_choice == Choice::onednn_large) onednn().set_threads(openblas_get_num_threads());  // as set_threads
}

std::string resolve_gemm_backend(const std::string& choice) {
  return choice_of(choice) == Choice::onednn_large ? "onednn" : "openblas";
}

std::string gemm_backend() {
  return g_choice == Choice::onednn_large
             ? "onednn (>= " + std::to_string(kOneDnnMinWork) + " multiply-adds; smaller: openblas)"
             : "openblas";
}

void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc) {
  if (!g_clock_on.load(std::memory_order_relaxed)) return sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  const auto t0 = std::chrono::steady_clock::now();
  sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  g_clock_ns.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(),
                       std::memory_order_relaxed);
}

void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
              lda, b, ldb, beta, c, ldc);
}

void set_threads(int n) {
  openblas_set_num_threads(n);
  if (g_choice == Choice::onednn_large) onednn().set_threads(n);
}
int threads() { return openblas_get_num_threads(); }

void use_one_thread_here() {
  // whatever the backend now: it may change while this thread lives
  if (onednn_usable(nullptr)) onednn().set_threads(1);
}

}  // namespace tg::blas
