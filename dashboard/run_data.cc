#include "dashboard/run_data.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/jsonl.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"
#include "common/data/run_layout.h"
#include "common/status/run_status.h"

namespace gz {
namespace fs = std::filesystem;
namespace gf = fields::generation;      // generations.jsonl lines
namespace sf = fields::server_status;  // their "server" snapshot

namespace {

// j[a][b]... as a number, or null.
nlohmann::json Num(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object() || !cur->contains(key)) return nullptr;
    cur = &(*cur)[key];
  }
  return cur->is_number() ? *cur : nlohmann::json(nullptr);
}

double Or(const nlohmann::json& v, double def) { return v.is_number() ? v.get<double>() : def; }

nlohmann::json Ratio(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_number() || !b.is_number() || b.get<double>() <= 0) return nullptr;
  return a.get<double>() / b.get<double>();
}

// A file that exists but cannot be read is as good as empty here, with a
// count; one with a record of a format_version this build does not read is
// refused whole (common/data/record_format.h), its error in *error.
JsonLines ReadLinesOrEmpty(const std::string& path, const RecordFormat& format, nlohmann::json* error) {
  JsonLines out;
  *error = nullptr;
  try {
    out.records = ReadRecordLines(path, format, &out.bad_lines);
  } catch (const GomokuError& e) {
    out.records.clear();
    out.bad_lines = 1;
    *error = e.what();
  }
  return out;
}

// Both records' server figures come from one server process.
bool SameServer(const nlohmann::json& a, const nlohmann::json& b) {
  const nlohmann::json pid = Num(a, {gf::kServer, sf::kPid});
  return pid.is_number() && pid == Num(b, {gf::kServer, sf::kPid});
}

// Seconds the record's server has spent in forwards since it started, or null.
nlohmann::json ForwardSecondsTotal(const nlohmann::json& r) {
  const nlohmann::json n = Num(r, {gf::kServer, sf::kForwardsTotal}),
                       ms = Num(r, {gf::kServer, sf::kAvgForwardMsTotal});
  if (!n.is_number()) return nullptr;
  if (n.get<double>() == 0) return 0.0;
  return ms.is_number() ? nlohmann::json(n.get<double>() * ms.get<double>() / 1000.0) : nlohmann::json(nullptr);
}

// `entry` with every path in it cut to its last `keep` components.
std::string CutPaths(const std::string& entry, size_t keep) {
  std::string out;
  size_t start = 0;
  while (start <= entry.size()) {
    size_t end = entry.find(' ', start);
    if (end == std::string::npos) end = entry.size();
    std::string token = entry.substr(start, end - start), kind;
    const size_t colon = token.find(':'), slash = token.find('/');
    if (start == 0 && colon != std::string::npos && slash != std::string::npos && colon < slash) {
      kind = token.substr(0, colon + 1);  // "net:", "engine:"
      token = token.substr(colon + 1);
    }
    std::vector<std::string> parts;
    for (size_t i = 0; i <= token.size();) {
      size_t j = token.find('/', i);
      if (j == std::string::npos) j = token.size();
      if (j > i) parts.push_back(token.substr(i, j - i));
      i = j + 1;
    }
    if (slash != std::string::npos && parts.size() > keep) {
      token.clear();
      for (size_t i = parts.size() - keep; i < parts.size(); ++i) token += (token.empty() ? "" : "/") + parts[i];
    }
    out += (start == 0 ? "" : " ") + kind + token;
    start = end + 1;
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> ShortEntryNames(const std::vector<std::string>& entries) {
  std::map<std::string, size_t> keep;
  for (const auto& e : entries) keep[e] = 1;
  std::map<std::string, std::string> out;
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, std::vector<std::string>> by_name;
    for (const auto& [e, k] : keep) by_name[out[e] = CutPaths(e, k)].push_back(e);
    for (const auto& [name, es] : by_name)
      if (es.size() > 1)
        for (const auto& e : es)
          if (out[e] != e) {  // a full entry cannot grow; distinct entries are distinct in full
            ++keep[e];
            changed = true;
          }
  }
  return out;
}

nlohmann::json IterationForwardBusy(const nlohmann::json& record, const nlohmann::json* previous) {
  const nlohmann::json busy = ForwardSecondsTotal(record), up = Num(record, {gf::kServer, sf::kUptimeS});
  if (!busy.is_number() || !up.is_number()) return nullptr;
  double share = -1;
  if (previous && SameServer(record, *previous)) {
    const nlohmann::json busy0 = ForwardSecondsTotal(*previous), up0 = Num(*previous, {gf::kServer, sf::kUptimeS});
    if (busy0.is_number() && up0.is_number() && up.get<double>() > up0.get<double>())
      share = (busy.get<double>() - busy0.get<double>()) / (up.get<double>() - up0.get<double>());
  } else if (up.get<double>() > 0) {
    share = busy.get<double>() / up.get<double>();  // the server's first iteration
  }
  if (share < 0) return nullptr;
  return std::min(1.0, share);  // the counters are rounded
}

nlohmann::json IterationAverageBatch(const nlohmann::json& record, const nlohmann::json* previous) {
  const nlohmann::json positions = Num(record, {gf::kServer, sf::kPositionsForwardedTotal}),
                       forwards = Num(record, {gf::kServer, sf::kForwardsTotal});
  if (positions.is_number() && forwards.is_number() && previous) {
    const nlohmann::json p0 = Num(*previous, {gf::kServer, sf::kPositionsForwardedTotal}),
                         f0 = Num(*previous, {gf::kServer, sf::kForwardsTotal});
    if (SameServer(record, *previous) && p0.is_number() && f0.is_number() && forwards.get<double>() > f0.get<double>() &&
        positions.get<double>() >= p0.get<double>())
      return (positions.get<double>() - p0.get<double>()) / (forwards.get<double>() - f0.get<double>());
  }
  // The first iteration of a server: everything it served so far; records of
  // older builds have only the snapshot.
  const nlohmann::json total = Num(record, {gf::kServer, sf::kAvgBatchTotal});
  return total.is_number() ? total : Num(record, {gf::kServer, sf::kAvgBatch});
}

bool IsGameFileName(const std::string& name) { return ParseGameFileName(name).has_value(); }

nlohmann::json SeriesJson(const std::string& run_dir) {
  RunLayout layout(run_dir);
  nlohmann::json error;
  JsonLines lines = ReadLinesOrEmpty(layout.generations(), kGenerationRecord, &error);
  // One record per iteration, the last line wins (a resumed trainer may repeat one).
  std::map<int64_t, nlohmann::json> by_it;
  int bad = lines.bad_lines;
  for (auto& r : lines.records) {
    if (!r.contains(gf::kIteration) || !r[gf::kIteration].is_number_integer()) {
      ++bad;
      continue;
    }
    const int64_t it = r[gf::kIteration].get<int64_t>();  // before the move: json's operator= takes by value
    by_it[it] = std::move(r);
  }
  const char* keys[] = {"policy_loss", "value_loss", "entropy", "games_per_min", "avg_batch",
                        "batch_fill", "forward_busy", "selfplay_s", "training_s", "reload_s",
                        "avg_game_length", "black_share", "white_share", "draw_share"};
  nlohmann::json out = {{"iterations", nlohmann::json::array()}, {"bad_lines", bad}, {"error", error}};
  for (const char* k : keys) out[k] = nlohmann::json::array();
  const nlohmann::json* previous = nullptr;
  for (const auto& [it, r] : by_it) {
    const nlohmann::json batch = IterationAverageBatch(r, previous), busy = IterationForwardBusy(r, previous);
    previous = &r;
    out["iterations"].push_back(it);
    out["policy_loss"].push_back(Num(r, {gf::kLosses, gf::kLossPolicy}));
    out["value_loss"].push_back(Num(r, {gf::kLosses, gf::kLossValue}));
    out["entropy"].push_back(Num(r, {gf::kEntropy}));
    out["games_per_min"].push_back(Num(r, {gf::kGamesPerMin}));
    out["avg_batch"].push_back(batch);
    out["batch_fill"].push_back(Ratio(batch, Num(r, {gf::kServer, sf::kMaxBatch})));
    out["forward_busy"].push_back(busy);
    out["selfplay_s"].push_back(Num(r, {gf::kSelfplayS}));
    out["training_s"].push_back(Num(r, {gf::kTrainingS}));
    // The reload proper when recorded, else the whole publish step that contains it.
    nlohmann::json reload = Num(r, {gf::kReload, gf::kReloadSeconds});
    out["reload_s"].push_back(reload.is_null() ? Num(r, {gf::kPublishS}) : reload);
    out["avg_game_length"].push_back(Num(r, {gf::kAvgGameLength}));
    const double b = Or(Num(r, {gf::kWins, gf::kWinsBlack}), -1), w = Or(Num(r, {gf::kWins, gf::kWinsWhite}), -1),
                 d = Or(Num(r, {gf::kWins, gf::kWinsDraw}), -1);
    const double n = b + w + d;
    const bool ok = b >= 0 && w >= 0 && d >= 0 && n > 0;
    out["black_share"].push_back(ok ? nlohmann::json(b / n) : nlohmann::json(nullptr));
    out["white_share"].push_back(ok ? nlohmann::json(w / n) : nlohmann::json(nullptr));
    out["draw_share"].push_back(ok ? nlohmann::json(d / n) : nlohmann::json(nullptr));
  }
  return out;
}

nlohmann::json RatingsJson(const std::string& run_dir) {
  namespace f = fields::rating;
  nlohmann::json error;
  JsonLines lines = ReadLinesOrEmpty(RunLayout(run_dir).ratings(), kRatingRecord, &error);
  int bad = lines.bad_lines;
  std::vector<const nlohmann::json*> rows;
  for (const auto& r : lines.records) {
    if (!r.contains(f::kIteration) || !r[f::kIteration].is_number_integer()) {
      ++bad;
      continue;
    }
    rows.push_back(&r);
  }
  // Evaluation order is the file's; the chart's x axis is numeric, so sort (stable).
  std::stable_sort(rows.begin(), rows.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return (*a)[f::kIteration].get<int64_t>() < (*b)[f::kIteration].get<int64_t>();
  });
  nlohmann::json out = {{"iterations", nlohmann::json::array()}, {"elo", nlohmann::json::array()},
                        {"elo_low", nlohmann::json::array()},    {"elo_high", nlohmann::json::array()},
                        {"complete", nlohmann::json::array()},   {"opponents", nlohmann::json::object()},
                        {"anchor", nullptr},                     {"bad_lines", bad},
                        {"error", error}};
  // First pass: every opponent entry seen, so each one's arrays align with iterations.
  std::vector<std::string> entries;
  for (const auto* r : rows)
    if (r->contains(f::kOpponents) && (*r)[f::kOpponents].is_array())
      for (const auto& o : (*r)[f::kOpponents])
        if (o.is_object() && o.contains(f::kEntry) && o[f::kEntry].is_string()) {
          std::string e = o[f::kEntry].get<std::string>();
          if (std::find(entries.begin(), entries.end(), e) == entries.end()) entries.push_back(e);
        }
  const std::map<std::string, std::string> labels = ShortEntryNames(entries);
  for (const auto& e : entries)
    out["opponents"][e] = {{"label", labels.at(e)},                {"name", nlohmann::json::array()}, {"elo", nlohmann::json::array()},
                           {"elo_low", nlohmann::json::array()}, {"elo_high", nlohmann::json::array()},
                           {"score", nlohmann::json::array()},   {"games", nlohmann::json::array()}};
  for (const auto* r : rows) {
    out["iterations"].push_back((*r)[f::kIteration]);
    out["elo"].push_back(Num(*r, {f::kElo}));
    out["elo_low"].push_back(Num(*r, {f::kEloLow}));
    out["elo_high"].push_back(Num(*r, {f::kEloHigh}));
    out["complete"].push_back(r->contains(f::kComplete) && (*r)[f::kComplete].is_boolean() ? (*r)[f::kComplete]
                                                                                             : nlohmann::json(nullptr));
    if (r->contains(f::kAnchor) && (*r)[f::kAnchor].is_string()) out["anchor"] = (*r)[f::kAnchor];
    for (const auto& e : entries) {
      const nlohmann::json* found = nullptr;
      if (r->contains(f::kOpponents) && (*r)[f::kOpponents].is_array())
        for (const auto& o : (*r)[f::kOpponents])
          if (o.is_object() && o.value(f::kEntry, nlohmann::json(nullptr)) == e) found = &o;
      auto& dst = out["opponents"][e];
      if (!found) {
        for (const char* k : {"name", "elo", "elo_low", "elo_high", "score", "games"}) dst[k].push_back(nullptr);
        continue;
      }
      const auto& o = *found;
      dst["name"].push_back(o.contains(f::kName) && o[f::kName].is_string() ? o[f::kName] : nlohmann::json(nullptr));
      dst["elo"].push_back(Num(o, {f::kElo}));
      dst["elo_low"].push_back(Num(o, {f::kEloLow}));
      dst["elo_high"].push_back(Num(o, {f::kEloHigh}));
      const double wins = Or(Num(o, {f::kWins}), 0), draws = Or(Num(o, {f::kDraws}), 0),
                   losses = Or(Num(o, {f::kLosses}), 0);
      const double n = wins + draws + losses;
      dst["score"].push_back(n > 0 ? nlohmann::json((wins + draws / 2) / n) : nlohmann::json(nullptr));
      dst["games"].push_back(n);
    }
  }
  return out;
}

nlohmann::json EvaluatorJson(const std::string& run_dir) {
  namespace f = fields::evaluator_status;
  nlohmann::json warnings = nlohmann::json::array();
  nlohmann::json st = ReadStatusRecord(RunLayout(run_dir).evaluator_status(), kEvaluatorStatusRecord, warnings);
  if (!st.is_object())
    return {{"present", false}, {"alive", false}, {"error", warnings.empty() ? nlohmann::json(nullptr) : warnings[0]}};
  st["present"] = true;
  const double hb = Or(Num(st, {f::kHeartbeat}), 0);
  const double age = NowSeconds() - hb;
  const std::string state = st.contains(f::kState) && st[f::kState].is_string() ? st[f::kState].get<std::string>() : "";
  const int pid = static_cast<int>(Or(Num(st, {f::kPid}), 0));
  st["heartbeat_age_s"] = hb > 0 ? nlohmann::json(age) : nlohmann::json(nullptr);
  // docs/ratings.md: a heartbeat older than about 10 s outside stopped/error means dead.
  st["alive"] = hb > 0 && age <= 10.0 && state != "stopped" && state != "error" && PidAlive(pid, "evaluator");
  return st;
}

nlohmann::json LiveStatusJson(const std::string& run_dir) {
  StatusOptions opt;
  opt.run_dir = run_dir;
  opt.query_gpu = false;
  nlohmann::json s = CollectStatus(opt);
  s["evaluator"] = EvaluatorJson(run_dir);
  return s;
}

nlohmann::json IterationsJson(const std::string& run_dir) {
  RunLayout layout(run_dir);
  std::vector<int64_t> its;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(layout.games(), ec)) {
    auto n = ParseIterationNumber(e.path().filename().string(), RunLayout::kGamesDirPrefix, "");
    if (n && e.is_directory(ec)) its.push_back(*n);
  }
  std::sort(its.begin(), its.end());
  return {{"iterations", its}, {"checkpoints", ListCheckpointIterations(layout.checkpoints())}};
}

nlohmann::json GameFilesJson(const std::string& run_dir, int64_t iteration) {
  std::vector<std::tuple<std::string, int64_t, int64_t, std::string>> files;  // host, worker, k, name
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(RunLayout(run_dir).games_for(iteration), ec)) {
    const std::string name = e.path().filename().string();
    const std::optional<GameFileName> parsed = ParseGameFileName(name);
    if (!parsed) continue;
    files.emplace_back(parsed->host, parsed->worker, parsed->index, name);
  }
  std::sort(files.begin(), files.end());
  nlohmann::json names = nlohmann::json::array();
  for (const auto& f : files) names.push_back(std::get<3>(f));
  return {{"iteration", iteration}, {"files", names}};
}

}  // namespace gz
