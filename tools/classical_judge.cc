// build/bin/classical_judge: the classical player (common/search/classical.h)
// as a judge of positions -- what tools/even_openings.py rates openings with.
// Reads one position a line on stdin (points played from the empty board,
// comma-separated, black first) and prints one JSON line each: the search's
// score from the side to move's view (window units; > 500000 a proven win),
// its move, depth, nodes and reason.
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/guarded_main.h"
#include "common/game/board.h"
#include "common/search/classical.h"

namespace {
const char* kUsage = R"(classical_judge: rate positions with the classical search.

Usage:
  classical_judge [--nodes N] [--size S] [--rule freestyle|standard|renju|caro|caro-overline] < POSITIONS

Each input line: points r*S+c played from the empty board, comma-separated
(black first).  Each output line: {"moves":[...],"to_move":"black"|"white",
"score":..., "move":..., "depth":..., "nodes":..., "solver_nodes":...,
"reason":...}; score is from the side to move's view.  N defaults to 100000.
)";

int Run(int argc, char** argv) {
  using namespace gz;
  CliSpec spec{kUsage, {"--nodes", "--size", "--rule"}, {}};
  CliArgs args = ParseCli(argc, argv, spec);
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  const int64_t nodes = args.get_int("--nodes", 100000);
  const int size = static_cast<int>(args.get_int("--size", 15));
  const Rule rule = ParseRule(args.get("--rule", "freestyle"));
  ClassicalSearch search(ClassicalOptions{nodes});
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    Board b(size, rule);
    std::vector<int> moves;
    std::stringstream ss(line);
    for (std::string tok; std::getline(ss, tok, ',');) {
      moves.push_back(std::stoi(tok));
      b.Play(moves.back());
    }
    const ClassicalResult r = search.Search(b);
    nlohmann::json j{{"moves", moves},         {"to_move", b.to_move() == kBlack ? "black" : "white"},
                     {"score", r.score},       {"move", r.move},
                     {"depth", r.depth},       {"nodes", r.nodes},
                     {"solver_nodes", r.solver_nodes}, {"reason", r.reason}};
    std::cout << j.dump() << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return gz::GuardedToolMain<gz::ConfigError>("classical_judge", [&] { return Run(argc, argv); });
}
