#include "core/printable.h"

#include <fmt/format.h>

#include <cstdint>

namespace tg {

namespace {
// Length of the valid UTF-8 sequence starting at s[i] (its code point in *cp), or 0.
size_t utf8_length(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t v = 0, min = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, v = c & 0x07, min = 0x10000;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}
}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += text[i++];
      continue;
    }
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c >= 0x80) {
      uint32_t cp = 0;
      const size_t n = utf8_length(text, i, &cp);
      if (n > 0 && !(cp >= 0x80 && cp <= 0x9F)) {  // C1 controls (0x9B is a CSI on some terminals)
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
    ++i;
  }
  return out;
}

}  // namespace tg
