// Catch2 for test files that include LibTorch.  LibTorch (built with glog)
// defines an aborting CHECK macro; Catch's must win, so this header comes after
// every torch header of the file.  #pragma once makes the #undef run once per
// translation unit: in a unity batch (tests/CMakeLists.txt) a later file's
// include of it would otherwise remove Catch's CHECK again.
#pragma once

#undef CHECK
#include <catch2/catch.hpp>
