#include "common/data/game_record.h"

#include <algorithm>
#include <cmath>

#include "common/game/encoder.h"
#include "common/game/renju.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/npz.h"

namespace gz {

void GameRecord::AddMove(const Board& before, const std::vector<float>& visit_policy, float root_q, int move,
                         int64_t generation) {
  boards.insert(boards.end(), before.cells().begin(), before.cells().end());
  to_move.push_back(before.to_move());
  policy.insert(policy.end(), visit_policy.begin(), visit_policy.end());
  q.push_back(root_q);
  moves.push_back(static_cast<int16_t>(move));
  model_generations.push_back(generation);
}

std::string GameRecord::ToNpzBytes() const {
  const int64_t t = num_moves(), n = board_size;
  std::map<std::string, NpyArray> a;
  a["boards"] = MakeNpy(boards, {t, n, n});
  a["to_move"] = MakeNpy(to_move, {t});
  a["policy"] = MakeNpy(policy, {t, n * n});
  a["q"] = MakeNpy(q, {t});
  a["moves"] = MakeNpy(moves, {t});
  a["model_generations"] = MakeNpy(model_generations, {t});
  a["opening"] = MakeNpy(opening, {static_cast<int64_t>(opening.size())});
  a["winner"] = MakeNpyScalar<int8_t>(winner);
  if (adjudicated) a["adjudicated"] = MakeNpyScalar<int8_t>(1);  // absent = 0: older files, unchanged bytes
  if (!full_search.empty()) a["full_search"] = MakeNpy(full_search, {t});  // absent = all full
  if (resign_on) {
    a["resigned"] = MakeNpyScalar<int8_t>(resigned ? 1 : 0);
    a["resign_disabled"] = MakeNpyScalar<int8_t>(resign_disabled ? 1 : 0);
    a["would_resign_move"] = MakeNpyScalar<int64_t>(would_resign_move);
  }
  a["iteration"] = MakeNpyScalar<int64_t>(iteration);
  a["model_generation"] = MakeNpyScalar<int64_t>(model_generation);
  a["seed"] = MakeNpyScalar<int64_t>(seed);
  a["board_size"] = MakeNpyScalar<int64_t>(board_size);
  a["rule"] = MakeNpyScalar<int64_t>(static_cast<int64_t>(rule));
  a["encoder_version"] = MakeNpyScalar<int64_t>(kEncoderVersion);
  if (rule == Rule::kRenju) a["renju_version"] = MakeNpyScalar<int64_t>(kRenjuRulesVersion);  // renju.h
  if (IsCaro(rule)) a["caro_version"] = MakeNpyScalar<int64_t>(kCaroRulesVersion);             // board.h
  a["format_version"] = MakeNpyScalar<int64_t>(kGameFormatVersion);
  return WriteNpz(a);
}

namespace {
using NpzArrays = std::map<std::string, NpyArray>;

const NpyArray& Need(const NpzArrays& m, const std::string& key, const std::string& what,
                     const std::vector<int64_t>& shape) {
  auto it = m.find(key);
  if (it == m.end()) GOMOKU_THROW(IoError, what << ": missing array '" << key << "'");
  if (it->second.shape != shape) GOMOKU_THROW(IoError, what << ": array '" << key << "' has the wrong shape");
  return it->second;
}
int64_t Scalar(const NpzArrays& m, const std::string& key, const std::string& what) {
  return Need(m, key, what, {}).As<int64_t>()[0];
}

// The versions this build must match, the board size and the rule.
void ReadRecordRules(const NpzArrays& m, const std::string& what, GameRecord& r) {
  int64_t fv = Scalar(m, "format_version", what);
  if (fv != kGameFormatVersion)
    GOMOKU_THROW(IoError, what << ": game format version " << fv << ", this build reads " << kGameFormatVersion);
  int64_t ev = Scalar(m, "encoder_version", what);
  if (ev != kEncoderVersion) GOMOKU_THROW(IoError, what << ": encoder version " << ev << " != " << kEncoderVersion);
  int64_t n = Scalar(m, "board_size", what);
  if (n < kMinBoardSize || n > kMaxBoardSize) GOMOKU_THROW(IoError, what << ": bad board size " << n);
  r.board_size = static_cast<int>(n);
  int64_t rule = Scalar(m, "rule", what);
  if (rule < 0 || rule > static_cast<int64_t>(kLastRule)) GOMOKU_THROW(IoError, what << ": bad rule " << rule);
  r.rule = static_cast<Rule>(rule);
  if (r.rule == Rule::kRenju) {
    // Absent: written before the rule text was followed (renju.h kRenjuRulesVersion 1).
    const int64_t rv = m.count("renju_version") ? Scalar(m, "renju_version", what) : 1;
    if (rv != kRenjuRulesVersion)
      GOMOKU_THROW(IoError, what << ": renju game of renju rules version " << rv << ", this build plays version "
                                 << kRenjuRulesVersion
                                 << " (its forbidden points or its draws differ; see common/game/renju.h)");
  }
  if (IsCaro(r.rule)) {
    // Absent: written when the board's edge closed no end (board.h kCaroRulesVersion 1).
    const int64_t cv = m.count("caro_version") ? Scalar(m, "caro_version", what) : 1;
    if (cv != kCaroRulesVersion)
      GOMOKU_THROW(IoError, what << ": caro game of caro rules version " << cv << ", this build plays version "
                                 << kCaroRulesVersion << " (fives that touch the edge are judged otherwise; see "
                                 << "common/game/board.h)");
  }
}

// The per-move arrays, the opening and the winner; returns the number of moves.
int64_t ReadRecordMoves(const NpzArrays& m, const std::string& what, GameRecord& r) {
  const int64_t n = r.board_size;
  auto mv = m.find("moves");
  if (mv == m.end() || mv->second.shape.size() != 1) GOMOKU_THROW(IoError, what << ": missing or bad 'moves'");
  const int64_t t = mv->second.shape[0];
  if (t > n * n) GOMOKU_THROW(IoError, what << ": " << t << " moves on a " << n << "x" << n << " board");
  r.moves = Need(m, "moves", what, {t}).As<int16_t>();
  r.boards = Need(m, "boards", what, {t, n, n}).As<int8_t>();
  r.to_move = Need(m, "to_move", what, {t}).As<int8_t>();
  r.policy = Need(m, "policy", what, {t, n * n}).As<float>();
  r.q = Need(m, "q", what, {t}).As<float>();
  r.model_generations = Need(m, "model_generations", what, {t}).As<int64_t>();
  auto op = m.find("opening");
  if (op == m.end() || op->second.shape.size() != 1) GOMOKU_THROW(IoError, what << ": missing or bad 'opening'");
  r.opening = op->second.As<int16_t>();
  r.winner = Need(m, "winner", what, {}).As<int8_t>()[0];
  return t;
}

// The fields older files lack: adjudicated, full_search, the resignation's.
void ReadRecordOptionalFields(const NpzArrays& m, const std::string& what, int64_t t, GameRecord& r) {
  if (m.count("adjudicated")) {
    const int8_t adj = Need(m, "adjudicated", what, {}).As<int8_t>()[0];
    if (adj != 0 && adj != 1) GOMOKU_THROW(IoError, what << ": bad adjudicated " << int(adj));
    r.adjudicated = adj == 1;
  }
  if (m.count("full_search")) {
    r.full_search = Need(m, "full_search", what, {t}).As<int8_t>();
    for (int8_t f : r.full_search)
      if (f != 0 && f != 1) GOMOKU_THROW(IoError, what << ": bad full_search " << int(f));
  }
  if (m.count("resigned") || m.count("resign_disabled") || m.count("would_resign_move")) {
    r.resign_on = true;
    const int8_t res = Need(m, "resigned", what, {}).As<int8_t>()[0];
    const int8_t dis = Need(m, "resign_disabled", what, {}).As<int8_t>()[0];
    if (res != 0 && res != 1) GOMOKU_THROW(IoError, what << ": bad resigned " << int(res));
    if (dis != 0 && dis != 1) GOMOKU_THROW(IoError, what << ": bad resign_disabled " << int(dis));
    r.resigned = res == 1;
    r.resign_disabled = dis == 1;
    r.would_resign_move = Scalar(m, "would_resign_move", what);
    if (r.would_resign_move < -1 || r.would_resign_move >= std::max<int64_t>(t, 1) ||
        (r.resigned && (r.resign_disabled || r.would_resign_move < 0)))
      GOMOKU_THROW(IoError, what << ": bad resignation fields (would_resign_move " << r.would_resign_move << ")");
  }
}

// Value checks: a corrupt-but-CRC-valid file must not poison training.
void CheckRecordValues(const GameRecord& r, int64_t t, const std::string& what) {
  const int64_t n = r.board_size;
  if (r.winner < 0 || r.winner > 2) GOMOKU_THROW(IoError, what << ": bad winner " << int(r.winner));
  for (int8_t c : r.boards)
    if (c < 0 || c > 2) GOMOKU_THROW(IoError, what << ": bad board cell " << int(c));
  for (int64_t i = 0; i < t; ++i) {
    if (r.to_move[i] != kBlack && r.to_move[i] != kWhite) GOMOKU_THROW(IoError, what << ": bad to_move at " << i);
    if (r.moves[i] < 0 || r.moves[i] >= n * n) GOMOKU_THROW(IoError, what << ": bad move at " << i);
    if (!std::isfinite(r.q[i]) || std::fabs(r.q[i]) > 1.0001f) GOMOKU_THROW(IoError, what << ": bad q at " << i);
    double s = 0;
    for (int64_t p = 0; p < n * n; ++p) {
      float x = r.policy[i * n * n + p];
      if (!std::isfinite(x) || x < 0) GOMOKU_THROW(IoError, what << ": bad policy value at move " << i);
      s += x;
    }
    if (std::fabs(s - 1.0) > 1e-3) GOMOKU_THROW(IoError, what << ": policy of move " << i << " sums to " << s);
  }
}
}  // namespace

GameRecord GameRecord::FromNpzBytes(const std::string& bytes, const std::string& what) {
  auto m = ReadNpz(bytes, what);
  GameRecord r;
  ReadRecordRules(m, what, r);
  const int64_t t = ReadRecordMoves(m, what, r);
  ReadRecordOptionalFields(m, what, t, r);
  r.iteration = Scalar(m, "iteration", what);
  r.model_generation = Scalar(m, "model_generation", what);
  r.seed = Scalar(m, "seed", what);
  CheckRecordValues(r, t, what);
  return r;
}

void SaveGameRecord(const GameRecord& rec, const std::string& path) { WriteFileAtomic(path, rec.ToNpzBytes()); }

GameRecord LoadGameRecord(const std::string& path) {
  return GameRecord::FromNpzBytes(ReadFileOrThrow(path), path);
}

}  // namespace gz
