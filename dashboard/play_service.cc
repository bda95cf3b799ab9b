#include "dashboard/play_service.h"

#include <algorithm>
#include <random>

#include <spdlog/spdlog.h>

#include "common/config/config.h"
#include "common/game/board.h"
#include "dashboard/http_types.h"
#include "dashboard/run_net.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"

namespace gz {

using Clock = std::chrono::steady_clock;

struct PlayService::Game {
  std::mutex mu;  // one request at a time on this game
  std::string id;
  int64_t checkpoint = 0;  // the run's checkpoint played; -1: a shipped net (net says which)
  std::string net;         // "checkpoint N" | "shipped net NAME"
  int8_t human = kBlack;
  Board board;
  std::vector<int> moves;
  nlohmann::json engine_last = nullptr;
  std::unique_ptr<EvaluatorSource> source;
  std::unique_ptr<SearchPlayer> player;
  Config config;
  std::atomic<Clock::rep> last_used{0};

  void Touch() { last_used = Clock::now().time_since_epoch().count(); }
};

namespace {

std::string NewId() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

const char* ColourName(int8_t c) { return c == kBlack ? "black" : "white"; }

nlohmann::json StateOf(const std::string& id, int64_t checkpoint, const std::string& net, int8_t human,
                       const Board& b, const std::vector<int>& moves, const nlohmann::json& engine_last,
                       int simulations) {
  nlohmann::json result = nullptr;
  if (b.outcome() == Outcome::kDraw) result = "draw";
  if (b.outcome() == Outcome::kBlackWins) result = "black";
  if (b.outcome() == Outcome::kWhiteWins) result = "white";
  return {{"id", id},
          {"board_size", b.size()},
          {"rule", RuleName(b.rule())},
          {"human", ColourName(human)},
          {"to_move", ColourName(b.to_move())},
          {"cells", b.cells()},
          {"moves", moves},
          {"engine", engine_last},
          {"over", b.terminal()},
          {"result", result},
          {"checkpoint", checkpoint},
          {"net", net},
          {"simulations", simulations}};
}

}  // namespace

PlayService::PlayService(std::string run_dir, DashboardConfig settings)
    : run_dir_(std::move(run_dir)), settings_(settings) {
  reaper_.Start("PlayService reaper", std::clamp(settings_.idle_timeout_s / 4, 0.05, 1.0),
                PeriodicThread::FirstTick::kAfterPeriod, [this] { Reap(); });
}

PlayService::~PlayService() { reaper_.Stop(); }

void PlayService::Reap() {
  const auto now = Clock::now().time_since_epoch().count();
  const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(settings_.idle_timeout_s)).count();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = games_.begin(); it != games_.end();) {
    if (now - it->second->last_used.load() > limit) {
      spdlog::info("browser game {} ended: idle for more than {} s", it->first, settings_.idle_timeout_s);
      it = games_.erase(it);  // a request still holding the game keeps it until it returns
    } else {
      ++it;
    }
  }
}

std::shared_ptr<PlayService::Game> PlayService::Find(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = games_.find(id);
  if (it == games_.end())
    throw HttpError(404, "no browser game '" + id + "' (unknown, or ended after " +
                             std::to_string(static_cast<int>(settings_.idle_timeout_s)) + " s idle)");
  return it->second;
}

nlohmann::json PlayService::NewGame(const std::string& colour) {
  if (colour != "black" && colour != "white") throw HttpError(400, "colour must be \"black\" or \"white\"");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<int>(games_.size()) + starting_ >= settings_.max_games)
      throw HttpError(429, "at most " + std::to_string(settings_.max_games) +
                               " browser games at once (dashboard.max_games); end one or wait for one to idle out");
    ++starting_;
  }
  struct Release {
    PlayService* s;
    ~Release() {
      std::lock_guard<std::mutex> lock(s->mu_);
      --s->starting_;
    }
  } release{this};

  RunNet net = NewestRunNet(run_dir_, "nothing to play against");
  auto g = std::make_shared<Game>();
  g->id = NewId();
  g->human = colour == "black" ? kBlack : kWhite;
  g->config = std::move(net.config);
  g->config.mcts.tree_reuse = false;  // a fresh tree per move, as the evaluator plays
  g->checkpoint = net.checkpoint;
  g->net = net.name;
  g->source = std::make_unique<EvaluatorSource>(net.weights, g->config);
  const int size = g->config.board.size;
  const std::string why = g->source->CheckSize(size);
  if (!why.empty()) throw HttpError(503, "the newest checkpoint cannot play: " + why);
  g->board = Board(size, ParseRule(g->config.board.rule));
  g->player = std::make_unique<SearchPlayer>(*g->source, g->config);
  g->Touch();
  if (g->human == kWhite) {
    SearchLimits limits;
    limits.max_simulations = settings_.simulations;
    MoveDecision d = g->player->ChooseMove(g->board, limits);
    g->board.Play(d.move);
    g->moves.push_back(d.move);
    g->engine_last = {{"point", d.move}, {"value", d.value}, {"reason", d.reason}, {"simulations", d.simulations}};
  }
  nlohmann::json state = StateOf(g->id, g->checkpoint, g->net, g->human, g->board, g->moves, g->engine_last,
                                 settings_.simulations);
  {
    std::lock_guard<std::mutex> lock(mu_);
    games_[g->id] = g;
  }
  spdlog::info("browser game {} started: human {}, {} ({}); search settings {}", g->id, colour, g->net,
               g->source->Describe(), g->config.DescribePlaySettings());
  return state;
}

nlohmann::json PlayService::Move(const std::string& id, int64_t row, int64_t col) {
  std::shared_ptr<Game> g = Find(id);
  std::lock_guard<std::mutex> lock(g->mu);
  g->Touch();
  const int n = g->board.size();
  if (g->board.terminal()) throw HttpError(400, "the game is over");
  if (g->board.to_move() != g->human) throw HttpError(400, "it is not your turn");
  if (row < 0 || row >= n || col < 0 || col >= n)
    throw HttpError(400, "point (" + std::to_string(row) + ", " + std::to_string(col) + ") is off the " +
                             std::to_string(n) + "x" + std::to_string(n) + " board");
  const int point = static_cast<int>(row) * n + static_cast<int>(col);
  if (!g->board.IsLegal(point))
    throw HttpError(400, "point (" + std::to_string(row) + ", " + std::to_string(col) + ") is occupied");
  g->board.Play(point);
  g->moves.push_back(point);
  if (!g->board.terminal()) {
    SearchLimits limits;
    limits.max_simulations = settings_.simulations;
    MoveDecision d;
    try {
      d = g->player->ChooseMove(g->board, limits);
    } catch (const GomokuError& e) {
      // Undo the human's move so the game stays consistent and can be retried.
      g->board.Remove(point);
      g->moves.pop_back();
      throw HttpError(500, std::string("the engine failed: ") + e.what());
    }
    g->board.Play(d.move);
    g->moves.push_back(d.move);
    g->engine_last = {{"point", d.move}, {"value", d.value}, {"reason", d.reason}, {"simulations", d.simulations}};
  }
  g->Touch();
  return StateOf(g->id, g->checkpoint, g->net, g->human, g->board, g->moves, g->engine_last, settings_.simulations);
}

nlohmann::json PlayService::State(const std::string& id) {
  std::shared_ptr<Game> g = Find(id);
  std::lock_guard<std::mutex> lock(g->mu);
  g->Touch();
  return StateOf(g->id, g->checkpoint, g->net, g->human, g->board, g->moves, g->engine_last, settings_.simulations);
}

void PlayService::End(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (games_.erase(id) == 0) throw HttpError(404, "no browser game '" + id + "'");
}

nlohmann::json PlayService::Summary() {
  std::lock_guard<std::mutex> lock(mu_);
  return {{"games", games_.size()}, {"max_games", settings_.max_games},
          {"idle_timeout_s", settings_.idle_timeout_s}, {"simulations", settings_.simulations}};
}

}  // namespace gz
