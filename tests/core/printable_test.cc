// printable(): outside text on one safe terminal line.
#include <gtest/gtest.h>

#include <string>

#include "core/printable.h"

namespace tg {
namespace {

TEST(Printable, EscapesControlsAndBadUtf8KeepsPrintableUtf8) {
  EXPECT_EQ(printable("plain text, 'quoted' = 1"), "plain text, 'quoted' = 1");
  EXPECT_EQ(printable("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(printable("x\x1b]0;title\x07y"), "x\\x1b]0;title\\x07y");  // a terminal-title escape
  EXPECT_EQ(printable(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(printable("\x7f"), "\\x7f");
  EXPECT_EQ(printable("λ = 0.1, ρ ≥ ¾"), "λ = 0.1, ρ ≥ ¾");  // printable UTF-8 stays
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J");       // U+009B (a C1 CSI) is escaped
  EXPECT_EQ(printable("bad \xff\xfe and cut \xe2\x82"), "bad \\xff\\xfe and cut \\xe2\\x82");
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate is not UTF-8
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // an overlong '/'
}

}  // namespace
}  // namespace tg
