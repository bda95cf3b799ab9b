#include "dashboard/game_view.h"

#include <cmath>

#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/data/run_layout.h"
#include "dashboard/http_types.h"
#include "dashboard/run_data.h"

namespace gz {

namespace {
// Four decimals are plenty for a heat map and keep a 15x15 game's answer small.
double Round4(float x) { return std::round(static_cast<double>(x) * 10000.0) / 10000.0; }
}  // namespace

nlohmann::json GameJson(const std::string& run_dir, int64_t iteration, const std::string& name) {
  if (!IsGameFileName(name))
    throw HttpError(400, "bad game file name (expected [{host}_]w{worker}_g{k}.npz, no path): '" + name + "'");
  const std::string path = RunLayout(run_dir).games_for(iteration) + "/" + name;
  if (!FileExists(path)) throw HttpError(404, "no game file it" + std::to_string(iteration) + "/" + name);
  GameRecord rec;
  try {
    rec = LoadGameRecord(path);
  } catch (const GomokuError& e) {
    throw HttpError(422, std::string("unreadable game file: ") + e.what());
  }
  const int points = rec.board_size * rec.board_size;
  nlohmann::json moves = nlohmann::json::array();
  for (int t = 0; t < rec.num_moves(); ++t) {
    nlohmann::json policy = nlohmann::json::array();
    for (int p = 0; p < points; ++p) policy.push_back(Round4(rec.policy[static_cast<size_t>(t) * points + p]));
    moves.push_back({{"point", rec.moves[t]},
                     {"colour", rec.to_move[t] == kBlack ? "black" : "white"},
                     {"value", Round4(rec.q[t])},
                     {"model_generation", rec.model_generations[t]},
                     {"full_search", rec.is_full_search(t)},
                     {"policy", policy}});
  }
  nlohmann::json opening = nlohmann::json::array();
  for (int16_t m : rec.opening) opening.push_back(m);
  // How the game ended: a resignation and a proven result stop before the
  // board decides, and the page says so instead of showing an unfinished game.
  const char* end = rec.resigned ? "resigned" : rec.adjudicated ? "proven" : rec.winner == 0 ? "draw" : "five";
  nlohmann::json resignation = nullptr;
  if (rec.resign_on)
    resignation = {{"resigned", rec.resigned},
                   {"disabled", rec.resign_disabled},
                   {"would_resign_move", rec.would_resign_move}};
  return {{"iteration", iteration},
          {"file", name},
          {"board_size", rec.board_size},
          {"rule", RuleName(rec.rule)},
          {"winner", rec.winner == 0 ? "draw" : rec.winner == kBlack ? "black" : "white"},
          {"end", end},
          {"resignation", resignation},
          {"playout_cap", !rec.full_search.empty()},
          {"model_generation", rec.model_generation},
          {"opening", opening},
          {"moves", moves}};
}

}  // namespace gz
