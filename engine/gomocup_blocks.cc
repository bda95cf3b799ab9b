// GomocupSession's blocks (gomocup_session.h): the lines a command reads up
// to DONE (BOARD, YXBOARD, YXBLOCK, YXBLOCKUNDO, SWAP2BOARD, and Yixin's
// extensions that this engine reads whole), and what DONE does with them.
// The block is read to its end whatever is wrong in it, so none of its lines
// is taken for a command; the first problem is the one reply, at DONE.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/base/errors.h"
#include "common/game/point_text.h"
#include "engine/gomocup_session.h"
#include "engine/protocol_text.h"

namespace gz {

const char* GomocupSession::BlockWord(Block kind) {
  switch (kind) {
    case Block::kBoard: return "BOARD";
    case Block::kYxBoard: return "YXBOARD";
    case Block::kYxBlock: return "YXBLOCK";
    case Block::kYxBlockUndo: return "YXBLOCKUNDO";
    case Block::kSwap2: return "SWAP2BOARD";
    case Block::kQuery:
    case Block::kSkipped:
    case Block::kArgumentLine:
    case Block::kNone: break;
  }
  return "";
}

void GomocupSession::OpenBlock(const Call& c) {
  for (Block kind : {Block::kBoard, Block::kYxBoard, Block::kYxBlock, Block::kYxBlockUndo, Block::kSwap2})
    if (c.word == BlockWord(kind)) return Open(kind, c.args);
  GOMOKU_THROW(GomokuError, "the command table opens a block with " << c.word << ", which is no block's word");
}

void GomocupSession::Open(Block kind, const std::string& args) {
  block_ = kind;
  board_stones_.clear();
  block_points_.clear();
  const std::string name = BlockWord(kind);
  const bool reads_points = !name.empty();  // the blocks of Yixin's extensions are skipped whole
  block_error_ = !reads_points ? ""
                 : !args.empty() && kind != Block::kBoard && kind != Block::kSwap2
                     ? name + ": takes no arguments, got '" + OneLine(args) + "'"
                 : board_ ? ""
                          : name + ": no game started; send START first";
}

void GomocupSession::BlockLine(const std::string& command, const std::string& line, Time received,
                               std::vector<std::string>& replies) {
  if (block_ == Block::kArgumentLine) {  // e.g. YXHASHDUMP's file name: one line, whatever it says
    block_ = Block::kNone;
    return;
  }
  if (command != "DONE") {
    if (block_ == Block::kBoard || block_ == Block::kYxBoard) BoardLine(line);
    else if (block_ != Block::kSkipped && block_ != Block::kQuery) PointLine(line);
    return;
  }
  const Block done = block_;
  block_ = Block::kNone;
  switch (done) {
    case Block::kBoard: BoardDone(received, replies); break;
    case Block::kYxBoard: YxBoardDone(replies); break;
    case Block::kYxBlock: YxBlockDone(/*add=*/true, replies); break;
    case Block::kYxBlockUndo: YxBlockDone(/*add=*/false, replies); break;
    case Block::kSwap2: Swap2Done(received, replies); break;
    case Block::kSkipped: replies.push_back("ERROR " + block_error_); break;
    case Block::kQuery:
    case Block::kArgumentLine:
    case Block::kNone: break;
  }
}

void GomocupSession::PointLine(const std::string& line) {
  if (!block_error_.empty()) return;
  std::string error;
  const std::optional<int> point = ParsePoint(line, board_->size(), &error);
  if (!point) {
    block_error_ = std::string(BlockWord(block_)) + ": " + error;
  } else if (block_ == Block::kSwap2 &&
             std::find(block_points_.begin(), block_points_.end(), *point) != block_points_.end()) {
    block_error_ = std::string(BlockWord(block_)) + ": point " + FormatPoint(*point, board_->size()) + " is listed twice";
  } else {
    block_points_.push_back(*point);
  }
}

void GomocupSession::BoardLine(const std::string& line) {
  if (!block_error_.empty()) return;
  // "X,Y,field": a point (common/game/point_text.h) and its field.
  const size_t comma = line.rfind(',');
  const auto xy = comma == std::string::npos ? std::nullopt : ParseXY(line.substr(0, comma));
  const auto f = comma == std::string::npos ? std::nullopt : ParseInteger(line.substr(comma + 1));
  if (!xy || !f) {
    block_error_ = std::string(BlockWord(block_)) + ": expected X,Y,field lines, got '" + OneLine(line) + "'";
    return;
  }
  const int n = board_->size();
  std::string error;
  const std::optional<int> at = PointFromXY(*xy, n, &error);
  if (!at) {
    block_error_ = std::string(BlockWord(block_)) + ": " + error;
    return;
  }
  if (*f != 1 && *f != 2 && *f != 3) {
    block_error_ = std::string(BlockWord(block_)) + ": field must be 1 (own), 2 (opponent) or 3 (continuous game: nobody's), got " +
                   std::to_string(*f);
    return;
  }
  const int point = *at;
  for (auto& [p, field] : board_stones_)
    if (p == point) {
      block_error_ = std::string(BlockWord(block_)) + ": point " + FormatPoint(point, n) + " is listed twice";
      return;
    }
  board_stones_.emplace_back(point, static_cast<int>(*f));
}

std::optional<Board> GomocupSession::BlockPosition(Block kind, std::vector<std::string>& replies) {
  if (!block_error_.empty()) {
    replies.push_back("ERROR " + block_error_);
    return std::nullopt;
  }
  const char* cmd = BlockWord(kind);
  const int n = board_->size();
  int own = 0, opp = 0, nobody = 0;
  for (auto& [p, field] : board_stones_) (field == 1 ? own : field == 2 ? opp : nobody) += 1;
  // It is our turn: equal counts mean we moved first (black), one stone fewer
  // that the opponent did.  Other counts come from continuous games (the
  // stones of a scored line turn into field 3) or a GUI's odd position: the
  // colour then follows the parity of every stone placed, and the position
  // is still played (a move is owed; docs/engine.md "BOARD").
  int8_t own_colour;
  if (own == opp) own_colour = kBlack;
  else if (own + 1 == opp) own_colour = kWhite;
  else {
    own_colour = (own + opp + nobody) % 2 == 0 ? kBlack : kWhite;
    spdlog::warn("engine: {} with {} own, {} opponent and {} field-3 stones{}: playing {}", cmd, own, opp, nobody,
                 continuous_ ? " (continuous game)" : "", own_colour == kBlack ? "black" : "white");
  }
  std::vector<int8_t> cells(n * n, kEmpty);
  int last = kNoMove;
  for (auto& [p, field] : board_stones_) {
    cells[p] = field == 3 ? kBlocked : field == 1 ? own_colour : Opponent(own_colour);
    if (field == 2) last = p;
  }
  Board b = Board::FromStones(n, rule_, cells, own_colour, last);
  // A finished position is kept: the manager may judge the rule otherwise
  // and still want a move (Think answers one; FallbackMove).
  if (b.terminal()) spdlog::warn("engine: {}: the position is already finished by the {} rule", cmd, RuleName(rule_));
  return b;
}

void GomocupSession::BoardDone(Time received, std::vector<std::string>& replies) {
  std::optional<Board> b = BlockPosition(Block::kBoard, replies);
  if (!b) return;
  *board_ = *b;
  history_.clear();
  for (auto& [p, field] : board_stones_)
    if (field != 3) history_.push_back(p);
  Think(received, replies);
}

void GomocupSession::YxBoardDone(std::vector<std::string>& replies) {
  std::optional<Board> b = BlockPosition(Block::kYxBoard, replies);
  if (!b) return;
  *board_ = *b;
  history_.clear();
  for (auto& [p, field] : board_stones_)
    if (field != 3) history_.push_back(p);
  last_decision_.reset();
}

void GomocupSession::YxBlockDone(bool add, std::vector<std::string>& replies) {
  if (!block_error_.empty()) {
    replies.push_back("ERROR " + block_error_);
    return;
  }
  for (int p : block_points_) {
    const auto at = std::find(blocked_.begin(), blocked_.end(), p);
    if (add && at == blocked_.end()) blocked_.push_back(p);
    if (!add && at != blocked_.end()) blocked_.erase(at);
  }
}

}  // namespace gz
