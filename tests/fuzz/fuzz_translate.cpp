// tests/fuzz/fuzz_translate.cpp — libFuzzer target: any bytes as input lines to translate with
// the tiny model of corpus/checkpoint/ (tokenize, greedy or beam decode, detokenize). The first
// byte picks the beam width (1 to 3); the rest is split at '\n' into a batch of at most 4
// sentences. Every sentence gets one translation, and nothing throws. Seeds: corpus/translate/.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/checkpoints/checkpoint.h"
#include "translate/decode.h"
#include "fuzz_support.h"
#include "translate/translator.h"

using namespace atencion;

namespace {

// The tiny model, unpacked from the checkpoint target's seed once per process.
const examples::translate::Translator& tiny_translator() {
  static const examples::translate::Translator translator = [] {
    const std::filesystem::path seeds = ATENCION_FUZZ_CORPUS_DIR "/checkpoint";
    std::ifstream file(seeds / "tiny-model", std::ios::binary);
    std::ostringstream archive;
    archive << file.rdbuf();
    const std::string directory = fuzz::scratch_path("tiny-model");
    fuzz::unpack_checkpoint(archive.str(), directory);
    examples::write_manifest(directory);  // as save_checkpoint would (the seed has none)
    examples::translate::Translator loaded =
        examples::translate::Translator::from_checkpoint(examples::load_checkpoint(directory));
    std::filesystem::remove_all(directory);
    return loaded;
  }();
  return translator;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int64_t beam = 1 + data[0] % 3;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string> sentences;
  while (sentences.size() < 4) {
    const std::size_t end = text.find('\n');
    sentences.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  const std::vector<std::string> translations = examples::translate::translate_sentences(
      tiny_translator(), sentences, examples::translate::decode_options(beam, /*max_length=*/12));
  if (translations.size() != sentences.size()) {
    std::fprintf(stderr, "fuzz: %zu sentences gave %zu translations\n", sentences.size(),
                 translations.size());
    std::abort();
  }
  return 0;
}
