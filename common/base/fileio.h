// File helpers: atomic publication and checksums.
//
// WriteFileAtomic writes `<path>.tmp.<pid>.<n>` in the same directory, fsyncs
// it, renames it over `path` and fsyncs the directory, so a reader sees either
// the old file or the complete new one, never a torn file.  Readers ignore
// names containing ".tmp".  Thread-safe.
//
// Failures (ENOSPC, EIO, ...): every writer throws IoError naming the final
// file, the step that failed and the errno text, and leaves no trace:
// WriteFileAtomic removes its temp file and leaves the old `path` as it was;
// AppendLine truncates the file back to its length before the call, so a full
// disk never leaves a torn line behind.  (A kill -9 mid-append can; readers
// skip it: jsonl.h.)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gz {

// Reads a whole file, throwing IoError with the path and errno text on failure
// (a directory, EIO).
std::string ReadFileOrThrow(const std::string& path);

void WriteFileAtomic(const std::string& path, std::string_view data);
// Appends one line (a '\n' is added) and fsyncs.  Creates the file.
void AppendLine(const std::string& path, std::string_view line);
bool IsTempName(const std::string& filename);
// For a WriteFileAtomic temp name `X.tmp.<pid>.<n>`: X; otherwise nullopt.
std::optional<std::string> TempFileTarget(const std::string& filename);
// Removes the temp files in `dir` (not recursive) whose final name satisfies
// `owned`: what a writer killed mid-write left behind.  Call it only where no
// other live process writes those names (a writer at its start, for its own
// files).  Returns how many were removed; a missing dir is 0.
int RemoveTempFilesOf(const std::string& dir, const std::function<bool(const std::string&)>& owned);
void MakeDirs(const std::string& path);  // mkdir -p; throws IoError
bool FileExists(const std::string& path);

uint32_t Crc32(const void* data, size_t len, uint32_t crc = 0);

double NowSeconds();      // wall clock, seconds since the epoch
double MonotonicSeconds();

}  // namespace gz
