#include "ops/packed_gemm.h"

#include "ops/blas.h"

#if __has_include(<oneapi/dnnl/dnnl.h>)
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.h>

#include "core/error.h"

namespace tg::blas {
namespace {

// The primitive API's functions, found in the library dnnl_sgemm came from (declared by the header,
// never linked: decltype names their types).
#define TG_DNNL_FUNCTIONS(X) \
  X(dnnl_engine_create) \
  X(dnnl_stream_create) \
  X(dnnl_stream_wait) \
  X(dnnl_memory_desc_init_by_tag) \
  X(dnnl_memory_desc_get_size) \
  X(dnnl_memory_desc_equal) \
  X(dnnl_matmul_desc_init) \
  X(dnnl_primitive_attr_create) \
  X(dnnl_primitive_attr_destroy) \
  X(dnnl_primitive_attr_set_post_ops) \
  X(dnnl_post_ops_create) \
  X(dnnl_post_ops_destroy) \
  X(dnnl_post_ops_append_sum) \
  X(dnnl_primitive_desc_create) \
  X(dnnl_primitive_desc_destroy) \
  X(dnnl_primitive_desc_query_md) \
  X(dnnl_reorder_primitive_desc_create) \
  X(dnnl_primitive_create) \
  X(dnnl_stream_destroy) \
  X(dnnl_primitive_destroy) \
  X(dnnl_primitive_execute) \
  X(dnnl_memory_create) \
  X(dnnl_memory_destroy)

struct Api {
#define TG_DECLARE(f) decltype(&::f) f = nullptr;
  TG_DNNL_FUNCTIONS(TG_DECLARE)
#undef TG_DECLARE
  int (*omp_get_max_threads)() = nullptr;  // a primitive is made for a thread count
  dnnl_engine_t engine = nullptr;
  bool ok = false;
};

const Api& api() {
  static const Api lib = [] {
    Api a;
    void* h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    void* omp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h || !omp) return a;
    bool all = true;
    auto find = [&](auto& f, const char* name) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(h, name));
      all &= f != nullptr;
    };
#define TG_FIND(f) find(a.f, #f);
    TG_DNNL_FUNCTIONS(TG_FIND)
#undef TG_FIND
    a.omp_get_max_threads = reinterpret_cast<int (*)()>(dlsym(omp, "omp_get_max_threads"));
    all &= a.omp_get_max_threads != nullptr;
    a.ok = all && a.dnnl_engine_create(&a.engine, dnnl_cpu, 0) == dnnl_success;
    return a;
  }();
  return lib;
}

void check(dnnl_status_t s, const char* what, int m, int k, int n) {
  if (s != dnnl_success)
    throw Error(fmt::format("oneDNN's {} failed with status {} on a [{}, {}] x [{}, {}] product", what,
                            static_cast<int>(s), m, k, k, n));
}

dnnl_memory_desc_t plain(int64_t rows, int64_t cols) {
  dnnl_memory_desc_t md;
  const dnnl_dims_t dims = {rows, cols};
  api().dnnl_memory_desc_init_by_tag(&md, 2, dims, dnnl_f32, dnnl_ab);
  return md;
}

// The layouts packed so far, process-wide: a header names one by its index (+1; 0 is "not packed").
std::mutex g_layouts_mutex;
std::vector<dnnl_memory_desc_t> g_layouts;

int32_t layout_id(const dnnl_memory_desc_t& md) {
  std::lock_guard<std::mutex> lock(g_layouts_mutex);
  for (size_t i = 0; i < g_layouts.size(); ++i)
    if (api().dnnl_memory_desc_equal(&g_layouts[i], &md)) return static_cast<int32_t>(i + 1);
  g_layouts.push_back(md);
  return static_cast<int32_t>(g_layouts.size());
}

// Owners of the handles made while a product's primitives are built, released on every path.
struct AttrGuard {
  dnnl_primitive_attr_t h = nullptr;
  ~AttrGuard() { if (h) api().dnnl_primitive_attr_destroy(h); }
};
struct PostOpsGuard {
  dnnl_post_ops_t h = nullptr;
  ~PostOpsGuard() { if (h) api().dnnl_post_ops_destroy(h); }
};
struct DescGuard {
  dnnl_primitive_desc_t h = nullptr;
  ~DescGuard() { if (h) api().dnnl_primitive_desc_destroy(h); }
};

// One product shape's primitive (and the reorder that packs its B), made once per thread: primitives
// depend on the thread count they were made for, and each thread of a split batch keeps its own.
struct Product {
  dnnl_primitive_t matmul = nullptr, reorder = nullptr;
  dnnl_memory_desc_t a{}, b_plain{}, b_packed{}, c{};
  int32_t layout = 0;  // b_packed's id (layout_id)
  int64_t floats = 0;  // the packed operand's size, header included (packed_floats)
};

// A thread's stream and products, released when the thread ends (a batch split's workers end with
// their pool).
struct ThreadState {
  dnnl_stream_t stream = nullptr;
  std::map<std::tuple<int, int, int, bool, int>, Product> products;  // (m, k, n, beta = 1, threads)
  ~ThreadState() {
    for (auto& [key, p] : products) {
      api().dnnl_primitive_destroy(p.matmul);
      api().dnnl_primitive_destroy(p.reorder);
    }
    if (stream) api().dnnl_stream_destroy(stream);
  }
};

ThreadState& here() {
  thread_local ThreadState s;
  if (!s.stream) check(api().dnnl_stream_create(&s.stream, api().engine, dnnl_stream_default_flags), "stream", 0, 0, 0);
  return s;
}

// Both primitives are made before the product is kept: a failure leaves nothing half-made behind.
Product make_product(int m, int k, int n, bool accumulate) {
  const Api& d = api();
  Product p;
  p.a = plain(m, k);
  p.b_plain = plain(k, n);
  p.c = plain(m, n);
  dnnl_memory_desc_t b_any;
  const dnnl_dims_t dims = {k, n};
  check(d.dnnl_memory_desc_init_by_tag(&b_any, 2, dims, dnnl_f32, dnnl_format_tag_any), "weights description", m, k, n);
  dnnl_matmul_desc_t desc;
  check(d.dnnl_matmul_desc_init(&desc, &p.a, &b_any, nullptr, &p.c), "matmul description", m, k, n);
  AttrGuard attr;
  check(d.dnnl_primitive_attr_create(&attr.h), "attributes", m, k, n);
  if (accumulate) {  // C += A B: beta = 1 as a "sum" post-op
    PostOpsGuard post;
    check(d.dnnl_post_ops_create(&post.h), "post-ops", m, k, n);
    check(d.dnnl_post_ops_append_sum(post.h, 1.f), "sum post-op", m, k, n);
    check(d.dnnl_primitive_attr_set_post_ops(attr.h, post.h), "post-ops", m, k, n);
  }
  DescGuard pd, rd;
  check(d.dnnl_primitive_desc_create(&pd.h, &desc, attr.h, d.engine, nullptr), "matmul primitive", m, k, n);
  p.b_packed = *d.dnnl_primitive_desc_query_md(pd.h, dnnl_query_weights_md, 0);
  check(d.dnnl_reorder_primitive_desc_create(&rd.h, &p.b_plain, d.engine, &p.b_packed, d.engine, nullptr), "reorder",
        m, k, n);
  check(d.dnnl_primitive_create(&p.matmul, pd.h), "matmul primitive", m, k, n);
  if (const dnnl_status_t s = d.dnnl_primitive_create(&p.reorder, rd.h); s != dnnl_success) {
    d.dnnl_primitive_destroy(p.matmul);
    check(s, "reorder", m, k, n);
  }
  p.floats = kPackedHeader + static_cast<int64_t>((d.dnnl_memory_desc_get_size(&p.b_packed) + 3) / 4);
  p.layout = layout_id(p.b_packed);
  return p;
}

const Product& product(int m, int k, int n, bool accumulate) {
  auto& products = here().products;
  const auto key = std::make_tuple(m, k, n, accumulate, api().omp_get_max_threads());
  if (const auto it = products.find(key); it != products.end()) return it->second;
  return products.emplace(key, make_product(m, k, n, accumulate)).first->second;
}

// A memory object over a buffer of ours, for one call.
class Memory {
 public:
  Memory(const dnnl_memory_desc_t& md, const void* data) {
    check(api().dnnl_memory_create(&m_, &md, api().engine, const_cast<void*>(data)), "memory", 0, 0, 0);
  }
  ~Memory() { api().dnnl_memory_destroy(m_); }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  dnnl_memory_t get() const { return m_; }

 private:
  dnnl_memory_t m_ = nullptr;
};

void run(dnnl_primitive_t prim, std::initializer_list<dnnl_exec_arg_t> args, int m, int k, int n) {
  ThreadState& s = here();
  check(api().dnnl_primitive_execute(prim, s.stream, static_cast<int>(args.size()), args.begin()), "execution", m, k, n);
  check(api().dnnl_stream_wait(s.stream), "stream", m, k, n);
}

// Adds the time since t0 to the gemm clock (blas.h) when it is on: packing is part of a product's cost.
void clock_since(std::chrono::steady_clock::time_point t0) {
  if (gemm_clock_on())
    add_gemm_time(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
}

std::atomic<int64_t> g_packed_products{0};
}  // namespace

bool packing_available() { return onednn_in_use() && api().ok; }

int64_t packed_floats(int m, int k, int n) {
  if (!packing_available()) return kPackedHeader;
  return product(m, k, n, true).floats;
}

void pack_b(int m, int k, int n, const float* b, float* out, int64_t out_floats) {
  if (out_floats < kPackedHeader)
    throw InternalError(fmt::format("a packed operand of {} floats has no room for its header", out_floats));
  write_unpacked_header(out);
  if (!packing_available()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const Product& p = product(m, k, n, true);
  if (p.floats > out_floats) return;  // sized for another layout: not packed
  const Memory src(p.b_plain, b), dst(p.b_packed, out + kPackedHeader);
  run(p.reorder, {{DNNL_ARG_FROM, src.get()}, {DNNL_ARG_TO, dst.get()}}, m, k, n);
  std::memcpy(out, &p.layout, sizeof p.layout);
  clock_since(t0);
}

bool packed_gemm(int m, int n, int k, const float* a, const float* packed, int64_t packed_floats, float beta, float* c) {
  if (packed_floats < kPackedHeader || !packing_available()) return false;
  int32_t layout;
  std::memcpy(&layout, packed, sizeof layout);
  if (layout == 0) return false;
  const auto t0 = std::chrono::steady_clock::now();
  const Product& p = product(m, k, n, beta != 0.f);
  // layout_id gives equal layouts one id; the size check guards a buffer sized for another
  if (layout != p.layout || p.floats > packed_floats) return false;
  const Memory am(p.a, a), bm(p.b_packed, packed + kPackedHeader), cm(p.c, c);
  run(p.matmul, {{DNNL_ARG_SRC, am.get()}, {DNNL_ARG_WEIGHTS, bm.get()}, {DNNL_ARG_DST, cm.get()}}, m, k, n);
  g_packed_products.fetch_add(1, std::memory_order_relaxed);
  clock_since(t0);
  return true;
}

int64_t packed_products_run() { return g_packed_products.load(std::memory_order_relaxed); }

}  // namespace tg::blas

#else  // no oneDNN header at build time: nothing is packed

namespace tg::blas {
bool packing_available() { return false; }
int64_t packed_floats(int, int, int) { return kPackedHeader; }
void pack_b(int, int, int, const float*, float* out, int64_t) { write_unpacked_header(out); }
bool packed_gemm(int, int, int, const float*, const float*, int64_t, float, float*) { return false; }
int64_t packed_products_run() { return 0; }
}  // namespace tg::blas

#endif
