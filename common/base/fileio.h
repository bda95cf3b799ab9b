// File helpers: atomic publication and checksums.
//
// WriteFileAtomic writes `<path>.tmp.<pid>.<n>` in the same directory, fsyncs
// it, renames it over `path` and fsyncs the directory, so a reader sees either
// the old file or the complete new one, never a torn file.  Readers ignore
// names containing ".tmp".  Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gz {

// Reads a whole file, throwing IoError with the path on failure.
std::string ReadFileOrThrow(const std::string& path);

void WriteFileAtomic(const std::string& path, std::string_view data);
// Appends one line (a '\n' is added) and fsyncs.  Creates the file.
void AppendLine(const std::string& path, std::string_view line);
bool IsTempName(const std::string& filename);
void MakeDirs(const std::string& path);  // mkdir -p; throws IoError
bool FileExists(const std::string& path);

uint32_t Crc32(const void* data, size_t len, uint32_t crc = 0);

double NowSeconds();      // wall clock, seconds since the epoch
double MonotonicSeconds();

}  // namespace gz
