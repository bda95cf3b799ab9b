// EvenOpenings (even_openings.h): the data files made by tools/even_openings.py.
#include "common/game/even_openings.h"

namespace gz {

std::vector<std::vector<int>> EvenOpenings(int size, Rule rule) {
  if (size == 15 && rule == Rule::kFreestyle) {
    return {
#include "common/game/even_openings_15x15_freestyle.inc"
    };
  }
  if (size == 20 && rule == Rule::kFreestyle) {
    return {
#include "common/game/even_openings_20x20_freestyle.inc"
    };
  }
  if (size == 15 && rule == Rule::kRenju) {
    return {
#include "common/game/even_openings_15x15_renju.inc"
    };
  }
  return {};
}

}  // namespace gz
