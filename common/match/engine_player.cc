#include "common/match/engine_player.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/game/point_text.h"
#include "common/game/renju.h"

namespace gz {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::vector<std::string> SplitBlanks(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string FindInPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    std::string candidate = (d.empty() ? "." : d) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// A reply line shortened for messages (garbage can be long or binary).
std::string Printable(const std::string& line) {
  std::string out;
  for (char c : line.substr(0, 60)) out += (c >= 32 && c < 127) ? c : '?';
  if (line.size() > 60) out += "...";
  return out;
}

}  // namespace

EngineCommand ParseEngineCommand(const std::string& entry) {
  const std::string spec = StartsWith(entry, "engine:") ? entry.substr(7) : entry;
  EngineCommand cmd;
  cmd.name = StartsWith(entry, "engine:") ? entry : "engine:" + entry;
  std::vector<std::string> words = SplitBlanks(spec);
  if (words.empty()) GOMOKU_THROW(ConfigError, "'" << entry << "': engine: needs a command");
  if (words.size() == 1 && words[0].size() > 5 && words[0].substr(words[0].size() - 5) == ".json") {
    const std::string file = words[0];
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(ReadFileOrThrow(file));
    } catch (const std::exception& e) {
      GOMOKU_THROW(ConfigError, "'" << entry << "': cannot read engine settings " << file << ": " << e.what());
    }
    if (!j.is_object()) GOMOKU_THROW(ConfigError, "'" << entry << "': " << file << " is not a JSON object");
    for (auto& [k, v] : j.items())
      if (k != "command" && k != "dir" && k != "name")
        GOMOKU_THROW(ConfigError, "'" << entry << "': " << file << ": unknown key '" << k << "' (command, dir, name)");
    const fs::path base = fs::absolute(fs::path(file)).parent_path();
    cmd.dir = base.string();
    if (j.contains("dir")) {
      if (!j["dir"].is_string()) GOMOKU_THROW(ConfigError, "'" << entry << "': dir must be a string");
      fs::path d = j["dir"].get<std::string>();
      cmd.dir = (d.is_absolute() ? d : base / d).lexically_normal().string();
    }
    words.clear();
    const auto& c = j.value("command", nlohmann::json());
    if (c.is_string()) {
      words = SplitBlanks(c.get<std::string>());
    } else if (c.is_array()) {
      for (const auto& w : c) {
        if (!w.is_string()) GOMOKU_THROW(ConfigError, "'" << entry << "': command words must be strings");
        words.push_back(w.get<std::string>());
      }
    }
    if (words.empty()) GOMOKU_THROW(ConfigError, "'" << entry << "': " << file << " names no command");
    if (j.contains("name")) {
      if (!j["name"].is_string()) GOMOKU_THROW(ConfigError, "'" << entry << "': name must be a string");
      cmd.name = "engine:" + j["name"].get<std::string>();
    }
    if (StartsWith(words[0], "./") || StartsWith(words[0], "../"))
      words[0] = (fs::path(cmd.dir) / words[0]).lexically_normal().string();
  }
  if (words[0].find('/') == std::string::npos) {
    std::string found = FindInPath(words[0]);
    if (found.empty()) GOMOKU_THROW(ConfigError, "'" << entry << "': '" << words[0] << "' is not in PATH");
    words[0] = found;
  }
  if (::access(words[0].c_str(), X_OK) != 0)
    GOMOKU_THROW(ConfigError, "'" << entry << "': " << words[0] << " is not an executable file");
  if (!cmd.dir.empty() && !fs::is_directory(cmd.dir))
    GOMOKU_THROW(ConfigError, "'" << entry << "': working folder " << cmd.dir << " does not exist");
  cmd.argv = words;
  return cmd;
}

EngineMatchPlayer::EngineMatchPlayer(EngineCommand command, EngineLimits limits, std::string stderr_path)
    : MatchPlayer(command.name), command_(std::move(command)), limits_(limits), stderr_path_(std::move(stderr_path)) {}

EngineMatchPlayer::~EngineMatchPlayer() { EndGame(); }

Forfeit EngineMatchPlayer::Crashed(const std::string& when) {
  std::optional<int> code = process_ ? process_->WaitExit(std::chrono::milliseconds(500)) : std::nullopt;
  std::ostringstream os;
  os << "the engine " << (code ? "exited (status " + std::to_string(*code) + ")" : "closed its output") << " "
     << when;
  return {"crash", os.str()};
}

std::optional<Forfeit> EngineMatchPlayer::Send(const std::string& line) {
  try {
    if (limits_.as_manager) {
      std::string crlf;
      for (char c : line) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
      process_->Write(crlf + "\r\n");
    } else {
      process_->WriteLine(line);
    }
    return std::nullopt;
  } catch (const IoError&) {
    return Crashed("before '" + line + "' could be sent");
  }
}

std::optional<Forfeit> EngineMatchPlayer::NewGame(int size, Rule rule) {
  EndGame();
  known_moves_ = 0;
  told_position_ = false;
  used_ = std::chrono::milliseconds(0);
  std::vector<std::string> argv = command_.argv;
  if (!command_.dir.empty()) {
    // ChildProcess has no working-folder option: a shell changes folder and
    // execs the brain with its words passed as arguments (no quoting issues).
    argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", command_.dir};
    argv.insert(argv.end(), command_.argv.begin(), command_.argv.end());
  }
  try {
    ChildOptions options;
    options.stderr_path = stderr_path_;
    options.die_with_parent = true;  // a killed evaluator or arena leaves no brain behind
    process_ = std::make_unique<ChildProcess>(argv, options);
  } catch (const IoError& e) {
    return Forfeit{"start", std::string("cannot start the engine: ") + e.what()};
  }
  if (auto f = Send("START " + std::to_string(size))) return Forfeit{"start", f->reason};
  const auto deadline = Clock::now() + kEngineStartTimeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto line = process_->ReadLine(std::max(left, std::chrono::milliseconds(0)));
    if (!line) {
      if (process_->eof()) return Forfeit{"start", Crashed("before answering START").reason};
      return Forfeit{"start", "no answer to START within " + std::to_string(kEngineStartTimeout.count()) + " ms"};
    }
    if (StartsWith(*line, "MESSAGE") || StartsWith(*line, "DEBUG")) continue;
    if (*line == "OK") break;
    return Forfeit{"start", "START " + std::to_string(size) + " answered '" + Printable(*line) + "'"};
  }
  const int rule_value = limits_.info_rule >= 0 ? limits_.info_rule : GomocupRuleValue(rule);
  std::vector<std::string> infos = {"INFO timeout_turn " + std::to_string(limits_.turn_ms),
                                    "INFO timeout_match " + std::to_string(limits_.match_ms),
                                    "INFO max_memory " + std::to_string(limits_.max_memory)};
  if (limits_.as_manager) infos.push_back("INFO game_type 1");  // the manager's order: game_type before rule
  infos.push_back("INFO rule " + std::to_string(rule_value));
  for (const std::string& info : infos)
    if (auto f = Send(info)) return Forfeit{"start", f->reason};
  return std::nullopt;
}

MoveReply EngineMatchPlayer::Move(const Board& board, const std::vector<int>& history) {
  MoveReply r;
  if (!process_) {
    r.forfeit = Forfeit{"start", "the engine was not started"};
    return r;
  }
  const int size = board.size();
  // The time this move may take: the turn limit, or less when the match
  // clock has less left (Gomocup: whichever runs out first loses).
  int64_t limit_ms = limits_.turn_ms;
  if (limits_.match_ms > 0) {
    const int64_t left = std::max<int64_t>(0, limits_.match_ms - used_.count());
    limit_ms = std::min(limit_ms, left);
    if (auto f = Send("INFO time_left " + std::to_string(left))) {
      r.forfeit = f;
      return r;
    }
  }
  const auto start = Clock::now();
  std::optional<Forfeit> f;
  if (told_position_ && history.size() == known_moves_ + 1) {
    f = Send("TURN " + FormatPoint(history.back(), size));
  } else if (history.empty() && !limits_.as_manager) {
    f = Send("BEGIN");
  } else {
    // The position so far, in the order played: 1 = the engine's stones.
    std::string block = "BOARD\n";
    for (size_t i = 0; i < history.size(); ++i) {
      const int8_t colour = i % 2 == 0 ? kBlack : kWhite;
      block += FormatPoint(history[i], size) + "," + (colour == board.to_move() ? "1" : "2") + "\n";
    }
    block += "DONE";
    f = Send(block);
  }
  if (f) {
    r.forfeit = f;
    return r;
  }
  told_position_ = true;
  const std::chrono::milliseconds allowed(limit_ms + limits_.grace_ms);
  r = ReadMove(board, start + allowed, allowed, limit_ms);
  used_ += std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  if (!r.forfeit) known_moves_ = history.size() + 1;
  return r;
}

Forfeit EngineMatchPlayer::NoMove(std::chrono::milliseconds allowed, int64_t limit_ms) {
  if (process_->eof()) return Crashed("instead of moving");
  return Forfeit{"timeout", "no move within " + std::to_string(allowed.count()) + " ms (" +
                                (limit_ms < limits_.turn_ms ? "match time left " : "turn ") + std::to_string(limit_ms) +
                                " ms + grace " + std::to_string(limits_.grace_ms) + " ms)"};
}

MoveReply EngineMatchPlayer::ReadMove(const Board& board, Clock::time_point deadline,
                                      std::chrono::milliseconds allowed, int64_t limit_ms) {
  MoveReply r;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto line = process_->ReadLine(std::max(left, std::chrono::milliseconds(0)));
    if (!line) {
      r.forfeit = NoMove(allowed, limit_ms);
      return r;
    }
    if (limits_.as_manager) {
      if (ReadsAsManager(*line, board, &r)) return r;
      continue;
    }
    if (StartsWith(*line, "MESSAGE") || StartsWith(*line, "DEBUG") || StartsWith(*line, "SUGGEST")) continue;
    const std::optional<PointXY> xy = ParseXY(*line);  // common/game/point_text.h
    if (!xy) {
      r.forfeit = Forfeit{"malformed", "reply '" + Printable(*line) + "' is not a move x,y"};
      return r;
    }
    std::string off;
    const std::optional<int> at = PointFromXY(*xy, board.size(), &off);
    if (!at) {
      r.forfeit = Forfeit{"illegal", "reply '" + Printable(*line) + "': " + off};
      return r;
    }
    const int point = *at;
    if (!board.IsLegal(point)) {
      const std::string where = "move " + FormatXY(*xy);
      r.forfeit = Forfeit{"illegal", board.at(point) != kEmpty ? where + " is on an occupied point"
                                                               : where + " is " + IllegalBecause(board, point)};
      return r;
    }
    r.move = point;
    return r;
  }
}


bool EngineMatchPlayer::ReadsAsManager(const std::string& line, const Board& board, MoveReply* r) {
  std::string lower = line;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (StartsWith(lower, "message")) return false;
  // The manager reads "x,y" with Python's int() on each side: blanks, a sign
  // and digits, as point_text.h's grammar reads them.
  const std::optional<PointXY> xy = ParseXY(line);
  if (!xy) {
    ++skipped_lines_;
    if (StartsWith(line, "ERROR")) {
      ++error_lines_;
      last_error_line_ = Printable(line);
    }
    return false;
  }
  std::string off;
  const std::optional<int> point = PointFromXY(*xy, board.size(), &off);
  if (!point)
    r->forfeit = Forfeit{"crash", "reply '" + Printable(line) + "': " + off};
  else if (board.at(*point) != kEmpty)
    r->forfeit = Forfeit{"illegal", "move " + FormatXY(*xy) + " is on an occupied point"};
  else
    r->move = *point;
  return true;
}

void EngineMatchPlayer::EndGame() noexcept {
  if (!process_) return;
  try {
    if (limits_.as_manager)
      process_->Write("END\r\n");
    else
      process_->WriteLine("END");
    process_->CloseStdin();
    if (!process_->WaitExit(std::chrono::milliseconds(1000)))
      spdlog::debug("match: {} did not exit within 1 s of END; killed", name());
  } catch (const std::exception&) {
    // already dead: the destructor reaps it
  }
  process_.reset();  // kills (SIGKILL) and reaps a process still running
}

int GomocupRuleValue(Rule rule) {
  switch (rule) {
    case Rule::kFreestyle: return 0;
    case Rule::kStandard: return 1;
    case Rule::kRenju: return 4;
    case Rule::kCaro: return 9;           // caro (8) with exactly five (1): the manager's rule 9
    case Rule::kCaroOverline: return 8;   // caro alone: the manager's rule 8, an overline wins
  }
  return 0;
}

std::string IllegalBecause(const Board& board, int point) {
  if (point >= 0 && point < board.num_points() && board.at(point) == kEmpty && !board.terminal() &&
      board.rule() == Rule::kRenju && board.to_move() == kBlack) {
    const ForbiddenReason why = ForbiddenReasonForBlack(board, point);
    if (why != ForbiddenReason::kNone) return std::string("forbidden for black under renju: ") + ForbiddenReasonName(why);
  }
  return "not a legal move";
}

std::string ProbeEngine(const EngineCommand& command, int size, Rule rule, const std::string& stderr_path) {
  EngineMatchPlayer p(command, EngineLimits{}, stderr_path);
  auto f = p.NewGame(size, rule);
  p.EndGame();
  return f ? f->reason : "";
}

}  // namespace gz
