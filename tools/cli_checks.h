// Validators for the command line's numeric options. CLI11's Range reports text that is not a number as
// "not in range", prints a double's bounds with 300 digits, and checks nothing that its conversion then
// wraps or saturates (`--seed -1` became 2^64 - 1, `--steps 99999999999999999999` INT64_MAX): these read
// the option's text as CLI11 will convert it (so the value checked is the value stored), before it does.
#pragma once
#include <cstdint>

#include <CLI/CLI.hpp>

namespace tg::cli {
// A whole decimal integer in [lo, hi].
CLI::Validator integer_in(int64_t lo, int64_t hi);
// The same for unsigned options (seeds): a minus sign is an error, not a wrap-around.
CLI::Validator unsigned_in(uint64_t lo, uint64_t hi);
// A finite number in [lo, hi].
CLI::Validator number_in(double lo, double hi);
// A finite number > 0, or >= 0.
CLI::Validator positive_number();
CLI::Validator non_negative_number();
// A name that is not empty (`--optimizer ''` would otherwise mean "not given": the default).
CLI::Validator non_empty_name();
// A path that is not empty (`--run ''` would otherwise read /checkpoint.npz).
CLI::Validator non_empty_path();
// The path of a PNG to write: it must end in .png, so that a slip such as `-o RUN/checkpoint.npz` cannot
// replace a run's own files with a picture.
CLI::Validator png_path();
}  // namespace tg::cli
