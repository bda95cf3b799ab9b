// Minimal .npz (zip of .npy arrays, stored without compression) writer and a
// strict reader.  The output is readable by numpy.load with no code of ours.
// The reader verifies the zip structure, every CRC-32 and every npy header;
// any truncation or corruption throws IoError naming the problem.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gz {

struct NpyArray {
  std::string dtype;            // numpy descr, e.g. "<f4", "|i1", "<i8"
  std::vector<int64_t> shape;   // empty = scalar
  std::string data;             // raw little-endian C-order bytes

  int64_t numel() const;
  size_t itemsize() const;
  template <typename T>
  std::vector<T> As() const;    // checks itemsize; copies
};

template <typename T>
const char* NpyDescr();

template <typename T>
NpyArray MakeNpy(const std::vector<T>& values, std::vector<int64_t> shape) {
  NpyArray a;
  a.dtype = NpyDescr<T>();
  a.shape = std::move(shape);
  a.data.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  return a;
}
template <typename T>
NpyArray MakeNpyScalar(T v) {
  return MakeNpy(std::vector<T>{v}, {});
}

// Serialises arrays (in name order) to the bytes of an .npz file.
std::string WriteNpz(const std::map<std::string, NpyArray>& arrays);
// Parses .npz bytes.  `what` names the source in error messages.
std::map<std::string, NpyArray> ReadNpz(const std::string& bytes, const std::string& what);

}  // namespace gz
