// What the inference server's requests mean, apart from the connections that
// carry them (docs/protocol.md).  Session is the transport (framing,
// deadlines, ordered writes); InferenceService is the logic shared by every
// connection; Participant is the interface between the two.
//
// Lanes: the service serves one or more board sizes, each with its own
// Batcher (and that batcher's ResultCache and model), its "lane".  An accepted
// HELLO binds the connection to the lane of its board size for the
// connection's life (the Session keeps the lane index; the service keeps no
// per-connection state); its INFERs are decoded, batched and answered at that
// size, so positions of different sizes never share a forward.
//
// The service answers whether a HELLO is compatible with this server, and
// runs each INFER as one pipeline: decode -> result-cache lookup (a request
// whose positions are all cached is answered at once, without the batcher)
// -> encode the rest (on the caller's thread, while the batch thread runs
// the previous forward) -> submit to the Batcher -> combine the symmetries
// of the outcome and merge the cached answers -> insert the new answers in
// the cache -> INFER_REPLY (or ERROR) to the participant, in its reply slot.
// RELOADs go to the Reloader; their answer comes back on the participant's
// strand.
//
// Thread-safety: every method may be called from any thread; the service
// keeps no per-connection state.  It must outlive every participant and
// every job it submitted (the batcher is stopped before it goes).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/game/board.h"
#include "common/search/symmetric_batch.h"
#include "common/wire/wire.h"
#include "infer_server/batcher.h"
#include "infer_server/reloader.h"
#include "infer_server/server_stats.h"

namespace gz {

class InferenceService;

// One connection as the service sees it.  The batcher delivers the
// connection's finished jobs here (ReplyTarget; the batcher holds it weakly:
// a connection that is gone gets nothing), and Deliver hands them to the
// service, which answers through the transport hooks below.
class Participant : public ReplyTarget {
 public:
  explicit Participant(InferenceService* service) : service_(service) {}
  void Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here) final;

  // Transport hooks; any thread unless said otherwise.
  // The answer to the INFER in reply slot `slot`: sent once every earlier
  // slot's answer is.  Dropped when the connection is closed.
  virtual void SendAnswerInOrder(uint64_t slot, std::string frame) = 0;
  // The answer to a RELOAD (not ordered with INFER answers).  Strand only.
  virtual void SendAnswer(std::string frame) = 0;
  // Runs `work` on the connection's strand; the connection stays alive
  // until it has run.
  virtual void Post(std::function<void()> work) = 0;
  virtual bool closed() const = 0;
  virtual uint64_t id() const = 0;     // distinct per connection
  virtual std::string Name() const = 0;  // for log lines; strand only

 private:
  InferenceService* service_;
};

struct ServiceSettings {
  // The server's board.size: the one lane's size, or one of the lanes' sizes
  // (the lanes' sizes are their batchers' BatchSettings.board_size).
  int board_size = 15;
  Rule rule = Rule::kFreestyle;
  SymmetryMode symmetry = SymmetryMode::kAll8;
};

// The service's answer to a HELLO.
struct HelloVerdict {
  bool accepted = false;
  wire::HelloOk reply;  // accepted: what HELLO_OK says
  int lane = -1;        // accepted: the lane (index into board_sizes()) of the client's board size
  wire::ErrorCode refusal_code = wire::ErrorCode::kIncompatible;
  std::string refusal;  // refused: "HELLO refused: " and every mismatch
};

class InferenceService {
 public:
  // None of the pointers is owned; all outlive the service.  `reloader` may
  // be null (then RELOAD must not be asked for).
  // One lane: `batcher` plays settings.board_size.
  InferenceService(ServiceSettings settings, Batcher* batcher, Reloader* reloader, ServerStats* stats);
  // One lane per batcher, in ascending board size (distinct sizes, one of
  // them settings.board_size); the reloader loads into the same batchers.
  InferenceService(ServiceSettings settings, std::vector<Batcher*> lanes, Reloader* reloader, ServerStats* stats);
  InferenceService(const InferenceService&) = delete;
  InferenceService& operator=(const InferenceService&) = delete;

  // Whether a client that says `hello` may use this server: its board size
  // must be one of board_sizes().  `bound_lane` >= 0: the connection already
  // said HELLO and is bound to that lane; a HELLO of another size is refused.
  HelloVerdict CheckHello(const wire::Hello& hello, int bound_lane = -1) const;
  // A connection's first accepted HELLO (binding it to verdict.lane), and its
  // close after one (each lane's batcher counts its inference clients for its
  // auto wait).
  void Join(int lane) { lanes_.at(lane)->AddClient(); }
  void Leave(int lane) { lanes_.at(lane)->RemoveClient(); }

  // The generation every lane serves (the lowest lane's; -1 until every lane
  // has a model; lanes differ only for the moment of a swap).
  int64_t generation() const;
  const std::vector<int>& board_sizes() const { return sizes_; }  // ascending, one per lane
  std::string StatsJson() const;                                   // the STATS_REPLY payload

  // INFER `body` (request_id, answered in reply slot `slot`) of `who`, a
  // connection bound to `lane`: the pipeline above, at that lane's size.  The answer reaches who->SendAnswerInOrder here, or
  // later from the batch thread or who's strand.  Throws ProtocolError for
  // a malformed body (nothing is answered then).
  void Infer(const std::shared_ptr<Participant>& who, int lane, uint64_t request_id, uint64_t slot,
             std::string_view body);
  // Asks the reloader for `path` (loaded into every lane); RELOAD_OK or ERROR reaches
  // who->SendAnswer on who's strand, unless who is gone by then.
  void Reload(const std::shared_ptr<Participant>& who, uint64_t request_id, std::string path);

 private:
  friend class Participant;
  struct Request;
  // A finished job of `who` (Participant::Deliver): answered here when
  // write_here, else on who's strand.
  void Finish(Participant& who, std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here);
  void Answer(Participant& who, std::unique_ptr<InferJob> job, JobOutcome outcome);
  std::string BuildReply(Request& request, JobOutcome& outcome);  // may throw

  const ServiceSettings settings_;
  const std::vector<Batcher*> lanes_;
  std::vector<int> sizes_;  // lanes_[i]->settings().board_size
  Reloader* reloader_;
  ServerStats* stats_;
};

}  // namespace gz
