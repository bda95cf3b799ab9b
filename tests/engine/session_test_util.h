// Shared by the engine tests that drive it in process (GomocupSession,
// AnalysisEngine) or read its Gomocup replies: the settings of the solver-on
// harnesses and the point a reply names.
#pragma once

#include <optional>
#include <string>

#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"

namespace gz::testing {

// The engine's defaults with the threat solver on (the baseline rollout
// evaluator: no weights).
inline EngineSettings SolverOnEngineSettings() {
  EngineSettings s;
  s.config.mcts.solver = true;
  return s;
}

// The point (row-major) of the Gomocup coordinates "x,y" on an n x n board;
// nullopt when they do not parse or lie off the board.
inline std::optional<int> PointOnBoard(const std::string& xy, int n) {
  const auto p = ParseCoordinates(xy);
  if (!p || p->first < 0 || p->second < 0 || p->first >= n || p->second >= n) return std::nullopt;
  return p->second * n + p->first;
}

}  // namespace gz::testing
