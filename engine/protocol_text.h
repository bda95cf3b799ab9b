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

namespace gz {

std::string Trim(const std::string& s);
std::string Upper(std::string s);
// Replies are single lines: flattens whatever an exception message contains.
std::string OneLine(std::string s);
// A decimal integer of at most 12 digits (blanks around allowed), else nullopt.
std::optional<long long> ParseInteger(const std::string& text);
std::vector<std::string> SplitCommas(const std::string& s);

// "X,Y" (blanks allowed around the numbers) -> (x, y); nullopt if malformed.
std::optional<std::pair<int, int>> ParseCoordinates(const std::string& text);
std::string FormatCoordinates(int move, int size);  // "X,Y"
// "X Y": the points of Yixin-Board's MESSAGE SWAP2 lines (a comma breaks its parser).
std::string FormatCoordinatesSpaced(int move, int size);

// The rule of `INFO rule V` (docs/engine.md "Rules"): exactly 2 or bit 4
// renju; bit 8 caro (with bit 1: exactly five, rule 9; without: overlines
// win, rule 8); bit 1 standard; else freestyle.
Rule RuleOfInfoValue(long long v);

}  // namespace gz
