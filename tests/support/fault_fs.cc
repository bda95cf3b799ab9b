// libgz_faultfs.so: a fault-injecting file system shim for tests (LD_PRELOAD,
// or linked into a test binary, where its symbols come before libc's).
//
// It interposes open/openat (with O_CREAT), write, pwrite, writev, fsync,
// fdatasync, close and rename, and makes the ones on a matching path fail the
// way a full or broken disk does.  Everything else is passed to libc
// (dlsym(RTLD_NEXT)).  Settings come from the environment, read at every call,
// so an in-process test can change them with setenv:
//
//   GZ_FAULT_PATH_SUBSTR  required: an operation matches when its file's path
//                         (the fd's /proc/self/fd link; rename: either name)
//                         contains this string (or one of several, separated
//                         by ':').  Unset or empty: no faults.
//   GZ_FAULT_OPS          comma list of open,write,fsync,close,rename
//                         (default "write").
//   GZ_FAULT_ERRNO        ENOSPC (default), EIO, EDQUOT or "none" (no failure:
//                         only the delay below).
//   GZ_FAULT_AFTER_BYTES  writes succeed until this many bytes were written to
//                         matching files by this process while the fault was
//                         armed (a write across the limit is cut short
//                         there), then fail (default 0).
//   GZ_FAULT_WHILE_FILE   when set, faults happen only while this file exists
//                         (a test "frees the disk" by removing it).
//   GZ_FAULT_DELAY_MS     sleep this long before each matching fsync and
//                         rename (a slow disk: a writer then stays inside its
//                         write for a while, which aimed kills need).
//
// Each injected fault prints one line "gz_faultfs: injected <ERRNO> into
// <op> of '<path>'" on stderr; gz_fault_injected() counts them and
// gz_fault_reset_bytes() restarts the byte count.
// Thread-safe (atomics; no locks, no allocation on the fast path).
// Our own open/write must not meet glibc's inline fortify wrappers.
#undef _FORTIFY_SOURCE
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

namespace {

std::atomic<long long> g_written{0};
std::atomic<long long> g_injected{0};

template <class F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

const char* Substr() {
  const char* s = getenv("GZ_FAULT_PATH_SUBSTR");
  return (s && *s) ? s : nullptr;
}

bool OpEnabled(const char* op) {
  const char* ops = getenv("GZ_FAULT_OPS");
  if (!ops || !*ops) ops = "write";
  const size_t n = strlen(op);
  for (const char* p = ops; *p;) {
    const char* end = strchr(p, ',');
    size_t len = end ? static_cast<size_t>(end - p) : strlen(p);
    if (len == n && strncmp(p, op, n) == 0) return true;
    if (!end) break;
    p = end + 1;
  }
  return false;
}

// 0: no failure (delay only).
int FaultErrno() {
  const char* e = getenv("GZ_FAULT_ERRNO");
  if (!e || !*e || strcmp(e, "ENOSPC") == 0) return ENOSPC;
  if (strcmp(e, "EIO") == 0) return EIO;
  if (strcmp(e, "EDQUOT") == 0) return EDQUOT;
  if (strcmp(e, "none") == 0) return 0;
  return ENOSPC;
}

bool Armed() {
  const char* f = getenv("GZ_FAULT_WHILE_FILE");
  if (!f || !*f) return true;
  struct stat st;
  return stat(f, &st) == 0;
}

long long AfterBytes() {
  const char* b = getenv("GZ_FAULT_AFTER_BYTES");
  return b ? atoll(b) : 0;
}

void Delay() {
  const char* d = getenv("GZ_FAULT_DELAY_MS");
  long ms = d ? atol(d) : 0;
  if (ms <= 0) return;
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// Any of the ':'-separated substrings.
bool PathMatches(const char* path) {
  const char* s = Substr();
  if (!s || !path) return false;
  for (const char* p = s; *p;) {
    const char* end = strchr(p, ':');
    const size_t len = end ? static_cast<size_t>(end - p) : strlen(p);
    if (len > 0 && len < 512) {
      char part[512];
      memcpy(part, p, len);
      part[len] = 0;
      if (strstr(path, part) != nullptr) return true;
    }
    if (!end) break;
    p = end + 1;
  }
  return false;
}

// The fd's path, or "" (sockets, pipes: never match a file substring).
bool FdPath(int fd, char* buf, size_t size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, buf, size - 1);
  if (n <= 0) return false;
  buf[n] = 0;
  return true;
}

bool FdMatches(int fd, char* path, size_t size) {
  if (!Substr()) return false;
  return FdPath(fd, path, size) && PathMatches(path);
}

void Report(int e, const char* op, const char* path) {
  g_injected.fetch_add(1);
  char line[4200];
  int n = snprintf(line, sizeof line, "gz_faultfs: injected %s into %s of '%s'\n",
                   e == ENOSPC ? "ENOSPC" : e == EIO ? "EIO" : "EDQUOT", op, path);
  if (n > 0) {
    static auto real_write = Next<ssize_t (*)(int, const void*, size_t)>("write");
    (void)!real_write(2, line, static_cast<size_t>(n) < sizeof line ? n : sizeof line - 1);
  }
}

// For a write of `n` bytes to a matching file: how many may go through
// (n = all; fewer = a short write; 0 with *err set = fail now).
size_t WriteAllowance(size_t n, int* err) {
  *err = 0;
  const int e = FaultErrno();
  if (e == 0 || !Armed()) return n;
  const long long limit = AfterBytes();
  const long long done = g_written.load();
  if (done + static_cast<long long>(n) <= limit) return n;
  if (done < limit) return static_cast<size_t>(limit - done);
  *err = e;
  return 0;
}

// Sets errno to `e` and returns -1, as a failing call does.
int Fail(int e) {
  errno = e;
  return -1;
}

// A write-like call of `n` bytes on `fd`: `real(allow)` writes the first
// `allow` bytes for real.  On a matching file the write fails, or is cut
// short, as WriteAllowance says; what goes through while armed is counted.
template <class Real>
ssize_t WriteLike(const char* op, int fd, size_t n, Real real) {
  char path[4096];
  if (!OpEnabled("write") || !FdMatches(fd, path, sizeof path)) return real(n);
  int err;
  const size_t allow = WriteAllowance(n, &err);
  if (err) {
    Report(err, op, path);
    return Fail(err);
  }
  const ssize_t w = real(allow);
  if (w > 0 && Armed()) g_written.fetch_add(w);
  return w;
}

// The mode argument of open/openat: passed only with O_CREAT or O_TMPFILE.
mode_t ModeArg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

}  // namespace

extern "C" {

long long gz_fault_injected(void) { return g_injected.load(); }
// Restarts the GZ_FAULT_AFTER_BYTES count (an in-process test's next case).
void gz_fault_reset_bytes(void) { g_written.store(0); }

ssize_t write(int fd, const void* buf, size_t n) {
  static auto real = Next<ssize_t (*)(int, const void*, size_t)>("write");
  return WriteLike("write", fd, n, [&](size_t allow) { return real(fd, buf, allow); });
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  static auto real = Next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  return WriteLike("pwrite", fd, n, [&](size_t allow) { return real(fd, buf, allow, off); });
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) { return pwrite(fd, buf, n, off); }

ssize_t writev(int fd, const struct iovec* iov, int cnt) {
  static auto real = Next<ssize_t (*)(int, const struct iovec*, int)>("writev");
  size_t n = 0;
  for (int i = 0; i < cnt; ++i) n += iov[i].iov_len;
  return WriteLike("writev", fd, n, [&](size_t allow) -> ssize_t {
    if (allow == n) return real(fd, iov, cnt);
    // A short write: the first `allow` bytes, in order.
    static auto real_write = Next<ssize_t (*)(int, const void*, size_t)>("write");
    size_t done = 0;
    for (int i = 0; i < cnt && done < allow; ++i) {
      size_t part = iov[i].iov_len < allow - done ? iov[i].iov_len : allow - done;
      ssize_t w = real_write(fd, iov[i].iov_base, part);
      if (w < 0) return done > 0 ? static_cast<ssize_t>(done) : -1;
      done += static_cast<size_t>(w);
      if (static_cast<size_t>(w) < part) break;
    }
    return static_cast<ssize_t>(done);
  });
}

static int SyncLike(const char* op, int fd, int (*real)(int)) {
  char path[4096];
  if (!FdMatches(fd, path, sizeof path)) return real(fd);
  Delay();
  const int e = FaultErrno();
  if (OpEnabled("fsync") && e != 0 && Armed()) {
    Report(e, op, path);
    return Fail(e);
  }
  return real(fd);
}

int fsync(int fd) {
  static auto real = Next<int (*)(int)>("fsync");
  return SyncLike("fsync", fd, real);
}

int fdatasync(int fd) {
  static auto real = Next<int (*)(int)>("fdatasync");
  return SyncLike("fdatasync", fd, real);
}

int close(int fd) {
  static auto real = Next<int (*)(int)>("close");
  char path[4096];
  if (!OpEnabled("close") || !FdMatches(fd, path, sizeof path)) return real(fd);
  const int e = FaultErrno();
  const int rc = real(fd);  // the descriptor is released either way, as close(2) does
  if (rc != 0 || e == 0 || !Armed()) return rc;
  Report(e, "close", path);
  return Fail(e);
}

int rename(const char* from, const char* to) {
  static auto real = Next<int (*)(const char*, const char*)>("rename");
  if (!PathMatches(from) && !PathMatches(to)) return real(from, to);
  Delay();
  const int e = FaultErrno();
  if (OpEnabled("rename") && e != 0 && Armed()) {
    Report(e, "rename", to);
    return Fail(e);
  }
  return real(from, to);
}

static int OpenFault(const char* path, int flags) {
  if (!(flags & O_CREAT) || !OpEnabled("open") || !PathMatches(path)) return 0;
  const int e = FaultErrno();
  if (e == 0 || !Armed()) return 0;
  Report(e, "open", path);
  return e;
}

int open(const char* path, int flags, ...) {
  static auto real = Next<int (*)(const char*, int, ...)>("open");
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  if (int e = OpenFault(path, flags)) return Fail(e);
  return real(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return open(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  static auto real = Next<int (*)(int, const char*, int, ...)>("openat");
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  if (int e = OpenFault(path, flags)) return Fail(e);
  return real(dirfd, path, flags, mode);
}

}  // extern "C"
