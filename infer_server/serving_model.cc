#include "infer_server/serving_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {

InferenceSettings ServingSettings(const ModelRequirements& req) {
  InferenceSettings settings;
  settings.backend = req.forward.backend;
  settings.device = req.device;
  settings.threads = req.threads;
  return settings;
}

std::unique_ptr<ServingModel> LoadServingModel(const std::string& path, const ModelRequirements& req) {
  CheckpointExpect expect;
  expect.board_size = req.board_size;
  return LoadServingModel(NetForwards(path, ServingSettings(req), expect, req.forward), req);
}

std::unique_ptr<ServingModel> LoadServingModel(const NetForwards& net, const ModelRequirements& req) {
  auto m = std::make_unique<ServingModel>();
  const std::string& path = net.path();
  m->path = path;
  m->info = net.info();
  m->choice = net.choice();
  m->forward = net.Make(req.board_size);
  // fc heads play only their own size, conv heads any size in range (the
  // loader has checked it too; this keeps the server's own wording).
  if (!CheckpointPlaysSize(m->info, req.board_size) || m->forward->board_size() != req.board_size)
    GOMOKU_THROW(ModelError, path << ": checkpoint board size " << m->info.board_size << " (" << m->info.heads
                                  << " heads), server serves " << req.board_size);
  if (ParseRule(m->info.rule) != req.rule)
    GOMOKU_THROW(ModelError, path << ": checkpoint rule '" << m->info.rule << "', server serves '"
                                  << RuleName(req.rule) << "'");
  if (m->info.encoder_version != kEncoderVersion)
    GOMOKU_THROW(ModelError, path << ": checkpoint encoder version " << m->info.encoder_version
                                  << ", this build encodes version " << kEncoderVersion);
  // Probe: the empty board must give finite outputs.
  Board empty(req.board_size, req.rule);
  std::vector<float> planes(PlaneFloats(req.board_size));
  EncodePosition(empty.ToPosition(), 0, planes.data());
  std::vector<float> logp(static_cast<size_t>(req.board_size) * req.board_size);
  float value = 0;
  m->generation = m->forward->Forward(planes.data(), 1, logp.data(), &value);
  bool finite = std::isfinite(value);
  for (float f : logp) finite = finite && std::isfinite(f);
  if (!finite) GOMOKU_THROW(ModelError, path << ": probe forward produced NaN/inf (corrupt weights?)");
  if (m->generation != m->info.model_generation)
    GOMOKU_THROW(ModelError, path << ": forward reports generation " << m->generation << ", header says "
                                  << m->info.model_generation);
  return m;
}

ForwardCost MeasureForwardCost(BatchForward& forward, int board_size, int symmetries, int large, int reps) {
  GOMOKU_CHECK(large >= 2 && symmetries >= 1 && reps >= 1, "MeasureForwardCost: bad sizes");
  Board empty(board_size, Rule::kFreestyle);
  const size_t stride = PlaneFloats(board_size);
  const int rows = large * symmetries;
  std::vector<float> planes(stride * rows);
  const Position empty_position = empty.ToPosition();
  for (int r = 0; r < rows; ++r) EncodePosition(empty_position, 0, planes.data() + r * stride);
  std::vector<float> logp(static_cast<size_t>(rows) * board_size * board_size), values(rows);
  auto best = [&](int positions) {
    double t = 1e30;
    for (int i = 0; i < reps; ++i) {
      const double a = MonotonicSeconds();
      forward.Forward(planes.data(), positions * symmetries, logp.data(), values.data());
      t = std::min(t, MonotonicSeconds() - a);
    }
    return t;
  };
  ForwardCost c;
  c.small = 1;
  c.small_s = best(1);
  c.large = large;
  c.large_s = best(large);
  return c;
}

}  // namespace gz
