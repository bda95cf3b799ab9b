// The protocol's text: the words, numbers and points of the Gomocup
// (Piskvork) protocol and Yixin-Board's extensions, shared by the session,
// its Yixin and SWAP2 parts and the analysis output.  No state.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/game/board.h"
#include "common/game/point_text.h"

namespace gz {

std::string Trim(const std::string& s);
std::string Upper(std::string s);
// Replies are single lines: flattens whatever an exception message contains.
std::string OneLine(std::string s);
// A decimal integer of at most 12 digits (blanks around allowed), else nullopt.
std::optional<long long> ParseInteger(const std::string& text);

// Points are common/game/point_text.h's (ParsePoint, FormatPoint,
// FormatPointSpaced: the one grammar); these two are its "X,Y" under the
// protocol's names, for drivers and tests of the protocol.
// "X,Y" -> (x, y) (point_text.h ParseXY); nullopt if malformed.
std::optional<std::pair<int, int>> ParseCoordinates(const std::string& text);
inline std::string FormatCoordinates(int move, int size) { return FormatPoint(move, size); }  // "X,Y"

// The rule of `INFO rule V` (docs/engine.md "Rules"): exactly 2 or bit 4
// renju; bit 8 caro (with bit 1: exactly five, rule 9; without: overlines
// win, rule 8); bit 1 standard; else freestyle.
Rule RuleOfInfoValue(long long v);

}  // namespace gz
