#include "common/base/errors.h"

namespace gz::detail {

void CheckFailed(const char* expr, const char* file, int line, const std::string& msg) {
  std::ostringstream os;
  os << msg << " (check `" << expr << "` failed at " << file << ":" << line << ")";
  throw GomokuError(os.str());
}

}  // namespace gz::detail
