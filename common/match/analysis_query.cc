#include "common/match/analysis_query.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/game/point_text.h"

namespace gz {
namespace {

using json = nlohmann::json;

// A refusal while parsing: the field and the message.
struct Refusal {
  std::string field;
  std::string message;
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int8_t ColourOf(const json& v, const std::string& field) {
  if (v.is_string()) {
    const std::string s = Lower(v.get<std::string>());
    if (s == "b" || s == "black") return kBlack;
    if (s == "w" || s == "white") return kWhite;
  }
  throw Refusal{field, "expected a colour \"B\" or \"W\", got " + v.dump()};
}

// "X,Y" or [X, Y] on a size x size board (common/game/point_text.h).
int PointOf(const json& v, int size, const std::string& field) {
  std::optional<PointXY> xy;
  if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer())
    xy = PointXY{v[0].get<long long>(), v[1].get<long long>()};
  else if (v.is_string())
    xy = ParseXY(v.get<std::string>());
  if (!xy) throw Refusal{field, "expected a point \"X,Y\" or [X, Y], got " + v.dump()};
  std::string error;
  const std::optional<int> point = PointFromXY(*xy, size, &error);
  if (!point) throw Refusal{field, error + " (" + v.dump() + ")"};
  return *point;
}

const json* Field(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

long long IntegerField(const json& o, const char* key, long long lo, long long hi, long long fallback) {
  const json* v = Field(o, key);
  if (!v) return fallback;
  if (!v->is_number_integer() && !(v->is_number_float() && v->get<double>() == static_cast<long long>(v->get<double>())))
    throw Refusal{key, std::string("expected an integer, got ") + v->dump()};
  const double d = v->get<double>();
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi))
    throw Refusal{key, "must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + v->dump()};
  return static_cast<long long>(d);
}

std::vector<std::pair<int8_t, int>> StoneList(const json& o, const char* key, int size) {
  std::vector<std::pair<int8_t, int>> out;
  const json* v = Field(o, key);
  if (!v) return out;
  if (!v->is_array()) throw Refusal{key, std::string("expected an array of [colour, point], got ") + v->dump()};
  for (size_t i = 0; i < v->size(); ++i) {
    const std::string f = std::string(key) + "[" + std::to_string(i) + "]";
    const json& e = (*v)[i];
    if (!e.is_array() || e.size() != 2) throw Refusal{f, "expected [colour, point], got " + e.dump()};
    out.emplace_back(ColourOf(e[0], f), PointOf(e[1], size, f));
  }
  return out;
}

// Plays the query's stones and moves, checking each; returns the boards of
// every turn (0..moves.size()).
std::vector<Board> Replay(const AnalysisQuery& q) {
  const int n = q.board_size;
  std::vector<int8_t> cells(static_cast<size_t>(n * n), kEmpty);
  int black = 0, white = 0;
  for (size_t i = 0; i < q.initial_stones.size(); ++i) {
    auto [c, p] = q.initial_stones[i];
    if (cells[p] != kEmpty)
      throw Refusal{"initialStones[" + std::to_string(i) + "]", "the point is listed twice"};
    cells[p] = c;
    (c == kBlack ? black : white) += 1;
  }
  const int8_t first = !q.moves.empty() ? q.moves.front().first : black == white ? kBlack : kWhite;
  std::vector<Board> boards;
  boards.push_back(Board::FromStones(n, q.rule, cells, first, kNoMove));
  for (size_t i = 0; i < q.moves.size(); ++i) {
    const std::string f = "moves[" + std::to_string(i) + "]";
    Board b = boards.back();
    auto [c, p] = q.moves[i];
    if (b.terminal()) throw Refusal{f, "the game is already over before this move"};
    if (c != b.to_move()) throw Refusal{f, std::string("it is ") + (b.to_move() == kBlack ? "B" : "W") + "'s turn"};
    if (b.at(p) != kEmpty) throw Refusal{f, "the point is occupied"};
    if (!b.IsLegal(p)) throw Refusal{f, "the point is forbidden for black under renju"};
    b.Play(p);
    boards.push_back(std::move(b));
  }
  return boards;
}

// The query's "action" (none: an analysis) and a terminate's target.
void ParseAction(const json& o, ParsedQuery& r) {
  const std::string action = Field(o, "action") ? Lower(o["action"].is_string() ? o["action"].get<std::string>() : "?")
                                                : "";
  if (action == "query_version") r.action = QueryAction::kQueryVersion;
  else if (action == "clear_cache") r.action = QueryAction::kClearCache;
  else if (action == "terminate_all") r.action = QueryAction::kTerminateAll;
  else if (action == "terminate") {
    r.action = QueryAction::kTerminate;
    const json* t = Field(o, "terminateId");
    if (!t || !t->is_string()) throw Refusal{"terminateId", "terminate needs the id of the query to stop"};
    r.terminate_id = t->get<std::string>();
    if (const json* turns = Field(o, "turnNumbers")) {
      if (!turns->is_array()) throw Refusal{"turnNumbers", "expected an array of turn numbers"};
      for (size_t i = 0; i < turns->size(); ++i) {
        if (!(*turns)[i].is_number_integer() || (*turns)[i].get<long long>() < 0 ||
            (*turns)[i].get<long long>() > 100000)
          throw Refusal{"turnNumbers[" + std::to_string(i) + "]", "expected a turn number"};
        r.terminate_turns.push_back((*turns)[i].get<int>());
      }
    }
  } else if (!action.empty()) {
    throw Refusal{"action", "unknown action " + o["action"].dump() +
                                " (query_version, clear_cache, terminate, terminate_all; none to analyse)"};
  }
}

// The position's board: its size, rule, initial stones and moves.
void ParsePosition(const json& o, const QueryLimits& limits, AnalysisQuery& q) {
  q.board_size = static_cast<int>(IntegerField(o, "boardSize", limits.min_board_size, limits.max_board_size, 15));
  if (const json* rule = Field(o, "rule")) {
    // Every rule the engine plays, by its name (board.h RuleName).
    const std::string s = rule->is_string() ? Lower(rule->get<std::string>()) : "";
    try {
      q.rule = ParseRule(s);
    } catch (const ConfigError&) {
      throw Refusal{"rule", "expected \"freestyle\", \"standard\", \"renju\", \"caro\" or \"caro-overline\", got " +
                                rule->dump()};
    }
  }
  q.initial_stones = StoneList(o, "initialStones", q.board_size);
  q.moves = StoneList(o, "moves", q.board_size);
}

// How long each turn is searched and what its responses carry.
void ParseSearchLimits(const json& o, const QueryLimits& limits, AnalysisQuery& q) {
  q.max_visits = static_cast<int>(IntegerField(o, "maxVisits", 1, limits.max_visits_cap, limits.default_max_visits));
  q.max_time_ms = IntegerField(o, "maxTimeMs", 0, int64_t{1} << 40, 0);
  if (const json* every = Field(o, "reportDuringSearchEvery")) {
    if (!every->is_number() || every->get<double>() < 0.001 || every->get<double>() > 1e6)
      throw Refusal{"reportDuringSearchEvery", "expected seconds (a number >= 0.001), got " + every->dump()};
    q.report_every_s = every->get<double>();
  }
  if (const json* policy = Field(o, "includePolicy")) {
    if (!policy->is_boolean()) throw Refusal{"includePolicy", "expected true or false, got " + policy->dump()};
    q.include_policy = policy->get<bool>();
  }
}

// analyzeTurns, sorted and unique, each an unfinished position of `boards`.
void ParseAnalyzeTurns(const json& o, const std::vector<Board>& boards, AnalysisQuery& q) {
  const int turns = static_cast<int>(q.moves.size());
  if (const json* at = Field(o, "analyzeTurns")) {
    if (!at->is_array() || at->empty()) throw Refusal{"analyzeTurns", "expected a non-empty array of turn numbers"};
    for (size_t i = 0; i < at->size(); ++i) {
      const json& t = (*at)[i];
      const std::string f = "analyzeTurns[" + std::to_string(i) + "]";
      if (!t.is_number_integer() || t.get<long long>() < 0 || t.get<long long>() > turns)
        throw Refusal{f, "expected a turn 0.." + std::to_string(turns) + ", got " + t.dump()};
      q.analyze_turns.push_back(t.get<int>());
    }
  } else {
    q.analyze_turns.push_back(turns);
  }
  std::sort(q.analyze_turns.begin(), q.analyze_turns.end());
  q.analyze_turns.erase(std::unique(q.analyze_turns.begin(), q.analyze_turns.end()), q.analyze_turns.end());
  for (int t : q.analyze_turns)
    if (boards[t].terminal())
      throw Refusal{Field(o, "analyzeTurns") ? "analyzeTurns" : "moves",
                    "the game is over at turn " + std::to_string(t) + ": nothing to analyse"};
}

// avoidMoves: points (either side) or {player, moves, untilDepth 1} objects.
void ParseAvoidMoves(const json& o, AnalysisQuery& q) {
  const json* avoid = Field(o, "avoidMoves");
  if (!avoid) return;
  if (!avoid->is_array()) throw Refusal{"avoidMoves", "expected an array of points or {player, moves} objects"};
  for (size_t i = 0; i < avoid->size(); ++i) {
    const json& e = (*avoid)[i];
    const std::string f = "avoidMoves[" + std::to_string(i) + "]";
    if (!e.is_object()) {
      q.avoid.emplace_back(kEmpty, PointOf(e, q.board_size, f));
      continue;
    }
    const int8_t who = Field(e, "player") ? ColourOf(e["player"], f + ".player") : kEmpty;
    if (const json* depth = Field(e, "untilDepth"); depth && !(depth->is_number_integer() && *depth == 1))
      throw Refusal{f + ".untilDepth", "only 1 (the root's moves) is supported, got " + depth->dump()};
    const json* moves = Field(e, "moves");
    if (!moves || !moves->is_array()) throw Refusal{f + ".moves", "expected an array of points"};
    for (size_t k = 0; k < moves->size(); ++k)
      q.avoid.emplace_back(who, PointOf((*moves)[k], q.board_size, f + ".moves[" + std::to_string(k) + "]"));
  }
}

ParsedQuery ParseObject(const json& o, const QueryLimits& limits, ParsedQuery r) {
  ParseAction(o, r);
  if (r.action != QueryAction::kAnalyze) return r;
  AnalysisQuery& q = r.query;
  q.id = r.id;
  ParsePosition(o, limits, q);
  ParseSearchLimits(o, limits, q);
  ParseAnalyzeTurns(o, Replay(q), q);
  ParseAvoidMoves(o, q);
  return r;
}

// The parser's messages may quote raw input bytes: keep them valid UTF-8
// (invalid bytes become U+FFFD) so the error line carries them unchanged.
std::string ValidUtf8(const std::string& s) {
  return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
}

}  // namespace

ParsedQuery ParseAnalysisQuery(std::string_view line, const QueryLimits& limits) {
  ParsedQuery r;
  json o;
  try {
    o = json::parse(line);
  } catch (const json::exception& e) {
    r.error = ValidUtf8(std::string("the line is not JSON: ") + e.what());
    return r;
  }
  if (!o.is_object()) {
    r.error = "a query is a JSON object, got " + std::string(o.type_name());
    return r;
  }
  const json* id = Field(o, "id");
  if (id && id->is_string()) r.id = id->get<std::string>();
  try {
    if (!id || !id->is_string() || r.id.empty()) throw Refusal{"id", "every query needs a non-empty string id"};
    return ParseObject(o, limits, r);
  } catch (const Refusal& refusal) {
    r.error = refusal.message;
    r.field = refusal.field;
  } catch (const json::exception& e) {  // a type mismatch the checks above missed
    r.error = std::string("malformed query: ") + e.what();
  } catch (const std::exception& e) {   // Board's RulesError, std::stoll ...
    r.error = std::string("invalid query: ") + e.what();
  }
  r.error = ValidUtf8(r.error);
  return r;
}

Board PositionAtTurn(const AnalysisQuery& q, int turn) {
  const int n = q.board_size;
  std::vector<int8_t> cells(static_cast<size_t>(n * n), kEmpty);
  int black = 0, white = 0;
  for (auto [c, p] : q.initial_stones) {
    cells[p] = c;
    (c == kBlack ? black : white) += 1;
  }
  const int8_t first = !q.moves.empty() ? q.moves.front().first : black == white ? kBlack : kWhite;
  Board b = Board::FromStones(n, q.rule, cells, first, kNoMove);
  for (int i = 0; i < turn; ++i) b.Play(q.moves[static_cast<size_t>(i)].second);
  return b;
}

std::string QueryErrorLine(const std::string& id, const std::string& field, const std::string& message) {
  json o;
  o["id"] = id;
  o["error"] = message;
  o["field"] = field;
  return o.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace gz
