#include "core/checkpoint.h"

#include <fmt/format.h>

#include <cstring>

#include "core/error.h"

namespace tg {

void save_parameters(const std::string& path, const ParamSet& ps, std::vector<NpzEntry> extra) {
  std::vector<NpzEntry> entries;
  entries.reserve(static_cast<size_t>(ps.count()) + extra.size());
  for (int32_t i = 0; i < ps.count(); ++i) entries.emplace_back("param/" + ps.name(ParamId{i}), ps.values().part(i));
  for (NpzEntry& e : extra) entries.push_back(std::move(e));
  write_npz(path, entries);
}

void load_parameters(const NpzArchive& archive, ParamSet& ps) {
  ParamVec values = ps.values().clone();
  for (int32_t i = 0; i < ps.count(); ++i) {
    const std::string key = "param/" + ps.name(ParamId{i});
    if (!archive.contains(key))
      throw Error(fmt::format("{}: no array '{}' for parameter '{}' {}", archive.path(), key, ps.name(ParamId{i}),
                              ps.shape(ParamId{i}).str()));
    Tensor t = archive.tensor(key);
    if (t.shape() != ps.shape(ParamId{i}))
      throw Error(fmt::format("{}: parameter '{}' is {} there, {} here", archive.path(), ps.name(ParamId{i}),
                              t.shape().str(), ps.shape(ParamId{i}).str()));
    const Tensor src = t.astype(ps.dtype());
    Tensor dst = values.part(i);  // a view of `values`
    std::memcpy(dst.raw(), src.raw(), static_cast<size_t>(src.size()) * dtype_size(ps.dtype()));
  }
  ps.set_values(values);
}

void load_parameters(const std::string& path, ParamSet& ps) { load_parameters(NpzArchive(path), ps); }

}  // namespace tg
