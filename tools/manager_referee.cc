#include "tools/manager_referee.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace gz {
namespace {

// check_forbid's cell values: a point off the board or off the line is a wall
// (the manager pads its line arrays with 20), neither black nor empty.
constexpr int kWall = 20;
constexpr int kBlackV = 1;
constexpr int kWhiteV = -1;

// Piskvork's recursive forbidden-point test over a grid of check_forbid
// values (0 empty, 1 black, -1 white), indexed [x][y].  The four lines through
// a point are check_forbid's l1..l4, with their orientation: the first match
// of a line's scan decides what the line reports, so the scan direction is
// part of the rule as implemented.
class Forbid {
 public:
  Forbid(int n, std::vector<int> grid) : n_(n), g_(std::move(grid)) {}

  // foulr: 0 when black may play (x, y) (or it is white's), else the reason
  // (1 double three or, with five = 1, a five; 2 double four; 3 overline).
  int Foul(int x, int y, int five) {
    int& cell = g_[x * n_ + y];
    if (cell == kWhiteV) return 0;
    const int sign = cell;
    cell = kBlackV;
    int result = 0;
    bool any5 = false, any6 = false;
    int fours = 0;
    for (int k = 0; k < 4; ++k) {
      any5 |= A5(k, x, y);
      fours += B4(k, x, y);
    }
    if (any5) {
      result = five;
    } else if (fours >= 2) {
      result = 2;
    } else {
      int threes = 0;
      for (int k = 0; k < 4; ++k) threes += RealThree(k, x, y) ? 1 : 0;
      if (threes >= 2) {
        result = 1;
      } else {
        for (int k = 0; k < 4; ++k) any6 |= A6(k, x, y);
        if (any6) result = 3;
      }
    }
    g_[x * n_ + y] = sign;
    return result;
  }

 private:
  // Line k through (x, y): the point's coordinate on it, and the point at a
  // coordinate (l1: fixed x; l2: fixed y; l3: x + y fixed, by y; l4: x - y
  // fixed, by n - 1 - y).
  int Coord(int k, int x, int y) const {
    switch (k) {
      case 0: return y;
      case 1: return x;
      case 2: return y;
      default: return n_ - 1 - y;
    }
  }
  void PointAt(int k, int x, int y, int c, int* px, int* py) const {
    switch (k) {
      case 0: *px = x; *py = c; break;
      case 1: *px = c; *py = y; break;
      case 2: *px = x + y - c; *py = c; break;
      default: *px = (n_ - 1 - y + x) - c; *py = n_ - 1 - c; break;
    }
  }
  int V(int k, int x, int y, int c) const {
    if (c < 0 || c >= n_) return kWall;
    int px, py;
    PointAt(k, x, y, c, &px, &py);
    if (px < 0 || px >= n_ || py < 0 || py >= n_) return kWall;
    return g_[px * n_ + py];
  }

  // The sum of the `len` cell values of line k from coordinate `from` on.
  int Sum(int k, int x, int y, int from, int len) const {
    int s = 0;
    for (int j = 0; j < len; ++j) s += V(k, x, y, from + j);
    return s;
  }

  bool A6(int k, int x, int y) const {
    const int p = Coord(k, x, y);
    for (int i = p - 5; i <= p; ++i)
      if (Sum(k, x, y, i, 6) == 6) return true;
    return false;
  }

  bool A5(int k, int x, int y) const {
    const int p = Coord(k, x, y);
    for (int i = p - 4; i <= p; ++i)
      if (Sum(k, x, y, i, 5) == 5 && V(k, x, y, i - 1) != 1 && V(k, x, y, i + 5) != 1) return true;
    return false;
  }

  // The line's four: 0 none, 1 one, 2 the one-line double fours.  The first
  // window (lowest coordinate) that holds a four decides.
  int B4(int k, int x, int y) const {
    const int p = Coord(k, x, y);
    auto v = [&](int c) { return V(k, x, y, c); };
    for (int i = p - 4; i <= p; ++i) {
      if (Sum(k, x, y, i, 5) != 4 || v(i - 1) == 1 || v(i + 5) == 1) continue;
      if (v(i + 4) == 0) return 1;  // XXXX_
      if (v(i + 3) == 0) {          // XXX_X
        if (p == i + 4 && v(i + 5) == 0 && v(i + 6) == 1 && v(i + 7) == 1 && v(i + 8) == 1 && v(i + 9) != 1)
          return 2;  // XXX_X_XXX
        return 1;
      }
      if (v(i + 2) == 0) {  // XX_XX
        if ((p == i + 4 || p == i + 3) && v(i + 5) == 0 && v(i + 6) == 1 && v(i + 7) == 1 && v(i + 8) != 1)
          return 2;  // XX_XX_XX
        return 1;
      }
      if (v(i + 1) == 0) {  // X_XXX
        if (v(i + 5) == 0 && v(i + 6) == 1 && v(i + 7) != 1 && (p == i + 4 || p == i + 3 || p == i + 2))
          return 2;  // X_XXX_X
        return 1;
      }
      return 1;  // _XXXX
    }
    return 0;
  }

  // The line's three: 0 none, else the point(s) that make its straight four,
  // as check_forbid's COMB (one point) and COMC (two).
  struct Three {
    int count = 0;
    int a = -1, b = -1;
  };
  Three A3(int k, int x, int y) const {
    const int p = Coord(k, x, y);
    auto v = [&](int c) { return V(k, x, y, c); };
    for (int i = p - 3; i <= p; ++i) {
      if (Sum(k, x, y, i, 4) != 3 || v(i - 1) != 0 || v(i - 2) == 1) continue;
      if (v(i + 3) == 0) {  // XXX_
        if (v(i + 4) != 1) {
          if (v(i - 2) == 0 && v(i - 3) != 1) {  // __XXX_
            if (v(i + 4) == 0 && v(i + 5) != 1) return {2, i + 3, i - 1};  // __XXX__
            return {1, i - 1, -1};
          }
          if (v(i + 4) == 0 && v(i + 5) != 1) return {1, i + 3, -1};  // _XXX__
        }
      } else if (v(i + 2) == 0) {  // XX_X
        if (v(i + 4) == 0 && v(i + 5) != 1) return {1, i + 2, -1};
      } else if (v(i + 1) == 0) {  // X_XX
        if (v(i + 4) == 0 && v(i + 5) != 1) return {1, i + 1, -1};
      }
    }
    return {};
  }

  // A three counts when one of its straight-four points is no foul (a five
  // there counts as a foul: Foul(..., five = 1)).
  bool RealThree(int k, int x, int y) {
    const Three t = A3(k, x, y);
    if (t.count == 0) return false;
    int px, py;
    PointAt(k, x, y, t.a, &px, &py);
    if (Foul(px, py, 1) == 0) return true;
    if (t.count < 2) return false;
    PointAt(k, x, y, t.b, &px, &py);
    return Foul(px, py, 1) == 0;
  }

  int n_;
  std::vector<int> g_;
};

}  // namespace

const char* ManagerEndName(ManagerEnd e) {
  switch (e) {
    case ManagerEnd::kOngoing: return "ongoing";
    case ManagerEnd::kFiveOrDraw: return "five/draw";
    case ManagerEnd::kFoul: return "foul";
    case ManagerEnd::kTimeout: return "timeout";
    case ManagerEnd::kIllegal: return "illegal";
    case ManagerEnd::kCrash: return "crash";
  }
  return "?";
}

ManagerReferee::ManagerReferee(int size, int rule) : size_(size), rule_(rule) {
  if (size < 5 || size > 26) throw std::invalid_argument("manager referee: board size " + std::to_string(size));
  if (rule != 0 && rule != 1 && rule != 4 && rule != 8 && rule != 9)
    throw std::invalid_argument("manager referee: rule " + std::to_string(rule) + " (0, 1, 4, 8 or 9)");
  cells_.assign(size * size, 0);
  UpdateEnd();
}

void ManagerReferee::UpdateEnd() {
  if (end_ != ManagerEnd::kOngoing) return;
  // play(): "for i in range(len(opening), size**2): if rule == 4 and i >= size**2 - 25: break".
  const int limit = size_ * size_ - (rule_ == 4 ? 25 : 0);
  if (stones_ >= limit) {
    end_ = ManagerEnd::kFiveOrDraw;
    winner_ = 0;
  }
}

void ManagerReferee::Place(int x, int y, int colour) {
  if (x < 0 || y < 0 || x >= size_ || y >= size_ || cells_[x * size_ + y] != 0 || (colour != 1 && colour != 2))
    throw std::invalid_argument("manager referee: cannot place " + std::to_string(colour) + " at " +
                                std::to_string(x) + "," + std::to_string(y));
  cells_[x * size_ + y] = static_cast<int8_t>(colour);
  ++stones_;
  UpdateEnd();
}

bool ManagerReferee::ForbiddenForBlack(int x, int y) const {
  std::vector<int> g(cells_.size());
  for (size_t i = 0; i < cells_.size(); ++i) g[i] = cells_[i] == 0 ? 0 : (cells_[i] == 1 ? kBlackV : kWhiteV);
  return Forbid(size_, std::move(g)).Foul(x, y, 0) != 0;
}

bool ManagerReferee::Wins(int x, int y, int colour) const {
  // make_move: in each direction count up to 5 stones of the colour each way;
  // an end is blocked when the scan stops at the edge or at the opponent.
  static const int kDx[4] = {0, 1, -1, 1}, kDy[4] = {1, 0, 1, 1};
  auto own = [&](int px, int py) { return (px == x && py == y) || cells_[px * size_ + py] == colour; };
  for (int d = 0; d < 4; ++d) {
    int c = 1, blocked = 0;
    for (int sign : {1, -1}) {
      int px = x, py = y;
      for (int i = 1; i < 6; ++i) {
        px += sign * kDx[d];
        py += sign * kDy[d];
        if (px < 0 || px >= size_ || py < 0 || py >= size_) {
          ++blocked;
          break;
        }
        if (!own(px, py)) {
          if (cells_[px * size_ + py] != 0) ++blocked;
          break;
        }
        ++c;
      }
    }
    if ((rule_ == 0 || rule_ == 4) && c >= 5) return true;
    if (rule_ == 1 && c == 5) return true;
    if (rule_ == 9 && c == 5 && blocked < 2) return true;
    if (rule_ == 8 && (c > 5 || (c == 5 && blocked < 2))) return true;
  }
  return false;
}

ManagerEnd ManagerReferee::Play(int x, int y) {
  if (!MoveOwed()) throw std::logic_error("manager referee: no move is owed, the game is over");
  const int colour = to_move();
  auto lose = [&](ManagerEnd why) {
    end_ = why;
    winner_ = 3 - colour;
    return end_;
  };
  if (x < 0 || y < 0 || x >= size_ || y >= size_) return lose(ManagerEnd::kCrash);
  if (cells_[x * size_ + y] != 0) return lose(ManagerEnd::kIllegal);
  if (rule_ == 4 && colour == 1 && ForbiddenForBlack(x, y)) return lose(ManagerEnd::kFoul);
  const bool wins = Wins(x, y, colour);
  cells_[x * size_ + y] = static_cast<int8_t>(colour);
  ++stones_;
  if (wins) {
    end_ = ManagerEnd::kFiveOrDraw;
    winner_ = colour;
    return end_;
  }
  UpdateEnd();
  return end_;
}

std::string ManagerReferee::Describe() const {
  std::ostringstream os;
  for (int y = 0; y < size_; ++y) {
    for (int x = 0; x < size_; ++x) {
      const int v = at(x, y);
      os << (v == 1 ? 'X' : v == 2 ? 'O' : '.') << (x + 1 < size_ ? " " : "");
    }
    os << '\n';
  }
  return os.str();
}

std::vector<std::pair<int, int>> ParseLetterMoves(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  size_t i = 0;
  while (i < text.size()) {
    const char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    if (ch == ' ' || ch == ',') {
      ++i;
      continue;
    }
    if (ch < 'a' || ch > 'z') throw std::invalid_argument("'" + text + "': expected a column letter at " + std::to_string(i));
    size_t j = i + 1;
    int row = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) && j - i <= 2) row = row * 10 + (text[j++] - '0');
    if (j == i + 1 || row < 1) throw std::invalid_argument("'" + text + "': expected a row number from 1 after '" + ch + "'");
    out.emplace_back(ch - 'a', row - 1);
    i = j;
  }
  return out;
}

std::string LetterPoint(int x, int y) { return std::string(1, static_cast<char>('a' + x)) + std::to_string(y + 1); }

}  // namespace gz
