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
};

// Reads a file descriptor (stdin) on its own thread.  When it sees END it
// also raises `stop_flag` so a running search can return at once, and on
// YXSTOP (Yixin-Board's "stop thinking") `interrupt_flag`, which the session
// lowers when it handles that YXSTOP line (end of input
// does not: commands already queued, e.g. from a piped script, are still
// played normally).
// Thread-safety: Next() is for one consumer thread; stop_flag() may be read
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
  std::atomic<bool>& interrupt_flag() { return shared_->interrupt; }

 private:
  struct Shared {
    std::atomic<bool> stop{false};
    std::atomic<bool> interrupt{false};
    std::mutex mu;
    std::condition_variable cv;
    std::deque<InputLine> queue;  // guarded by mu
    void Push(InputLine line);
  };
  static void Run(int fd, std::shared_ptr<Shared> shared);

  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace gz
