#include "tasks/batch.h"

#include <fmt/format.h>

namespace tg::tasks {

namespace {
struct KindName {
  OutputKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {OutputKind::softmax, "softmax"}, {OutputKind::logistic, "logistic"}, {OutputKind::linear, "linear"}};
}  // namespace

const char* output_kind_name(OutputKind kind) {
  for (const auto& k : kKindNames)
    if (k.kind == kind) return k.name;
  return "?";
}

std::optional<OutputKind> output_kind_named(std::string_view name) {
  for (const auto& k : kKindNames)
    if (name == k.name) return k.kind;
  return std::nullopt;
}

std::vector<int64_t> sequence_lengths(const std::vector<Tensor>& mask, int64_t T, int64_t B) {
  if (mask.empty()) return std::vector<int64_t>(static_cast<size_t>(B), T);
  std::vector<int64_t> length(static_cast<size_t>(B), 0);
  for (const Tensor& m : mask)
    for (int64_t b = 0; b < B; ++b) length[static_cast<size_t>(b)] += m.at(b) != 0;
  return length;
}

Tensor rows_of(const Tensor& t, int64_t first, int64_t count) {
  Shape s = t.shape();
  const int64_t row = s.size() / s[0];
  s[0] = count;
  return t.view(first * row, s).clone();
}

ops::Index rows_of(const ops::Index& i, int64_t first, int64_t count) {
  return ops::make_index(std::vector<int32_t>(i->begin() + first, i->begin() + first + count));
}

Batch slice(const Batch& b, int64_t first, int64_t count) {
  if (first < 0 || count < 0 || first + count > b.size())
    throw Error(fmt::format("batch: sequences [{}, {}) outside a batch of {}", first, first + count, b.size()));
  if (first == 0 && count == b.size()) return b;
  auto rows = [&](const Tensor& t) { return rows_of(t, first, count); };
  auto idx = [&](const ops::Index& i) { return rows_of(i, first, count); };
  Batch h;
  h.inputs.T = b.inputs.T;
  h.inputs.B = count;
  for (const auto& s : b.inputs.symbols) h.inputs.symbols.push_back(idx(s));
  for (const auto& d : b.inputs.dense) h.inputs.dense.push_back(rows(d));
  for (const auto& m : b.inputs.mask) h.inputs.mask.push_back(rows(m));
  for (const auto& k : b.inputs.input_keep) h.inputs.input_keep.push_back(rows(k));
  for (const auto& k : b.inputs.readout_keep) h.inputs.readout_keep.push_back(rows(k));
  h.weight_noise = b.weight_noise;
  // a slice's chains must not repeat another slice's draws (ranks of a distributed batch)
  if (b.sample_seed != 0) {
    uint64_t z = b.sample_seed + 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(first + 1);  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    h.sample_seed = (z ^ (z >> 31)) | 1;  // never 0, the mark of an evaluation batch
  }
  for (const auto& s : b.targets.symbols) h.targets.symbols.push_back(idx(s));
  for (const auto& d : b.targets.dense) h.targets.dense.push_back(rows(d));
  for (const auto& m : b.targets.mask) h.targets.mask.push_back(rows(m));
  if (!b.targets.labels.empty())
    h.targets.labels.assign(b.targets.labels.begin() + first, b.targets.labels.begin() + first + count);
  if (!b.true_bits.empty()) h.true_bits.assign(b.true_bits.begin() + first, b.true_bits.begin() + first + count);
  return h;
}

std::unique_ptr<Data> Batch::slice(int64_t first, int64_t count) const {
  return std::make_unique<Batch>(tasks::slice(*this, first, count));
}

namespace {
bool same_tensors(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].shares_buffer(b[i]) || a[i].shape() != b[i].shape()) return false;
  return true;
}
}  // namespace

bool Batch::same_as(const Data& other) const {
  const auto* o = dynamic_cast<const Batch*>(&other);
  if (!o) return false;
  const Batch& a = *this;
  const Batch& b = *o;
  return a.inputs.T == b.inputs.T && a.inputs.B == b.inputs.B && a.inputs.symbols == b.inputs.symbols &&
         same_tensors(a.inputs.dense, b.inputs.dense) && same_tensors(a.inputs.mask, b.inputs.mask) &&
         a.targets.symbols == b.targets.symbols && same_tensors(a.targets.dense, b.targets.dense) &&
         same_tensors(a.targets.mask, b.targets.mask) && a.targets.labels == b.targets.labels &&
         a.true_bits == b.true_bits &&
         a.sample_seed == b.sample_seed;
}

std::string Batch::describe() const { return fmt::format("a batch of {} sequences of {} steps", inputs.B, inputs.T); }

}  // namespace tg::tasks
