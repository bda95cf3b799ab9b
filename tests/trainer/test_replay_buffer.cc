// ReplayBuffer: window boundaries, targets, 8-symmetry augmentation.
#include <catch2/catch.hpp>

#include <set>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/game/symmetry.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/replay_buffer.h"

using namespace gz;
using gz::testing::Ptrs;
using gz::testing::RandomGame;

namespace {


// A short hand-made game: black plays 0,1,2; white plays 10,11; policy one-hot on the move played.
GameRecord HandGame(int size, int8_t winner) {
  GameRecord rec;
  rec.board_size = size;
  Board b(size, Rule::kFreestyle);
  for (int m : {0, 10, 1, 11, 2}) {
    std::vector<float> pol(size * size, 0.0f);
    pol[m] = 1.0f;
    rec.AddMove(b, pol, 0.0f, m, 0);
    b.Play(m);
  }
  rec.winner = winner;
  return rec;
}

}  // namespace

TEST_CASE("value target is the result from the mover's view") {
  CHECK(ValueTarget(kBlack, kBlack) == 1.0f);
  CHECK(ValueTarget(kBlack, kWhite) == -1.0f);
  CHECK(ValueTarget(kWhite, kWhite) == 1.0f);
  CHECK(ValueTarget(kWhite, kBlack) == -1.0f);
  CHECK(ValueTarget(0, kBlack) == 0.0f);
  CHECK(ValueTarget(0, kWhite) == 0.0f);
}

TEST_CASE("replay window keeps the last W iterations by number") {
  ReplayBuffer buf(7, 3);
  std::vector<GameRecord> games = {HandGame(7, kBlack)};  // 5 samples
  for (int it = 1; it <= 5; ++it) buf.AddIteration(it, Ptrs(games));
  CHECK(buf.iterations() == std::vector<int64_t>{3, 4, 5});
  CHECK(buf.num_samples() == 15);
  CHECK(buf.samples_in(2) == 0);
  CHECK(buf.samples_in(3) == 5);

  SECTION("re-adding an iteration replaces it") {
    std::vector<GameRecord> two = {HandGame(7, kBlack), HandGame(7, kWhite)};
    buf.AddIteration(4, Ptrs(two));
    CHECK(buf.iterations() == std::vector<int64_t>{3, 4, 5});
    CHECK(buf.samples_in(4) == 10);
    CHECK(buf.num_samples() == 20);
  }
  SECTION("a gap drops everything older than newest - W + 1") {
    buf.AddIteration(7, Ptrs(games));
    CHECK(buf.iterations() == std::vector<int64_t>{5, 7});
    buf.AddIteration(100, Ptrs(games));
    CHECK(buf.iterations() == std::vector<int64_t>{100});
  }
  SECTION("window 1 keeps only the newest") {
    ReplayBuffer one(7, 1);
    one.AddIteration(9, Ptrs(games));
    one.AddIteration(10, Ptrs(games));
    CHECK(one.iterations() == std::vector<int64_t>{10});
  }
}

TEST_CASE("samples carry the position, previous move, policy and value") {
  const int n = 7, pts = n * n;
  ReplayBuffer buf(n, 2);
  std::vector<GameRecord> games = {HandGame(n, kBlack)};
  buf.AddIteration(1, Ptrs(games));
  REQUIRE(buf.num_samples() == 5);
  std::vector<float> planes(PlaneFloats(n)), policy(pts);
  float value = 0;
  // Sample 3: before black's... moves 0(B),10(W),1(B) played; white (11) to move.
  buf.EncodeSample(3, 0, planes.data(), policy.data(), &value);
  CHECK(value == -1.0f);           // white to move, black won
  CHECK(policy[11] == 1.0f);
  CHECK(planes[0 * pts + 10] == 1.0f);  // own (white) stone
  CHECK(planes[1 * pts + 0] == 1.0f);   // opponent (black) stones
  CHECK(planes[1 * pts + 1] == 1.0f);
  CHECK(planes[2 * pts + 1] == 1.0f);   // last move
  CHECK(planes[3 * pts + 0] == 0.0f);   // white to move
  // Sample 0: empty board, no previous move, black to move.
  buf.EncodeSample(0, 0, planes.data(), policy.data(), &value);
  CHECK(value == 1.0f);
  float last_sum = 0;
  for (int p = 0; p < pts; ++p) last_sum += planes[2 * pts + p];
  CHECK(last_sum == 0.0f);
  CHECK(planes[3 * pts] == 1.0f);
}

TEST_CASE("the first searched move's previous move is the last opening move") {
  const int n = 7;
  GameRecord rec;
  rec.board_size = n;
  Board b(n, Rule::kFreestyle);
  b.Play(24);
  rec.opening = {24};
  std::vector<float> pol(n * n, 0.0f);
  pol[25] = 1.0f;
  rec.AddMove(b, pol, 0.0f, 25, 0);
  rec.winner = 0;
  ReplayBuffer buf(n, 1);
  buf.AddIteration(1, {&rec});
  std::vector<float> planes(PlaneFloats(n)), policy(n * n);
  float value = 5;
  buf.EncodeSample(0, 0, planes.data(), policy.data(), &value);
  CHECK(planes[2 * n * n + 24] == 1.0f);
  CHECK(value == 0.0f);
}

TEST_CASE("augmentation transforms planes and policy target with the same symmetry") {
  const int n = 7, pts = n * n;
  ReplayBuffer buf(n, 1);
  std::vector<GameRecord> games = {HandGame(n, kWhite)};
  buf.AddIteration(1, Ptrs(games));
  std::vector<float> planes(PlaneFloats(n)), policy(pts), ref_planes(PlaneFloats(n)), ref_policy(pts);
  float value = 0, ref_value = 0;
  for (int64_t i = 0; i < buf.num_samples(); ++i) {
    buf.EncodeSample(i, 0, ref_planes.data(), ref_policy.data(), &ref_value);
    for (int s = 0; s < kNumSymmetries; ++s) {
      buf.EncodeSample(i, s, planes.data(), policy.data(), &value);
      CHECK(value == ref_value);
      for (int p = 0; p < pts; ++p) {
        const int q = TransformPoint(s, p, n);
        CHECK(policy[q] == ref_policy[p]);
        for (int k = 0; k < kNumPlanes; ++k) CHECK(planes[k * pts + q] == ref_planes[k * pts + p]);
      }
      // The target move is always on an empty point of the transformed board.
      int target = static_cast<int>(std::max_element(policy.begin(), policy.end()) - policy.begin());
      CHECK(planes[0 * pts + target] == 0.0f);
      CHECK(planes[1 * pts + target] == 0.0f);
    }
  }
}

TEST_CASE("SampleBatch draws every symmetry and stays consistent") {
  const int n = 7, pts = n * n;
  ReplayBuffer buf(n, 1);
  std::vector<GameRecord> games = {HandGame(n, kBlack)};
  buf.AddIteration(1, Ptrs(games));
  const int count = 400;
  std::vector<float> planes(count * PlaneFloats(n)), policy(count * pts), value(count);
  std::mt19937_64 rng(42);
  buf.SampleBatch(count, rng, planes.data(), policy.data(), value.data());
  // Sample 0 of the hand game (empty board, target point 0) shows up as one of the 8 corner images.
  std::set<int> targets_of_empty_board;
  for (int k = 0; k < count; ++k) {
    const float* pl = planes.data() + k * PlaneFloats(n);
    float stones = 0;
    for (int p = 0; p < 2 * pts; ++p) stones += pl[p];
    if (stones != 0) continue;
    const float* po = policy.data() + k * pts;
    targets_of_empty_board.insert(static_cast<int>(std::max_element(po, po + pts) - po));
    CHECK(value[k] == 1.0f);
  }
  std::set<int> corners;
  for (int s = 0; s < kNumSymmetries; ++s) corners.insert(TransformPoint(s, 0, n));
  CHECK(targets_of_empty_board == corners);  // 4 corners, all reached
}

TEST_CASE("replay buffer rejects misuse") {
  ReplayBuffer buf(7, 2);
  std::vector<float> x(PlaneFloats(7) + 49 + 1);
  std::mt19937_64 rng(1);
  CHECK_THROWS_AS(buf.SampleBatch(1, rng, x.data(), x.data(), x.data()), GomokuError);
  GameRecord g9 = RandomGame(9, 1, 3);
  CHECK_THROWS_AS(buf.AddIteration(1, {&g9}), GomokuError);
  CHECK_THROWS_AS(ReplayBuffer(7, 0), GomokuError);
}
