// The collectors of common/status/run_status.h, one part of the status each,
// over real files in a fresh folder (`now` is passed in: no clocks, no sleeps).
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "common/base/fileio.h"
#include "common/data/host_reload.h"
#include "common/data/run_layout.h"
#include "common/status/run_status.h"
#include "common/harness/temp_dir.h"
#include "tests/support/text_checks.h"

namespace gz {
namespace {

using nlohmann::json;
using testing::FreshTestDir;

constexpr double kNow = 1.0e9;  // wall-clock seconds of the tests' "now"

void WriteJson(const std::string& path, const json& j) {
  MakeDirs(path.substr(0, path.rfind('/')));
  WriteFileAtomic(path, j.dump());
}

TEST_CASE("CollectIterationGames counts finished game files by worker and by host") {
  RunLayout layout(FreshTestDir("run_status/games"));
  MakeDirs(layout.games_for(3));
  for (const auto& name : {"w0_g0.npz", "w0_g1.npz", "w2_g0.npz", "hostA_w1_g0.npz", "hostA_w1_g1.npz",
                           "w1_g0.npz.tmp.123.0", "notes.txt"})
    WriteFileAtomic(layout.games_for(3) + "/" + name, "x");
  const IterationGames g = CollectIterationGames(layout.games_for(3));
  CHECK(g.times.size() == 5);
  CHECK(g.per_worker == std::map<int, int>{{0, 2}, {2, 1}});
  CHECK(g.last_game.size() == 2);
  REQUIRE(g.host_times.count("hostA") == 1);
  CHECK(g.host_times.at("hostA").size() == 2);

  const IterationGames none = CollectIterationGames(layout.games_for(4));  // no folder: no games
  CHECK(none.times.empty());
  CHECK(none.per_worker.empty());
  CHECK(none.host_times.empty());
}

TEST_CASE("GameRateWindow counts the games finished in the window, per minute of its span") {
  GameRateWindow w;
  w.window_start = 15;
  w.span = 30;
  CHECK(w.PerMinute({10, 20, 30}) == 4.0);  // 2 games in 30 s
  CHECK(w.PerMinute({}) == 0.0);
}

TEST_CASE("CollectHosts: one entry per host, heartbeat from its ack, its workers and games, a warning when silent") {
  RunLayout layout(FreshTestDir("run_status/hosts"));
  HostAck ack_a;
  ack_a.host = "hostA";
  ack_a.updated_at = kNow - 5;
  ack_a.serving_generation = 3;
  ack_a.pid = 77;
  MakeDirs(layout.status_dir("hostA"));
  WriteHostAck(layout.reload_ack("hostA"), ack_a);
  WriteJson(layout.server_status("hostA"), {{"avg_batch", 12.5}, {"requests_per_s", 1.0}});
  WriteJson(layout.worker_status(1, "hostA"), {{"updated_at", kNow - 1}, {"mode", "remote"}, {"games_total", 4}});
  WriteJson(layout.worker_status(0, "hostA"), {{"updated_at", kNow - 500}, {"mode", "local"}});
  HostAck ack_b;
  ack_b.host = "hostB";
  ack_b.updated_at = kNow - 100;
  ack_b.has_announcement = true;
  ack_b.announced_generation = 4;
  ack_b.announcement_reason = "refused: wrong board size";
  MakeDirs(layout.status_dir("hostB"));
  WriteHostAck(layout.reload_ack("hostB"), ack_b);
  IterationGames games;
  games.host_times["hostA"] = {kNow - 10, kNow - 400};
  games.host_times["hostC"] = {kNow - 10};  // game files only
  GameRateWindow window;
  window.window_start = kNow - 60;
  window.span = 60;
  json warnings = json::array();
  const json hosts = CollectHosts(layout, games, window, /*host_timeout_s=*/60, /*worker_stale_s=*/180, kNow, warnings);

  REQUIRE(hosts.size() == 3);
  const json& a = hosts[0];
  CHECK(a["host"] == "hostA");
  CHECK(a["server"]["alive"] == true);
  CHECK(a["server"]["heartbeat_age_s"] == 5.0);
  CHECK(a["server"]["serving_generation"] == 3);
  CHECK(a["server"]["pid"] == 77);
  CHECK(a["server"]["announcement"].is_null());
  CHECK(a["server"]["avg_batch"] == 12.5);
  CHECK_FALSE(a["server"].contains("requests_per_s"));
  REQUIRE(a["workers"].size() == 2);
  CHECK(a["workers"][0]["id"] == 0);
  CHECK(a["workers"][0]["alive"] == false);
  CHECK(a["workers"][1]["id"] == 1);
  CHECK(a["workers"][1]["alive"] == true);
  CHECK(a["workers"][1]["mode"] == "remote");
  CHECK(a["workers"][1]["games_total"] == 4);
  CHECK(a["workers_alive"] == 1);
  CHECK(a["games_this_iteration"] == 2);
  CHECK(a["games_per_min"] == 1.0);

  CHECK(hosts[1]["host"] == "hostB");
  CHECK(hosts[1]["server"]["alive"] == false);
  CHECK(hosts[1]["server"]["announcement"] ==
        json({{"generation", 4}, {"ok", false}, {"reason", "refused: wrong board size"}, {"at", 0.0}}));
  CHECK(hosts[1]["games_this_iteration"] == 0);
  CHECK(hosts[2]["host"] == "hostC");
  CHECK_FALSE(hosts[2]["server"].contains("heartbeat_age_s"));  // no ack: not alive, no warning
  CHECK(hosts[2]["games_this_iteration"] == 1);
  CHECK(warnings == json::array({"self-play host hostB: no heartbeat for 100 s"}));
}

TEST_CASE("CollectServer: alive while its stats are fresh and no pid file says otherwise") {
  RunLayout layout(FreshTestDir("run_status/server"));
  json warnings = json::array();
  json none = CollectServer(layout, 180, kNow, warnings);
  CHECK(none["alive"] == false);
  CHECK(none["pid"] == 0);
  CHECK(none["process_alive"] == false);
  CHECK_FALSE(none.contains("stats_age_s"));

  WriteJson(layout.server_status(), {{"updated_at", kNow - 2}, {"avg_batch", 7.0}, {"device", "cpu"}, {"other", 1}});
  json fresh = CollectServer(layout, 180, kNow, warnings);
  CHECK(fresh["alive"] == true);
  CHECK(fresh["stats_age_s"] == 2.0);
  CHECK(fresh["avg_batch"] == 7.0);
  CHECK(fresh["device"] == "cpu");
  CHECK_FALSE(fresh.contains("other"));
  CHECK(CollectServer(layout, 1.0, kNow, warnings)["alive"] == false);  // stale

  MakeDirs(layout.pids());
  WriteFileAtomic(layout.pid_file("server"), "999999999\n");  // a pid file of a process that is gone
  json gone = CollectServer(layout, 180, kNow, warnings);
  CHECK(gone["pid"] == 999999999);
  CHECK(gone["alive"] == false);
  CHECK(warnings.empty());
}

TEST_CASE("CollectWorkers: every id of the run, with its status file and its games of the iteration") {
  RunLayout layout(FreshTestDir("run_status/workers"));
  WriteJson(layout.worker_status(1), {{"mode", "local"}, {"fallbacks_total", 2}});
  IterationGames games;
  games.per_worker = {{1, 3}};
  games.last_game = {{1, kNow - 7}};
  json warnings = json::array();
  const json workers = CollectWorkers(layout, 3, games, /*server_alive=*/true, kNow, warnings);
  REQUIRE(workers.size() == 3);
  CHECK(workers[0]["id"] == 0);
  CHECK(workers[0]["pid"] == 0);
  CHECK(workers[0]["alive"] == false);
  CHECK(workers[0]["mode"] == "unknown");
  CHECK(workers[0]["games_this_iteration"] == 0);
  CHECK(workers[0]["since_last_game_s"].is_null());
  CHECK(workers[1]["mode"] == "local");
  CHECK(workers[1]["fallbacks_total"] == 2);
  CHECK(workers[1]["games_this_iteration"] == 3);
  CHECK(workers[1]["since_last_game_s"] == 7.0);
  CHECK(warnings.empty());  // a local worker that is not alive is no warning
}

TEST_CASE("CollectEvaluator, CollectNewestRating and CollectGenerations read their files") {
  RunLayout layout(FreshTestDir("run_status/evaluator"));
  json warnings = json::array();
  json ev = CollectEvaluator(layout, true, kNow, warnings);
  CHECK(ev == json{{"alive", false}, {"enabled", true}});
  CHECK(CollectNewestRating(layout, warnings).is_null());
  CHECK(CollectGenerations(layout, 5, warnings) == json::array());
  CHECK(warnings.empty());

  WriteJson(layout.evaluator_status(),
            {{"state", "playing"}, {"heartbeat", kNow - 3}, {"checkpoint", 4}, {"games_done", 6}, {"other", 1}});
  ev = CollectEvaluator(layout, false, kNow, warnings);
  CHECK(ev["enabled"] == false);
  CHECK(ev["state"] == "playing");
  CHECK(ev["heartbeat_age_s"] == 3.0);
  CHECK(ev["pid"] == 0);
  CHECK(ev["alive"] == false);  // no such process
  CHECK(ev["checkpoint"] == 4);
  CHECK(ev["games_done"] == 6);
  CHECK_FALSE(ev.contains("other"));

  AppendLine(layout.ratings(), R"({"iteration": 2, "player": "it2", "elo": 10.5, "anchor": "rollout:1000"})");
  AppendLine(layout.ratings(), R"({"iteration": 3, "player": "it3", "elo": 20.0, "complete": true})");
  AppendLine(layout.ratings(), R"({"note": "no player"})");
  const json r = CollectNewestRating(layout, warnings);
  CHECK(r["iteration"] == 3);
  CHECK(r["player"] == "it3");
  CHECK(r["elo"] == 20.0);
  CHECK(r["elo_low"].is_null());
  CHECK(r["anchor"] == "");
  CHECK(r["complete"] == true);

  for (int it : {3, 1, 4, 2})
    AppendLine(layout.generations(), json{{"iteration", it}, {"selfplay_s", it * 10.0}, {"games_used", it}}.dump());
  AppendLine(layout.generations(), R"({"iteration": "x"})");
  const json table = CollectGenerations(layout, 2, warnings);
  REQUIRE(table.size() == 2);
  CHECK(table[0]["iteration"] == 3);
  CHECK(table[1]["iteration"] == 4);
  CHECK(table[1]["selfplay_s"] == 40.0);
  CHECK(table[1]["training_s"] == 0.0);
  CHECK(table[1]["games_used"] == 4);
  CHECK(warnings.empty());
}

TEST_CASE("status and ratings files of a newer format_version are refused, each warning naming file and version") {
  RunLayout layout(FreshTestDir("run_status/versions"));
  const json newer = {{"format_version", 2}, {"updated_at", kNow}, {"heartbeat", kNow}, {"state", "playing"},
                      {"mode", "local"}, {"avg_batch", 3.0}};
  WriteJson(layout.server_status(), newer);
  WriteJson(layout.worker_status(0), newer);
  WriteJson(layout.evaluator_status(), newer);
  WriteJson(layout.reload_ack("hostA"), newer);
  WriteJson(layout.server_status("hostA"), newer);
  AppendLine(layout.ratings(), json{{"format_version", 2}, {"iteration", 1}, {"player", "checkpoint:1"}}.dump());
  AppendLine(layout.generations(), json{{"format_version", 1}, {"iteration", 1}}.dump());
  AppendLine(layout.generations(), json{{"format_version", 3}, {"iteration", 2}}.dump());
  json warnings = json::array();
  const json server = CollectServer(layout, 180, kNow, warnings);
  CHECK_FALSE(server.contains("avg_batch"));
  const json workers = CollectWorkers(layout, 1, IterationGames{}, false, kNow, warnings);
  CHECK(workers[0]["mode"] == "unknown");
  const json ev = CollectEvaluator(layout, true, kNow, warnings);
  CHECK_FALSE(ev.contains("state"));
  const json hosts = CollectHosts(layout, IterationGames{}, GameRateWindow{}, 60, 180, kNow, warnings);
  REQUIRE(hosts.size() == 1);
  CHECK(hosts[0]["server"]["alive"] == false);
  CHECK(CollectNewestRating(layout, warnings).is_null());
  CHECK(CollectGenerations(layout, 5, warnings) == json::array());
  const std::string all = warnings.dump();
  INFO(all);
  REQUIRE(warnings.size() == 7);
  testing::RequireContainsAll(warnings[0].get<std::string>(),
                              {layout.server_status(), "server status has format_version 2", "this build reads version 1"});
  testing::RequireContainsAll(warnings[1].get<std::string>(), {layout.worker_status(0), "worker status has format_version 2"});
  testing::RequireContainsAll(warnings[2].get<std::string>(),
                              {layout.evaluator_status(), "evaluator status has format_version 2"});
  testing::RequireContainsAll(warnings[3].get<std::string>(),
                              {layout.reload_ack("hostA"), "reload acknowledgement has format_version 2"});
  testing::RequireContainsAll(warnings[4].get<std::string>(),
                              {layout.server_status("hostA"), "server status has format_version 2"});
  testing::RequireContainsAll(warnings[5].get<std::string>(),
                              {layout.ratings(), "ratings.jsonl record has format_version 2"});
  testing::RequireContainsAll(warnings[6].get<std::string>(),
                              {layout.generations(), "(record 2)", "generations.jsonl record has format_version 3"});
}

}  // namespace
}  // namespace gz
