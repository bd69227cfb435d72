// libFuzzer harness for the text task's readers (tasks/text.h): the corpus file (strict UTF-8,
// split by fractions, encoded with the training split's vocabulary, cut into sequences) and a saved
// vocabulary (vocab.json, which `eval --data` loads). Every input goes through both.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/params.h"
#include "tasks/text.h"
#include "fuzz/fuzz_util.h"

namespace text = tg::tasks::text;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string& path = tg::fuzz::write_scratch(bytes, ".txt");
  // the corpus
  try {
    text::Sources src;
    src.file = path;
    src.split = {0.5, 0.25, 0.25};
    auto corpus = std::make_shared<const text::Corpus>(text::Corpus::load(src));
    const text::Vocabulary& v = corpus->vocab();
    (void)v.alphabet();
    (void)text::Vocabulary::from_json(v.to_json(), "round trip");
    const int64_t T = 1 + (size > 0 ? data[0] % 7 : 0);
    for (text::Part p : {text::Part::train, text::Part::valid, text::Part::test}) {
      text::TextTask task(corpus, p, T, 0, 2.0);
      (void)task.signature();
      if (task.num_sequences() > 0) {
        tg::Rng rng(1);
        (void)task.sample(2, rng);
        (void)task.sequences(0, 1);
      }
    }
  } catch (const tg::Error&) {
  }
  // a saved vocabulary
  try {
    const text::Vocabulary v = text::Vocabulary::load(path);
    for (int32_t i = 0; i < v.size(); ++i) (void)v.decode(i);
    (void)v.encode(text::decode_utf8(text::encode_utf8(v.chars()), "re-encoded"));
  } catch (const tg::Error&) {
  }
  return 0;
}
