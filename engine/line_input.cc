#include "engine/line_input.h"

#include <unistd.h>

#include <cctype>
#include <cstring>
#include <cerrno>

namespace gz {

std::vector<std::string> LineSplitter::Feed(std::string_view bytes) {
  std::vector<std::string> lines;
  for (char ch : bytes) {
    if (ch == '\r' || ch == '\n') {
      if (!partial_.empty()) lines.push_back(std::move(partial_));
      partial_.clear();
    } else if (partial_.size() < kMaxLineLength) {
      partial_.push_back(ch);
    }
  }
  return lines;
}

std::optional<std::string> LineSplitter::Finish() {
  if (partial_.empty()) return std::nullopt;
  std::string tail = std::move(partial_);
  partial_.clear();
  return tail;
}

bool IsCommand(const std::string& line, const char* word) {
  size_t b = 0, e = line.size();
  while (b < e && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(line[e - 1]))) --e;
  const size_t n = std::strlen(word);
  if (e - b != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::toupper(static_cast<unsigned char>(line[b + i])) != word[i]) return false;
  return true;
}

bool IsEndCommand(const std::string& line) { return IsCommand(line, "END"); }

bool InterruptRule::Interrupts(const std::string& line) {
  size_t b = 0;
  while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
  size_t e = b;
  while (e < line.size() && !std::isspace(static_cast<unsigned char>(line[e]))) ++e;
  std::string word = line.substr(b, e - b);
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (in_query_) {
    if (word == "DONE") in_query_ = false;
    return false;
  }
  if (word.rfind("YXQUERYDATABASE", 0) == 0) {
    in_query_ = true;
    return false;
  }
  return word != "INFO" && word != "END";
}

StdinLineReader::StdinLineReader(int fd)
    : shared_(std::make_shared<Shared>()), thread_(&StdinLineReader::Run, fd, shared_) {}

StdinLineReader::~StdinLineReader() {
  if (thread_.joinable()) thread_.detach();
}

void StdinLineReader::Shared::Push(InputLine line) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!line.eof && IsEndCommand(line.text)) stop.store(true);
    line.interrupts = !line.eof && rule.Interrupts(line.text);
    if (line.interrupts) {
      ++queued_interrupts;
      interrupt.store(true);
    }
    queue.push_back(std::move(line));
  }
  cv.notify_one();
}

void StdinLineReader::Run(int fd, std::shared_ptr<Shared> shared) {
  LineSplitter splitter;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (std::string& text : splitter.Feed(std::string_view(buf, static_cast<size_t>(n))))
      shared->Push(InputLine{std::move(text), EngineClock::now(), false});
  }
  if (auto tail = splitter.Finish()) shared->Push(InputLine{std::move(*tail), EngineClock::now(), false});
  shared->Push(InputLine{"", EngineClock::now(), true});
}

InputLine StdinLineReader::Next() {
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->cv.wait(lock, [this] { return !shared_->queue.empty(); });
  InputLine line = std::move(shared_->queue.front());
  shared_->queue.pop_front();
  if (line.interrupts && --shared_->queued_interrupts == 0)
    shared_->interrupt.store(false);
  return line;
}

}  // namespace gz
