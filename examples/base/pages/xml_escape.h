// examples/base/pages/xml_escape.h — text as it must be written inside SVG or HTML markup, so
// that a sentence holding "<script>" or "&" is shown as text, never read as markup. (Our
// markup quotes every attribute with ", so an apostrophe needs no escape.)
#pragma once

#include <string>

namespace atencion::examples {

inline std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace atencion::examples
