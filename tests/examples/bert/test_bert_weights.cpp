// Tests for examples/bert/bert_weights.cpp and examples/bert/bert_directory.cpp: a small random BERT
// saved in Hugging Face's layout (tests/fixtures/bert-tiny/, written by
// tools/make_bert_fixture.py) gives the hidden states and logits of a PyTorch forward written
// from the published layout: within 1e-12 in float64 and 1e-4 in float32. And every broken
// directory is refused in one line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "bert/bert_directory.h"
#include "bert/bert.h"
#include "bert/bert_weights.h"
#include "nn/masks.h"
#include "tensor/ops.h"
#include "tensor/safetensors.h"

using namespace atencion;
namespace bert = atencion::examples::bert;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const std::string kFixture = ATENCION_FIXTURES_DIR "/bert-tiny";

double largest_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  return max(abs(sub(a.to(DType::Float64), b.to(DType::Float64)))).item();
}

// The model of the fixture in `dtype`, run on the reference batch: {hidden, logits}.
std::pair<Tensor, Tensor> run_fixture(DType dtype) {
  const bert::BertDirectory directory = bert::read_bert_directory(kFixture, dtype);
  REQUIRE(directory.weights.has_head);
  Generator generator(0);
  bert::Bert model(directory.weights.config, generator);
  model.to(dtype);
  bert::load_hugging_face_bert(model, directory.weights);
  model.eval();
  const auto reference = load_safetensors(kFixture + "/reference.safetensors");
  const Tensor& ids = reference.at("input_ids");
  std::vector<int64_t> lengths;
  for (const double length : reference.at("lengths").to_vector())
    lengths.push_back(static_cast<int64_t>(length));
  NoGradGuard no_grad;
  const Variable hidden = model.encode(ids, nn::padding_mask(lengths, ids.size(1)));
  return {hidden.value(), model.mlm_logits(hidden).value()};
}

struct ScratchCopy {
  fs::path path = fs::temp_directory_path() / ("atencion-bert-fixture-" + std::to_string(getpid()));
  ScratchCopy() {
    fs::remove_all(path);
    fs::create_directories(path);
    for (const char* file : {"model.safetensors", "vocab.txt", "config.json"})
      fs::copy_file(fs::path(kFixture) / file, path / file);
  }
  ~ScratchCopy() { fs::remove_all(path); }
  void rewrite_weights(const std::function<void(std::map<std::string, Tensor>&)>& change) {
    auto tensors = load_safetensors((path / "model.safetensors").string());
    change(tensors);
    save_safetensors((path / "model.safetensors").string(), tensors);
  }
};

}  // namespace

TEST_CASE("bert weights: Hugging Face's layout gives PyTorch's hidden states and logits (float64, 1e-12)") {
  const auto reference = load_safetensors(kFixture + "/reference.safetensors");
  const auto [hidden, logits] = run_fixture(DType::Float64);
  CHECK(largest_difference(hidden, reference.at("hidden_f64")) < 1e-12);
  CHECK(largest_difference(logits, reference.at("logits_f64")) < 1e-12);
}

TEST_CASE("bert weights: the same in float32 within 1e-4") {
  const auto reference = load_safetensors(kFixture + "/reference.safetensors");
  const auto [hidden, logits] = run_fixture(DType::Float32);
  CHECK(largest_difference(hidden, reference.at("hidden_f32")) < 1e-4);
  CHECK(largest_difference(logits, reference.at("logits_f32")) < 1e-4);
}

TEST_CASE("bert weights: the sizes come from the shapes and config.json") {
  const bert::BertDirectory directory = bert::read_bert_directory(kFixture);
  const bert::BertConfig& c = directory.weights.config;
  CHECK(c.vocab == directory.wordpiece.vocab_size());
  CHECK(c.hidden == 24);
  CHECK(c.heads == 3);  // from config.json: 24 / 64 would give 1
  CHECK(c.layers == 2);
  CHECK(c.intermediate == 48);
  CHECK(c.max_positions == 32);
}

TEST_CASE("bert weights: a missing or wrong-shaped tensor is refused in one line naming it") {
  ScratchCopy copy;
  const std::string dir = copy.path.string();
  SECTION("missing") {
    copy.rewrite_weights([](auto& tensors) {
      tensors.erase("bert.encoder.layer.1.output.dense.weight");
    });
    CHECK_THROWS_WITH(bert::read_bert_directory(dir),
                      Contains("model.safetensors: no tensor 'bert.encoder.layer.1.output.dense.weight'"));
  }
  SECTION("wrong shape") {
    copy.rewrite_weights([](auto& tensors) {
      tensors["bert.encoder.layer.0.attention.self.key.weight"] = Tensor::zeros({24, 23});
    });
    CHECK_THROWS_WITH(bert::read_bert_directory(dir),
                      Contains("model.safetensors: tensor 'bert.encoder.layer.0.attention.self.key.weight' "
                               "has shape [24, 23], the model asks for [24, 24]"));
  }
  SECTION("no model.safetensors") {
    fs::remove(copy.path / "model.safetensors");
    CHECK_THROWS_WITH(bert::read_bert_directory(dir), Contains("model.safetensors does not exist"));
  }
  SECTION("a vocabulary without [MASK]") {
    std::ifstream in(copy.path / "vocab.txt");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    text.replace(text.find("[MASK]"), 6, "[MAKS]");
    std::ofstream(copy.path / "vocab.txt") << text;
    CHECK_THROWS_WITH(bert::read_bert_directory(dir), Contains("vocab.txt: no [MASK] piece"));
  }
  SECTION("a vocabulary of another size than the embeddings") {
    std::ofstream(copy.path / "vocab.txt", std::ios::app) << "extra\n";
    CHECK_THROWS_WITH(bert::read_bert_directory(dir), Contains("but the word embeddings have"));
  }
}

TEST_CASE("bert weights: BertModel's names (no prefix, no head) load the encoder alone") {
  ScratchCopy copy;
  copy.rewrite_weights([](auto& tensors) {
    std::map<std::string, Tensor> renamed;
    for (auto& [name, tensor] : tensors)
      if (name.rfind("bert.", 0) == 0) renamed[name.substr(5)] = tensor;
    tensors = renamed;
  });
  const bert::BertDirectory directory = bert::read_bert_directory(copy.path.string(), DType::Float64);
  CHECK_FALSE(directory.weights.has_head);
  Generator generator(0);
  bert::Bert model(directory.weights.config, generator);
  model.to(DType::Float64);
  bert::load_hugging_face_bert(model, directory.weights);
  const auto reference = load_safetensors(kFixture + "/reference.safetensors");
  std::vector<int64_t> lengths{9, 6};
  NoGradGuard no_grad;
  const Tensor hidden = model.encode(reference.at("input_ids"), nn::padding_mask(lengths, 9)).value();
  CHECK(largest_difference(hidden, reference.at("hidden_f64")) < 1e-12);
}
