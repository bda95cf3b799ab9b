// The trainer's game collector as the number of game files per iteration
// grows (results/benchmarks-log.md "Collector cost per file"): for N files of one
// iteration (plus N late-watched files in each of W closed iterations):
//   collect: one GameCollector::Collect that lists, loads and vets all N, per file;
//   poll:    one more scan of the same directories once every file is known
//            (what each 0.25 s poll costs while an iteration fills), per file.
// Prints per-file microseconds and the ratio to the smallest N, measured in one run.
//
//   bench_collector [--sizes 100,1000,10000] [--closed 2] [--dir DIR] [--repeat 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/data/run_layout.h"
#include "trainer/game_collector.h"
#include "trainer/game_files.h"

using namespace gz;

namespace {

constexpr int kBoard = 9;

GameRecord ShortGame(int64_t iteration, uint64_t seed) {
  std::mt19937_64 rng(seed);
  GameRecord rec;
  rec.board_size = kBoard;
  rec.rule = Rule::kFreestyle;
  rec.iteration = iteration;
  Board b(kBoard, Rule::kFreestyle);
  std::vector<float> pol(kBoard * kBoard, 1.0f / (kBoard * kBoard));
  for (int m = 0; m < 20 && !b.terminal(); ++m) {
    std::vector<int> legal = b.LegalMoves();
    const int move = legal[rng() % legal.size()];
    rec.AddMove(b, pol, 0.0f, move, 0);
    b.Play(move);
  }
  const Outcome o = b.outcome();
  rec.winner = o == Outcome::kBlackWins ? kBlack : o == Outcome::kWhiteWins ? kWhite : 0;
  return rec;
}

void Fill(const RunLayout& run, int64_t it, int n) {
  MakeDirs(run.games_for(it));
  const std::string one = [&] {
    const std::string tmp = run.dir + "/one.npz";
    SaveGameRecord(ShortGame(it, 7 + it), tmp);
    return ReadFileOrThrow(tmp);
  }();
  for (int k = 0; k < n; ++k) WriteFileAtomic(run.game_file(it, k % 20, k / 20, "host" + std::to_string(k % 3)), one);
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CliSpec spec{"usage: bench_collector [--sizes 100,1000,10000] [--closed 2] [--dir DIR] [--repeat 3]\n",
               {"--sizes", "--closed", "--dir", "--repeat"}, {}};
  CliArgs args = ParseCli(argc, argv, spec);
  std::vector<int> sizes;
  std::stringstream ss(args.get("--sizes", "100,1000,10000"));
  for (std::string t; std::getline(ss, t, ',');) sizes.push_back(std::stoi(t));
  const int closed = static_cast<int>(args.get_int("--closed", 2));
  const int repeat = static_cast<int>(args.get_int("--repeat", 3));
  const std::string base = args.get("--dir", "/tmp/gz-bench-collector");
  std::filesystem::remove_all(base);

  std::printf("files  collect us/file  (x smallest)  poll us/file  (x smallest)  [%d closed iterations watched, best of %d]\n",
              closed, repeat);
  double first_collect = 0, first_poll = 0;
  for (int n : sizes) {
    RunLayout run(base + "/n" + std::to_string(n));
    const int64_t it = closed + 1;
    for (int64_t c = 1; c <= closed; ++c) Fill(run, c, n);
    Fill(run, it, n);
    CollectSettings cs;
    cs.board_size = kBoard;
    cs.target_games = n;
    cs.min_games = 1;
    cs.progress_log_s = 1e9;
    double best_collect = 1e30, best_poll = 1e30;
    for (int r = 0; r < repeat; ++r) {
      GameCollector collector(run, cs);
      for (int64_t c = 1; c <= closed; ++c) {
        std::set<std::string> known;
        for (const auto& e : std::filesystem::directory_iterator(run.games_for(c))) known.insert(e.path().filename());
        collector.RememberClosed(c, std::move(known), closed);
      }
      auto t0 = std::chrono::steady_clock::now();
      CollectionResult res = collector.Collect(it, nullptr);
      best_collect = std::min(best_collect, Seconds(t0));
      if (static_cast<int>(res.games.size()) != n) {
        std::fprintf(stderr, "collected %zu of %d games\n", res.games.size(), n);
        return 1;
      }
      // One more poll over everything already known (listing plus the set
      // lookups the collector does): the steady cost while an iteration fills.
      std::set<std::string> seen;
      for (const auto& g : res.games) seen.insert(g.file);
      t0 = std::chrono::steady_clock::now();
      size_t known = 0;
      for (int64_t c = 1; c <= it; ++c)
        for (const std::string& name : ListGameFiles(run.games_for(c))) known += c == it ? seen.count(name) : 1;
      best_poll = std::min(best_poll, Seconds(t0));
      if (known != static_cast<size_t>(n) * (closed + 1)) return 1;
    }
    const double c_us = 1e6 * best_collect / n, p_us = 1e6 * best_poll / n;
    if (first_collect == 0) first_collect = c_us, first_poll = p_us;
    std::printf("%5d  %15.1f  %12.2f  %12.2f  %12.2f\n", n, c_us, c_us / first_collect, p_us, p_us / first_poll);
  }
  std::filesystem::remove_all(base);
  return 0;
}
