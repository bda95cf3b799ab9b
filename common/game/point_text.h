// The one grammar for a point of the board as text, used by every reader and
// writer of points: the engine's protocol (engine/protocol_text.h, the
// session, its Yixin and SWAP2 parts, the analysis lines), the analysis JSON
// (common/match/analysis_query.cc, analysis_engine.cc), the external-engine
// player and referee (common/match/engine_player.cc, tools/gomocup_*), and
// the terminal game.
//
// A point is (x, y): x the column, y the row, 0-based; on a size x size board
// its index is y * size + x.
//   "X,Y"   Gomocup's (Piskvork, the Gomocup manager) and the analysis JSON's
//           string form.  Yixin-Board sends row,col in the same text: the
//           engine then plays the transposed board and answers every point
//           the same way, so both agree (docs/engine.md "Yixin-Board").
//           Read: each number with blanks around it, an optional sign and 1
//           to 9 digits; nothing else (no third number, no decimals).
//   "X Y"   Yixin-Board's MESSAGE SWAP2 MOVEn lines (a comma breaks its
//           parser); written only.
//   "XXYY"  Yixin-Board's FORBID list: two digits a coordinate, the points
//           run together; written only.
//   [X, Y]  the analysis JSON's array form: JSON reads the numbers,
//           PointFromXY puts them on the board.
// Errors name the text that was refused.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gz {

struct PointXY {
  long long x = 0;
  long long y = 0;
  friend bool operator==(const PointXY&, const PointXY&) = default;
};

// "X,Y" -> (x, y) by the grammar above, or nullopt when malformed.  No board:
// the values may lie off every board (RECTSTART's "W,H" is read with it too).
std::optional<PointXY> ParseXY(std::string_view text);

// (x, y) on a size x size board -> y * size + x, or nullopt with *error
// "point X,Y is outside the NxN board".
std::optional<int> PointFromXY(PointXY xy, int size, std::string* error);

// "X,Y" on a size x size board -> its index, or nullopt with *error naming the
// text: "expected a point X,Y, got 'TEXT'" or PointFromXY's.
std::optional<int> ParsePoint(std::string_view text, int size, std::string* error);

// (x, y) -> "X,Y", whatever the values (an off-board point in a message).
std::string FormatXY(PointXY xy);
// The point `point` of a size x size board -> "X,Y".
std::string FormatPoint(int point, int size);
// -> "X Y" (Yixin-Board's MESSAGE SWAP2 lines).
std::string FormatPointSpaced(int point, int size);
// -> "XXYY" (Yixin-Board's FORBID list; boards up to 100x100).
std::string FormatPointPacked(int point, int size);

}  // namespace gz
