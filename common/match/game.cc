#include "common/match/game.h"

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/match/classical_player.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"
#include "common/net/forward_choice.h"
#include "common/net/play_settings.h"
#include "common/search/symmetric_batch.h"
#include "common/search/simple_evaluators.h"

namespace gz {
namespace {

const char* ColourName(int8_t c) { return c == kBlack ? "black" : "white"; }

int ParsePositive(const std::string& spec, const std::string& s) {
  try {
    size_t pos = 0;
    int v = std::stoi(s, &pos);
    if (pos != s.size() || v < 1) throw std::invalid_argument("x");
    return v;
  } catch (const std::exception&) {
    GOMOKU_THROW(ConfigError, "player spec '" << spec << "': '" << s << "' is not a positive integer");
  }
}

// A fixed-simulation, replayable search over one evaluator (SearchPlayer
// replayable: a fresh tree a move, one leaf at a time, one thread).
// `size`: the board size the evaluator plays (0: any).
std::unique_ptr<MatchPlayer> FixedSearchPlayer(const std::string& name, std::unique_ptr<Evaluator> evaluator, int size,
                                               bool thread_safe, int simulations, const MctsParams& mcts,
                                               uint64_t seed) {
  SearchPlayerSettings settings;
  settings.mcts = mcts;
  settings.seed = seed;
  settings.replayable = true;
  auto player = std::make_unique<SearchPlayer>(
      std::make_unique<FixedEvaluator>(std::move(evaluator), size, thread_safe), settings);
  return std::make_unique<InProcessMatchPlayer>(name, std::move(player), simulations);
}

}  // namespace

GameResult PlayGame(MatchPlayer& black, MatchPlayer& white, int size, Rule rule, const Opening& opening,
                    const std::atomic<bool>* stop) {
  const double start = MonotonicSeconds();
  GameResult g;
  Board board(size, rule);
  for (int m : opening) {
    board.Play(m);
    g.moves.push_back(m);
  }
  auto forfeit = [&](MatchPlayer& loser, int8_t loser_colour, const Forfeit& f) {
    g.winner = Opponent(loser_colour);
    g.end = "forfeit";
    g.forfeit_kind = f.kind;
    g.forfeit_by = loser.name();
    g.reason = std::string(ColourName(loser_colour)) + " (" + loser.name() + ") forfeits: " + f.reason;
    spdlog::warn("match: {}", g.reason);
  };
  if (auto f = black.NewGame(size, rule)) {
    forfeit(black, kBlack, *f);
  } else if (auto f2 = white.NewGame(size, rule)) {
    forfeit(white, kWhite, *f2);
  } else {
    while (!board.terminal()) {
      if (stop && stop->load()) {
        g.end = "stopped";
        g.reason = "stopped";
        break;
      }
      const int8_t colour = board.to_move();
      MatchPlayer& p = colour == kBlack ? black : white;
      MoveReply r = p.Move(board, g.moves);
      if (!r.forfeit && !board.IsLegal(r.move))
        r.forfeit = Forfeit{"illegal", "point " + std::to_string(r.move) + " is " + IllegalBecause(board, r.move)};
      if (r.forfeit) {
        forfeit(p, colour, *r.forfeit);
        break;
      }
      board.Play(r.move);
      g.moves.push_back(r.move);
    }
    if (g.end.empty()) {
      const Outcome o = board.outcome();
      g.winner = o == Outcome::kBlackWins ? kBlack : o == Outcome::kWhiteWins ? kWhite : 0;
      g.end = g.winner == 0 ? "full" : "five";
      const int empties = board.num_points() - board.move_count();
      g.reason = g.winner != 0   ? std::string(ColourName(g.winner)) + " made five"
                 : empties == 0 ? "the board is full"
                 : empties <= DrawEmpties(board.rule())
                     ? "renju: " + std::to_string(empties) + " empty points are left (a draw, as the Gomocup manager judges)"
                     : "black has only forbidden points left";
    }
  }
  black.EndGame();
  white.EndGame();
  g.seconds = MonotonicSeconds() - start;
  return g;
}

PlayerOptions PlayerOptions::FromConfig(const Config& cfg, uint64_t seed, int net_threads) {
  PlayerOptions o;
  o.seed = seed;
  o.net_threads = net_threads;
  o.device = cfg.inference.device;
  o.backend = cfg.inference.backend;
  o.symmetry = cfg.inference.symmetry;
  o.engine.turn_ms = cfg.eval.engine_turn_ms;
  o.engine.grace_ms = cfg.eval.engine_grace_ms;
  return o;
}

std::unique_ptr<MatchPlayer> MakeNetPlayer(const std::string& name, const std::string& path, int simulations,
                                           const Config& cfg, const PlayerOptions& options) {
  CheckpointExpect expect;
  expect.board_size = cfg.board.size;
  // The net plays with its run's search settings wherever the config left a
  // play setting at its default (an explicit --set or config file wins).
  Config own = cfg;
  const PlaySettingsFound found = ReadPlaySettings(path, Config::PlaySettingKeys());
  if (!found.settings.empty()) own.AdoptPlaySettings(found.settings, found.source);
  const std::string symmetry =
      own.origin("inference.symmetry") == found.source ? own.inference.symmetry : options.symmetry;
  spdlog::info("player {}: search settings {}", name, own.DescribePlaySettings());
  InferenceSettings settings;
  settings.backend = options.backend;
  settings.device = options.device;
  settings.threads = options.net_threads;
  const NetForwards net(path, settings, expect);
  auto evaluator = std::make_unique<SymmetricEvaluator>(net.Make(), ParseSymmetryMode(symmetry));
  spdlog::info("player {}: {}", name, evaluator->Describe());
  auto player = FixedSearchPlayer(name, std::move(evaluator), cfg.board.size, /*thread_safe=*/false, simulations,
                                  own.mcts, options.seed);
  player->set_forward(net.choice().name());
  return player;
}

std::unique_ptr<MatchPlayer> MakeMatchPlayer(const std::string& spec, const Config& cfg, int default_simulations,
                                             const PlayerOptions& options) {
  auto colon = spec.find(':');
  if (colon == std::string::npos) GOMOKU_THROW(ConfigError, "player spec '" << spec << "': expected kind:ARG");
  const std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  if (kind == "rollout") {
    return FixedSearchPlayer(spec, std::make_unique<RolloutEvaluator>(cfg.rule(), 1, options.seed), 0,
                             /*thread_safe=*/true, ParsePositive(spec, rest), cfg.mcts, options.seed);
  }
  if (kind == "classical") {
    const int64_t nodes = ParseClassicalSpec(spec, "player spec");
    return std::make_unique<InProcessMatchPlayer>(spec, std::make_unique<ClassicalPlayer>(nodes), 1);
  }
  if (kind == "uniform") {
    return FixedSearchPlayer(spec, std::make_unique<UniformEvaluator>(), 0, /*thread_safe=*/true,
                             ParsePositive(spec, rest), cfg.mcts, options.seed);
  }
  if (kind == "net") {
    std::string path = rest;
    int sims = default_simulations;
    auto c2 = rest.rfind(':');
    if (c2 != std::string::npos && c2 + 1 < rest.size() &&
        rest.find_first_not_of("0123456789", c2 + 1) == std::string::npos) {
      path = rest.substr(0, c2);
      sims = ParsePositive(spec, rest.substr(c2 + 1));
    }
    if (path.empty()) GOMOKU_THROW(ConfigError, "player spec '" << spec << "': net: needs a checkpoint path");
    return MakeNetPlayer(spec, path, sims, cfg, options);
  }
  if (kind == "engine") {
    return std::make_unique<EngineMatchPlayer>(ParseEngineCommand(spec), options.engine, options.engine_stderr);
  }
  GOMOKU_THROW(ConfigError, "player spec '" << spec << "': unknown kind '" << kind
                                            << "' (net, rollout, classical, uniform, engine)");
}

}  // namespace gz
