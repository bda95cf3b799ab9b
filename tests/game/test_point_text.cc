// common/game/point_text.h: the one grammar for a point -- every point of
// every board size goes out and comes back the same, the forms the readers
// meet are read, and bad text is refused with an error naming it.
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "common/game/board.h"
#include "common/game/point_text.h"

using namespace gz;

TEST_CASE("point text: every point of every size round-trips through X,Y") {
  for (int n = kMinBoardSize; n <= kMaxBoardSize; ++n) {
    for (int p = 0; p < n * n; ++p) {
      const std::string text = FormatPoint(p, n);
      std::string error;
      const std::optional<int> back = ParsePoint(text, n, &error);
      REQUIRE(back == p);
      CHECK(error.empty());
      CHECK(ParseXY(text) == PointXY{p % n, p / n});
      CHECK(FormatXY(*ParseXY(text)) == text);
    }
  }
}

TEST_CASE("point text: X is the column, Y the row, in every form") {
  CHECK(FormatPoint(3 * 15 + 7, 15) == "7,3");
  CHECK(FormatPointSpaced(3 * 15 + 7, 15) == "7 3");  // Yixin-Board's MESSAGE SWAP2 form
  CHECK(FormatPointPacked(3 * 15 + 7, 15) == "0703");  // Yixin-Board's FORBID list
  CHECK(FormatPointPacked(21 * 22 + 12, 22) == "1221");
  CHECK(FormatXY({-1, 20}) == "-1,20");
  std::string error;
  CHECK(PointFromXY({7, 3}, 15, &error) == 3 * 15 + 7);  // the JSON [X, Y] form
  CHECK(ParsePoint("7,3", 15, &error) == 3 * 15 + 7);
}

TEST_CASE("point text: the forms readers meet are read") {
  CHECK(ParseXY("7,8") == PointXY{7, 8});
  CHECK(ParseXY(" 3 , 14 ") == PointXY{3, 14});  // blanks around each number
  CHECK(ParseXY("\t3,\t14\r") == PointXY{3, 14});  // a CR left by a Windows line
  CHECK(ParseXY("+3,14") == PointXY{3, 14});
  CHECK(ParseXY("-1,2") == PointXY{-1, 2});  // well formed, off every board
  CHECK(ParseXY("999999999,0") == PointXY{999999999, 0});
}

TEST_CASE("point text: malformed text is refused, naming it") {
  for (const char* bad : {"", "7", ",", "7,", ",7", "a,b", "1,2,3", "1.5,2", "1 2", "7,8x", "- 1,2", "1e3,2",
                          "1234567890,1", "--1,2", "7;8"}) {
    INFO("text '" << bad << "'");
    CHECK_FALSE(ParseXY(bad).has_value());
    std::string error;
    CHECK_FALSE(ParsePoint(bad, 15, &error).has_value());
    CHECK(error == std::string("expected a point X,Y, got '") + bad + "'");
  }
  std::string error;
  CHECK_FALSE(ParsePoint("1\n2,3", 15, &error).has_value());
  CHECK(error == "expected a point X,Y, got '1 2,3'");  // quoted on one line
}

TEST_CASE("point text: a point off the board is refused, naming it and the board") {
  for (const char* off : {"15,0", "0,15", "-1,0", "0,-1", "100,100"}) {
    INFO("text '" << off << "'");
    std::string error;
    CHECK_FALSE(ParsePoint(off, 15, &error).has_value());
    CHECK(error == "point " + FormatXY(*ParseXY(off)) + " is outside the 15x15 board");
  }
  std::string error;
  CHECK_FALSE(PointFromXY({20, 3}, 20, &error).has_value());
  CHECK(error == "point 20,3 is outside the 20x20 board");
  CHECK(ParsePoint("19,19", 20, &error) == 19 * 20 + 19);
}
