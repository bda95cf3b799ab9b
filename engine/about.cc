#include "engine/about.h"

#include "engine/about_config.h"  // generated from engine/about_config.h.in

namespace gz {

const char* const kEngineName = "gomoku-zero";
const char* const kEngineVersion = GZ_ENGINE_VERSION;
const char* const kEngineAuthor = GZ_ENGINE_AUTHOR;
const char* const kEngineCountry = GZ_ENGINE_COUNTRY;
const char* const kEngineWww = GZ_ENGINE_WWW;

}  // namespace gz
