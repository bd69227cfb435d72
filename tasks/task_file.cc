#include "tasks/task_file.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <iterator>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json.h"
#include "core/atomic_file.h"
#include "tasks/generated.h"
#include "tasks/random.h"
#include "tasks/text.h"

namespace tg::tasks {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "tapegrad-task-file";
constexpr int kVersion = 1;
constexpr int64_t kChunk = 64;  // sequences generated per write: bounded memory for long sequences

// Written with nlohmann::ordered_json so that keys keep the documented order (format first).
using ordered = nlohmann::ordered_json;

ordered header_json(const TaskFileHeader& h, int64_t count) {
  const Signature& s = h.signature;
  ordered j = {{"format", kFormat},
            {"version", kVersion},
            {"task", h.task},
            {"options", h.options.is_null() ? ordered::object() : ordered(h.options)}};
  if (h.seed) j["seed"] = *h.seed;
  j["count"] = count;
  j["input"] = {{"kind", s.symbolic_input ? "symbols" : "dense"}, {"size", s.input_dim}};
  j["output"] = {{"kind", output_kind_name(s.output)}, {"size", s.output_dim}};
  if (!s.alphabet.empty()) j["alphabet"] = s.alphabet;
  return j;
}

// One sequence as a JSON line, written directly (a JSON tree of a 2-million-step sequence would
// take gigabytes). Batches hold float32, so a number is written as the shortest decimal that reads
// back as the same float32 ("0.35089812", not the 17 digits of the double).
void append_example_line(std::string& out, const Example& e, const Signature& s) {
  auto numbers = [&](const std::vector<double>& v, int64_t t, int64_t n) {
    out += '[';
    for (int64_t k = 0; k < n; ++k) fmt::format_to(std::back_inserter(out), "{}{}", k ? "," : "", static_cast<float>(v[t * n + k]));
    out += ']';
  };
  auto mask = [&](const std::vector<uint8_t>& m) {
    out += '[';
    for (size_t t = 0; t < m.size(); ++t) {
      if (t) out += ',';
      out += m[t] ? '1' : '0';
    }
    out += ']';
  };
  out += "{\"inputs\":[";
  for (int64_t t = 0; t < e.length; ++t) {
    if (t) out += ',';
    if (s.symbolic_input) fmt::format_to(std::back_inserter(out), "{}", e.input_symbols[t]);
    else numbers(e.input_dense, t, s.input_dim);
  }
  out += "],\"targets\":[";
  for (int64_t t = 0; t < e.length; ++t) {
    if (t) out += ',';
    if (!e.loss_mask[t]) out += "null";
    else if (s.output == OutputKind::softmax) fmt::format_to(std::back_inserter(out), "{}", e.target_symbols[t]);
    else numbers(e.target_dense, t, s.output_dim);
  }
  out += "],\"input_mask\":";
  mask(e.input_mask);
  out += ",\"loss_mask\":";
  mask(e.loss_mask);
  if (e.true_bits) fmt::format_to(std::back_inserter(out), ",\"true_bits\":{}", *e.true_bits);
  out += "}\n";
}

// ---- reading --------------------------------------------------------------------------------------

struct Where {
  const std::string& path;
  int64_t line;
  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}:{}: {}", path, line, what)); }
};

void only_keys(const json& j, std::initializer_list<const char*> keys, const Where& w, const std::string& what) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : keys) ok = ok || it.key() == k;
    if (!ok) {
      std::string list;
      for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      w.fail(fmt::format("unknown key \"{}\" in {} (allowed: {})", it.key(), what, list));
    }
  }
}

int64_t positive_int(const json& j, const char* key, const Where& w, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() < 1)
    w.fail(fmt::format("{}\"{}\" must be an integer >= 1", where, key));
  return j[key].get<int64_t>();
}

// A side's "kind" when it is a string, else "" (rejected below): json::value() would throw a
// type_error, not the reader's "FILE:LINE:" error, for {"kind": 100}.
std::string kind_of(const json& side) {
  return side.contains("kind") && side["kind"].is_string() ? side["kind"].get<std::string>() : "";
}

TaskFileHeader parse_header(const json& j, const Where& w) {
  if (!j.is_object()) w.fail("the first line must be the header object (see docs/tasks.md)");
  only_keys(j, {"format", "version", "task", "options", "seed", "count", "input", "output", "alphabet"}, w, "the header");
  if (!j.contains("format") || j["format"] != kFormat) w.fail(fmt::format("header \"format\" must be \"{}\"", kFormat));
  if (!j.contains("version") || j["version"] != kVersion)
    w.fail(fmt::format("header \"version\" must be {} (got {})", kVersion, j.value("version", json()).dump()));
  TaskFileHeader h;
  if (!j.contains("task") || !j["task"].is_string() || j["task"].get<std::string>().empty())
    w.fail("header \"task\" must be a non-empty string");
  h.task = j["task"];
  if (j.contains("options")) {
    if (!j["options"].is_object()) w.fail("header \"options\" must be an object");
    h.options = j["options"];
  }
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) w.fail("header \"seed\" must be an integer >= 0");
    h.seed = j["seed"].get<uint64_t>();
  }
  for (const char* side : {"input", "output"}) {
    if (!j.contains(side) || !j[side].is_object()) w.fail(fmt::format("header \"{}\" must be an object {{\"kind\", \"size\"}}", side));
    only_keys(j[side], {"kind", "size"}, w, fmt::format("header \"{}\"", side));
  }
  const json& in = j["input"];
  if (kind_of(in) == "symbols") h.signature.symbolic_input = true;
  else if (kind_of(in) == "dense") h.signature.symbolic_input = false;
  else w.fail("header \"input\".\"kind\" must be \"symbols\" or \"dense\"");
  h.signature.input_dim = positive_int(in, "size", w, "header \"input\".");
  const json& out = j["output"];
  const std::string kind = kind_of(out);
  if (auto k = output_kind_named(kind)) h.signature.output = *k;
  else w.fail("header \"output\".\"kind\" must be \"softmax\", \"logistic\" or \"linear\"");
  h.signature.output_dim = positive_int(out, "size", w, "header \"output\".");
  if (h.signature.output == OutputKind::softmax && h.signature.output_dim < 2)
    w.fail("header \"output\": a softmax needs \"size\" >= 2");
  if (j.contains("alphabet")) {
    const json& a = j["alphabet"];
    if (!a.is_array() || static_cast<int64_t>(a.size()) != h.signature.input_dim)
      w.fail(fmt::format("header \"alphabet\" must be a list of {} strings (one per input symbol)", h.signature.input_dim));
    for (const json& s : a) {
      if (!s.is_string()) w.fail("header \"alphabet\" must hold strings");
      h.signature.alphabet.push_back(s);
    }
  }
  if (j.contains("count") && !j["count"].is_number_unsigned()) w.fail("header \"count\" must be an integer >= 0");
  return h;
}

// A value for a message: short ones whole, a list by its length.
std::string brief(const json& v) {
  if (v.is_array()) return fmt::format("a list of {}", v.size());
  std::string d = v.dump();
  return d.size() > 40 ? d.substr(0, 40) + "..." : d;
}

bool finite_number(const json& v) { return v.is_number() && std::isfinite(v.get<double>()); }
// Batches hold float32: a value beyond its range (1e39) would become inf there, and the loss with it.
bool float32_number(const json& v) {
  return finite_number(v) && std::fabs(v.get<double>()) <= std::numeric_limits<float>::max();
}

uint8_t mask_value(const json& v, const Where& w, const char* key, size_t t) {
  if (!v.is_number_integer() || (v.get<int64_t>() != 0 && v.get<int64_t>() != 1))
    w.fail(fmt::format("\"{}\"[{}] must be 0 or 1 (got {})", key, t, v.dump()));
  return static_cast<uint8_t>(v.get<int64_t>());
}

Example parse_example(const json& j, const Signature& s, const Where& w) {
  if (!j.is_object()) w.fail("expected a JSON object (one sequence)");
  only_keys(j, {"inputs", "targets", "input_mask", "loss_mask", "true_bits"}, w, "a sequence");
  if (!j.contains("inputs") || !j["inputs"].is_array() || j["inputs"].empty())
    w.fail("\"inputs\" must be a non-empty list (one entry per step)");
  const int64_t L = static_cast<int64_t>(j["inputs"].size());
  const json& inputs = j["inputs"];
  if (!j.contains("targets") || !j["targets"].is_array() || static_cast<int64_t>(j["targets"].size()) != L)
    w.fail(fmt::format("\"targets\" must be a list of {} entries, like \"inputs\" (null where a step has no target)", L));
  const json& targets = j["targets"];
  // The lists' lengths are checked before anything is allocated: the buffers are sized by the header,
  // so a header declaring 250,000,000 inputs would otherwise cost 2 GB per line before any check.
  for (int64_t t = 0; t < L; ++t) {
    if (!s.symbolic_input && (!inputs[t].is_array() || static_cast<int64_t>(inputs[t].size()) != s.input_dim))
      w.fail(fmt::format("\"inputs\"[{}]: expected a list of {} numbers (got {})", t, s.input_dim, brief(inputs[t])));
    if (s.output != OutputKind::softmax && !targets[t].is_null() &&
        (!targets[t].is_array() || static_cast<int64_t>(targets[t].size()) != s.output_dim))
      w.fail(fmt::format("\"targets\"[{}]: expected null or a list of {} numbers (got {})", t, s.output_dim,
                         brief(targets[t])));
  }
  Example e = blank_example(s, L);
  for (int64_t t = 0; t < L; ++t) {
    const json& v = inputs[t];
    if (s.symbolic_input) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= s.input_dim)
        w.fail(fmt::format("\"inputs\"[{}]: expected a symbol in [0, {}) (got {})", t, s.input_dim, v.dump()));
      e.input_symbols[t] = v.get<int32_t>();
    } else {
      for (int64_t k = 0; k < s.input_dim; ++k) {
        if (!float32_number(v[k]))
          w.fail(fmt::format("\"inputs\"[{}][{}]: expected a finite number within float32's range (|x| <= {:g}) (got {})", t,
                             k, std::numeric_limits<float>::max(), v[k].dump()));
        e.input_dense[t * s.input_dim + k] = v[k].get<double>();
      }
    }
  }
  for (int64_t t = 0; t < L; ++t) {
    const json& v = targets[t];
    e.loss_mask[t] = !v.is_null();
    if (v.is_null()) continue;
    if (s.output == OutputKind::softmax) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= s.output_dim)
        w.fail(fmt::format("\"targets\"[{}]: expected null or a class in [0, {}) (got {})", t, s.output_dim, v.dump()));
      e.target_symbols[t] = v.get<int32_t>();
    } else {
      const bool logistic = s.output == OutputKind::logistic;
      for (int64_t k = 0; k < s.output_dim; ++k) {
        if (!float32_number(v[k]) || (logistic && (v[k].get<double>() < 0 || v[k].get<double>() > 1)))
          w.fail(fmt::format("\"targets\"[{}][{}]: expected {} (got {})", t, k,
                             logistic ? "a number in [0, 1]"
                                      : fmt::format("a finite number within float32's range (|x| <= {:g})",
                                                    std::numeric_limits<float>::max()),
                             v[k].dump()));
        e.target_dense[t * s.output_dim + k] = v[k].get<double>();
      }
    }
  }
  for (const char* key : {"input_mask", "loss_mask"}) {
    if (!j.contains(key)) continue;  // defaults: every step real; a target wherever one is given
    const json& m = j[key];
    if (!m.is_array() || static_cast<int64_t>(m.size()) != L) w.fail(fmt::format("\"{}\" must be a list of {} zeros and ones", key, L));
    for (int64_t t = 0; t < L; ++t) {
      const uint8_t v = mask_value(m[t], w, key, t);
      if (std::strcmp(key, "input_mask") == 0) {
        e.input_mask[t] = v;
      } else {
        if (v && targets[t].is_null()) w.fail(fmt::format("\"loss_mask\"[{}] is 1 but \"targets\"[{}] is null", t, t));
        e.loss_mask[t] = v;
      }
    }
  }
  bool any = false;
  for (uint8_t m : e.loss_mask) any = any || m;
  if (!any) w.fail("no step has a target (every \"targets\" entry is null or masked)");
  if (j.contains("true_bits")) {
    if (!finite_number(j["true_bits"]) || j["true_bits"].get<double>() < 0)
      w.fail(fmt::format("\"true_bits\" must be a finite number >= 0 (got {})", j["true_bits"].dump()));
    e.true_bits = j["true_bits"].get<double>();
  }
  return e;
}

std::string json_error(const std::exception& ex) {
  std::string m = ex.what();  // drop nlohmann's "[json.exception.parse_error.101] " prefix
  if (m.rfind("[json.exception.", 0) == 0 && m.find("] ") != std::string::npos) m = m.substr(m.find("] ") + 2);
  return m;
}

// ---- the task over a file -------------------------------------------------------------------------

class FileTask : public Task {
 public:
  explicit FileTask(TaskFile file) : file_(std::move(file)) {
    const TaskFileHeader& h = file_.header;
    const Where w{file_.path, 1};
    if (h.task == "text") {
      text_ = true;  // bits per character; no corpus needed to score
      if (h.options.contains("target_bpc") && finite_number(h.options["target_bpc"]))
        target_bpc_ = h.options["target_bpc"].get<double>();
      return;
    }
    bool registered = false;
    for (const TaskInfo& info : registry()) registered = registered || info.name == h.task;
    if (!registered) return;
    try {
      scorer_ = make(h.task, h.options);
    } catch (const Error& e) {
      w.fail(e.what());
    }
    const Signature want = scorer_->signature(), &got = h.signature;
    if (want.symbolic_input != got.symbolic_input || want.input_dim != got.input_dim || want.output != got.output ||
        want.output_dim != got.output_dim)
      w.fail(fmt::format("the header's input/output ({} {}, {} {}) do not match task '{}' ({} {}, {} {})",
                         got.symbolic_input ? "symbols" : "dense", got.input_dim, output_kind_name(got.output), got.output_dim,
                         h.task, want.symbolic_input ? "symbols" : "dense", want.input_dim, output_kind_name(want.output),
                         want.output_dim));
  }

  const std::string& name() const override { return file_.header.task; }
  Signature signature() const override { return file_.header.signature; }
  Batch sample(int64_t batch, Rng& rng) const override {
    if (batch < 1) throw Error(fmt::format("{}: a batch needs at least 1 sequence (got {})", file_.path, batch));
    std::vector<Example> picked;
    for (int64_t i = 0; i < batch; ++i)
      picked.push_back(file_.examples[uniform_int(rng, 0, static_cast<int64_t>(file_.examples.size()) - 1)]);
    return collate(picked, file_.header.signature);
  }
  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    if (scorer_) return scorer_->error_rate(b, outputs);
    check_outputs(b, outputs, file_.header.signature.output_dim, name());
    if (text_) return text::bits_per_char(b, outputs);
    return sequence_error(b, outputs, file_.header.signature.output);
  }
  std::string success_criterion() const override {
    if (scorer_) return scorer_->success_criterion();
    if (text_) return fmt::format("bits per character < {}", target_bpc_);
    return file_.header.signature.output == OutputKind::linear
               ? "< 1% of sequences with |prediction - target| > 0.04 at some target step"
               : "< 1% of sequences with a wrong prediction at some target step";
  }
  double success_threshold() const override { return scorer_ ? scorer_->success_threshold() : text_ ? target_bpc_ : 0.01; }
  double chance_level() const override { return scorer_ ? scorer_->chance_level() : NAN; }
  int64_t num_sequences() const override { return static_cast<int64_t>(file_.examples.size()); }
  Batch sequences(int64_t first, int64_t count) const override {
    if (first < 0 || count < 1 || first + count > num_sequences())
      throw Error(fmt::format("{}: sequences [{}, {}) are outside [0, {})", file_.path, first, first + count, num_sequences()));
    std::vector<Example> part(file_.examples.begin() + first, file_.examples.begin() + first + count);
    return collate(part, file_.header.signature);
  }

 private:
  TaskFile file_;
  std::unique_ptr<Task> scorer_;
  bool text_ = false;
  double target_bpc_ = 2.0;
};

}  // namespace

void write_task_file(const std::string& path, const TaskFileHeader& header, const std::vector<Example>& examples) {
  AtomicFile out(path);
  out.write(header_json(header, static_cast<int64_t>(examples.size())).dump() + "\n");
  std::string line;
  for (const Example& e : examples) {
    line.clear();
    append_example_line(line, e, header.signature);
    out.write(line);
  }
  out.commit();
}

void write_task_file(const std::string& path, const Task& task, const json& options, uint64_t seed, int64_t count) {
  if (count < 1) throw Error(fmt::format("cannot write {}: the number of sequences must be >= 1 (got {})", path, count));
  TaskFileHeader header;
  header.task = task.name();
  header.options = options;
  header.seed = seed;
  header.signature = task.signature();
  AtomicFile out(path);
  out.write(header_json(header, count).dump() + "\n");
  Rng rng(seed);
  std::string line;
  auto put = [&](const Example& e) {
    line.clear();
    append_example_line(line, e, header.signature);
    out.write(line);
  };
  if (const auto* gen = dynamic_cast<const GeneratedTask*>(&task)) {
    for (int64_t i = 0; i < count; ++i) put(gen->generate(rng));  // what sample() draws, without padding
  } else {
    for (int64_t done = 0; done < count; done += kChunk)
      for (const Example& e : split(task.sample(std::min(kChunk, count - done), rng), header.signature)) put(e);
  }
  out.commit();
}

TaskFile read_task_file(const std::string& path) {
  InputFile in(path, "task file", kMaxTaskFileBytes);  // a FIFO or a device is refused, not waited on
  TaskFile f;
  f.path = path;
  std::optional<int64_t> count;
  std::string line;
  int64_t n = 0;
  while (in.read_line(line)) {
    ++n;
    const Where w{path, n};
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos) w.fail("binary data (a NUL byte): expected JSON lines");
    if (line.find_first_not_of(" \t") == std::string::npos) w.fail("empty line: expected one JSON object per line");
    json j;
    try {
      j = parse_json(line, fmt::format("{}:{}", path, n));
    } catch (const json::exception& e) {
      w.fail("not valid JSON: " + json_error(e));
    }
    if (n == 1) {
      f.header = parse_header(j, w);
      if (j.contains("count")) count = j["count"].get<int64_t>();
    } else {
      f.examples.push_back(parse_example(j, f.header.signature, w));
    }
  }
  if (n == 0) throw Error(fmt::format("{}: empty file (expected a header line and one line per sequence)", path));
  if (f.examples.empty()) throw Error(fmt::format("{}: no sequences after the header", path));
  if (count && *count != static_cast<int64_t>(f.examples.size()))
    throw Error(fmt::format("{}:1: the header says \"count\": {} but the file holds {} sequences (truncated?)", path, *count,
                            f.examples.size()));
  return f;
}

bool looks_like_task_file(const std::string& path) {
  std::string first;
  try {
    InputFile in(path, "data file", kMaxTaskFileBytes);  // never blocks on a FIFO
    if (!in.read_line(first)) return false;
  } catch (const Error&) {
    return false;  // not a readable regular file: whoever reads it next says why
  }
  const json j = parse_json(first, path, false);
  return j.is_object() && j.contains("format") && j["format"] == kFormat;
}

std::unique_ptr<Task> open_task_file(const std::string& path) { return open_task_file(read_task_file(path)); }

std::unique_ptr<Task> open_task_file(TaskFile file) { return std::make_unique<FileTask>(std::move(file)); }

}  // namespace tg::tasks
