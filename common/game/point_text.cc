#include "common/game/point_text.h"

#include <cctype>

namespace gz {
namespace {

constexpr size_t kMaxDigits = 9;  // every value fits an int

// One number of "X,Y": blanks around it, an optional sign, 1..9 digits.
std::optional<long long> Number(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  bool negative = false;
  if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
    negative = t.front() == '-';
    t.remove_prefix(1);
  }
  if (t.empty() || t.size() > kMaxDigits) return std::nullopt;
  long long v = 0;
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

// The text as an error message quotes it: one line.
std::string Quoted(std::string_view text) {
  std::string s(text);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return "'" + s + "'";
}

}  // namespace

std::optional<PointXY> ParseXY(std::string_view text) {
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const auto x = Number(text.substr(0, comma));
  const auto y = Number(text.substr(comma + 1));  // a second comma makes this malformed
  if (!x || !y) return std::nullopt;
  return PointXY{*x, *y};
}

std::optional<int> PointFromXY(PointXY xy, int size, std::string* error) {
  if (xy.x < 0 || xy.y < 0 || xy.x >= size || xy.y >= size) {
    *error = "point " + FormatXY(xy) + " is outside the " + std::to_string(size) + "x" + std::to_string(size) +
             " board";
    return std::nullopt;
  }
  return static_cast<int>(xy.y * size + xy.x);
}

std::optional<int> ParsePoint(std::string_view text, int size, std::string* error) {
  const auto xy = ParseXY(text);
  if (!xy) {
    *error = "expected a point X,Y, got " + Quoted(text);
    return std::nullopt;
  }
  return PointFromXY(*xy, size, error);
}

std::string FormatXY(PointXY xy) { return std::to_string(xy.x) + "," + std::to_string(xy.y); }

std::string FormatPoint(int point, int size) { return FormatXY({point % size, point / size}); }

std::string FormatPointSpaced(int point, int size) {
  return std::to_string(point % size) + " " + std::to_string(point / size);
}

std::string FormatPointPacked(int point, int size) {
  auto two = [](int v) { return std::string(v < 10 ? "0" : "") + std::to_string(v); };
  return two(point % size) + two(point / size);
}

}  // namespace gz
