// The Gomocup (Piskvork) protocol state machine: one command line in, zero or
// more reply lines out.  It owns the game state (board, rule, limits) and asks
// a MovePlayer (move_player.h: the net's search or the classical player) for
// moves; it does no I/O itself, so the binary, the unit tests and other
// drivers share it.  Its sections live in five files, named in the private
// part below: gomocup_session.cc (the command table, Gomocup's commands),
// gomocup_blocks.cc (the block being read up to DONE), gomocup_think.cc
// (searching and the move reply), gomocup_yixin.cc (Yixin-Board's
// extensions), gomocup_swap2.cc (SWAP2BOARD and yxswap2step1/2/3); the text
// of the protocol is protocol_text.h, a point's common/game/point_text.h.
//
// Coordinates are 0-based "X,Y" with X = column and Y = row; the board stores
// row * size + col (Yixin-Board sends row,col: every point goes back in the
// order it came, so both agree).  Replies never contain a line break.
//   START n | START w h -> OK | ERROR (w != h)   RESTART -> OK
//   RECTSTART w,h -> OK (w == h) | ERROR         BEGIN -> move
//   TURN X,Y -> move                             BOARD / X,Y,f ... / DONE -> move
//   SWAP2BOARD / X,Y ... / DONE -> the swap2 answer (three stones, SWAP, one or
//     two stones; docs/engine.md "Swap2")
//   TAKEBACK X,Y -> OK         INFO key value -> (nothing)
//   ABOUT -> name="..", ...    END -> (nothing; Handle returns false)
//   anything else -> UNKNOWN ...; bad coordinates / occupied points -> ERROR ...
// Where a move is owed (BEGIN, TURN, BOARD's DONE) the reply is always a
// move: a failed search, a position our rule calls finished, an unexpected
// exception all answer FallbackMove's point with a MESSAGE (a Gomocup manager
// forfeits an ERROR there).  A move reply is preceded by one `MESSAGE ...`
// line with the evaluation; a solver-proven result reads
// `MESSAGE proven win|loss in N plies: line`.  START keeps the search tree
// (the player reuses it when the next position extends the last) and the
// YXBLOCK points (unless the size changes).
// Yixin-Board's extensions (docs/engine.md "Yixin-Board"):
//   YXSHOWINFO -> MESSAGE INFO MAX_THREAD_NUM n / MESSAGE INFO MAX_HASH_SIZE n
//   INFO show_detail b: analysis output, bit 1 the MESSAGE REALTIME marks,
//     bit 2 the INFO blocks (yixin_output.h), before each move reply and
//     while searching through the live output at most every 250 ms
//   YXBOARD / X,Y,f ... / DONE -> (nothing; sets the position, as BOARD, without thinking)
//   YXNBEST n -> analysis lines for the n best moves, then the best move; the
//     position stays as it was (nothing is played); YXSEARCHDEFEND as YXNBEST 5
//   YXBALANCEONE s -> X,Y      YXBALANCETWO s -> X1,Y1 X2,Y2 (gomocup_yixin.cc)
//   YXSWAP2STEP1 -> MESSAGE SWAP2 MOVE1 X Y / MOVE2 / MOVE3;  after a YXBOARD
//     of 3 stones YXSWAP2STEP2 -> MESSAGE SWAP2 SWAP1 YES|NO or MOVE4 + MOVE5;
//     of 5 stones YXSWAP2STEP3 -> MESSAGE SWAP2 SWAP2 YES|NO
//   YXSTOP -> (nothing; the input reader raised the interrupt flag, which
//     ended a running search: its move reply was the answer)
//   YXHASHCLEAR -> (nothing; the search tree is dropped)
//   YXSHOWFORBID -> FORBID XXYY...XXYY. (black's renju forbidden points when
//     black is to move under renju, else `FORBID .`)
//   YXBLOCK / X,Y ... / DONE, YXBLOCKUNDO / X,Y ... / DONE -> (nothing; those
//     points are (no longer) played by any search)   YXBLOCKRESET -> (nothing)
//   YXQUERYDATABASE* / X,Y ... / DONE -> (nothing: no database)
//   YXDRAW, YXRESIGN -> (nothing; logged)
//   INFO thread_num / max_node map to search threads / the simulation cap
//     (the net's search; the classical player has one thread and N nodes);
//     hash_size, max_depth, pondering, caution_factor (and Yixin's other
//     keys) are logged as ignored
//   Yixin's database, hash-file and soosorv commands are read whole (their
//     block up to DONE, or their argument line) and answered with one ERROR
//   any other YX... or a malformed one -> ERROR <command>: ..., board unchanged
// Thread-safety: none; one thread (the stop and interrupt flags may be
// raised by another; the live output is called from search threads while
// Handle runs).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/game/board.h"
#include "engine/about.h"
#include "engine/protocol_text.h"
#include "engine/time_control.h"
#include "common/match/move_player.h"

namespace gz {

class GomocupSession {
 public:
  // `player` plays; `backup` (optional, e.g. the classical player; outlives
  // the session) plays a game whose size `player` cannot (a missing or
  // broken net): START then answers a MESSAGE and OK instead of ERROR.
  GomocupSession(MovePlayer& player, int max_simulations, MovePlayer* backup = nullptr);

  // Raised by the input reader on END; a running search then stops at once.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }
  // Up while the input reader holds a command that ends a running search
  // (line_input.h: anything but INFO).
  void set_interrupt_flag(const std::atomic<bool>* interrupt) { interrupt_ = interrupt; }
  // Where analysis lines go while a search runs (the binary: stdout, one
  // flushed line each).  Unset: only the final analysis, with the replies.
  void set_live_output(std::function<void(const std::string&)> live) { live_ = std::move(live); }
  int show_detail() const { return show_detail_; }
  const std::vector<int>& blocked() const { return blocked_; }

  // Handles one command line (terminator already stripped) that arrived at
  // `received` (the turn clock starts then).  Appends the reply lines to
  // `replies`.  Returns false once END was handled.
  bool Handle(const std::string& line, std::chrono::steady_clock::time_point received,
              std::vector<std::string>& replies);

  // Did the last Handle search (a move, analysis, swap2)?  A search that END
  // ended owes nothing: the binary then prints none of its replies.
  bool searched() const { return searched_; }
  const std::optional<Board>& board() const { return board_; }
  Rule rule() const { return rule_; }
  // The decision behind the last move reply, if any.
  const std::optional<MoveDecision>& last_decision() const { return last_decision_; }

 private:
  using Time = std::chrono::steady_clock::time_point;
  // One command line as its handler takes it.
  struct Call {
    const std::string& word;  // the command's word in the table (upper case)
    const std::string& args;  // the rest of the line, trimmed
    Time received;            // when the line arrived: the turn clock starts then
    std::vector<std::string>& replies;
  };
  using Handler = void (GomocupSession::*)(const Call& call);
  // The command table (gomocup_session.cc FindCommand): every command the
  // session knows, Gomocup's and Yixin-Board's, and its handler.  A word
  // ending in '*' matches every command it begins (Yixin's database queries);
  // exact words are tried first.  takes_args false: anything after the word
  // is refused with an ERROR.  A command not in the table: UNKNOWN (a YX...
  // one: ERROR), as the protocol asks.
  struct Command {
    const char* word;
    Handler handle;
    bool takes_args = true;
  };
  static const Command* FindCommand(const std::string& word);
  bool Dispatch(const std::string& line, Time received, std::vector<std::string>& replies);
  // Does this line owe a move reply (BEGIN, TURN, a BOARD block's DONE)?
  bool OwesMove(const std::string& line) const;

  // Gomocup's commands (gomocup_session.cc).
  void Start(const Call& c);
  void Restart(const Call& c);
  void RectStart(const Call& c);
  void Begin(const Call& c);
  void Turn(const Call& c);
  void Takeback(const Call& c);
  void Info(const Call& c);
  void About(const Call& c);
  void StartGame(const std::string& args, std::vector<std::string>& replies);  // START's and RECTSTART's
  // The point of a TURN / TAKEBACK command, or kNoMove after replying with the
  // error (no game started, or a malformed point).
  int PointOfCommand(const Call& c);
  void NewGame(int size);

  // Yixin-Board's commands (gomocup_yixin.cc).
  void YxShowInfo(const Call& c);
  void YxBlockReset(const Call& c);
  void YxStop(const Call& c);
  void YxHashClear(const Call& c);
  void YxShowForbid(const Call& c);
  void YxNBest(const Call& c);  // YXNBEST n, YXSEARCHDEFEND
  void YxBalance(const Call& c);  // YXBALANCEONE, YXBALANCETWO
  void YxNoted(const Call& c);  // YXDRAW, YXRESIGN
  // Yixin's own engine's extensions, which this one does not have, read the
  // way the GUI sends them: a database query's block (no answer), another
  // block (one ERROR at DONE), or one argument line (ERROR first).
  void YxQuery(const Call& c);
  void Unsupported(const Call& c);
  void UnsupportedWithLine(const Call& c);
  // Yixin's INFO keys; false when `key` is none of them.
  bool YixinInfo(const std::string& key, const std::string& value);

  // The block being read, line by line, up to DONE (gomocup_blocks.cc).
  enum class Block {
    kNone,
    kBoard,        // BOARD: a position, then a move
    kYxBoard,      // YXBOARD: a position, no reply
    kYxBlock,      // YXBLOCK: points no search plays
    kYxBlockUndo,  // YXBLOCKUNDO: points searches may play again
    kSwap2,        // SWAP2BOARD (gomocup_swap2.cc)
    kQuery,        // YXQUERYDATABASE*: read whole, no answer (no database)
    kSkipped,      // another extension we do not have, read whole: one ERROR at DONE
    kArgumentLine  // one argument line (a file name) of such an extension
  };
  // The command that opens a block (BOARD, YXBOARD, ...): the block's name in errors.
  static const char* BlockWord(Block kind);
  void OpenBlock(const Call& c);  // BOARD, SWAP2BOARD, YXBOARD, YXBLOCK, YXBLOCKUNDO
  void Open(Block kind, const std::string& args);
  void BlockLine(const std::string& command, const std::string& line, Time received,
                 std::vector<std::string>& replies);
  void BoardLine(const std::string& line);
  void PointLine(const std::string& line);  // a point of YXBLOCK(UNDO) / SWAP2BOARD
  // The BOARD / YXBOARD block's position, or nullopt after replying with the
  // error (the board unchanged).
  std::optional<Board> BlockPosition(Block kind, std::vector<std::string>& replies);
  void BoardDone(Time received, std::vector<std::string>& replies);
  void YxBoardDone(std::vector<std::string>& replies);
  void YxBlockDone(bool add, std::vector<std::string>& replies);

  // Swap2 (gomocup_swap2.cc).  One decision: `stones` in the order placed (0,
  // 3 or 5); the stones to add, or swap; the position after them.
  struct Swap2Decision {
    bool swap = false;
    std::vector<int> stones;
    Board result{15};
    std::string message;  // MESSAGE swap2: the values behind it
  };
  std::optional<Swap2Decision> Swap2Decide(const std::vector<int>& stones, Time received, const std::string& name,
                                           std::vector<std::string>& replies);
  // The turn's time cut in `parts`: the deadline of part `part` (0-based).
  using Share = std::function<Time(int part, int parts)>;
  void Swap2Place3(const Share& share, Swap2Decision& out, std::ostream& msg);  // no stones yet
  void Swap2After3(const Board& b, const Share& share, Swap2Decision& out, std::ostream& msg);
  void Swap2After5(const Board& b, const Share& share, Swap2Decision& out, std::ostream& msg);
  void Swap2Done(Time received, std::vector<std::string>& replies);
  void YxSwap2Step(const Call& c);  // YXSWAP2STEP1/2/3

  // Thinking (gomocup_think.cc).
  // The search's view of `board` (white or black to move) under a share of
  // this turn's time: a move and the value for its side.
  MoveDecision Evaluate(const Board& board, Time deadline);
  // Answers FallbackMove's move with a MESSAGE naming `why` (logged), and
  // plays it when `play`: where a move is owed and no search can give one.
  void AnswerFallback(const std::string& why, bool play, std::vector<std::string>& replies);
  SearchLimits LimitsUntil(Time deadline) const;
  // Searches the board; replies (analysis lines in Yixin mode), the MESSAGE
  // and the move; plays it when `play`.  `lines`: PV blocks reported.
  void Think(Time received, std::vector<std::string>& replies, bool play = true, int lines = 1);
  // The MESSAGE line before a move reply: why the move, or the search's view.
  static std::string MoveMessage(const MoveDecision& d, const TreeReport& report, int size);

  MovePlayer& main_player_;
  MovePlayer* backup_;
  MovePlayer* player_;  // main_player_, or backup_ for a game it cannot play
  int max_simulations_;
  const int default_max_simulations_;
  const std::atomic<bool>* stop_ = nullptr;
  const std::atomic<bool>* interrupt_ = nullptr;
  std::function<void(const std::string&)> live_;
  bool continuous_ = false;         // INFO rule with bit 2 (not the value 2): Gomocup's continuous game
  bool searched_ = false;
  int show_detail_ = 0;             // INFO show_detail bits (yixin_output.h): analysis output
  std::vector<int> blocked_;        // YXBLOCK points

  std::optional<Board> board_;
  Rule rule_ = Rule::kFreestyle;
  TimeControl tc_;
  std::vector<int> history_;  // stones in the order they were placed (for TAKEBACK's last move)
  std::optional<MoveDecision> last_decision_;

  Block block_ = Block::kNone;
  std::vector<std::pair<int, int>> board_stones_;  // (point, field) of a BOARD / YXBOARD block
  std::vector<int> block_points_;                  // YXBLOCK(UNDO) / SWAP2BOARD points, in order
  std::string block_error_;                        // the block's one problem, answered at DONE
};

}  // namespace gz
