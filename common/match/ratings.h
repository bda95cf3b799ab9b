// Elo ratings by maximum likelihood (Bradley-Terry, draws as half points, as
// BayesElo / Ordo do), anchored at a named player, with 95% intervals from the
// Hessian of the log-likelihood.  Method and caveats: docs/ratings.md.
//
// Torch-free (library gomoku_ratings) so the dashboard and tools can link it.
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gz {

// One finished game (or several identical ones) between two named players.
struct RatedGame {
  std::string a, b;   // a != b
  double score_a = 0;  // 1 win, 0.5 draw, 0 loss (from a's view)
};

struct PlayerRating {
  double elo = 0, low = 0, high = 0;  // 95% interval: elo -/+ 1.96 sigma
  double sigma = 0;                   // standard error (Elo points) relative to the anchor
  int games = 0;
  double score = 0;                   // points scored over all its games
};

struct RatingTable {
  std::string anchor;                        // the anchor actually used ("" when there are no games)
  std::map<std::string, PlayerRating> rated;  // every player connected to the anchor
  std::vector<std::string> unrated;          // players with no chain of games to the anchor
  int iterations = 0;                        // Newton steps taken
};

// Fits the ratings.  The anchor's rating is 0; when `anchor` has no games the
// first player (by name) of the largest connected group is used instead.
// Each pair's total score over n games is clamped to [0.5, n - 0.5] so that
// perfect scores give finite ratings (docs/ratings.md).
RatingTable FitRatings(const std::vector<RatedGame>& games, const std::string& anchor);

// Expected score of a player rated `diff` Elo above its opponent.
double ExpectedScore(double diff);

}  // namespace gz
