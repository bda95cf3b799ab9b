#include "evaluator/eval_loop.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"
#include "common/net/net_api.h"
#include "evaluator/ratings_file.h"
#include "common/match/openings.h"

namespace gz {
namespace {

constexpr double kHeartbeatSeconds = 2.0;

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
std::string Name(int64_t it) { return "checkpoint:" + std::to_string(it); }
int64_t Arg(const std::string& entry) { return std::stoll(entry.substr(entry.find(':') + 1)); }

}  // namespace

EvalLoop::EvalLoop(const Config& cfg, const RunLayout& run, const std::atomic<bool>& stop)
    : cfg_(cfg), run_(run), paths_(run), stop_(stop), log_(paths_.results) {
  namespace f = fields::evaluator_status;
  status_ = {{f::kPid, static_cast<int>(::getpid())}, {f::kState, "starting"},  {f::kStarted, NowSeconds()},
             {f::kHeartbeat, NowSeconds()},           {f::kCheckpoint, nullptr}, {f::kOpponent, nullptr},
             {f::kEntry, nullptr},                    {f::kGamesDone, 0},       {f::kGamesTotal, 0},
             {f::kEvaluations, log_.evaluations().size()},
             {f::kLastEvaluated, log_.evaluations().empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(log_.evaluations().back().iteration)},
             {f::kMessage, ""}};
  status_[f::kPinnedCheckpoints] = PinnedCheckpoints();
  StampRecordVersion(status_, kEvaluatorStatusRecord);
  MakeDirs(run_.status_dir());
  MakeDirs(run_.logs());
  // Temp files of an evaluator killed mid-write (it runs alone on a run).
  const std::string ratings_name = std::filesystem::path(paths_.ratings).filename().string();
  const std::string status_name = std::filesystem::path(paths_.status).filename().string();
  const int removed =
      RemoveTempFilesOf(std::filesystem::path(paths_.ratings).parent_path().string(),
                        [&](const std::string& n) { return n == ratings_name; }) +
      RemoveTempFilesOf(std::filesystem::path(paths_.status).parent_path().string(),
                        [&](const std::string& n) { return n == status_name; });
  if (removed > 0) spdlog::info("evaluator: removed {} temp file(s) left by an evaluator killed mid-write", removed);
  WriteStatus();
  heartbeat_ = std::thread([this] { Heartbeat(); });
  try {
    CheckLadder();
    WriteRatingsFile(paths_.ratings, log_, cfg_.eval.anchor);  // a full disk throws IoError here
  } catch (const std::exception& e) {
    SetStatus("error", {{fields::evaluator_status::kMessage, e.what()}});
    heartbeat_stop_ = true;  // the destructor does not run for a constructor that throws
    heartbeat_.join();
    throw;
  }
}

EvalLoop::~EvalLoop() {
  heartbeat_stop_ = true;
  if (heartbeat_.joinable()) heartbeat_.join();
}

void EvalLoop::CheckLadder() {
  for (const std::string& entry : cfg_.eval.ladder) {
    if (StartsWith(entry, "checkpoint:")) {
      const std::string path = run_.checkpoint(Arg(entry));
      if (!FileExists(path))
        GOMOKU_THROW(ConfigError, "eval.ladder entry '" << entry << "': " << path << " does not exist");
      try {
        CheckpointInfo info = ReadCheckpointInfo(path);
        if (!CheckpointPlaysSize(info, cfg_.board.size))  // conv heads play any size
          GOMOKU_THROW(ConfigError, "eval.ladder entry '" << entry << "': trained for " << info.board_size << "x"
                                                          << info.board_size << " (" << info.heads
                                                          << " heads), the run plays " << cfg_.board.size << "x"
                                                          << cfg_.board.size);
      } catch (const ModelError& e) {
        GOMOKU_THROW(ConfigError, "eval.ladder entry '" << entry << "': " << e.what());
      }
    } else if (StartsWith(entry, "engine:")) {
      EngineCommand cmd = ParseEngineCommand(entry);  // ConfigError naming the entry
      std::string why = ProbeEngine(cmd, cfg_.board.size, cfg_.rule(), paths_.engine_stderr);
      if (!why.empty()) GOMOKU_THROW(ConfigError, "eval.ladder entry '" << entry << "' cannot start: " << why);
      spdlog::info("evaluator: {} answers START {}", entry, cfg_.board.size);
    }
  }
}

PlayerOptions EvalLoop::Options(uint64_t seed) const {
  PlayerOptions o = PlayerOptions::FromConfig(cfg_, seed, cfg_.eval.threads);
  o.engine_stderr = paths_.engine_stderr;
  return o;
}

std::optional<int64_t> EvalLoop::PublishedCheckpoint() const {
  try {
    if (auto m = ReadMetadata(run_.metadata())) {
      const std::string file = m->weights.substr(m->weights.find_last_of('/') + 1);
      if (auto it = ParseIterationNumber(file, RunLayout::kCheckpointPrefix, RunLayout::kCheckpointSuffix); it && FileExists(run_.checkpoint(*it)))
        return it;
    }
  } catch (const std::exception& e) {
    spdlog::warn("evaluator: {}: {}", run_.metadata(), e.what());
  }
  std::vector<int64_t> all = ListCheckpointIterations(run_.checkpoints());
  if (all.empty()) return std::nullopt;
  return all.back();
}

void EvalLoop::SetStatus(const std::string& state, const nlohmann::json& updates) {
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    status_[fields::evaluator_status::kState] = state;
    if (updates.is_object())
      for (auto& [k, v] : updates.items()) status_[k] = v;
  }
  WriteStatus();
}

void EvalLoop::WriteStatus() {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    status_[fields::evaluator_status::kHeartbeat] = NowSeconds();
    text = status_.dump();
  }
  try {
    WriteFileAtomic(paths_.status, text);
  } catch (const std::exception& e) {
    spdlog::warn("evaluator: cannot write {}: {}", paths_.status, e.what());
  }
}

void EvalLoop::Heartbeat() {
  double next = MonotonicSeconds() + kHeartbeatSeconds;
  while (!heartbeat_stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (MonotonicSeconds() < next) continue;
    next = MonotonicSeconds() + kHeartbeatSeconds;
    WriteStatus();
  }
}

int EvalLoop::Run() {
  try {
    while (!stop_) {
      std::optional<int64_t> target;
      // A restart first finishes the evaluation it was killed in.
      if (!log_.evaluations().empty()) {
        const EvaluationRecord& last = log_.evaluations().back();
        if (!last.Complete() && !attempted_.count(last.iteration)) target = last.iteration;
      }
      if (!target) {
        std::optional<int64_t> newest = PublishedCheckpoint();
        const EvaluationRecord* last = log_.evaluations().empty() ? nullptr : &log_.evaluations().back();
        if (newest && (!last || *newest >= last->iteration + cfg_.eval.every) && !attempted_.count(*newest))
          target = newest;
      }
      if (!target) {
        SetStatus("waiting", {{fields::evaluator_status::kCheckpoint, nullptr},
                            {fields::evaluator_status::kOpponent, nullptr},
                            {fields::evaluator_status::kEntry, nullptr}});
        for (int i = 0; i < 10 && !stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      attempted_.insert(*target);
      Evaluate(*target);
    }
  } catch (const std::exception& e) {
    SetStatus("error", {{fields::evaluator_status::kMessage, e.what()}});
    throw;
  }
  SetStatus("stopped", {{fields::evaluator_status::kCheckpoint, nullptr},
                        {fields::evaluator_status::kOpponent, nullptr},
                        {fields::evaluator_status::kEntry, nullptr}});
  return 0;
}

std::unique_ptr<MatchPlayer> EvalLoop::Opponent(const std::string& entry, int64_t it, std::string* name) {
  const uint64_t seed = cfg_.run.seed * 7919 + 17;
  if (StartsWith(entry, "rollout:") || StartsWith(entry, "classical:")) {
    *name = entry;
    return MakeMatchPlayer(entry, cfg_, cfg_.eval.simulations, Options(seed));
  }
  if (StartsWith(entry, "net:")) {  // a fixed net outside the run: a rung that does not move
    *name = entry;
    try {
      return MakeMatchPlayer(entry, cfg_, cfg_.eval.simulations, Options(seed));
    } catch (const std::exception& e) {
      spdlog::warn("evaluator: {} skipped for {}: {}", entry, Name(it), e.what());
      return nullptr;
    }
  }
  if (StartsWith(entry, "engine:")) {
    auto p = MakeMatchPlayer(entry, cfg_, cfg_.eval.simulations, Options(seed));
    *name = p->name();
    return p;
  }
  int64_t other = -1;
  if (StartsWith(entry, "checkpoint:")) {
    other = Arg(entry);
  } else if (StartsWith(entry, "previous:")) {
    const int64_t k = Arg(entry);
    const auto& evals = log_.evaluations();
    int64_t pos = -1;
    for (size_t i = 0; i < evals.size(); ++i)
      if (evals[i].iteration == it) pos = static_cast<int64_t>(i);
    if (pos < 0) pos = static_cast<int64_t>(evals.size());  // not listed yet: it will be the next
    if (pos - k < 0) {
      spdlog::info("evaluator: {} skipped for {}: only {} earlier evaluation(s)", entry, Name(it), pos);
      return nullptr;
    }
    other = evals[static_cast<size_t>(pos - k)].iteration;
  } else {
    GOMOKU_THROW(ConfigError, "eval.ladder entry '" << entry << "': unknown kind");
  }
  *name = Name(other);
  if (other == it) {
    spdlog::info("evaluator: {} skipped for {}: it is the player under test", entry, Name(it));
    return nullptr;
  }
  const std::string path = run_.checkpoint(other);
  try {
    return MakeNetPlayer(*name, path, cfg_.eval.simulations, cfg_, Options(seed));
  } catch (const std::exception& e) {
    // Retention may have deleted it since.
    spdlog::warn("evaluator: {} ({}) skipped for {}: {}", entry, *name, Name(it), e.what());
    return nullptr;
  }
}

nlohmann::json EvalLoop::PinnedCheckpoints() const {
  std::set<int64_t> pins;
  int64_t max_k = 0;
  for (const std::string& entry : cfg_.eval.ladder) {
    if (StartsWith(entry, "checkpoint:")) pins.insert(Arg(entry));
    if (StartsWith(entry, "previous:")) max_k = std::max(max_k, Arg(entry));
  }
  const auto& evals = log_.evaluations();
  const int64_t n = static_cast<int64_t>(evals.size());
  for (int64_t i = std::max<int64_t>(0, n - max_k); i < n; ++i) pins.insert(evals[static_cast<size_t>(i)].iteration);
  return nlohmann::json(std::vector<int64_t>(pins.begin(), pins.end()));
}

// One iteration's evaluation: the player under test and its resolved ladder.
struct EvalLoop::Evaluation {
  int64_t it = 0;
  int64_t generation = 0;
  std::unique_ptr<MatchPlayer> player;
  std::vector<std::pair<std::string, std::unique_ptr<MatchPlayer>>> opponents;  // (ladder entry, player)
  nlohmann::json listed = nlohmann::json::array();  // the opponents as the evaluation line lists them
  int done = 0;                                      // games played, earlier sessions' included
};

void EvalLoop::Evaluate(int64_t it) {
  Evaluation ev;
  ev.it = it;
  if (!LoadPlayer(ev)) return;
  ResolveLadder(ev);
  Announce(ev);
  // The even set where the board has one (15x15 freestyle), else 2 random stones (common/match/openings.h).
  const std::vector<Opening> openings = DefaultOpeningSet(cfg_.board.size, cfg_.rule());
  for (auto& [entry, opponent] : ev.opponents) {
    SetStatus("playing", {{fields::evaluator_status::kOpponent, opponent->name()},
                          {fields::evaluator_status::kEntry, entry}});
    for (int g = 0; g < cfg_.eval.games; ++g) {
      if (stop_) return;
      if (log_.Find(it)->Has(entry, g)) continue;
      if (!PlayEvalGame(ev, entry, *opponent, g, OpeningForGame(openings, g))) return;
    }
  }
  WriteRatingsFile(paths_.ratings, log_, cfg_.eval.anchor);
  spdlog::info("evaluator: {} done", Name(it));
}

bool EvalLoop::LoadPlayer(Evaluation& ev) {
  const std::string path = run_.checkpoint(ev.it);
  try {
    ev.generation = ReadCheckpointInfo(path).model_generation;
    ev.player = MakeNetPlayer(Name(ev.it), path, cfg_.eval.simulations, cfg_, Options(cfg_.run.seed));
  } catch (const std::exception& e) {
    spdlog::warn("evaluator: cannot evaluate {}: {}", path, e.what());
    return false;
  }
  return true;
}

// The ladder is resolved first, so that the evaluation line lists its opponents.
void EvalLoop::ResolveLadder(Evaluation& ev) {
  for (const std::string& entry : cfg_.eval.ladder) {
    std::string name;
    auto p = Opponent(entry, ev.it, &name);
    if (!p) continue;
    ev.listed.push_back({{fields::eval_result::kEntry, entry}, {fields::eval_result::kName, name}});
    ev.opponents.emplace_back(entry, std::move(p));
  }
}

void EvalLoop::Announce(Evaluation& ev) {
  namespace rf = fields::eval_result;
  const int games = cfg_.eval.games;
  nlohmann::json evaluation = {{rf::kType, rf::kTypeEvaluation}, {rf::kIteration, ev.it},
                               {rf::kGeneration, ev.generation},   {rf::kPlayer, Name(ev.it)},
                               {rf::kOpponents, ev.listed},        {rf::kGames, games},
                               {rf::kSimulations, cfg_.eval.simulations}, {rf::kTime, NowSeconds()}};
  if (!ev.player->forward().empty()) evaluation[rf::kForward] = ev.player->forward();
  StampRecordVersion(evaluation, kEvalResultRecord);
  log_.AppendEvaluation(evaluation);
  const EvaluationRecord* record = log_.Find(ev.it);
  for (auto& [entry, p] : ev.opponents)
    for (int g = 0; g < games; ++g) ev.done += record->Has(entry, g) ? 1 : 0;
  const int total = games * static_cast<int>(ev.opponents.size());
  spdlog::info("evaluator: evaluating {} (generation {}): {} opponent(s), {} of {} games already played", Name(ev.it),
               ev.generation, ev.opponents.size(), ev.done, total);
  namespace sf = fields::evaluator_status;
  SetStatus("playing", {{sf::kCheckpoint, ev.it}, {sf::kGamesDone, ev.done}, {sf::kGamesTotal, total},
                        {sf::kEvaluations, log_.evaluations().size()}, {sf::kLastEvaluated, ev.it},
                        {sf::kPinnedCheckpoints, PinnedCheckpoints()}});
}

bool EvalLoop::PlayEvalGame(Evaluation& ev, const std::string& entry, MatchPlayer& opponent, int g,
                        const Opening& opening) {
  MatchPlayer& player = *ev.player;
  const bool black = g % 2 == 0;
  GameResult r = black ? PlayGame(player, opponent, cfg_.board.size, cfg_.rule(), opening, &stop_)
                       : PlayGame(opponent, player, cfg_.board.size, cfg_.rule(), opening, &stop_);
  if (r.end == "stopped") return false;
  const int8_t colour = black ? kBlack : kWhite;
  const double score = r.winner == 0 ? 0.5 : r.winner == colour ? 1.0 : 0.0;
  namespace rf = fields::eval_result;
  nlohmann::json line = {
      {rf::kType, rf::kTypeGame},
      {rf::kIteration, ev.it},
      {rf::kGeneration, ev.generation},
      {rf::kPlayer, Name(ev.it)},
      {rf::kEntry, entry},
      {rf::kOpponent, opponent.name()},
      {rf::kGame, g},
      {rf::kColour, black ? "black" : "white"},
      {rf::kOpening, opening},
      {rf::kMoves, r.moves},
      {rf::kResult, score == 1.0 ? "win" : score == 0.0 ? "loss" : "draw"},
      {rf::kScore, score},
      {rf::kEnd, r.end},
      {rf::kForfeitKind, r.end == "forfeit" ? nlohmann::json(r.forfeit_kind) : nlohmann::json(nullptr)},
      {rf::kReason, r.reason},
      {rf::kSeconds, r.seconds},
      {rf::kTime, NowSeconds()}};
  if (!player.forward().empty()) line[rf::kForward] = player.forward();
  if (!opponent.forward().empty()) line[rf::kOpponentForward] = opponent.forward();
  StampRecordVersion(line, kEvalResultRecord);
  log_.AppendGame(line);
  WriteRatingsFile(paths_.ratings, log_, cfg_.eval.anchor);
  ++ev.done;
  spdlog::info("evaluator: {} vs {} game {}/{} as {}: {} ({}, {} moves)", Name(ev.it), opponent.name(), g + 1,
               cfg_.eval.games, black ? "black" : "white", score == 1.0 ? "win" : score == 0.0 ? "loss" : "draw",
               r.reason, r.moves.size());
  SetStatus("playing", {{fields::evaluator_status::kGamesDone, ev.done}});
  return true;
}

}  // namespace gz
