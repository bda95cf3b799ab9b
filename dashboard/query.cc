#include "dashboard/query.h"

#include <charconv>

#include "dashboard/http_types.h"

namespace gz {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Decode(const std::string& s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      const int hi = i + 2 < s.size() ? HexDigit(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? HexDigit(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) throw HttpError(400, "bad percent escape in the request target");
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    if (c == '\0') throw HttpError(400, "NUL byte in the request target");
    out.push_back(c);
  }
  return out;
}

}  // namespace

Target ParseTarget(const std::string& target) {
  Target t;
  const size_t q = target.find('?');
  t.path = Decode(target.substr(0, q), false);
  if (q == std::string::npos) return t;
  const std::string query = target.substr(q + 1);
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string part = query.substr(start, end - start);
    if (!part.empty()) {
      const size_t eq = part.find('=');
      std::string key = Decode(part.substr(0, eq), true);
      std::string value = eq == std::string::npos ? "" : Decode(part.substr(eq + 1), true);
      t.params[key] = value;
    }
    start = end + 1;
  }
  return t;
}

int64_t IntParam(const Target& t, const std::string& name, int64_t min, int64_t max, std::optional<int64_t> def) {
  auto it = t.params.find(name);
  if (it == t.params.end()) {
    if (def) return *def;
    throw HttpError(400, "missing parameter '" + name + "'");
  }
  const std::string& v = it->second;
  int64_t x = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec == std::errc::invalid_argument || end != v.data() + v.size())
    throw HttpError(400, "parameter '" + name + "' must be an integer");
  if (ec == std::errc::result_out_of_range || x < min || x > max)
    throw HttpError(400, "parameter '" + name + "' out of range [" + std::to_string(min) + ", " +
                             std::to_string(max) + "]");
  return x;
}

std::string StringParam(const Target& t, const std::string& name) {
  auto it = t.params.find(name);
  if (it == t.params.end()) throw HttpError(400, "missing parameter '" + name + "'");
  return it->second;
}

}  // namespace gz
