#include "common/data/npz.h"

#include <cstring>
#include <sstream>

#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {

template <> const char* NpyDescr<int8_t>() { return "|i1"; }
template <> const char* NpyDescr<int16_t>() { return "<i2"; }
template <> const char* NpyDescr<int32_t>() { return "<i4"; }
template <> const char* NpyDescr<int64_t>() { return "<i8"; }
template <> const char* NpyDescr<float>() { return "<f4"; }

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

size_t NpyArray::itemsize() const {
  if (dtype.size() < 3) return 0;
  return static_cast<size_t>(std::atoi(dtype.c_str() + 2));
}

template <typename T>
std::vector<T> NpyArray::As() const {
  if (dtype != NpyDescr<T>())
    GOMOKU_THROW(IoError, "array has dtype " << dtype << ", expected " << NpyDescr<T>());
  std::vector<T> out(data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), data.data(), out.size() * sizeof(T));
  return out;
}
template std::vector<int8_t> NpyArray::As<int8_t>() const;
template std::vector<int16_t> NpyArray::As<int16_t>() const;
template std::vector<int32_t> NpyArray::As<int32_t>() const;
template std::vector<int64_t> NpyArray::As<int64_t>() const;
template std::vector<float> NpyArray::As<float>() const;

namespace {

void Put16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v & 0xFF));
  s.push_back(static_cast<char>(v >> 8));
}
void Put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint16_t Get16(const std::string& s, size_t o) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[o]) | (static_cast<uint8_t>(s[o + 1]) << 8));
}
uint32_t Get32(const std::string& s, size_t o) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[o + i]);
  return v;
}

std::string NpyBytes(const NpyArray& a) {
  std::ostringstream hdr;
  hdr << "{'descr': '" << a.dtype << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) hdr << a.shape[i] << (a.shape.size() == 1 ? "," : i + 1 < a.shape.size() ? ", " : "");
  hdr << "), }";
  std::string h = hdr.str();
  size_t total = 10 + h.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  h.append(pad, ' ');
  h.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  Put16(out, static_cast<uint16_t>(h.size()));
  out += h;
  out += a.data;
  return out;
}

// Parses "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }".
NpyArray ParseNpy(const std::string& b, const std::string& what) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) GOMOKU_THROW(IoError, what << ": not an npy array");
  int major = static_cast<uint8_t>(b[6]);
  size_t hlen, off;
  if (major == 1) {
    hlen = Get16(b, 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) GOMOKU_THROW(IoError, what << ": truncated npy header");
    hlen = Get32(b, 8);
    off = 12;
  } else {
    GOMOKU_THROW(IoError, what << ": unsupported npy version " << major);
  }
  if (off + hlen > b.size()) GOMOKU_THROW(IoError, what << ": truncated npy header");
  std::string h = b.substr(off, hlen);
  NpyArray a;
  auto field = [&](const std::string& key) -> size_t {
    size_t p = h.find("'" + key + "'");
    if (p == std::string::npos) GOMOKU_THROW(IoError, what << ": npy header lacks '" << key << "'");
    p = h.find(':', p);
    if (p == std::string::npos) GOMOKU_THROW(IoError, what << ": bad npy header");
    return p + 1;
  };
  size_t p = field("descr");
  size_t q1 = h.find('\'', p), q2 = q1 == std::string::npos ? q1 : h.find('\'', q1 + 1);
  if (q2 == std::string::npos) GOMOKU_THROW(IoError, what << ": bad descr");
  a.dtype = h.substr(q1 + 1, q2 - q1 - 1);
  p = field("fortran_order");
  if (h.compare(h.find_first_not_of(' ', p), 5, "False") != 0)
    GOMOKU_THROW(IoError, what << ": fortran_order arrays are not supported");
  p = field("shape");
  size_t l = h.find('(', p), r = h.find(')', p);
  if (l == std::string::npos || r == std::string::npos || r < l) GOMOKU_THROW(IoError, what << ": bad shape");
  std::string dims = h.substr(l + 1, r - l - 1);
  std::stringstream ss(dims);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    size_t s = tok.find_first_not_of(' ');
    if (s == std::string::npos) continue;
    char* end = nullptr;
    long long d = std::strtoll(tok.c_str() + s, &end, 10);
    if (end == tok.c_str() + s || d < 0 || d > (1LL << 40)) GOMOKU_THROW(IoError, what << ": bad dimension '" << tok << "'");
    a.shape.push_back(d);
  }
  size_t item = a.itemsize();
  if (item == 0 || item > 16) GOMOKU_THROW(IoError, what << ": unsupported dtype " << a.dtype);
  size_t data_off = off + hlen;
  unsigned __int128 need = static_cast<unsigned __int128>(a.numel()) * item;
  if (need != b.size() - data_off)
    GOMOKU_THROW(IoError, what << ": data size " << (b.size() - data_off) << " bytes does not match shape");
  a.data = b.substr(data_off);
  return a;
}

}  // namespace

std::string WriteNpz(const std::map<std::string, NpyArray>& arrays) {
  std::string out, central;
  uint16_t count = 0;
  for (const auto& [name, arr] : arrays) {
    std::string fname = name + ".npy";
    std::string body = NpyBytes(arr);
    uint32_t crc = Crc32(body.data(), body.size());
    uint32_t offset = static_cast<uint32_t>(out.size());
    // Local file header.
    Put32(out, 0x04034b50);
    Put16(out, 20);  // version needed
    Put16(out, 0);   // flags
    Put16(out, 0);   // method: stored
    Put16(out, 0);   // time
    Put16(out, 0x21);  // date (1980-01-01)
    Put32(out, crc);
    Put32(out, static_cast<uint32_t>(body.size()));
    Put32(out, static_cast<uint32_t>(body.size()));
    Put16(out, static_cast<uint16_t>(fname.size()));
    Put16(out, 0);
    out += fname;
    out += body;
    // Central directory entry.
    Put32(central, 0x02014b50);
    Put16(central, 20);
    Put16(central, 20);
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0x21);
    Put32(central, crc);
    Put32(central, static_cast<uint32_t>(body.size()));
    Put32(central, static_cast<uint32_t>(body.size()));
    Put16(central, static_cast<uint16_t>(fname.size()));
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put16(central, 0);
    Put32(central, 0);
    Put32(central, offset);
    central += fname;
    ++count;
  }
  uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  Put32(out, 0x06054b50);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, count);
  Put16(out, count);
  Put32(out, static_cast<uint32_t>(central.size()));
  Put32(out, cd_offset);
  Put16(out, 0);
  return out;
}

std::map<std::string, NpyArray> ReadNpz(const std::string& b, const std::string& what) {
  if (b.size() < 22) GOMOKU_THROW(IoError, what << ": truncated (" << b.size() << " bytes)");
  // Find the end-of-central-directory record (no archive comment is written,
  // but accept one).
  size_t eocd = std::string::npos;
  size_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (size_t i = b.size() - 22 + 1; i-- > lowest;)
    if (Get32(b, i) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) GOMOKU_THROW(IoError, what << ": truncated or not a zip file (no end record)");
  uint16_t count = Get16(b, eocd + 10);
  uint32_t cd_size = Get32(b, eocd + 12), cd_off = Get32(b, eocd + 16);
  if (static_cast<uint64_t>(cd_off) + cd_size > eocd) GOMOKU_THROW(IoError, what << ": corrupt central directory");
  std::map<std::string, NpyArray> out;
  size_t p = cd_off;
  for (uint16_t i = 0; i < count; ++i) {
    if (p + 46 > eocd || Get32(b, p) != 0x02014b50) GOMOKU_THROW(IoError, what << ": corrupt central directory entry");
    uint16_t method = Get16(b, p + 10);
    uint32_t crc = Get32(b, p + 16), csize = Get32(b, p + 20), usize = Get32(b, p + 24);
    uint16_t nlen = Get16(b, p + 28), elen = Get16(b, p + 30), clen = Get16(b, p + 32);
    uint32_t loff = Get32(b, p + 42);
    if (p + 46 + nlen > eocd) GOMOKU_THROW(IoError, what << ": corrupt entry name");
    std::string name = b.substr(p + 46, nlen);
    p += 46 + nlen + elen + clen;
    if (method != 0) GOMOKU_THROW(IoError, what << ": entry '" << name << "' is compressed (unsupported)");
    if (csize != usize) GOMOKU_THROW(IoError, what << ": entry '" << name << "' has inconsistent sizes");
    if (static_cast<uint64_t>(loff) + 30 > b.size() || Get32(b, loff) != 0x04034b50)
      GOMOKU_THROW(IoError, what << ": corrupt local header of '" << name << "'");
    uint16_t lnlen = Get16(b, loff + 26), lelen = Get16(b, loff + 28);
    uint64_t data_off = static_cast<uint64_t>(loff) + 30 + lnlen + lelen;
    if (data_off + csize > cd_off) GOMOKU_THROW(IoError, what << ": entry '" << name << "' is truncated");
    std::string body = b.substr(data_off, csize);
    if (Crc32(body.data(), body.size()) != crc) GOMOKU_THROW(IoError, what << ": CRC mismatch in '" << name << "'");
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".npy") != 0)
      GOMOKU_THROW(IoError, what << ": unexpected entry '" << name << "'");
    std::string key = name.substr(0, name.size() - 4);
    out[key] = ParseNpy(body, what + ":" + key);
  }
  return out;
}

}  // namespace gz
