// examples/attention_walkthrough/explorer_page.h — the walk-through's attention maps as the
// attention explorer's page (examples/base/pages/explorer.h): every head of every part, with
// their tokens, in one HTML file to click through.
// Lesson: docs/12-translation.md#the-attention-explorer
#pragma once

#include <string>
#include <vector>

#include "base/pages/explorer.h"

namespace walkthrough {

// Writes the page to `path` (the parts are the page's "sentences"); throws std::runtime_error
// if the file cannot be written.
void write_explorer_page(const std::string& path,
                         const std::vector<atencion::examples::explorer::Sentence>& parts);

}  // namespace walkthrough
