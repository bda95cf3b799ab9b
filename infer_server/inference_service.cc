#include "infer_server/inference_service.h"

#include <algorithm>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/game/encoder.h"
#include "infer_server/job_input.h"
#include "infer_server/result_cache.h"

namespace gz {

// A job as the service submits it: the batch thread's part (InferJob) and
// what the service needs again to answer it.
struct InferenceService::Request : InferJob {
  int lane = 0;
  uint64_t reply_slot = 0;
  // Cache (empty when the cache is off): per position its key and, where
  // InferJob::hit is set, the cached answer.
  std::vector<CacheKey> keys;
  std::vector<EvalResult> cached;
};

void Participant::Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here) {
  service_->Finish(*this, std::move(job), std::move(outcome), write_here);
}

InferenceService::InferenceService(ServiceSettings settings, Batcher* batcher, Reloader* reloader, ServerStats* stats)
    : InferenceService(settings, std::vector<Batcher*>{batcher}, reloader, stats) {}

InferenceService::InferenceService(ServiceSettings settings, std::vector<Batcher*> lanes, Reloader* reloader,
                                   ServerStats* stats)
    : settings_(settings), lanes_(std::move(lanes)), reloader_(reloader), stats_(stats) {
  GOMOKU_CHECK(!lanes_.empty() && stats_ != nullptr, "InferenceService needs a batcher and stats");
  for (const Batcher* lane : lanes_) {
    GOMOKU_CHECK(lane != nullptr, "InferenceService: a null batcher");
    const int size = lane->settings().board_size;
    GOMOKU_CHECK(sizes_.empty() || size > sizes_.back(), "InferenceService: lanes must have ascending board sizes");
    sizes_.push_back(size);
  }
  GOMOKU_CHECK(std::find(sizes_.begin(), sizes_.end(), settings_.board_size) != sizes_.end(),
               "InferenceService: board size " << settings_.board_size << " has no lane");
}

int64_t InferenceService::generation() const {
  int64_t lowest = lanes_.front()->generation();
  for (const Batcher* lane : lanes_) lowest = std::min(lowest, lane->generation());
  return lowest;
}

HelloVerdict InferenceService::CheckHello(const wire::Hello& h, int bound_lane) const {
  std::string why;
  auto differ = [&why](const std::string& what) { why += (why.empty() ? "" : "; ") + what; };
  if (h.proto_version != wire::kProtoVersion)
    differ("protocol version " + std::to_string(h.proto_version) + " != server " + std::to_string(wire::kProtoVersion));
  if (h.encoder_version != kEncoderVersion)
    differ("encoder version " + std::to_string(h.encoder_version) + " != server " + std::to_string(kEncoderVersion));
  const auto served = std::find(sizes_.begin(), sizes_.end(), h.board_size);
  const int lane = served == sizes_.end() ? -1 : static_cast<int>(served - sizes_.begin());
  if (lane < 0 && sizes_.size() == 1) {
    differ("board size " + std::to_string(h.board_size) + " != server " + std::to_string(sizes_.front()));
  } else if (lane < 0) {
    std::string list;
    for (int n : sizes_) list += (list.empty() ? "" : ", ") + std::to_string(n);
    differ("board size " + std::to_string(h.board_size) + " is not served (sizes " + list + ")");
  } else if (bound_lane >= 0 && lane != bound_lane) {
    differ("board size " + std::to_string(h.board_size) + " != this connection's " +
           std::to_string(sizes_.at(bound_lane)) + " (a connection keeps the size of its first HELLO)");
  }
  if (h.rule != settings_.rule)
    differ(std::string("rule ") + RuleName(h.rule) + " != server " + RuleName(settings_.rule));
  if (h.symmetry != settings_.symmetry)
    differ(std::string("symmetry ") + SymmetryModeName(h.symmetry) + " != server " +
           SymmetryModeName(settings_.symmetry));
  HelloVerdict v;
  if (!why.empty()) {
    v.refusal_code =
        h.proto_version != wire::kProtoVersion ? wire::ErrorCode::kVersionMismatch : wire::ErrorCode::kIncompatible;
    v.refusal = "HELLO refused: " + why;
    return v;
  }
  v.accepted = true;
  v.lane = lane;
  v.reply.model_generation = lanes_[lane]->generation();
  v.reply.max_positions = wire::MaxPositionsPerInfer(h.board_size);
  return v;
}

std::string InferenceService::StatsJson() const { return stats_->Snapshot(false).dump(); }

void InferenceService::Infer(const std::shared_ptr<Participant>& who, int lane, uint64_t request_id, uint64_t slot,
                             std::string_view body) {
  Batcher* batcher = lanes_.at(lane);
  const int size = sizes_[lane];
  auto req = std::make_unique<Request>();
  req->positions = wire::DecodeInfer(body, size, settings_.rule);
  req->lane = lane;
  req->client_id = who->id();
  req->request_id = request_id;
  req->reply_slot = slot;
  const int n = static_cast<int>(req->positions.size());
  int hits = 0;
  if (ResultCache* cache = batcher->cache()) {
    const int64_t gen = batcher->generation();
    req->cache_generation = gen;
    req->keys.resize(n);
    req->hit.assign(n, 0);
    req->cached.resize(n);
    for (int i = 0; i < n; ++i) {
      req->keys[i] = MakeCacheKey(req->positions[i], settings_.symmetry);
      if (gen >= 0 && cache->Lookup(gen, req->keys[i], &req->cached[i])) {
        req->hit[i] = 1;
        ++hits;
      }
    }
    if (gen >= 0) stats_->RecordCacheLookups(n, hits);
    if (hits == n) {  // everything cached: answer now, no batcher
      stats_->RecordCachedRequest(n);
      who->SendAnswerInOrder(slot, wire::BuildFrame(wire::MsgType::kInferReply, request_id,
                                                    wire::EncodeInferReply(gen, req->cached, size)));
      return;
    }
  }
  // Encoded here, while the batch thread runs the previous forward.
  EncodeJobInput(*req, settings_.symmetry, size, batcher->input_form());
  req->target = std::static_pointer_cast<ReplyTarget>(who);
  req->enqueued_at = MonotonicSeconds();
  std::unique_ptr<InferJob> job = std::move(req);
  wire::ErrorCode code;
  std::string why;
  if (!batcher->Submit(job, &code, &why))
    who->SendAnswerInOrder(slot, wire::BuildFrame(wire::MsgType::kError, request_id, wire::EncodeError({code, why})));
}

void InferenceService::Reload(const std::shared_ptr<Participant>& who, uint64_t request_id, std::string path) {
  GOMOKU_CHECK(reloader_ != nullptr, "this inference service takes no RELOAD");
  spdlog::info("{} asks to reload {}", who->Name(), path);
  std::weak_ptr<Participant> weak = who;
  reloader_->Request(std::move(path), [weak, request_id](int64_t gen, const std::string& error) {
    auto p = weak.lock();
    if (!p) return;
    Participant* raw = p.get();  // Post keeps it alive until the work has run
    raw->Post([raw, request_id, gen, error] {
      raw->SendAnswer(gen >= 0 ? wire::BuildFrame(wire::MsgType::kReloadOk, request_id, wire::EncodeGeneration(gen))
                               : wire::BuildFrame(wire::MsgType::kError, request_id,
                                                  wire::EncodeError({wire::ErrorCode::kReloadFailed, error})));
    });
  });
}

void InferenceService::Finish(Participant& who, std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here) {
  if (write_here) {
    Answer(who, std::move(job), std::move(outcome));
    return;
  }
  auto j = std::make_shared<std::unique_ptr<InferJob>>(std::move(job));
  auto o = std::make_shared<JobOutcome>(std::move(outcome));
  who.Post([this, &who, j, o] { Answer(who, std::move(*j), std::move(*o)); });
}

void InferenceService::Answer(Participant& who, std::unique_ptr<InferJob> job, JobOutcome out) {
  if (who.closed()) {
    stats_->RecordDropped();
    return;
  }
  // Participant::Deliver gets only the jobs that Infer submitted.
  Request& req = static_cast<Request&>(*job);
  std::string frame;
  try {
    frame = BuildReply(req, out);
  } catch (const std::exception& e) {  // runs on the batch thread too: never let it escape
    spdlog::error("client {}: cannot build the reply to request {}: {}", who.id(), req.request_id, e.what());
    frame = wire::BuildFrame(wire::MsgType::kError, req.request_id,
                             wire::EncodeError({wire::ErrorCode::kInternal, e.what()}));
  }
  who.SendAnswerInOrder(req.reply_slot, std::move(frame));
}

std::string InferenceService::BuildReply(Request& req, JobOutcome& out) {
  if (!out.ok)
    return wire::BuildFrame(wire::MsgType::kError, req.request_id, wire::EncodeError({out.error_code, out.error}));
  const int per = SymmetriesPerPosition(settings_.symmetry);
  const int size = sizes_[req.lane];
  const size_t pts = static_cast<size_t>(size) * size;
  const size_t n = req.positions.size();
  std::vector<EvalResult> results(n);
  Batcher* batcher = lanes_[req.lane];
  ResultCache* cache = req.keys.empty() ? nullptr : batcher->cache();
  // Answers of a model that is no longer serving are not worth keeping.
  if (cache && out.generation != batcher->generation()) cache = nullptr;
  size_t row = 0;
  for (size_t i = 0; i < n; ++i) {
    // The batch thread clears the hits that went stale (another model serves).
    if (!req.hit.empty() && req.hit[i]) {
      results[i] = std::move(req.cached[i]);
      continue;
    }
    CombineSymmetric(req.positions[i], settings_.symmetry, out.log_policy.data() + row * per * pts,
                     out.values.data() + row * per, &results[i]);
    ++row;
    if (cache) cache->Insert(out.generation, req.keys[i], results[i]);
  }
  return wire::BuildFrame(wire::MsgType::kInferReply, req.request_id,
                          wire::EncodeInferReply(out.generation, results, size));
}

}  // namespace gz
