// examples/base/pages/page_template.h — explorer.html, as a string compiled into the library
// (CMake writes page_template.cpp from page_template.cpp.in at configure time).
#pragma once

namespace atencion::examples::explorer {

// The page, with the placeholder kDataPlaceholder where the data goes.
extern const char* const kPageTemplate;
inline constexpr const char* kDataPlaceholder = "\"ATENCION_EXPLORER_DATA\"";

}  // namespace atencion::examples::explorer
