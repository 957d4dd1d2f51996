// Tests for examples/translate/translator.cpp: the tensors a config asks for are the model's.
#include <catch2/catch.hpp>

#include "base/io/expected_tensors.h"
#include "translate/translator.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::translate;

TEST_CASE("translator: expected_tensors lists every tensor of the model, in each layout",
          "[translate][expected_tensors]") {
  for (const bool norm_first : {false, true})
    for (const bool tied : {false, true})
      for (const bool final_norm : {false, true}) {
        nn::TransformerConfig config{.src_vocab = 11, .tgt_vocab = 13, .d_model = 8, .heads = 2,
                                     .encoder_layers = 2, .decoder_layers = 3, .d_ff = 12,
                                     .dropout = 0.0, .max_len = 16, .norm_first = norm_first,
                                     .tie_target_embeddings = tied, .final_norm = final_norm};
        INFO("norm_first " << norm_first << ", tied " << tied << ", final_norm " << final_norm);
        Generator generator(0);
        const nn::Transformer model(config, generator);
        const NamedTensors state = model.state_dict();
        CHECK(expected_tensors(config).size() == state.size());
        CHECK_NOTHROW(check_expected_tensors(header_of(state), expected_tensors(config), "model"));
      }
}
