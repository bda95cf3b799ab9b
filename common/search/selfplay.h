// One self-play game as a step machine over Mcts, and a driver that advances
// several games together, batching their leaf evaluations into one Evaluate
// call.  Each game's search is identical whether it runs alone or batched
// (one pending leaf per game, no virtual loss), so the game files match.
//
// Thread-safety: none; a SelfPlayGame belongs to one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "common/data/game_record.h"
#include "common/search/mcts.h"

namespace gz {

struct SelfPlayParams {
  MctsParams mcts;
  int temperature_moves = 8;
  float final_temperature = 0.0f;
  int random_opening_moves = 0;
  int max_moves = 0;  // 0 = board size squared
  // selfplay.adjudicate_proven (needs mcts.solver to prove anything): the game
  // ends as soon as the root is proven, with the proven result; the record is
  // marked adjudicated.  A proven win is recorded as a last sample (policy on
  // the winning move, q = 1); a proven loss is not.
  bool adjudicate_proven = false;
  // Self-play recipe (docs/search.md "Self-play recipe"); the defaults are off
  // and give today's games bit for bit.
  float initial_temperature = 1.0f;      // tau of the first moves
  // > 0: tau(t) = final + (initial - final) * 0.5^(t / halflife) for searched
  // move t, instead of the hard switch after temperature_moves.  0 = off.
  float temperature_halflife_moves = 0.0f;
  // Playout-cap randomization (KataGo): each move is a full search (noise,
  // mcts.simulations, a policy target) with probability p_full, else a cheap
  // one (no noise, cheap_simulations, value target only).  1 = off.
  double playout_cap_p_full = 1.0;
  int playout_cap_cheap_simulations = 0;
  // Resignation: the side to move resigns once the root value of its own last
  // resign_consecutive searches was below resign_threshold; a share of games
  // never resigns (and records where it would have).  -1 = off.
  float resign_threshold = -1.0f;
  int resign_consecutive = 3;
  double resign_disabled_share = 0.1;
  // Balanced openings: balanced_opening_moves uniformly random stones, kept
  // when a search of balanced_opening_simulations (no noise) values them
  // within +-balanced_opening_max_value for the side to move; up to
  // balanced_opening_tries draws (the last is kept).  0 = off.
  int balanced_opening_moves = 0;
  float balanced_opening_max_value = 0.2f;
  int balanced_opening_simulations = 32;
  int balanced_opening_tries = 20;
  // Openings a player meets: a share of games starts from the empty board or
  // from 1..open_opening_max_stones stones within open_opening_radius of the
  // centre (the number uniform in 0..max), as Gomocup's opening sets and
  // swap2 begin, so that the net trains on the first moves too.  With
  // balanced openings on, a drawn opening of 1+ stones is kept by the same
  // balance test as theirs; the empty board is taken as it is.  0 = off.
  double open_opening_share = 0.0;
  int open_opening_max_stones = 3;
  int open_opening_radius = 3;
  // Even openings: a share of games starts from an opening of the board's
  // even set (common/game/even_openings.h: the openings arena and the
  // evaluator rate with), drawn uniformly, under one of the 8 symmetries drawn
  // uniformly, taken as they are (no balance test).  A board without an even
  // set plays its games as with the share 0.  Drawn before, and instead of,
  // the open and balanced openings.  0 = off.
  double even_opening_share = 0.0;

  bool playout_cap_on() const { return playout_cap_p_full < 1.0; }
  bool resign_on() const { return resign_threshold > -1.0f; }
};

// The recipe's random draws use their own generators, seeded with the game
// seed XOR these salts, so that switching a part on never moves another
// part's draws (and off, nothing is drawn at all).
constexpr uint64_t kPlayoutCapSalt = 0x706c61796361ULL;   // one draw per searched move
constexpr uint64_t kResignSalt = 0x7265736967ULL;         // one draw per game
constexpr uint64_t kOpeningSalt = 0x6f70656e696eULL;      // the balanced openings' stones
constexpr uint64_t kBoardSizeSalt = 0x73697a65ULL;         // one draw per game (selfplay.board_sizes)
constexpr uint64_t kOpenOpeningSalt = 0x6e656172ULL;       // open openings: the coin, the count, the stones
constexpr uint64_t kEvenOpeningSalt = 0x6576656eULL;       // even openings: the coin, the opening, the symmetry
// A uniform double in [0, 1) from one 64-bit draw (the recipe's coin flips).
inline double UnitDraw(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
// The move temperature of searched move `move` (0-based, openings excluded).
float MoveTemperature(const SelfPlayParams& params, int move);

class SelfPlayGame {
 public:
  SelfPlayGame(const SelfPlayParams& params, int board_size, Rule rule, uint64_t seed, int64_t iteration,
               int64_t model_generation);
  bool finished() const { return finished_; }
  // Advances until a leaf needs evaluation (returned) or the game ends (nullptr).
  const Position* Step();
  // Supplies the evaluation of the position last returned by Step().
  void Supply(const EvalResult& result);
  const GameRecord& record() const { return record_; }
  const Board& board() const { return mcts_.root_board(); }

 private:
  void FinishMove();
  void Finish();
  void Adjudicate();
  // Balanced openings: draws the next candidate opening and starts its search.
  void StartOpeningCandidate();
  // The next candidate's stones on `b`: open_stones_ near the centre in an
  // open-opening game, else balanced_opening_moves anywhere.
  void DrawOpeningStones(Board& b);
  // Even openings: the seed's coin (kEvenOpeningSalt) says whether this game
  // starts from the even set; if so its stones are played on `b` and the
  // search starts there (true).  False: no even set, or the coin said no.
  bool StartFromEvenOpening(Board& b, uint64_t seed);
  const Position* StepOpening();  // nullptr: the opening is settled (or the game over)

  SelfPlayParams params_;
  Mcts mcts_;
  std::mt19937_64 pick_rng_;
  GameRecord record_;
  bool move_started_ = false;
  bool finished_ = false;
  int max_moves_;
  // Recipe state (untouched while its part is off).
  std::mt19937_64 cap_rng_;
  std::mt19937_64 opening_rng_;
  std::mt19937_64 open_rng_;
  int open_stones_ = -1;            // open-opening game: its number of stones; -1 = not one
  bool move_full_ = true;           // this move is a full search
  int resign_run_[2] = {0, 0};      // consecutive searches below the threshold, black / white
  bool opening_phase_ = false;
  bool opening_started_ = false;
  int opening_tries_ = 0;
  Board opening_board_{15};
  std::vector<int16_t> opening_moves_;
};

// Keeps up to `slots` games in flight (slots >= 1): whenever a slot is free it
// asks `next()` for a game to start (nullptr: none now; it is not asked again
// in this call), and hands each game to `done` the moment it ends, so a long
// game never holds the others' slots idle.  The leaves of all games in flight
// go into one Evaluate call per round.  Returns the number of Evaluate calls
// once no game is in flight and next() gave nullptr, or early when `stop`
// becomes true (games in flight are then dropped unfinished, never passed to
// `done`).  Which games share a round does not change any game's search, so
// the games are the same as if each ran alone.
int64_t PlayGamesStreaming(int slots, const std::function<std::unique_ptr<SelfPlayGame>()>& next,
                           const std::function<void(std::unique_ptr<SelfPlayGame>)>& done, Evaluator& evaluator,
                           const std::atomic<bool>* stop = nullptr);

// The board size of the game with seed `game_seed`: drawn from `shares`
// ((size, weight > 0) pairs; selfplay.board_sizes) with a generator of its own
// (kBoardSizeSalt), so the draw moves no other part's draws.  Empty shares:
// `default_size`, nothing drawn.
int DrawBoardSize(const std::vector<std::pair<int, double>>& shares, int default_size, uint64_t game_seed);

// `stones` open-opening stones (alternating colours from black) on the empty
// `board`, each on an empty point within `radius` (Chebyshev) of the centre
// (legal for the side to move), drawn from `rng`.  Appends them to `moves`.
// At most 8 stones are ever asked for (the config's range), so no five forms.
void PlaceOpenOpening(Board& board, int stones, int radius, std::mt19937_64& rng, std::vector<int16_t>& moves);

// Deterministic per-game seed from (run seed, iteration, worker id, game index).
uint64_t GameSeed(uint64_t run_seed, int64_t iteration, int worker_id, int64_t game_index);

}  // namespace gz
