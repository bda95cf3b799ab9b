#include "common/base/cli.h"

#include <cmath>

#include "common/base/errors.h"

namespace gz {

std::string CliArgs::get(const std::string& flag, const std::string& def) const {
  auto it = values.find(flag);
  return it == values.end() ? def : it->second;
}

long long CliArgs::get_int(const std::string& flag, long long def) const {
  auto it = values.find(flag);
  if (it == values.end()) return def;
  try {
    size_t pos = 0;
    long long v = std::stoll(it->second, &pos);
    if (pos != it->second.size()) throw std::invalid_argument("trailing");
    return v;
  } catch (const std::exception&) {
    GOMOKU_THROW(ConfigError, "flag " << flag << " expects an integer, got '" << it->second << "'");
  }
}

double CliArgs::get_double(const std::string& flag, double def) const {
  auto it = values.find(flag);
  if (it == values.end()) return def;
  try {
    size_t pos = 0;
    double v = std::stod(it->second, &pos);
    if (pos != it->second.size() || !std::isfinite(v)) throw std::invalid_argument("trailing");
    return v;
  } catch (const std::exception&) {
    GOMOKU_THROW(ConfigError, "flag " << flag << " expects a number, got '" << it->second << "'");
  }
}

CliArgs ParseCli(int argc, char** argv, const CliSpec& spec) {
  CliArgs a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      auto eq = arg.find('=');
      if (eq != std::string::npos && arg != "--set") {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    auto take = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) GOMOKU_THROW(ConfigError, "flag " << arg << " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      a.help = true;
    } else if (arg == "--config") {
      a.config = take();
    } else if (arg == "--set") {
      a.sets.push_back(take());
    } else if (spec.value_flags.count(arg)) {
      a.values[arg] = take();
    } else if (spec.switches.count(arg)) {
      if (has_inline) GOMOKU_THROW(ConfigError, "flag " << arg << " takes no value");
      a.switches.insert(arg);
    } else if (spec.ignore_unknown) {
      a.ignored.push_back(argv[i]);
    } else if (arg.rfind("-", 0) == 0 || !spec.allow_positional) {
      GOMOKU_THROW(ConfigError, "unknown argument '" << arg << "' (see --help)");
    } else {
      a.positional.push_back(arg);
    }
  }
  return a;
}

}  // namespace gz
