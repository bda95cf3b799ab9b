#pragma once

// What ABOUT answers (and the analysis engine's query_version): the name, and
// the project's version, author, country and web page as the top-level
// CMakeLists.txt sets them (the VERSION file, or -DGOMOKU_VERSION=... as
// tools/release.sh passes it).  Defined in engine/about.cc, the one file that
// sees the generated header, so a new version recompiles that file alone.

namespace gz {

extern const char* const kEngineName;
extern const char* const kEngineVersion;
extern const char* const kEngineAuthor;
extern const char* const kEngineCountry;
extern const char* const kEngineWww;  // empty: ABOUT has no www field

}  // namespace gz
