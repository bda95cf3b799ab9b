#include "engine/yixin_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/game/point_text.h"

namespace gz {

int YixinEval(double winrate) {
  const double w = std::clamp(winrate, 1e-9, 1.0 - 1e-9);
  return static_cast<int>(std::lround(std::clamp(600.0 * std::log(w / (1.0 - w)), -20000.0, 20000.0)));
}

std::string YixinEvalText(const MoveReport& m) {
  if (m.proof) return (m.proof->win ? "+M" : "-M") + std::to_string(m.proof->plies);
  return std::to_string(YixinEval(m.winrate));
}

std::vector<std::string> YixinReporter::Lines(const TreeReport& r, double seconds) {
  std::vector<std::string> out;
  if (r.moves.empty()) return out;
  const int n = std::min<int>(lines_, static_cast<int>(r.moves.size()));
  if (show_ & kShowRealtime) Realtime(r, n, out);
  if (show_ & kShowDetail) Detail(r, n, seconds, out);
  return out;
}

void YixinReporter::Realtime(const TreeReport& r, int n, std::vector<std::string>& out) {
  if (first_) out.push_back("MESSAGE REALTIME REFRESH");
  first_ = false;
  for (int i = 0; i < n; ++i) {
    const std::string at = FormatPoint(r.moves[i].move, size_);
    out.push_back("MESSAGE REALTIME POS " + at);
    out.push_back("MESSAGE REALTIME DONE " + at);
  }
  for (const MoveReport& m : r.moves)
    if (m.proof && !m.proof->win && std::find(lost_.begin(), lost_.end(), m.move) == lost_.end()) {
      lost_.push_back(m.move);
      out.push_back("MESSAGE REALTIME LOSE " + FormatPoint(m.move, size_));
    }
  if (r.moves.front().move != best_) {
    best_ = r.moves.front().move;
    out.push_back("MESSAGE REALTIME BEST " + FormatPoint(best_, size_));
  }
}

void YixinReporter::Detail(const TreeReport& r, int n, double seconds, std::vector<std::string>& out) const {
  const long long ms = std::llround(seconds * 1000.0);
  const long long speed = seconds > 0 ? std::llround(r.root_visits / seconds) : 0;
  for (int i = 0; i < n; ++i) {
    const MoveReport& m = r.moves[i];
    std::string line;
    for (int p : m.pv) line += (line.empty() ? "" : " ") + FormatPoint(p, size_);
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%.4f", m.winrate);
    const std::string depth = std::to_string(m.pv.size());
    out.push_back("INFO PV " + std::to_string(i));
    out.push_back("INFO NUMPV " + std::to_string(n));
    out.push_back("INFO DEPTH " + depth);
    out.push_back("INFO SELDEPTH " + depth);
    out.push_back("INFO NODES " + std::to_string(m.visits));
    out.push_back("INFO TOTALNODES " + std::to_string(r.root_visits));
    out.push_back("INFO TOTALTIME " + std::to_string(ms));
    out.push_back("INFO SPEED " + std::to_string(speed));
    out.push_back("INFO EVAL " + YixinEvalText(m));
    out.push_back(std::string("INFO WINRATE ") + rate);
    // Never a key without a value: dhbloo's Yixin-Board crashes on one.
    out.push_back("INFO BESTLINE " + (line.empty() ? FormatPoint(m.move, size_) : line));
    out.push_back("INFO PV DONE");
  }
}

}  // namespace gz
