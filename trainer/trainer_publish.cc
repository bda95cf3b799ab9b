// SAVE and PUBLISH of an iteration (the state machine of trainer.h): the
// checkpoint, optimizer and trainer state; the reload of every server that
// plays the new weights, here and on the self-play hosts; metadata.json last,
// then the iteration's generations.jsonl line and checkpoint retention.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/base/fileio.h"
#include "common/data/host_reload.h"
#include "common/data/metadata.h"
#include "common/data/record_fields.h"
#include "common/game/encoder.h"
#include "common/net/checkpoint.h"
#include "trainer/generation_log.h"
#include "trainer/retention.h"
#include "trainer/server_reload.h"
#include "trainer/trainer.h"
#include "trainer/trainer_state.h"

namespace gz {
namespace {

// "a, b, c": the hosts or iterations a log line names.
std::string JoinList(const std::vector<std::string>& items) {
  std::string list;
  for (const std::string& item : items) list += (list.empty() ? "" : ", ") + item;
  return list;
}

}  // namespace

// What PUBLISH learns on the way, for the iteration's generations.jsonl line.
struct Trainer::Publication {
  double start = 0;
  std::optional<nlohmann::json> server_stats;  // the server's view of the self-play that just ended
  bool multi_host = false;
  ReloadOutcome reload;
  HostReloadOutcome hosts;
  int64_t generation = 0;  // the generation the servers serve (n when no server answered)
};

void Trainer::SaveTrained(int64_t n, const nlohmann::json& record) {
  CheckpointInfo info;
  info.board_size = config_.board.size;
  info.rule = config_.board.rule;
  info.encoder_version = kEncoderVersion;
  info.channels = config_.net.channels;
  info.blocks = config_.net.blocks;
  info.iteration = n;
  info.model_generation = n;
  info.seed = config_.run.seed;
  info.play = config_.PlaySettings();  // the net plays outside the run as the run searched
  const std::string path = run_.checkpoint(n);
  SaveCheckpoint(path, trainer_->net(), info);
  spdlog::info("checkpoint saved: iteration {} ({})", n, path);

  TrainerState state;
  state.trained_iteration = n;
  state.optimizer_file = std::filesystem::path(paths_.optimizer(n)).filename().string();
  state.record = record;
  trainer_->SaveOptimizerState(paths_.optimizer(n));
  WriteTrainerState(paths_.state(), state);
  // Only the newest optimizer state is ever used; keep one older for safety.
  std::error_code ec;
  std::filesystem::remove(paths_.optimizer(n - 2), ec);
}

bool Trainer::Publish(int64_t n, nlohmann::json record, const std::atomic<bool>* stop) {
  Publication pub;
  pub.start = NowSeconds();
  // The server's view of the self-play that just ended (before the reload resets anything).
  pub.server_stats = TryFetchServerStats(socket_, 2.0);
  if (!ReloadServers(n, pub, stop)) return false;
  if (!AwaitHosts(n, pub, stop)) return false;
  WriteRunMetadata(n, pub.generation);
  if (n == 0) return true;  // cold start: no iteration finished
  RecordPublished(n, std::move(record), pub);
  return true;
}

bool Trainer::ReloadServers(int64_t n, Publication& pub, const std::atomic<bool>* stop) {
  const std::string weights = run_.checkpoint(n);
  // Self-play hosts follow the announcement (they load while this machine's
  // server does); the checkpoint's model_generation is n (SaveTrained).
  WriteReloadAnnouncement(run_.reload_announcement(), ReloadAnnouncement{n, weights, n, NowSeconds()});
  pub.multi_host = !hosts_->Snapshot().empty();
  spdlog::info("publishing iteration {}: announced {} in {}{}; asking the inference server at {} to load it", n,
               weights, run_.reload_announcement(), pub.multi_host ? " for the self-play hosts" : "", socket_);
  pub.reload = ReloadServer(socket_, weights, config_.train.reload_timeout_s, stop);
  const ReloadOutcome& reload = pub.reload;
  pub.generation = n;
  if (reload.acknowledged) {
    pub.generation = reload.generation;
    spdlog::info("inference server acknowledged the reload of {}: model_generation {} ({:.2f}s)", weights,
                 pub.generation, reload.seconds);
    return true;
  }
  if (stop && stop->load()) return false;
  if (pub.multi_host)
    spdlog::info("no inference server on this machine ({}); the self-play hosts follow {}", reload.note,
                 run_.reload_announcement());
  else
    spdlog::warn("inference server not running ({}); continuing without it: workers load {} themselves",
                 reload.note, weights);
  return true;
}

bool Trainer::AwaitHosts(int64_t n, Publication& pub, const std::atomic<bool>* stop) {
  // Pitfall 5 across hosts: metadata.json only after every live host serves
  // the new generation; a silent host is excluded by name.
  pub.hosts = AwaitHostAcks(*hosts_, pub.generation, config_.train.reload_timeout_s, stop);
  const HostReloadOutcome& hosts = pub.hosts;
  if (hosts.stopped) return false;
  std::set<std::string> excluded_now;
  for (const auto& [host, why] : hosts.excluded) {
    // A WARNING when a host drops out; while it stays out, an info line per iteration.
    if (excluded_hosts_.count(host)) spdlog::info("self-play host {} excluded from iteration {}: {}", host, n + 1, why);
    else spdlog::warn("self-play host {} excluded from iteration {}: {}", host, n + 1, why);
    excluded_now.insert(host);
  }
  excluded_hosts_ = std::move(excluded_now);
  if (!hosts.acknowledged.empty())
    spdlog::info("self-play hosts serving generation {}: {} ({:.2f}s)", pub.generation, JoinList(hosts.acknowledged),
                 hosts.seconds);
  return true;
}

void Trainer::WriteRunMetadata(int64_t n, int64_t generation) {
  const std::string weights = run_.checkpoint(n);
  Metadata meta;
  meta.iteration = n + 1;
  meta.weights = weights;
  meta.model_generation = generation;
  meta.updated_at = NowSeconds();
  meta.config = ConfigJson();
  WriteMetadata(run_.metadata(), meta);
  spdlog::info("metadata published: iteration {} (weights {}, model_generation {})", n + 1, weights, generation);
}

void Trainer::RecordPublished(int64_t n, nlohmann::json record, const Publication& pub) {
  namespace gf = fields::generation;
  const double end = NowSeconds();
  record["end"] = end;
  record[gf::kPublishS] = end - pub.start;
  if (record.contains(gf::kStart)) record[gf::kTotalS] = end - record[gf::kStart].get<double>();
  record[gf::kModelGeneration] = pub.generation;
  const ReloadOutcome& reload = pub.reload;
  record[gf::kReload] = {{"acknowledged", reload.acknowledged}, {"generation", reload.generation},
                         {gf::kReloadSeconds, reload.seconds}, {"attempts", reload.attempts}, {"note", reload.note}};
  if (pub.server_stats) record[gf::kServer] = *pub.server_stats;
  if (pub.multi_host) record["hosts"] = pub.hosts.ToJson();
  AppendGenerationRecord(run_.generations(), record);
  std::vector<int64_t> protect = EvaluatorPinnedCheckpoints(run_.evaluator_status());
  protect.push_back(n);
  std::vector<int64_t> deleted = ApplyCheckpointRetention(run_.checkpoints(), config_.train.keep_last,
                                                          config_.train.keep_every, protect);
  if (!deleted.empty()) {
    std::vector<std::string> its;
    for (int64_t d : deleted) its.push_back(std::to_string(d));
    spdlog::info("checkpoint retention: deleted iterations {}", JoinList(its));
  }
  if (record.contains(gf::kTotalS))
    spdlog::info("iteration {} finished: self-play {:.1f}s, training {:.1f}s, total {:.1f}s", n,
                 record.value(gf::kSelfplayS, 0.0), record.value(gf::kTrainingS, 0.0), record[gf::kTotalS].get<double>());
}

}  // namespace gz
