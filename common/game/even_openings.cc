// EvenOpenings (even_openings.h): the data files made by tools/even_openings.py.
#include "common/game/even_openings.h"

namespace gz {

std::vector<std::vector<int>> EvenOpenings(int size, Rule rule) {
  if (size != 15 || rule != Rule::kFreestyle) return {};
  return {
#include "common/game/even_openings_15x15_freestyle.inc"
  };
}

}  // namespace gz
