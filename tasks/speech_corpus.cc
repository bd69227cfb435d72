#include "tasks/speech_corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include <fmt/ranges.h>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json.h"
#include "core/npz.h"

namespace tg::tasks {

SpeechPart read_speech_part(const std::string& path, const std::string& features, int64_t phones) {
  const NpzArchive a(path);
  const NpzEntry& f = a.at(features);
  if (f.shape.size() != 2 || f.shape[1] < 1)
    throw Error(fmt::format("{}: array '{}' has shape [{}], want [frames, dim]", path, features, fmt::join(f.shape, ", ")));
  SpeechPart p;
  p.dim = f.shape[1];
  const std::vector<double> values = f.doubles();
  p.frames.assign(values.begin(), values.end());
  p.offsets = a.int64s("frame_offsets");
  const std::vector<int64_t> labels = a.int64s("labels"), label_offsets = a.int64s("label_offsets");
  const int64_t frames = f.shape[0];
  auto monotone = [&](const std::vector<int64_t>& o, int64_t total, const char* name) {
    if (o.size() < 2 || o.front() != 0 || o.back() != total)
      throw Error(fmt::format("{}: '{}' must run from 0 to {} (got {} entries)", path, name, total, o.size()));
    for (size_t i = 1; i < o.size(); ++i)
      if (o[i] < o[i - 1]) throw Error(fmt::format("{}: '{}' decreases at entry {}", path, name, i));
  };
  monotone(p.offsets, frames, "frame_offsets");
  monotone(label_offsets, static_cast<int64_t>(labels.size()), "label_offsets");
  if (label_offsets.size() != p.offsets.size())
    throw Error(fmt::format("{}: {} utterances of frames, {} of labels", path, p.offsets.size() - 1,
                            label_offsets.size() - 1));
  for (size_t u = 0; u + 1 < label_offsets.size(); ++u) {
    std::vector<int32_t> l;
    for (int64_t i = label_offsets[u]; i < label_offsets[u + 1]; ++i) {
      if (labels[static_cast<size_t>(i)] < 0 || labels[static_cast<size_t>(i)] >= phones)
        throw Error(fmt::format("{}: utterance {} has phone {} (want [0, {}))", path, u, labels[static_cast<size_t>(i)], phones));
      l.push_back(static_cast<int32_t>(labels[static_cast<size_t>(i)]));
    }
    p.labels.push_back(std::move(l));
  }
  p.speakers = a.int64s("speaker");
  if (static_cast<int64_t>(p.speakers.size()) != p.utterances())
    throw Error(fmt::format("{}: 'speaker' has {} entries for {} utterances", path, p.speakers.size(), p.utterances()));
  return p;
}

std::vector<int64_t> utterances_of_voice(const SpeechPart& part, const std::string& dir, const std::string& split,
                                         const std::string& voice) {
  const std::string path = dir + "/corpus.json";
  nlohmann::json corpus;
  try {
    corpus = parse_json(InputFile(path, "corpus description", kMaxJsonFileBytes).read_all(), path);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  if (!corpus.contains("splits") || !corpus["splits"].contains(split) || !corpus["splits"][split].contains("speakers"))
    throw Error(fmt::format("{}: no speakers listed for split '{}'", path, split));
  std::vector<std::string> names;
  for (const auto& n : corpus["splits"][split]["speakers"])
    names.push_back(n.is_string() ? n.get<std::string>() : std::string());
  auto voice_of = [](const std::string& name) {  // "<accent>+<voice>/s<rate>/p<pitch>"
    const size_t plus = name.find('+'), slash = name.find('/');
    return plus == std::string::npos || slash == std::string::npos ? std::string() : name.substr(plus + 1, slash - plus - 1);
  };
  std::vector<int64_t> kept;
  std::set<std::string> voices;
  for (int64_t u = 0; u < part.utterances(); ++u) {
    const int64_t s = part.speakers[static_cast<size_t>(u)];
    if (s < 0 || s >= static_cast<int64_t>(names.size()))
      throw Error(fmt::format("{}/{}.npz: utterance {} has speaker {}, {} lists {}", dir, split, u, s, path, names.size()));
    voices.insert(voice_of(names[static_cast<size_t>(s)]));
    if (voice_of(names[static_cast<size_t>(s)]) == voice) kept.push_back(u);
  }
  if (kept.empty())
    throw Error(fmt::format("task: voice '{}' speaks none of the {} utterances of {}/{}.npz (its voices: {})", voice,
                            part.utterances(), dir, split, fmt::join(voices, ", ")));
  return kept;
}

SpeechStandardizer::SpeechStandardizer(const SpeechPart& p) : mean(static_cast<size_t>(p.dim)), scale(static_cast<size_t>(p.dim)) {
  const int64_t n = static_cast<int64_t>(p.frames.size()) / p.dim;
  std::vector<double> sq(static_cast<size_t>(p.dim));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t d = 0; d < p.dim; ++d) {
      const double x = p.frames[static_cast<size_t>(i * p.dim + d)];
      mean[static_cast<size_t>(d)] += x, sq[static_cast<size_t>(d)] += x * x;
    }
  for (size_t d = 0; d < mean.size(); ++d) {
    mean[d] /= static_cast<double>(n);
    scale[d] = 1.0 / std::sqrt(std::max(sq[d] / static_cast<double>(n) - mean[d] * mean[d], 1e-12));
  }
}

std::shared_ptr<const SpeechPart> cached_speech_part(const std::string& path, const std::string& features, int64_t phones) {
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<const SpeechPart>> cache;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto time = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  const std::lock_guard lock(m);
  auto& slot = cache[fmt::format("{}\n{}\n{}\n{}", path, features, ec ? 0 : size, ec ? 0 : time)];
  if (!slot) slot = std::make_shared<const SpeechPart>(read_speech_part(path, features, phones));
  return slot;
}

}  // namespace tg::tasks
