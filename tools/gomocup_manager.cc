#include "tools/gomocup_manager.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "common/base/errors.h"
#include "common/game/board.h"
#include "common/game/point_text.h"
#include "tools/process_memory.h"

namespace gz {
namespace {

// The brief's and test_zip_rules.py's checks, by kind.
const PositionCheck kFourInRow{"h8h9i8i9j8j9k8k9", {"g8", "l8"}, {}};  // black to move: the open four's five
const PositionCheck kStandardThree{"h8h9i8h10g8h11j13h12g14h14i15", {"f8", "j8"}, {}};  // white: h13 is an overline
const PositionCheck kRenjuFoul{"h8h9i7i9h10i6i11i12", {}, {"g9"}};  // black: g9 is a double three
const PositionCheck kCaroBlocked{"h8f8g8f9i8f7j8l8", {"f5", "f6", "f10", "f11"}, {}};  // black: k8 is blocked

// The Board our player interface reads: the stones and the side to move only
// (EngineLimits::as_manager leaves judging to the referee).
Board BoardOf(int size, const std::vector<int>& history) {
  std::vector<int8_t> cells(size * size, kEmpty);
  for (size_t i = 0; i < history.size(); ++i) cells[history[i]] = i % 2 == 0 ? kBlack : kWhite;
  return Board::FromStones(size, Rule::kFreestyle, cells, history.size() % 2 == 0 ? kBlack : kWhite);
}

// The common/game rule handed to EngineMatchPlayer::NewGame; INFO rule is the
// exact value (EngineLimits::info_rule), so this only names the game.
Rule PlayerRule(int rule) {
  switch (rule) {
    case 1: return Rule::kStandard;
    case 4: return Rule::kRenju;
    case 8: return Rule::kCaroOverline;
    case 9: return Rule::kCaro;
    default: return Rule::kFreestyle;
  }
}

ManagerEnd EndOfForfeit(const std::string& kind) {
  if (kind == "timeout") return ManagerEnd::kTimeout;
  if (kind == "illegal") return ManagerEnd::kIllegal;
  return ManagerEnd::kCrash;  // crash, start, memory: the manager's "crash" (MLE is raised as one)
}

}  // namespace

std::string PositionCheck::Expected() const {
  std::string out;
  const std::vector<std::string>& list = accept.empty() ? reject : accept;
  for (size_t i = 0; i < list.size(); ++i) out += (i == 0 ? "" : (i + 1 == list.size() ? " or " : ", ")) + list[i];
  return accept.empty() ? "not " + out : out;
}

const std::vector<ManagerFormat>& ManagerFormats() {
  // The time controls are the checker's (fastgame: 5 s a move, 100 s a game).
  static const std::vector<ManagerFormat> formats = {
      {"freestyle20", "Freestyle 20x20", 20, 0, 30000, 180000, {kFourInRow}},
      {"fastgame", "Fastgame 20x20", 20, 0, 5000, 100000, {kFourInRow}},
      {"freestyle15", "Freestyle 15x15", 15, 0, 30000, 180000, {kFourInRow}},
      {"standard", "Standard 15x15", 15, 1, 30000, 180000, {kFourInRow, kStandardThree}},
      {"renju", "Renju 15x15", 15, 4, 30000, 180000, {kFourInRow, kRenjuFoul}},
      {"caro", "Caro 15x15", 15, 8, 30000, 180000, {kFourInRow, kCaroBlocked}},
  };
  return formats;
}

const ManagerFormat& FindManagerFormat(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string names;
  for (const ManagerFormat& f : ManagerFormats()) {
    if (f.name == lower) return f;
    names += (names.empty() ? "" : ", ") + f.name;
  }
  GOMOKU_THROW(ConfigError, "--format: unknown format '" << name << "' (" << names << ")");
}

ManagedBrain::ManagedBrain(std::string name, const EngineCommand& command, EngineLimits limits, int64_t memory_limit,
                           const std::string& stderr_path)
    : name_(std::move(name)), player_(command, [&] {
        limits.as_manager = true;
        return limits;
      }(), stderr_path), memory_limit_(memory_limit) {
  player_.set_name(name_);
}

ManagedBrain::~ManagedBrain() { EndGame(); }

std::optional<Forfeit> ManagedBrain::NewGame(int size, int rule) {
  auto f = player_.NewGame(size, PlayerRule(rule));
  if (!f) SuspendTree(player_.pid());  // idle until its first move is owed
  return f;
}

MoveReply ManagedBrain::Move(int size, const std::vector<int>& history) {
  const int pid = player_.pid();
  ResumeTree(pid);
  const auto start = std::chrono::steady_clock::now();
  MoveReply r = player_.Move(BoardOf(size, history), history);
  slowest_ms_ = std::max<int64_t>(
      slowest_ms_,
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
  SuspendTree(pid);
  // The manager sums the tree after the move, suspended, and keeps the peak.
  bool rss = false;
  const int64_t now = ProcessTreeUssBytes(pid, &rss);
  rss_fallback_ |= rss;
  peak_ = std::max(peak_, now);
  if (!r.forfeit && memory_limit_ > 0 && now > memory_limit_)
    r.forfeit = Forfeit{"memory", "process tree " + std::to_string(now >> 20) + " MB after the move, over max_memory " +
                                      std::to_string(memory_limit_ >> 20) + " MB"};
  return r;
}

void ManagedBrain::EndGame() noexcept {
  if (player_.pid() > 0) ResumeTree(player_.pid());  // END must be read
  player_.EndGame();
}

ManagerGame PlayManagerGame(ManagedBrain& black, ManagedBrain& white, int size, int rule,
                            const std::vector<std::pair<int, int>>& opening) {
  ManagerGame g;
  ManagerReferee ref(size, rule);
  for (size_t i = 0; i < opening.size(); ++i) {
    ref.Place(opening[i].first, opening[i].second, i % 2 == 0 ? 1 : 2);
    g.moves.push_back(opening[i].second * size + opening[i].first);
  }
  ManagedBrain* brains[3] = {nullptr, &black, &white};
  // The manager starts each brain when its first move is owed; here both
  // start first (a start failure is a crash of that brain either way).
  for (int colour : {1, 2}) {
    if (auto f = brains[colour]->NewGame(size, rule)) {
      g.end = ManagerEnd::kCrash;
      g.winner = 3 - colour;
      g.loser_name = brains[colour]->name();
      g.reason = f->reason;
      black.EndGame();
      white.EndGame();
      return g;
    }
  }
  while (ref.MoveOwed()) {
    const int colour = ref.to_move();
    ManagedBrain& brain = *brains[colour];
    const MoveReply r = brain.Move(size, g.moves);
    if (r.forfeit) {
      g.end = EndOfForfeit(r.forfeit->kind);
      g.winner = 3 - colour;
      g.loser_name = brain.name();
      g.reason = r.forfeit->kind + ": " + r.forfeit->reason;
      break;
    }
    const int x = r.move % size, y = r.move / size;
    const ManagerEnd e = ref.Play(x, y);
    g.moves.push_back(r.move);
    if (e == ManagerEnd::kFoul || e == ManagerEnd::kIllegal || e == ManagerEnd::kCrash) {
      g.loser_name = brain.name();
      g.reason = std::string(ManagerEndName(e)) + ": " + LetterPoint(x, y) + " (" + FormatPoint(r.move, size) + ")";
    }
  }
  if (g.end == ManagerEnd::kOngoing) {
    g.end = ref.end();
    g.winner = ref.winner();
  }
  black.EndGame();
  white.EndGame();
  return g;
}

std::string RunPositionCheck(const EngineCommand& engine, const ManagerFormat& format, const PositionCheck& check,
                             EngineLimits limits, const std::string& stderr_path, std::string* reply) {
  limits.info_rule = format.rule;
  ManagedBrain brain("brain", engine, limits, 0, stderr_path);
  if (auto f = brain.NewGame(format.size, format.rule)) return "start: " + f->reason;
  std::vector<int> history;
  for (auto [x, y] : ParseLetterMoves(check.moves)) history.push_back(y * format.size + x);
  const MoveReply r = brain.Move(format.size, history);
  brain.EndGame();
  if (r.forfeit) return r.forfeit->kind + ": " + r.forfeit->reason;
  const std::string move = LetterPoint(r.move % format.size, r.move / format.size);
  if (reply) *reply = move;
  const bool ok = check.accept.empty()
                      ? std::find(check.reject.begin(), check.reject.end(), move) == check.reject.end()
                      : std::find(check.accept.begin(), check.accept.end(), move) != check.accept.end();
  return ok ? "" : "move " + move + " did not match expected '" + check.Expected() + "'";
}

}  // namespace gz
