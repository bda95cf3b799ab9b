// Line input for the Gomocup engine: splitting raw bytes into command lines
// and a background reader that queues stdin lines for the main thread.
//
// Any of CR, LF or CRLF ends a line; empty lines are dropped (so CRLF does not
// produce a spurious empty command).  The reader stamps each line with the
// time it was completed, so the turn clock starts when the manager's command
// arrived, not when the engine got round to it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace gz {

using EngineClock = std::chrono::steady_clock;

// Longest line kept; the rest of a longer line is dropped (the protocol asks
// brains not to crash on very long lines).
constexpr size_t kMaxLineLength = 65536;

// Incremental splitter.  Not thread-safe; one owner.
class LineSplitter {
 public:
  // Feeds bytes; returns the lines they completed (terminators stripped).
  std::vector<std::string> Feed(std::string_view bytes);
  // The unterminated tail at end of input, if any (clears it).
  std::optional<std::string> Finish();

 private:
  std::string partial_;
};

// Is `line` the END command (case-insensitive, surrounding blanks ignored)?
bool IsEndCommand(const std::string& line);
// Is `line` exactly `word` (upper case) up to case and surrounding blanks?
bool IsCommand(const std::string& line, const char* word);

struct InputLine {
  std::string text;
  EngineClock::time_point received;
  bool eof = false;  // no more input; `text` is empty
  bool interrupts = false;  // InterruptRule: it ended a running search
};

// Which input lines end a running search: every command but the ones a GUI
// sends while the engine thinks without asking it to stop -- INFO (dhbloo's
// Yixin-Board sends `INFO time_left` again mid-search) and Yixin-Board's
// database queries with their point lines up to DONE (sent after every board
// change).  One per input stream: it follows those blocks.  Not thread-safe.
class InterruptRule {
 public:
  bool Interrupts(const std::string& line);

 private:
  bool in_query_ = false;  // inside a YXQUERYDATABASE... block
};

// Reads a file descriptor (stdin) on its own thread.  When it sees END it
// also raises `stop_flag`, so a running search returns at once and nothing is
// printed after it.  `interrupt_flag` is up while a command that
// interrupts (InterruptRule) is queued and not yet taken by Next(): a GUI's
// RESTART, START, BOARD, YXSTOP, ... ends the running search at once (its
// one move line is still printed, the GUI drops it), and the command is then
// handled in order.
// End of input does not interrupt: commands already queued (a piped script)
// are played normally.
// Thread-safety: Next() is for one consumer thread; the flags may be read
// from any thread.  The reader thread shares its state through a shared_ptr
// and is detached by the destructor (it may be blocked in read() forever when
// the manager keeps the pipe open after END), so destruction never blocks.
class StdinLineReader {
 public:
  explicit StdinLineReader(int fd = 0);
  ~StdinLineReader();
  StdinLineReader(const StdinLineReader&) = delete;
  StdinLineReader& operator=(const StdinLineReader&) = delete;

  // Blocks until a line (or EOF) is available.
  InputLine Next();
  const std::atomic<bool>& stop_flag() const { return shared_->stop; }
  const std::atomic<bool>& interrupt_flag() const { return shared_->interrupt; }

 private:
  struct Shared {
    std::atomic<bool> stop{false};
    std::atomic<bool> interrupt{false};
    std::mutex mu;
    std::condition_variable cv;
    std::deque<InputLine> queue;  // guarded by mu
    int queued_interrupts = 0;    // queued lines that interrupt (guarded by mu); interrupt == (> 0)
    InterruptRule rule;           // the reader thread's
    void Push(InputLine line);
  };
  static void Run(int fd, std::shared_ptr<Shared> shared);

  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace gz
