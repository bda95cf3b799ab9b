// The environment that runs a child under libgz_faultfs.so (fault_fs.cc): a
// disk that fails (ENOSPC, EIO) or is slow on chosen paths, for tests that run
// the real binaries (tests/faults).  Pass FaultFsEnv(...) as a TestProcess's
// set_env.  Header-only; the library's path comes from GZ_FAULTFS_LIB, a
// compile definition of the tests that use it (tests/faults/CMakeLists.txt).
#pragma once

#include <map>
#include <string>

namespace gz::testing {

struct FaultSpec {
  std::string paths;        // GZ_FAULT_PATH_SUBSTR: substrings, ':'-separated
  std::string ops = "write";  // open,write,fsync,close,rename
  std::string err = "ENOSPC";  // ENOSPC, EIO, EDQUOT, or "none" (delay only)
  long long after_bytes = 0;   // bytes let through, once armed, before failing
  std::string while_file;      // armed only while this file exists ("" = always)
  int delay_ms = 0;            // before each matching fsync and rename
};

#ifdef GZ_FAULTFS_LIB
inline std::map<std::string, std::string> FaultFsEnv(const FaultSpec& f) {
  std::map<std::string, std::string> env = {{"LD_PRELOAD", GZ_FAULTFS_LIB},
                                            {"GZ_FAULT_PATH_SUBSTR", f.paths},
                                            {"GZ_FAULT_OPS", f.ops},
                                            {"GZ_FAULT_ERRNO", f.err},
                                            {"GZ_FAULT_AFTER_BYTES", std::to_string(f.after_bytes)},
                                            {"GZ_FAULT_DELAY_MS", std::to_string(f.delay_ms)}};
  if (!f.while_file.empty()) env["GZ_FAULT_WHILE_FILE"] = f.while_file;
  return env;
}
#endif

}  // namespace gz::testing
