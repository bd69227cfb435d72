// Text that came from outside (file names, zip entry names, JSON keys, metric names) made safe to
// print on one terminal line: control characters (C0, DEL, C1) and bytes that are not UTF-8 become
// escapes (\n, \t, \x1b, ...); printable UTF-8 such as λ or ρ stays as it is. The command prints every
// error and warning through it, so a hostile name can neither split the "one line" nor reach the
// terminal as an escape sequence.
#pragma once
#include <string>
#include <string_view>

namespace tg {

std::string printable(std::string_view text);

}  // namespace tg
