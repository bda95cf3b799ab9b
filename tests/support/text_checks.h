// Checks on the text a program or a session wrote (Catch2 tests only).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

namespace gz::testing {

// REQUIREs that `text` contains every one of `needles`, in the order given
// (the first missing one fails the test).
inline void RequireContainsAll(const std::string& text, std::initializer_list<std::string_view> needles) {
  for (std::string_view needle : needles) {
    INFO("looking for: " << needle);
    REQUIRE(text.find(needle) != std::string::npos);
  }
}

}  // namespace gz::testing
