#include "engine/protocol_text.h"

#include <cctype>

namespace gz {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::optional<long long> ParseInteger(const std::string& text) {
  std::string t = Trim(text);
  if (t.empty()) return std::nullopt;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i == t.size() || t.size() - i > 12) return std::nullopt;
  for (size_t k = i; k < t.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(t[k]))) return std::nullopt;
  return std::stoll(t);
}

std::optional<std::pair<int, int>> ParseCoordinates(const std::string& text) {
  const std::optional<PointXY> xy = ParseXY(text);
  if (!xy) return std::nullopt;
  return std::make_pair(static_cast<int>(xy->x), static_cast<int>(xy->y));  // at most 9 digits: fits
}

Rule RuleOfInfoValue(long long v) {
  // Gomocup's bits: 1 exactly five, 2 continuous game, 4 renju, 8 caro.  The
  // value exactly 2 is renju for Yixin-Board and Rapfi (their rule list:
  // 0 freestyle, 1 standard, 2 renju); a continuous freestyle game would be 2
  // too, and no manager sends it.  Caro as the Gomocup manager judges it: 8
  // lets an overline win (Rule::kCaroOverline), 9 = 8 + exactly five
  // (Rule::kCaro).
  if (v == 2 || (v & 4)) return Rule::kRenju;
  if (v & 8) return (v & 1) ? Rule::kCaro : Rule::kCaroOverline;
  return (v & 1) ? Rule::kStandard : Rule::kFreestyle;
}

}  // namespace gz
