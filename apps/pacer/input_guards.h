#pragma once
// Checks every command's numeric options share, attached in one place after the commands are
// defined: floating-point values must be finite (no "nan" or "inf" slipping through to a silent
// default), unsigned values must not be negative (CLI11 would wrap "-1" to 2^64-1), and resource
// counts have sane upper bounds (threads, worker processes, studies, trials), so a typo is an
// input error instead of a hang or an allocation failure.
//
//   pacer::cli::guard_numeric_options(app);  // after all add_subcommand calls, before parse
#include <CLI/CLI.hpp>

namespace pacer::cli {

void guard_numeric_options(CLI::App& app);

// The largest --threads accepted: 4x the hardware threads (at least 16).
int max_threads();

// CLI11's PositiveNumber and NonNegativeNumber say "Value 0 not in range 0.000000 to 1.8e308",
// which contradicts itself for 0; these say what is wanted.
const CLI::Validator& positive_number();
const CLI::Validator& non_negative_number();

// The numbers an unsigned option (a seed) can hold: "18446744073709551616" used to be clamped
// silently to 2^64 - 1.
const CLI::Validator& fits_unsigned_64();

}  // namespace pacer::cli
