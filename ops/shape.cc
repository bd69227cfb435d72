// Shape and indexing ops: reshape slice pad concat gather_rows scatter_add_rows pick_columns put_columns
// one_hot where stop_gradient fill. Linear ops take their VJP from the named adjoint (slice <-> pad,
// gather_rows <-> scatter_add_rows, pick_columns <-> put_columns, concat -> slices).
#include <cstring>

#include "ops/families.h"
#include "ops/kernels.h"

namespace tg::ops {
using namespace detail;

Index make_index(std::vector<int32_t> rows) { return std::make_shared<const std::vector<int32_t>>(std::move(rows)); }

namespace {
struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};
Around around(const Shape& s, int axis) {
  Around r;
  for (int i = 0; i < axis; ++i) r.outer *= s[i];
  r.n = s[axis];
  for (int i = axis + 1; i < s.rank(); ++i) r.inner *= s[i];
  return r;
}
int norm_axis(const Shape& s, int axis) {
  int a = axis < 0 ? axis + s.rank() : axis;
  if (a < 0 || a >= s.rank()) fail(fmt::format("axis {} out of range", axis));
  return a;
}
// Copies block rows: dst[p, dst_off + i, :] = src[p, src_off + i, :] for i < len, along one axis.
void copy_along(const Tensor& src, int64_t src_n, int64_t src_off, Tensor& dst, int64_t dst_n, int64_t dst_off,
                int64_t len, int64_t outer, int64_t inner) {
  const size_t es = dtype_size(src.dtype());
  const char* s = static_cast<const char*>(src.raw());
  char* d = static_cast<char*>(dst.raw());
  for (int64_t p = 0; p < outer; ++p)
    std::memcpy(d + ((p * dst_n + dst_off) * inner) * es, s + ((p * src_n + src_off) * inner) * es,
                static_cast<size_t>(len * inner) * es);
}
Shape leaf_shape(std::span<const Shape>, const Attrs& a) { return a.shape; }
}  // namespace

// y = x viewed with attrs.shape (shares the buffer; linear)
const Primitive reshape_p{
    "reshape", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      if (s[0].size() != a.shape.size()) fail(fmt::format("cannot reshape to {}", a.shape.str()));
      return a.shape;
    },
    [](const EvalArgs& a) { return a.in[0]->reshaped(a.shape); },
    [](const RuleArgs& r, std::span<const Var> d) { return reshape(d[0], r.attrs.shape, r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = reshape(yb, r.x[0].shape(), r.site);
    }};

// y = x[..., begin:end, ...] along attrs.axis (linear; adjoint pad)
const Primitive slice_p{
    "slice", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      int ax = norm_axis(s[0], a.axis);
      if (a.begin < 0 || a.end < a.begin || a.end > s[0][ax])
        fail(fmt::format("bounds [{}, {}) outside axis {} of extent {}", a.begin, a.end, ax, s[0][ax]));
      Shape out = s[0];
      out[ax] = a.end - a.begin;
      return out;
    },
    [](const EvalArgs& a) {
      Around g = around(a.in[0]->shape(), a.attrs.axis);
      // a block of leading rows is contiguous: share the buffer (values are never written in place)
      if (g.outer == 1) return a.in[0]->view(a.attrs.begin * g.inner, a.shape);
      Tensor y = Tensor::empty(a.shape, a.dtype);
      copy_along(*a.in[0], g.n, a.attrs.begin, y, a.shape[a.attrs.axis], 0, a.attrs.end - a.attrs.begin, g.outer,
                 g.inner);
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) {
      return slice(d[0], r.attrs.axis, r.attrs.begin, r.attrs.end, r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = pad(yb, r.attrs.axis, r.attrs.begin, r.x[0].shape(), r.site);
    }};

// y = zeros(attrs.shape) with x placed at offset attrs.begin along attrs.axis (linear; adjoint slice)
const Primitive pad_p{
    "pad", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      if (a.shape.rank() != s[0].rank()) fail(fmt::format("rank differs from target {}", a.shape.str()));
      int ax = norm_axis(s[0], a.axis);
      for (int i = 0; i < s[0].rank(); ++i)
        if (i != ax && s[0][i] != a.shape[i]) fail(fmt::format("does not fit target {}", a.shape.str()));
      if (a.begin < 0 || a.begin + s[0][ax] > a.shape[ax]) fail(fmt::format("offset {} overflows target {}", a.begin, a.shape.str()));
      return a.shape;
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::zeros(a.shape, a.dtype);
      Around g = around(a.shape, a.attrs.axis);
      const int64_t len = a.in[0]->shape()[a.attrs.axis];
      copy_along(*a.in[0], len, 0, y, g.n, a.attrs.begin, len, g.outer, g.inner);
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) {
      return pad(d[0], r.attrs.axis, r.attrs.begin, r.attrs.shape, r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      int64_t n = r.x[0].shape()[r.attrs.axis];
      xb[0] = slice(yb, r.attrs.axis, r.attrs.begin, r.attrs.begin + n, r.site);
    }};

// y = [x_0, x_1, ...] along attrs.axis (linear; adjoint: slices)
const Primitive concat_p{
    "concat", -1,
    [](std::span<const Shape> s, const Attrs& a) {
      int ax = norm_axis(s[0], a.axis);
      Shape out = s[0];
      out[ax] = 0;
      for (const Shape& x : s) {
        if (x.rank() != s[0].rank()) fail("ranks differ");
        for (int i = 0; i < x.rank(); ++i)
          if (i != ax && x[i] != s[0][i]) fail(fmt::format("extents differ off axis {}", ax));
        out[ax] += x[ax];
      }
      return out;
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      Around g = around(a.shape, a.attrs.axis);
      int64_t off = 0;
      for (const Tensor* x : a.in) {
        int64_t len = x->shape()[a.attrs.axis];
        copy_along(*x, len, 0, y, g.n, off, len, g.outer, g.inner);
        off += len;
      }
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) {
      std::vector<Var> parts(d.size());
      for (size_t i = 0; i < d.size(); ++i) parts[i] = d[i].empty() ? zeros_like(r.x[i], r.site) : d[i];
      return concat(parts, r.attrs.axis, r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      int64_t off = 0;
      for (size_t i = 0; i < r.x.size(); ++i) {
        int64_t len = r.x[i].shape()[r.attrs.axis];
        if (need[i]) xb[i] = slice(yb, r.attrs.axis, off, off + len, r.site);
        off += len;
      }
    }};

namespace {
void check_index(const Attrs& a, int64_t rows) {
  if (!a.index) fail("no index given");
  for (int32_t i : *a.index)
    if (i < 0 || i >= rows) fail(fmt::format("index {} out of range [0, {})", i, rows));
}
// The index has one entry per row (or element, `what`) of the operand, n of them.
void check_index_count(const Attrs& a, int64_t n, const char* what) {
  if (!a.index || static_cast<int64_t>(a.index->size()) != n)
    fail(fmt::format("index has {} entries for {} {}", a.index ? a.index->size() : 0, n, what));
}
}  // namespace

// y[m, :] = x[idx[m], :]  ([N,D] -> [M,D]; linear; adjoint scatter_add_rows)
const Primitive gather_rows_p{
    "gather_rows", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      if (s[0].rank() != 2) fail("needs a rank-2 operand");
      check_index(a, s[0][0]);
      return Shape{static_cast<int64_t>(a.index->size()), s[0][1]};
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      const int64_t d = a.shape[1];
      const size_t es = dtype_size(a.dtype);
      const char* x = static_cast<const char*>(a.in[0]->raw());
      char* o = static_cast<char*>(y.raw());
      const auto& idx = *a.attrs.index;
      for (size_t m = 0; m < idx.size(); ++m) std::memcpy(o + m * d * es, x + idx[m] * d * es, d * es);
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return gather_rows(d[0], r.attrs.index, r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = scatter_add_rows(yb, r.attrs.index, r.x[0].shape()[0], r.site);
    }};

// y = zeros([rows,D]); y[idx[m], :] += x[m, :]  ([M,D] -> [rows,D]; linear; adjoint gather_rows)
const Primitive scatter_add_rows_p{
    "scatter_add_rows", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      if (s[0].rank() != 2) fail("needs a rank-2 operand");
      check_index_count(a, s[0][0], "rows");
      check_index(a, a.shape[0]);
      return Shape{a.shape[0], s[0][1]};
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::zeros(a.shape, a.dtype);
      const int64_t d = a.shape[1];
      const auto& idx = *a.attrs.index;
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        for (size_t m = 0; m < idx.size(); ++m)
          for (int64_t j = 0; j < d; ++j) o[idx[m] * d + j] += x[m * d + j];
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) {
      return scatter_add_rows(d[0], r.attrs.index, r.attrs.shape[0], r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = gather_rows(yb, r.attrs.index, r.site);
    }};

// y[m] = x[m, idx[m]]  ([M,D] -> [M]; linear; adjoint put_columns). A softmax loss's picked logits: one read
// per row where sum(x * one_hot) made and read two [M,D] tensors each way (docs/results/engine_bench.md).
const Primitive pick_columns_p{
    "pick_columns", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      if (s[0].rank() != 2) fail("needs a rank-2 operand");
      check_index_count(a, s[0][0], "rows");
      check_index(a, s[0][1]);
      return Shape{s[0][0]};
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      const int64_t d = a.in[0]->shape()[1];
      const auto& idx = *a.attrs.index;
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        for (size_t m = 0; m < idx.size(); ++m) o[m] = x[static_cast<int64_t>(m) * d + idx[m]];
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return pick_columns(d[0], r.attrs.index, r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = put_columns(yb, r.attrs.index, r.x[0].shape()[1], r.site);
    }};

// y = zeros([M,depth]); y[m, idx[m]] = x[m]  ([M] -> [M,depth]; linear; adjoint pick_columns)
const Primitive put_columns_p{
    "put_columns", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      if (s[0].rank() != 1) fail("needs a rank-1 operand");
      check_index_count(a, s[0][0], "elements");
      check_index(a, a.shape[1]);
      return Shape{s[0][0], a.shape[1]};
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::zeros(a.shape, a.dtype);
      const int64_t d = a.shape[1];
      const auto& idx = *a.attrs.index;
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        for (size_t m = 0; m < idx.size(); ++m) o[static_cast<int64_t>(m) * d + idx[m]] = x[m];
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return put_columns(d[0], r.attrs.index, r.attrs.shape[1], r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = pick_columns(yb, r.attrs.index, r.site);
    }};

// y = cond ? a : b (cond is a 0/1 mask; no derivative flows into it)
//   dy = where(cond, da, db);  a_bar = where(cond, y_bar, 0), b_bar = where(cond, 0, y_bar)
const Primitive where_p{
    "where", 3,
    [](std::span<const Shape> s, const Attrs&) {
      if (s[0] != s[1] || s[1] != s[2]) fail("cond, a and b must have one shape");
      return s[0];
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      TG_DISPATCH(a.dtype, T, {
        const T* c = a.in[0]->data<T>();
        const T* x = a.in[1]->data<T>();
        const T* z = a.in[2]->data<T>();
        T* o = y.data<T>();
        for (int64_t i = 0, n = y.size(); i < n; ++i) o[i] = c[i] != 0 ? x[i] : z[i];
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) {
      if (d[1].empty() && d[2].empty()) return Var();
      Var da = d[1].empty() ? zeros_like(r.y, r.site) : d[1];
      Var db = d[2].empty() ? zeros_like(r.y, r.site) : d[2];
      return where(r.x[0], da, db, r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      Var z = zeros_like(r.y, r.site);
      if (need[1]) xb[1] = where(r.x[0], yb, z, r.site);
      if (need[2]) xb[2] = where(r.x[0], z, yb, r.site);
    }};

// y = x with zero derivative (shares the buffer)
const Primitive stop_gradient_p{"stop_gradient", 1, same_shape, [](const EvalArgs& a) { return *a.in[0]; },
                                nullptr, nullptr, false};

// y = attrs.scalar everywhere in attrs.shape (a constant leaf with a kernel)
const Primitive fill_p{"fill", 0, leaf_shape,
                       [](const EvalArgs& a) { return Tensor::full(a.shape, a.attrs.scalar, a.dtype); }, nullptr,
                       nullptr, false};

// y[m, :] = e_{idx[m]}  ([M] -> [M,depth]; constant)
const Primitive one_hot_p{"one_hot", 0,
                          [](std::span<const Shape>, const Attrs& a) {
                            if (!a.index) fail("no index given");
                            check_index(a, a.shape[1]);
                            return a.shape;
                          },
                          [](const EvalArgs& a) {
                            Tensor y = Tensor::zeros(a.shape, a.dtype);
                            const int64_t d = a.shape[1];
                            TG_DISPATCH(a.dtype, T, {
                              T* o = y.data<T>();
                              const auto& idx = *a.attrs.index;
                              for (size_t m = 0; m < idx.size(); ++m) o[m * d + idx[m]] = 1;
                            });
                            return y;
                          },
                          nullptr, nullptr, false};

Var constant(Graph& g, Tensor value, Site site) { return g.input(std::move(value), site); }
Var fill(Graph& g, const Shape& s, double v, DType dt, Site site) {
  Attrs a;
  a.shape = s;
  a.scalar = v;
  return g.add(fill_p, {}, a, site, dt);
}
Var zeros_like(Var x, Site site) { return fill(*x.graph(), x.shape(), 0.0, x.dtype(), site); }
Var ones_like(Var x, Site site) { return fill(*x.graph(), x.shape(), 1.0, x.dtype(), site); }
Var one_hot(Graph& g, Index idx, int64_t depth, DType dt, Site site) {
  Attrs a;
  a.shape = Shape{static_cast<int64_t>(idx ? idx->size() : 0), depth};
  a.index = std::move(idx);
  return g.add(one_hot_p, {}, a, site, dt);
}

Var reshape(Var x, const Shape& s, Site site) {
  if (x.empty()) return {};
  if (x.shape() == s) return x;
  Attrs a;
  a.shape = s;
  return make(reshape_p, {x}, a, site);
}
Var slice(Var x, int axis, int64_t begin, int64_t end, Site site) {
  if (x.empty()) return {};
  Attrs a;
  a.axis = x.shape().rank() > 0 && axis < 0 ? axis + x.shape().rank() : axis;
  a.begin = begin;
  a.end = end;
  return make(slice_p, {x}, a, site);
}
Var pad(Var x, int axis, int64_t begin, const Shape& out, Site site) {
  if (x.empty()) return {};
  Attrs a;
  a.axis = x.shape().rank() > 0 && axis < 0 ? axis + x.shape().rank() : axis;
  a.begin = begin;
  a.shape = out;
  return make(pad_p, {x}, a, site);
}
Var rejoined_slices(std::span<const Var> xs, int axis, Site site) {
  Graph* g = graph_of(xs);
  if (!g) return {};
  int32_t source = -1;
  int64_t begin = 0, end = 0;
  for (const Var& v : xs) {
    if (v.empty()) return {};
    const Node& n = g->node(v.id());
    if (n.prim != &slice_p || n.attrs.axis != axis) return {};
    if (source < 0) {
      source = n.in[0];
      begin = n.attrs.begin;
    } else if (n.in[0] != source || n.attrs.begin != end) {
      return {};
    }
    end = n.attrs.end;
  }
  const Var whole(g, source);
  if (begin == 0 && end == whole.shape()[axis]) return whole;
  return slice(whole, axis, begin, end, site);
}

Var concat(std::span<const Var> xs, int axis, Site site) {
  if (xs.empty()) throw ShapeError(fmt::format("concat: no inputs at {}", site.str()));
  Graph* g = graph_of(xs);
  if (!g) return {};
  for (const Var& v : xs)
    if (v.empty()) throw ShapeError(fmt::format("concat: an input is an empty Var at {}", site.str()));
  Attrs a;
  int r = xs[0].shape().rank();
  a.axis = r > 0 && axis < 0 ? axis + r : axis;
  return g->add(concat_p, xs, a, site);
}
std::vector<Var> split(Var x, int axis, std::span<const int64_t> sizes, Site site) {
  int ax = x.shape().norm_axis(axis);
  int64_t total = 0;
  for (int64_t n : sizes) total += n;
  if (total != x.shape()[ax])
    throw ShapeError(fmt::format("split: sizes add up to {} but axis {} of {} has {} at {}", total, ax,
                                 x.shape().str(), x.shape()[ax], site.str()));
  std::vector<Var> out;
  int64_t off = 0;
  for (int64_t n : sizes) {
    out.push_back(slice(x, ax, off, off + n, site));
    off += n;
  }
  return out;
}
std::vector<Var> split(Var x, int axis, int parts, Site site) {
  int ax = x.shape().norm_axis(axis);
  if (parts <= 0 || x.shape()[ax] % parts != 0)
    throw ShapeError(fmt::format("split: axis {} of {} does not split into {} equal parts at {}", ax,
                                 x.shape().str(), parts, site.str()));
  std::vector<int64_t> sizes(parts, x.shape()[ax] / parts);
  return split(x, ax, sizes, site);
}
Var gather_rows(Var x, Index idx, Site site) {
  if (x.empty()) return {};
  Attrs a;
  a.index = std::move(idx);
  return make(gather_rows_p, {x}, a, site);
}
Var scatter_add_rows(Var x, Index idx, int64_t rows, Site site) {
  if (x.empty()) return {};
  Attrs a;
  a.index = std::move(idx);
  a.shape = Shape{rows, 0};
  return make(scatter_add_rows_p, {x}, a, site);
}
Var pick_columns(Var x, Index idx, Site site) {
  if (x.empty()) return {};
  Attrs a;
  a.index = std::move(idx);
  return make(pick_columns_p, {x}, a, site);
}
Var put_columns(Var x, Index idx, int64_t depth, Site site) {
  if (x.empty()) return {};
  if (depth < 0) throw ShapeError(fmt::format("put_columns: depth {} is negative at {}", depth, site.str()));
  Attrs a;
  a.index = std::move(idx);
  a.shape = Shape{0, depth};
  return make(put_columns_p, {x}, a, site);
}
Var where(Var cond, Var a, Var b, Site site) { return make(where_p, {cond, a, b}, {}, site); }
Var stop_gradient(Var x, Site site) {
  if (x.empty()) return {};
  return make(stop_gradient_p, {x}, {}, site);
}

void register_shape(std::vector<const Primitive*>& r) {
  for (const Primitive* p : {&reshape_p, &slice_p, &pad_p, &concat_p, &gather_rows_p, &scatter_add_rows_p,
                             &pick_columns_p, &put_columns_p, &where_p, &stop_gradient_p, &fill_p, &one_hot_p})
    r.push_back(p);
}

}  // namespace tg::ops
