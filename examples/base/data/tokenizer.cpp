// examples/base/data/tokenizer.cpp — see tokenizer.h.
#include "base/data/tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

// Exported by libsentencepiece but not declared in its public headers. The trainer logs
// its whole command line before it reads --minloglevel, so we lower the level first.
namespace sentencepiece::logging {
int GetMinLogLevel();
void SetMinLogLevel(int level);
}  // namespace sentencepiece::logging

namespace atencion::examples {

namespace {

// Feeds our sentences to the trainer, which otherwise reads them from a file.
class SentencesIterator : public sentencepiece::SentenceIterator {
 public:
  explicit SentencesIterator(const std::vector<std::string>& sentences)
      : sentences_(sentences) {}
  bool done() const override { return index_ >= sentences_.size(); }
  void Next() override { ++index_; }
  const std::string& value() const override { return sentences_[index_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& sentences_;
  size_t index_ = 0;
};

}  // namespace

Tokenizer::Tokenizer(std::string model_bytes) : model_bytes_(std::move(model_bytes)) {
  auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
  const auto status = processor->LoadFromSerializedProto(model_bytes_);
  if (!status.ok())
    throw std::invalid_argument(std::string("Tokenizer: not a SentencePiece model: ") +
                                status.ToString());
  if (processor->pad_id() != pad_id || processor->unk_id() != unk_id ||
      processor->bos_id() != bos_id || processor->eos_id() != eos_id)
    throw std::invalid_argument(
        "Tokenizer: the model's special ids (pad " + std::to_string(processor->pad_id()) +
        ", unk " + std::to_string(processor->unk_id()) + ", bos " +
        std::to_string(processor->bos_id()) + ", eos " + std::to_string(processor->eos_id()) +
        ") are not pad 0, unk 1, bos 2, eos 3");
  processor_ = std::move(processor);
}

Tokenizer Tokenizer::train(const std::vector<std::string>& sentences,
                           const TokenizerOptions& options) {
  if (sentences.empty()) throw std::invalid_argument("Tokenizer::train: no sentences");
  if (options.vocab_size < 8)
    throw std::invalid_argument("Tokenizer::train: vocab_size " +
                                std::to_string(options.vocab_size) + " is below 8");
  std::ostringstream args;
  args << "--model_type=unigram --vocab_size=" << options.vocab_size
       << " --hard_vocab_limit=false"      // a small corpus gets a smaller vocabulary
       << " --character_coverage=1.0"      // keep every character seen (only ~110 here)
       << " --pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3"
       // SentencePiece deals sentences to its threads round-robin and adds their sums in
       // thread order, so a fixed count gives the same model on every machine (and 2 is
       // twice as fast as 1 on two cores).
       << " --num_threads=2"
       << " --input_sentence_size=0";      // use every sentence, no random sample
  sentencepiece::SetRandomGeneratorSeed(options.seed);
  SentencesIterator iterator(sentences);
  std::string model_bytes;
  const int log_level = sentencepiece::logging::GetMinLogLevel();
  sentencepiece::logging::SetMinLogLevel(2);  // errors only
  const auto status = sentencepiece::SentencePieceTrainer::Train(args.str(), &iterator,
                                                                 &model_bytes);
  sentencepiece::logging::SetMinLogLevel(log_level);
  if (!status.ok())
    throw std::invalid_argument(std::string("Tokenizer::train: ") + status.ToString());
  return Tokenizer(std::move(model_bytes));
}

Tokenizer Tokenizer::load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument("Tokenizer::load: cannot open '" + path + "'");
  std::ostringstream contents;
  contents << file.rdbuf();
  try {
    return Tokenizer(contents.str());
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument("Tokenizer::load: '" + path + "': " + error.what());
  }
}

Tokenizer Tokenizer::from_serialized(std::string model_bytes) {
  return Tokenizer(std::move(model_bytes));
}

std::vector<int64_t> Tokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  const auto status = processor_->Encode(text, &ids);
  if (!status.ok()) throw std::invalid_argument("Tokenizer::encode: " + status.ToString());
  return {ids.begin(), ids.end()};
}

std::string Tokenizer::decode(const std::vector<int64_t>& ids) const {
  std::vector<int> kept;
  for (const int64_t id : ids) {
    if (id < 0 || id >= vocab_size())
      throw std::out_of_range("Tokenizer::decode: id " + std::to_string(id) +
                              " is outside the vocabulary [0, " +
                              std::to_string(vocab_size()) + ")");
    kept.push_back(static_cast<int>(id));
  }
  std::string text;
  const auto status = processor_->Decode(kept, &text);
  if (!status.ok()) throw std::invalid_argument("Tokenizer::decode: " + status.ToString());
  return text;
}

std::vector<std::string> Tokenizer::pieces(std::string_view text) const {
  std::vector<std::string> result;
  const auto status = processor_->Encode(text, &result);
  if (!status.ok()) throw std::invalid_argument("Tokenizer::pieces: " + status.ToString());
  return result;
}

std::string Tokenizer::piece(int64_t id) const {
  if (id < 0 || id >= vocab_size())
    throw std::out_of_range("Tokenizer::piece: id " + std::to_string(id) +
                            " is outside the vocabulary [0, " + std::to_string(vocab_size()) +
                            ")");
  return processor_->IdToPiece(static_cast<int>(id));
}

int64_t Tokenizer::vocab_size() const { return processor_->GetPieceSize(); }

}  // namespace atencion::examples
