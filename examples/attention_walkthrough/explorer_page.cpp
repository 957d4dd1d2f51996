// examples/attention_walkthrough/explorer_page.cpp — see explorer_page.h.
#include "explorer_page.h"

#include "tensor/durable_write.h"

namespace walkthrough {

void write_explorer_page(const std::string& path,
                         const std::vector<atencion::examples::explorer::Sentence>& parts) {
  atencion::examples::explorer::Page page;
  page.title = "attention_walkthrough: the attention explorer";
  page.introduction =
      "The attention weights of the walk-through (docs/05 to docs/09), untrained: the "
      "projections keep their initial values, so the maps show the mechanics (the mask, rows "
      "that sum to 1, what a head looks at), not language. docs/12-translation.md shows the "
      "same page for a trained translator.";
  page.sentences = parts;
  atencion::write_file_atomically(path, atencion::examples::explorer::page_html(page));
}

}  // namespace walkthrough
