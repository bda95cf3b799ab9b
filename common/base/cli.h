// Tiny command-line parser shared by the binaries.
//
// Every binary accepts `--config FILE`, repeated `--set dotted.key=value`
// and `--help`; a binary that writes a log file names it with `--log-file`
// (kLogFileFlag).  Other flags are declared by the binary: value flags take the
// next argument (`--id 3`) or `--id=3`; switches take none.  Unknown flags are
// ConfigErrors naming the flag (unless CliSpec::ignore_unknown).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gz {

inline constexpr const char* kLogFileFlag = "--log-file";

struct CliSpec {
  std::string usage;                 // printed by --help (and on errors)
  std::set<std::string> value_flags;  // e.g. {"--id", "--run-dir"}
  std::set<std::string> switches;     // e.g. {"--json"}
  bool allow_positional = false;
  // Unknown flags and positional arguments go to CliArgs::ignored instead of
  // being ConfigErrors: for a program started by GUIs that pass flags of
  // their own (Yixin-Board's `--force-utf8`).  The caller logs them.
  bool ignore_unknown = false;
};

struct CliArgs {
  std::string config;                // --config
  std::vector<std::string> sets;     // --set, in order
  std::map<std::string, std::string> values;
  std::set<std::string> switches;
  std::vector<std::string> positional;
  std::vector<std::string> ignored;  // CliSpec::ignore_unknown: the unknown arguments, as given
  bool help = false;

  bool has(const std::string& flag) const { return values.count(flag) || switches.count(flag); }
  std::string get(const std::string& flag, const std::string& def = "") const;
  // Throws ConfigError naming the flag if the value is not an integer.
  long long get_int(const std::string& flag, long long def) const;
  // Throws ConfigError naming the flag if the value is not a finite number.
  double get_double(const std::string& flag, double def) const;
};

CliArgs ParseCli(int argc, char** argv, const CliSpec& spec);

}  // namespace gz
