// Trainer: preparing the run directory, cold start and resume (trainer.h).
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/record_fields.h"
#include "common/net/checkpoint.h"
#include "common/net/net_api.h"
#include "common/wire/wire_client.h"
#include "trainer/game_files.h"
#include "trainer/rank_follower.h"
#include "trainer/generation_log.h"
#include "trainer/trainer.h"
#include "trainer/trainer_state.h"

namespace gz {

namespace {
Config WithAbsoluteRunDir(Config c) {
  // Metadata names the weights by path; other processes may run elsewhere.
  c.run.dir = std::filesystem::absolute(c.run.dir).lexically_normal().string();
  while (c.run.dir.size() > 1 && c.run.dir.back() == '/') c.run.dir.pop_back();
  return c;
}
}  // namespace

Trainer::Trainer(Config config)
    : config_(WithAbsoluteRunDir(std::move(config))),
      run_(config_.run.dir),
      paths_(run_),
      buffer_(config_.board_sizes(), config_.train.replay_iterations),
      collector_(run_, CollectSettings::FromConfig(config_)) {
  buffer_.SetValueTargetQWeight(config_.train.value_target_q_weight);  // soft value targets (0 = off)
}

Trainer::~Trainer() = default;

nlohmann::json Trainer::ConfigJson() const { return config_.ToJson(); }

void Trainer::Prepare() {
  for (const std::string& d : {run_.dir, run_.checkpoints(), run_.games(), paths_.dir, run_.logs(), run_.status_dir()})
    MakeDirs(d);
  RemoveOwnTempFiles();
  WriteFileAtomic(run_.config(), config_.ToJsonString() + "\n");
  spdlog::info("effective config (saved to {}):\n{}", run_.config(), config_.ToJsonString());
  at::set_num_threads(config_.train.threads);
  torch::manual_seed(config_.run.seed);
  device_ = torch::Device(ResolveDevice(config_.inference.device));
  socket_ = ResolveSocketPath(config_);
  hosts_ = std::make_unique<HostMonitor>(run_.dir, config_.run.host_timeout_s);
  hosts_->Start();
  spdlog::info("trainer: run dir {}, training on {} with {} threads, inference server socket {}", run_.dir,
               device_.str(), config_.train.threads, socket_);
  if (config_.train.world_size > 1)  // rank 0 of data-parallel training: waits for the followers
    dp_ = std::make_unique<DataParallel>(config_.train, DataParallelFingerprint(config_), 0, device_);
}

// What a trainer killed mid-write left: temp files of the files only the
// trainer writes (it runs alone on a run directory).  Readers skip temp
// names anyway; this keeps them from piling up (docs/reliability.md).
void Trainer::RemoveOwnTempFiles() {
  const std::vector<std::string> root_files = RunLayout::TrainerRootFiles();
  int removed = RemoveTempFilesOf(run_.dir, [&](const std::string& name) {
    return std::find(root_files.begin(), root_files.end(), name) != root_files.end();
  });
  for (const std::string& d : {run_.checkpoints(), paths_.dir})
    removed += RemoveTempFilesOf(d, [](const std::string&) { return true; });
  if (removed > 0) spdlog::info("removed {} temp file(s) left by an earlier trainer killed mid-write", removed);
}

void Trainer::WriteInitialWeights(const std::string& path0) {
  const std::string& init = config_.train.init_weights;
  const std::string key = "train.init_weights";
  CheckpointInfo info;
  PolicyValueNet net = [&] {
    try {
      return LoadCheckpoint(init, {}, &info);
    } catch (const GomokuError& e) {
      GOMOKU_THROW(ConfigError, key << ": " << e.what());
    }
  }();
  auto differ = [&](const char* what, const std::string& have, const std::string& want, const char* run_key) {
    if (have != want)
      GOMOKU_THROW(ConfigError, key << ": checkpoint '" << init << "' has " << what << " " << have << " but "
                                    << run_key << " is " << want << "; a run starts only from a net of its own shape");
  };
  differ("heads", NetHeadsName(info.heads), config_.net.heads, "net.heads");
  differ("channels", std::to_string(info.channels), std::to_string(config_.net.channels), "net.channels");
  differ("blocks", std::to_string(info.blocks), std::to_string(config_.net.blocks), "net.blocks");
  differ("rule", info.rule, RuleName(config_.rule()), "board.rule");
  if (!CheckpointPlaysSize(info, config_.board.size))
    differ("board size", std::to_string(info.board_size), std::to_string(config_.board.size), "board.size");
  if (net->heads == NetHeads::kConv) net->board_size = config_.board.size;
  CheckpointInfo gen0;
  gen0.rule = RuleName(config_.rule());
  gen0.seed = config_.run.seed;
  gen0.play = config_.PlaySettings();
  SaveCheckpoint(path0, net, gen0);  // iteration 0, generation 0 of this run
  spdlog::info("cold start: generation-0 weights {} are {} (iteration {} of its own run; train.init_weights)", path0,
               init, info.iteration);
}

void Trainer::LoadNet(const std::string& path, int64_t expect_iteration) {
  CheckpointExpect expect;
  expect.board_size = config_.board.size;
  expect.channels = config_.net.channels;
  expect.blocks = config_.net.blocks;
  CheckpointInfo info;
  PolicyValueNet net = LoadCheckpoint(path, expect, &info);
  if (info.heads != ParseNetHeads(config_.net.heads))
    GOMOKU_THROW(ModelError, path << ": checkpoint has " << info.heads << " heads, net.heads is '" << config_.net.heads
                                  << "'");
  // A conv net (any size) trains at the run's size; its checkpoints then record it.
  if (net->heads == NetHeads::kConv) net->board_size = config_.board.size;
  if (info.rule != config_.board.rule)
    GOMOKU_THROW(ModelError, path << ": checkpoint rule '" << info.rule << "' differs from board.rule '"
                                  << config_.board.rule << "'");
  if (expect_iteration >= 0 && info.iteration != expect_iteration)
    GOMOKU_THROW(ModelError, path << ": checkpoint says iteration " << info.iteration << ", expected "
                                  << expect_iteration);
  trainer_ = std::make_unique<NetTrainer>(std::move(net), config_.train, device_);
  trainer_->SetDataParallel(dp_.get());
}

void Trainer::RestoreOptimizer(int64_t iteration) {
  auto state = ReadTrainerState(paths_.state());
  if (state && state->trained_iteration == iteration && !state->optimizer_file.empty()) {
    const std::string path = paths_.dir + "/" + state->optimizer_file;
    if (state->record.value("optimizer", std::string()) == config_.train.optimizer && FileExists(path)) {
      try {
        trainer_->LoadOptimizerState(path);
        spdlog::info("optimizer state restored from {}", path);
        return;
      } catch (const GomokuError& e) {
        spdlog::warn("optimizer state {} not usable ({}); starting with a fresh optimizer state", path, e.what());
        return;
      }
    }
  }
  if (iteration > 0)
    spdlog::warn("no optimizer state saved for iteration {}; starting with a fresh optimizer state", iteration);
}

void Trainer::RebuildReplayWindow(int64_t last_closed) {
  const int window = config_.train.replay_iterations;
  const int64_t first = std::max<int64_t>(1, last_closed - window + 1);
  const std::vector<int> sizes = config_.board_sizes();
  const std::set<int> boards(sizes.begin(), sizes.end());
  const Rule rule = config_.rule();
  // Loads the files named, skipping (with a WARNING) any that no longer vet.
  auto load = [&](int64_t it, const std::vector<std::string>& names, const char* what) {
    std::vector<GameRecord> records;
    const std::string dir = run_.games_for(it);
    for (const std::string& name : names) {
      GameRecord rec;
      std::string reason;
      GameVerdict v = LoadAndCheckGame(dir + "/" + name, {it, boards, rule}, &rec, &reason);
      if (v == GameVerdict::kUsable) records.push_back(std::move(rec));
      else spdlog::warn("replay window: skipping {} {}game file {}/{}: {}", GameVerdictName(v), what, dir, name, reason);
    }
    return records;
  };
  auto ptrs = [](const std::vector<GameRecord>& v) {
    std::vector<const GameRecord*> p;
    for (const auto& r : v) p.push_back(&r);
    return p;
  };
  std::map<int64_t, std::set<std::string>> known;  // the watched closed iterations' files
  int64_t games = 0, late_games = 0;
  for (int64_t it = first; it <= last_closed; ++it) {
    const std::string dir = run_.games_for(it);
    std::vector<std::string> names;
    auto m = ReadGameManifest(paths_.manifest(it));
    if (m) {
      names = m->used;
      known[it].insert(m->ignored.begin(), m->ignored.end());
    } else {
      names = ListGameFiles(dir);
      if (!names.empty())
        spdlog::warn("no game manifest for iteration {}; using every usable game file in {}", it, dir);
    }
    known[it].insert(names.begin(), names.end());
    std::vector<GameRecord> records = load(it, names, "");
    // The live step added its iteration even when empty; so does the rebuild.
    if (m || !records.empty()) buffer_.AddIteration(it, ptrs(records));
    games += static_cast<int64_t>(records.size());
    if (!m) continue;
    // The late games step `it` took, appended as the live step did: per
    // iteration played for, in the manifest's order (same samples, same order).
    for (size_t i = 0; i < m->late.size();) {
      const int64_t played_for = m->late[i].iteration;
      std::vector<std::string> group;
      for (; i < m->late.size() && m->late[i].iteration == played_for; ++i) group.push_back(m->late[i].file);
      if (!ReplayBuffer::InWindow(played_for, it, window)) continue;  // a manifest of another window size
      std::vector<GameRecord> late = load(played_for, group, "late ");
      buffer_.AppendGames(played_for, ptrs(late));
      late_games += static_cast<int64_t>(late.size());
    }
    for (const auto* list : {&m->late, &m->late_aged_out, &m->late_ignored})
      for (const LateEntry& e : *list)
        if (e.iteration >= first) known[e.iteration].insert(e.file);
  }
  for (auto& [it, names] : known) collector_.RememberClosed(it, std::move(names), window);
  if (last_closed >= 1) {
    if (auto m = ReadGameManifest(paths_.manifest(last_closed))) {
      ledger_.received = m->run_positions;
      ledger_.never_trained = m->run_never_trained;
    }
    spdlog::info("replay window rebuilt: iterations {}..{}, {} games and {} late games, {} samples; self-play samples "
                 "never trained on so far: {} of {}",
                 first, last_closed, games, late_games, buffer_.num_samples(), ledger_.never_trained,
                 ledger_.received);
  }
}

void Trainer::ColdStart() {
  std::vector<int64_t> its = ListCheckpointIterations(run_.checkpoints());
  if (!its.empty() && its.back() > 0) {
    // Checkpoints without metadata: never silently start over.
    for (auto i = its.rbegin(); i != its.rend(); ++i) {
      try {
        LoadNet(run_.checkpoint(*i), *i);
      } catch (const GomokuError& e) {
        spdlog::warn("checkpoint {} not loadable: {}", run_.checkpoint(*i), e.what());
        continue;
      }
      spdlog::warn("no {} but checkpoints up to iteration {} exist; resuming run at iteration {} from {} "
                   "(not starting from scratch)",
                   run_.metadata(), its.back(), *i + 1, run_.checkpoint(*i));
      RestoreOptimizer(*i);
      RebuildReplayWindow(*i);
      iteration_ = *i;
      auto state = ReadTrainerState(paths_.state());
      pending_publish_ = state && state->trained_iteration == *i ? state->record
                                                                   : nlohmann::json{{"iteration", *i}, {"resumed", true}};
      return;
    }
    GOMOKU_THROW(ModelError, "no " << run_.metadata() << " and none of the checkpoints in " << run_.checkpoints()
                                   << " loads; refusing to start from scratch over them");
  }
  const std::string path0 = run_.checkpoint(0);
  bool reused = false;
  if (FileExists(path0)) {
    try {
      LoadNet(path0, 0);
      reused = true;
      spdlog::info("cold start: reusing existing generation-0 weights {}", path0);
    } catch (const GomokuError& e) {
      spdlog::warn("cold start: existing {} not usable ({}); creating it again", path0, e.what());
    }
  }
  if (!reused && !config_.train.init_weights.empty()) {
    WriteInitialWeights(path0);
    LoadNet(path0, 0);
  } else if (!reused) {
    CreateRandomCheckpoint(path0, config_.board.size, config_.rule(), config_.net.channels, config_.net.blocks,
                           config_.run.seed, 0, 0, config_.net.heads);
    spdlog::info("cold start: created generation-0 weights {} (seed {}, {} channels, {} blocks)", path0,
                 config_.run.seed, config_.net.channels, config_.net.blocks);
    LoadNet(path0, 0);
  }
  iteration_ = 0;
  pending_publish_ = nlohmann::json{{"iteration", 0}};
}

void Trainer::Resume() {
  const Metadata meta = *ReadMetadata(run_.metadata());
  const int64_t m = meta.iteration;
  GOMOKU_CHECK(m >= 1, run_.metadata() << " has iteration " << m << "; expected >= 1");
  spdlog::info("resuming run at iteration {} (weights {}, model_generation {})", m, meta.weights,
               meta.model_generation);
  auto state = ReadTrainerState(paths_.state());
  const std::string trained_path = run_.checkpoint(m);
  if (FileExists(trained_path)) {
    try {
      LoadNet(trained_path, m);
      spdlog::info("iteration {} had finished training before the restart ({} is complete); publishing it", m,
                   trained_path);
      RestoreOptimizer(m);
      RebuildReplayWindow(m);
      iteration_ = m;
      pending_publish_ = state && state->trained_iteration == m ? state->record
                                                                 : nlohmann::json{{"iteration", m}, {"resumed", true}};
      return;
    } catch (const GomokuError& e) {
      const std::string bad = trained_path + ".bad";
      spdlog::warn("checkpoint {} is not usable ({}); moved to {}; training iteration {} again", trained_path,
                   e.what(), bad, m);
      std::error_code ec;
      std::filesystem::rename(trained_path, bad, ec);
    }
  }
  try {
    LoadNet(meta.weights, -1);
  } catch (const GomokuError& e) {
    GOMOKU_THROW(ModelError, run_.metadata() << " names weights " << meta.weights
                                             << " which cannot be loaded: " << e.what()
                                             << " (refusing to start the run from scratch)");
  }
  RestoreOptimizer(m - 1);
  RebuildReplayWindow(m - 1);
  // A kill between metadata and the generations.jsonl append loses that line: restore it.
  if (m - 1 >= 1 && state && state->trained_iteration == m - 1) {
    GenerationLog log = ReadGenerationLog(run_.generations());
    bool present = false;
    for (const auto& r : log.records) present = present || r[fields::generation::kIteration].get<int64_t>() == m - 1;
    if (!present) {
      nlohmann::json rec = state->record;
      // Publish adds the acknowledged generation after the state was saved;
      // metadata.json (written just before the lost append) still holds it.
      rec[fields::generation::kModelGeneration] = meta.model_generation;
      rec["recovered_after_restart"] = true;
      AppendGenerationRecord(run_.generations(), rec);
      spdlog::info("{}: restored the missing record of iteration {}", run_.generations(), m - 1);
    }
  }
  if (meta.config != ConfigJson()) {
    Metadata updated = meta;
    updated.config = ConfigJson();
    updated.updated_at = NowSeconds();
    WriteMetadata(run_.metadata(), updated);
    spdlog::info("config differs from the one in {}; rewrote it for iteration {} with the new config (same weights)",
                 run_.metadata(), m);
  }
  iteration_ = m;
}

}  // namespace gz
