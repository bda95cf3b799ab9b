#include "common/base/fileio.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(_WIN32)
#include <io.h>
#endif

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "common/base/errors.h"

namespace gz {
namespace {

#if defined(_WIN32)
// Windows (the engine-only build, cmake/engine_only.cmake): files open in
// binary mode (the C runtime's default text mode would turn CRLF into LF and
// stop at ^Z in a checkpoint), handles are not inherited, _commit is fsync,
// and rename does not replace an existing file, so std::filesystem's (which
// does) is used.  A folder cannot be opened to sync it.
constexpr int kOpenFlags = O_BINARY | O_NOINHERIT;
int fsync(int fd) { return ::_commit(fd); }
int RenameOver(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec) errno = ec.category() == std::generic_category() ? ec.value() : EIO;  // a Win32 code is no errno
  return ec ? -1 : 0;
}
void FsyncDir(const std::string&) {}
#else
constexpr int kOpenFlags = O_CLOEXEC;
int RenameOver(const std::string& from, const std::string& to) { return ::rename(from.c_str(), to.c_str()); }

void FsyncDir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);  // best effort: the rename itself is already visible
    ::close(fd);
  }
}
#endif

// Writes all of [p, p+n) or returns the errno of the failing write (0 = ok).
int WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;  // no progress and no error: never loop forever
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

}  // namespace

void WriteFileAtomic(const std::string& path, std::string_view data) {
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | kOpenFlags, 0644);
  if (fd < 0) {
    int e = errno;
    GOMOKU_THROW(IoError, "cannot write '" << path << "': creating its temp file '" << tmp
                                           << "' failed: " << std::strerror(e));
  }
  // Each failure: close, remove the temp file, keep the old `path`, throw.
  auto fail = [&](const char* step, int e, bool close_fd) {
    if (close_fd) ::close(fd);
    ::unlink(tmp.c_str());
    GOMOKU_THROW(IoError, "cannot write '" << path << "' (" << step << " of its temp file failed: "
                                           << std::strerror(e) << "); the previous file, if any, is unchanged");
  };
  if (int e = WriteAll(fd, data.data(), data.size())) fail("write", e, true);
  if (fsync(fd) != 0) fail("fsync", errno, true);
  if (::close(fd) != 0) fail("close", errno, false);  // NFS and friends report write errors here
  if (RenameOver(tmp, path) != 0) fail("rename", errno, false);
  FsyncDir(path);
}

void AppendLine(const std::string& path, std::string_view line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | kOpenFlags, 0644);
  if (fd < 0) {
    int e = errno;
    GOMOKU_THROW(IoError, "cannot append to '" << path << "': open failed: " << std::strerror(e));
  }
  // The length before the append: a failed append is cut back to it, so a full
  // disk leaves the file as it was instead of a torn line (one writer per file).
  const off_t before = ::lseek(fd, 0, SEEK_END);
  std::string buf(line);
  buf.push_back('\n');
  const char* step = nullptr;
  int e = WriteAll(fd, buf.data(), buf.size());
  if (e != 0) {
    step = "write";
  } else if (fsync(fd) != 0) {
    e = errno;
    step = "fsync";
  }
  if (step != nullptr && before >= 0) (void)::ftruncate(fd, before);
  if (::close(fd) != 0 && step == nullptr) {
    e = errno;
    step = "close";
  }
  if (step != nullptr)
    GOMOKU_THROW(IoError, "cannot append to '" << path << "' (" << step << " failed: " << std::strerror(e)
                                               << "); the line was not added");
}

std::string ReadFileOrThrow(const std::string& path) {
  // POSIX reads: an ifstream "reads" a directory as an empty file and hides
  // EIO in a failbit; here both are errors naming the file.
  int fd = ::open(path.c_str(), O_RDONLY | kOpenFlags);
  if (fd < 0) {
    int e = errno;
    GOMOKU_THROW(IoError, "cannot open '" << path << "': " << std::strerror(e));
  }
  std::string out;
  struct stat st;
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      GOMOKU_THROW(IoError, "cannot read '" << path << "': " << std::strerror(EISDIR));
    }
    if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      GOMOKU_THROW(IoError, "error reading '" << path << "': " << std::strerror(e));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

bool IsTempName(const std::string& filename) { return filename.find(".tmp") != std::string::npos; }

std::optional<std::string> TempFileTarget(const std::string& filename) {
  // X.tmp.<digits>.<digits>
  const size_t dot_n = filename.rfind('.');
  if (dot_n == std::string::npos || dot_n == 0) return std::nullopt;
  const size_t dot_pid = filename.rfind('.', dot_n - 1);
  if (dot_pid == std::string::npos || dot_pid < 4) return std::nullopt;
  auto digits = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(filename.substr(dot_n + 1)) || !digits(filename.substr(dot_pid + 1, dot_n - dot_pid - 1)))
    return std::nullopt;
  if (filename.compare(dot_pid - 4, 4, ".tmp") != 0 || dot_pid == 4) return std::nullopt;
  return filename.substr(0, dot_pid - 4);
}

int RemoveTempFilesOf(const std::string& dir, const std::function<bool(const std::string&)>& owned) {
  int removed = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::optional<std::string> target = TempFileTarget(name);
    if (!target || !owned(*target)) continue;
    std::error_code ec2;
    if (std::filesystem::remove(it->path(), ec2)) ++removed;
  }
  return removed;
}

void MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) GOMOKU_THROW(IoError, "cannot create directory '" << path << "': " << ec.message());
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

uint32_t Crc32(const void* data, size_t len, uint32_t crc) {
  static const std::array<uint32_t, 256> kTable = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < len; ++i) crc = kTable[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace gz
