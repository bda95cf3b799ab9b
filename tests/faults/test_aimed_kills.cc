// kill -9 aimed at the write itself (reliability checklist rows 1 and 3): the
// test watches the writer's directories with inotify and SIGKILLs the real
// process the moment its temp file `X.tmp.<pid>.<n>` appears (IN_CREATE), or,
// for the append-only generations.jsonl, the moment the file is modified.
// libgz_faultfs.so slows the writer's fsync and rename on those paths
// (GZ_FAULT_ERRNO=none, a delay only), so the writer is still inside its write
// when the signal lands; a kill "landed" when the temp file still exists after
// the process is reaped.  The test counts the landed kills and asserts their
// number (it repeats until enough landed; a bound on attempts guards a hang).
//
// Invariants after every kill: no torn final file (every game file, checkpoint
// and metadata.json loads), the restarted process removes the temp file its
// predecessor left, and the run goes on.
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <optional>
#include <set>

#include "common/net/net_api.h"
#include "tests/faults/fault_test_util.h"
#include "tests/trainer/fake_infer_server.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/generation_log.h"

#include <catch2/catch.hpp>

using namespace gz;
using namespace gz::testing;

namespace {

// inotify on a few directories (IN_CREATE, IN_MODIFY).
class DirWatch {
 public:
  explicit DirWatch(const std::vector<std::string>& dirs) {
    fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    REQUIRE(fd_ >= 0);
    for (const std::string& d : dirs) {
      const int wd = ::inotify_add_watch(fd_, d.c_str(), IN_CREATE | IN_MODIFY);
      REQUIRE(wd >= 0);
      dirs_[wd] = d;
    }
  }
  ~DirWatch() { ::close(fd_); }

  // Forgets queued events (those of a process already reaped).
  void Drain() {
    char buf[64 * 1024];
    while (::read(fd_, buf, sizeof buf) > 0) {
    }
  }

  // The first event whose (dir, name, mask) `want` accepts, as dir/name; nullopt
  // if `give_up` turns true or `limit_s` passes first (a guard, not a timing).
  using Want = std::function<bool(const std::string& dir, const std::string& name, uint32_t mask)>;
  std::optional<std::string> Next(const Want& want, double limit_s, const std::function<bool()>& give_up) {
    const double deadline = MonotonicSeconds() + limit_s;
    alignas(inotify_event) char buf[64 * 1024];
    while (MonotonicSeconds() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) {
        if (give_up()) return std::nullopt;
        continue;
      }
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      for (ssize_t off = 0; off < n;) {
        auto* ev = reinterpret_cast<inotify_event*>(buf + off);
        off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
        if (ev->len == 0) continue;
        const std::string& dir = dirs_[ev->wd];
        if (want(dir, ev->name, ev->mask)) return dir + "/" + ev->name;
      }
    }
    return std::nullopt;
  }

 private:
  int fd_ = -1;
  std::map<int, std::string> dirs_;
};

// The pid in a temp name X.tmp.<pid>.<n>, or -1.
long TempPid(const std::string& name) {
  if (!TempFileTarget(name)) return -1;
  const size_t dot_n = name.rfind('.');
  const size_t dot_pid = name.rfind('.', dot_n - 1);
  return std::stol(name.substr(dot_pid + 1, dot_n - dot_pid - 1));
}

// A temp file of process `pid` whose final name `final_ok` accepts, just created.
DirWatch::Want TempOf(pid_t pid, const std::function<bool(const std::string&)>& final_ok) {
  return [=](const std::string&, const std::string& name, uint32_t mask) {
    auto target = TempFileTarget(name);
    return (mask & IN_CREATE) && target && TempPid(name) == pid && final_ok(*target);
  };
}

constexpr int kWorkerLandedKills = 70;
constexpr int kTrainerTempKills = 20;  // 10 checkpoints + 10 metadata.json
constexpr int kTrainerLogKills = 10;   // generations.jsonl appends

}  // namespace

TEST_CASE("kill -9 aimed at the worker's game-file writes: no torn game, temp files cleaned, the run goes on") {
  // Three workers (ids 1-3) on one games directory, each restarted after its
  // kill: a start costs about a second (loading LibTorch), so they overlap.
  // Each start publishes 0, 1 or 2 games first and is killed at the next one.
  const std::string dir = FreshTestDir("aimed_worker");
  RunLayout layout(dir);
  PublishUniformRun(dir, 1, /*quota=*/100000);
  const std::string games = layout.games_for(1);
  MakeDirs(games);
  const auto env = FaultFsEnv({layout.games(), "write", "none", 0, "", /*delay_ms=*/40});
  constexpr int kWorkers = 3;
  auto args = [&](int id) {
    return std::vector<std::string>{"--id", std::to_string(id), "--set", "run.dir=" + dir};
  };
  struct Slot {
    std::unique_ptr<TestProcess> process;
    int skip = 0;          // own temp files to let through before the kill
    int published = 0;     // games this start let through
    std::string leftover;  // the temp file its last landed kill left
  };
  std::vector<Slot> slots(kWorkers + 1);  // by worker id, 1..kWorkers
  int starts = 0;
  auto start = [&](int id) {
    slots[id].skip = slots[id].published = starts++ % 3;
    slots[id].process = std::make_unique<TestProcess>(BinPath("worker"), args(id), dir + "/worker.out", env,
                                                      std::vector<std::string>{"GOMOKU_INFER_SOCK"});
  };
  DirWatch watch({games});
  for (int id = 1; id <= kWorkers; ++id) start(id);
  int landed = 0, aimed = 0, published = 0;
  std::set<std::string> checked;  // final game files already loaded
  auto check_new_games = [&] {
    for (const auto& e : std::filesystem::directory_iterator(games)) {
      const std::string name = e.path().filename().string();
      if (TempFileTarget(name) || !checked.insert(name).second) continue;
      CHECK_NOTHROW(LoadGameRecord(e.path().string()));  // never a torn final file
    }
  };
  while (landed < kWorkerLandedKills && aimed < 3 * kWorkerLandedKills) {
    int id = 0;
    auto want = [&](const std::string&, const std::string& name, uint32_t mask) {
      if (!(mask & IN_CREATE) || !TempFileTarget(name)) return false;
      for (int k = 1; k <= kWorkers; ++k)
        if (slots[k].process->pid() == TempPid(name)) {
          if (slots[k].skip-- > 0) return false;  // this game may be published
          id = k;
          return true;
        }
      return false;
    };
    auto exited = [&] {
      for (int k = 1; k <= kWorkers; ++k)
        if (slots[k].process->Poll()) return true;
      return false;
    };
    std::optional<std::string> temp = watch.Next(want, 120, exited);
    INFO(ReadFileOrThrow(dir + "/worker.out"));
    REQUIRE(temp);
    Slot& slot = slots[id];
    slot.process->Kill();
    ++aimed;
    published += slot.published;
    // The restarted worker removed its predecessor's temp file before writing.
    if (!slot.leftover.empty()) CHECK_FALSE(FileExists(slot.leftover));
    slot.leftover.clear();
    if (FileExists(*temp)) {
      ++landed;
      slot.leftover = *temp;
    }
    check_new_games();
    start(id);
  }
  INFO("aimed kills " << aimed << ", landed while the temp file existed " << landed);
  CHECK(landed == kWorkerLandedKills);
  for (int id = 1; id <= kWorkers; ++id) slots[id].process->Kill();
  check_new_games();
  CHECK(checked.size() >= static_cast<size_t>(published));  // every game let through before a kill is there
  CHECK(published >= kWorkerLandedKills * 3 / 4);

  // The run goes on: each worker, started once more, cleans up and writes two more games.
  std::vector<int64_t> have(kWorkers + 1, 0);
  for (int id = 1; id <= kWorkers; ++id)
    while (FileExists(layout.game_file(1, id, have[id]))) ++have[id];
  for (int id = 1; id <= kWorkers; ++id)
    slots[id].process = std::make_unique<TestProcess>(BinPath("worker"), args(id), dir + "/worker.out",
                                                      std::map<std::string, std::string>{},
                                                      std::vector<std::string>{"GOMOKU_INFER_SOCK"});
  for (int id = 1; id <= kWorkers; ++id) {
    REQUIRE(WaitUntil([&] { return FileExists(layout.game_file(1, id, have[id] + 1)) || slots[id].process->Poll(); },
                      120));
    CHECK(slots[id].process->Terminate(std::chrono::seconds(15)) == 0);
    CHECK_FALSE(FileExists(slots[id].leftover));
    // Indices contiguous: a killed game was replayed under the same index, none lost.
    for (int64_t k = 0; k < have[id] + 2; ++k) CHECK(LoadGameRecord(layout.game_file(1, id, k)).iteration == 1);
  }
  CHECK(TempFilesUnder(dir).empty());
}

TEST_CASE("kill -9 aimed at the trainer's checkpoint, metadata.json and generations.jsonl writes: it resumes") {
  auto [dir, run, c] = TinyTrainerRun("aimed_trainer");
  c.run.max_iterations = 100000;  // every start is killed; the last one is given an end
  c.train.keep_last = 100000;
  const auto [cfg, log] = WriteTrainerFiles(c, "aimed_trainer");
  FakeInferServer server(c.server.socket, AckAsIterationPlus500);
  FakeWorkers workers(run, 7, 4);
  MakeDirs(run.checkpoints());
  const auto env = FaultFsEnv({run.checkpoints() + "/:" + run.metadata() + ":" + run.generations(), "write", "none",
                               0, "", /*delay_ms=*/40});
  DirWatch watch({dir, run.checkpoints()});
  {  // The cold start, not killed (a kill there would simply start cold again).
    TestProcess p(BinPath("trainer"), {"--config", cfg}, log, env);
    REQUIRE(WaitUntil([&] { return MetadataIteration(run) >= 1 || p.Poll().has_value(); }, 120));
    REQUIRE_FALSE(p.Poll());
    p.Kill();
  }
  const ino_t it0 = Inode(run.checkpoint(0));
  enum Kind { kCheckpoint, kMetadata, kGenerations };
  int temp_landed = 0, log_kills = 0, aimed = 0;
  std::string leftover;
  // In one iteration the trainer saves checkpoint n, then writes metadata.json
  // (iteration n+1), then appends the record of n: the kinds in that order.
  for (int i = 0; temp_landed + log_kills < kTrainerTempKills + kTrainerLogKills && aimed < 90; ++i) {
    const Kind kind = static_cast<Kind>(i % 3);
    if (kind == kGenerations && log_kills >= kTrainerLogKills) continue;
    if (kind != kGenerations && temp_landed >= kTrainerTempKills) continue;
    watch.Drain();
    TestProcess p(BinPath("trainer"), {"--config", cfg}, log, env);
    DirWatch::Want want;
    if (kind == kCheckpoint)
      want = TempOf(p.pid(), [](const std::string& f) { return ParseIterationNumber(f, RunLayout::kCheckpointPrefix, RunLayout::kCheckpointSuffix).has_value(); });
    else if (kind == kMetadata)
      want = TempOf(p.pid(), [](const std::string& f) { return f == RunLayout::kMetadataFile; });
    else
      want = [&](const std::string& d, const std::string& name, uint32_t mask) {
        return d == dir && name == RunLayout::kGenerationsFile && (mask & IN_MODIFY);
      };
    std::optional<std::string> hit = watch.Next(want, 120, [&] { return p.Poll().has_value(); });
    INFO("kill " << i << " kind " << kind);
    REQUIRE(hit);
    p.Kill();
    ++aimed;
    if (!leftover.empty()) CHECK_FALSE(FileExists(leftover));  // removed by the restart
    leftover.clear();
    if (kind == kGenerations) {
      ++log_kills;
    } else if (FileExists(*hit)) {
      ++temp_landed;
      leftover = *hit;
    }
    // No torn final file: metadata.json parses and names a loadable checkpoint;
    // every checkpoint loads.
    std::optional<Metadata> meta;
    CHECK_NOTHROW(meta = ReadMetadata(run.metadata()));
    if (meta) CHECK_NOTHROW(ReadCheckpointInfo(meta->weights));
    for (const auto& e : std::filesystem::directory_iterator(run.checkpoints()))
      if (!TempFileTarget(e.path().filename().string())) CHECK_NOTHROW(ReadCheckpointInfo(e.path().string()));
  }
  INFO("aimed kills " << aimed << ": " << temp_landed << " with a temp file present, " << log_kills
                      << " at a generations.jsonl append");
  CHECK(temp_landed == kTrainerTempKills);
  CHECK(log_kills == kTrainerLogKills);
  CHECK(workers.read_failures() == 0);  // metadata.json was always complete

  // The run goes on: the last start finishes two iterations past the kills.
  auto meta = ReadMetadata(run.metadata());
  REQUIRE(meta);
  const int64_t last = meta->iteration + 1;
  TestProcess p(BinPath("trainer"), {"--config", cfg, "--set", "run.max_iterations=" + std::to_string(last)}, log);
  REQUIRE(WaitUntil([&] { return p.Poll().has_value(); }, 180));
  CHECK(*p.Poll() == 0);
  const std::string text = Slurp(log);
  CHECK(Count(text, "cold start: created generation-0 weights") == 1);  // never started over
  CHECK(Inode(run.checkpoint(0)) == it0);
  CHECK_FALSE(FileExists(leftover));
  CHECK(TempFilesUnder(dir).empty());
  meta = ReadMetadata(run.metadata());
  REQUIRE(meta);
  CHECK(meta->iteration == last + 1);
  for (int64_t i = 0; i <= last; ++i) CHECK(ReadCheckpointInfo(run.checkpoint(i)).iteration == i);
  GenerationLog gl = ReadGenerationLog(run.generations());
  std::vector<int64_t> its, want;
  for (const auto& r : gl.records) its.push_back(r["iteration"].get<int64_t>());
  for (int64_t i = 1; i <= last; ++i) want.push_back(i);
  CHECK(its == want);  // each iteration once: nothing lost, nothing repeated
  CHECK(gl.bad_lines <= log_kills);
}
