// What a config must satisfy beyond each key's type and range: the checks of
// the keys whose values have a grammar (board sizes, ladder entries, host
// names, the rendezvous store), and Config::Validate's rules between keys.
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "common/config/config_registry.h"
#include "common/data/run_layout.h"
#include "common/search/symmetric_batch.h"

namespace gz {
namespace config_detail {

// One selfplay.board_sizes entry: "SIZE" (weight 1) or "SIZE:WEIGHT", with
// kMinBoardSize <= SIZE <= kMaxBoardSize and WEIGHT a finite number > 0.
std::pair<int, double> ParseSizeShare(const std::string& s) {
  const auto colon = s.find(':');
  const std::string size_text = s.substr(0, colon);
  const std::string weight_text = colon == std::string::npos ? "1" : s.substr(colon + 1);
  size_t used = 0;
  int size = 0;
  double weight = 0;
  try {
    size = std::stoi(size_text, &used);
    if (used != size_text.size()) throw std::invalid_argument("trailing");
    weight = std::stod(weight_text, &used);
    if (used != weight_text.size()) throw std::invalid_argument("trailing");
  } catch (const std::logic_error&) {
    GOMOKU_THROW(ConfigError, "expected SIZE or SIZE:WEIGHT (e.g. 15:8)");
  }
  if (size < kMinBoardSize || size > kMaxBoardSize)
    GOMOKU_THROW(ConfigError, "board size " << size << " is outside [" << kMinBoardSize << ", " << kMaxBoardSize << "]");
  if (!(weight > 0) || !std::isfinite(weight)) GOMOKU_THROW(ConfigError, "weight must be a finite number > 0");
  return {size, weight};
}

// An opponent of the evaluator's ladder: rollout:P, classical:N, checkpoint:N,
// previous:K (P, K >= 1, N >= 0; classical's N >= 1) or engine:COMMAND.  Whether a checkpoint exists or an
// engine starts is checked by the evaluator at start, where the run is known.
void CheckLadderEntry(const std::string& s) {
  auto colon = s.find(':');
  std::string kind = s.substr(0, colon), arg = colon == std::string::npos ? "" : s.substr(colon + 1);
  if (kind == "engine") {
    if (arg.empty()) GOMOKU_THROW(ConfigError, "engine: needs a command");
    return;
  }
  if (kind == "net") {  // a fixed net outside the run (e.g. a reference net), at eval.simulations or :SIMS
    if (arg.empty()) GOMOKU_THROW(ConfigError, "net: needs a checkpoint path (net:PATH or net:PATH:SIMS)");
    return;
  }
  if (kind != "rollout" && kind != "classical" && kind != "checkpoint" && kind != "previous")
    GOMOKU_THROW(ConfigError, "unknown opponent kind '" << kind
                                  << "' (rollout:P, classical:N, checkpoint:N, previous:K, net:PATH, engine:COMMAND)");
  char* end = nullptr;
  long long n = arg.empty() ? -1 : std::strtoll(arg.c_str(), &end, 10);
  if (arg.empty() || *end != '\0' || n < (kind == "checkpoint" ? 0 : 1) || n > 100000000)
    GOMOKU_THROW(ConfigError, kind << ": expects " << (kind == "checkpoint" ? "an iteration >= 0" : "a count >= 1")
                                   << ", got '" << arg << "'");
}

// A self-play host's name goes into file and directory names on the shared
// run directory (games/it{N}/{host}_w{id}_g{k}.npz, status/{host}/): letters,
// digits, '-' and '.', not starting with '.', at most 64 characters.
void CheckHostName(const std::string& s) {
  if (s.empty()) return;  // one machine: today's names
  if (s.size() > 64) GOMOKU_THROW(ConfigError, "a host name has at most 64 characters, got " << s.size());
  if (s[0] == '.') GOMOKU_THROW(ConfigError, "a host name may not start with '.', got '" << s << "'");
  if (!IsValidHostName(s))
    GOMOKU_THROW(ConfigError, "a host name has only letters, digits, '-' and '.', got '" << s << "'");
}

// The c10d rendezvous of data-parallel training: tcp://HOST:PORT (a TCPStore
// served by rank 0) or file://PATH (a FileStore every rank can open).
void CheckDistStore(const std::string& s) {
  if (s.rfind("file://", 0) == 0) {
    if (s.size() == 7) GOMOKU_THROW(ConfigError, "file:// needs a path");
    return;
  }
  if (s.rfind("tcp://", 0) != 0)
    GOMOKU_THROW(ConfigError, "expected tcp://HOST:PORT or file://PATH, got '" << s << "'");
  const std::string rest = s.substr(6);
  const auto colon = rest.rfind(':');
  char* end = nullptr;
  const long port = colon == std::string::npos ? -1 : std::strtol(rest.c_str() + colon + 1, &end, 10);
  if (colon == 0 || colon == std::string::npos || colon + 1 == rest.size() || *end != '\0' || port < 1 ||
      port > 65535)
    GOMOKU_THROW(ConfigError, "expected tcp://HOST:PORT with a port in 1..65535, got '" << s << "'");
}

}  // namespace config_detail

void Config::Validate() const {
  if (run.min_games > run.target_games)
    GOMOKU_THROW(ConfigError, "config key 'run.min_games': " << run.min_games << " exceeds run.target_games "
                                                             << run.target_games);
  if (selfplay.random_opening_moves >= board.size * board.size)
    GOMOKU_THROW(ConfigError, "config key 'selfplay.random_opening_moves': too many for the board");
  if (selfplay.playout_cap_p_full < 1.0 &&
      (selfplay.playout_cap_cheap_simulations < 1 || selfplay.playout_cap_cheap_simulations > mcts.simulations))
    GOMOKU_THROW(ConfigError, "config key 'selfplay.playout_cap_cheap_simulations': "
                                  << selfplay.playout_cap_cheap_simulations
                                  << " must be in [1, mcts.simulations " << mcts.simulations
                                  << "] when selfplay.playout_cap_p_full < 1");
  if (mcts.policy_target_pruning && mcts.forced_playouts_k <= 0)
    GOMOKU_THROW(ConfigError, "config key 'mcts.policy_target_pruning': needs mcts.forced_playouts_k > 0 (it "
                              "removes forced playouts)");
  // Random first moves replace every other way of starting a game: each of
  // these keys, set together with them, is refused by its own name.
  if (selfplay.random_opening_moves > 0) {
    const std::pair<const char*, bool> openings[] = {
        {"selfplay.balanced_opening_moves", selfplay.balanced_opening_moves > 0},
        {"selfplay.even_opening_share", selfplay.even_opening_share > 0},
        {"selfplay.open_opening_share", selfplay.open_opening_share > 0}};
    for (const auto& [key, on] : openings)
      if (on)
        GOMOKU_THROW(ConfigError, "config key '" << key << "': use it or selfplay.random_opening_moves, not both");
  }
  if (selfplay.balanced_opening_moves >= board.size * board.size)
    GOMOKU_THROW(ConfigError, "config key 'selfplay.balanced_opening_moves': too many for the board");
  if (worker.reconnect_initial_s > worker.reconnect_max_s)
    GOMOKU_THROW(ConfigError, "config key 'worker.reconnect_initial_s' exceeds worker.reconnect_max_s");
  if (run.dir.empty()) GOMOKU_THROW(ConfigError, "config key 'run.dir' must not be empty");
  if (train.world_size > train.batch_size)
    GOMOKU_THROW(ConfigError, "config key 'train.world_size': " << train.world_size << " ranks exceed train.batch_size "
                                                                << train.batch_size << " (each rank needs a row)");
  if (net.heads == "conv" && train.world_size > 1)  // trainer/rank_follower.cc builds fc nets
    GOMOKU_THROW(ConfigError, "config key 'net.heads': conv heads are not supported with train.world_size > 1 yet "
                              "(the follower ranks build fc nets)");
  if (!selfplay.board_sizes.empty()) {
    const auto shares = board_size_shares();
    bool has_primary = false;
    for (size_t i = 0; i < shares.size(); ++i) {
      has_primary = has_primary || shares[i].first == board.size;
      for (size_t j = 0; j < i; ++j)
        if (shares[j].first == shares[i].first)
          GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': size " << shares[i].first << " is listed twice");
      if (shares[i].first != board.size && net.heads != "conv")
        GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': size " << shares[i].first << " differs from board.size "
                                  << board.size << " and needs net.heads conv (fc heads play one size)");
      if (selfplay.random_opening_moves >= shares[i].first * shares[i].first ||
          selfplay.balanced_opening_moves >= shares[i].first * shares[i].first)
        GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': size " << shares[i].first
                                  << " is too small for the opening moves");
    }
    if (!has_primary)
      GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': must include board.size " << board.size
                                << " (the checkpoints' and the engine's default size)");
  }
  ParseSymmetryMode(inference.symmetry);
}

}  // namespace gz
