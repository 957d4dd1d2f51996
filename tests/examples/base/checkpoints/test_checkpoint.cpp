// Tests for examples/base/checkpoints/checkpoint.cpp and the checkpoints train.cpp writes: the round
// trip, "latest", keeping the newest two, leftovers of killed runs, clear errors for missing,
// truncated and mismatched checkpoints, and a resumed run that continues exactly where the
// interrupted one stopped. A tiny model (d_model 16, 1+1 layers, ~100 pieces) on 200
// generated pairs keeps each training run to a second or two.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/checkpoints/checkpoint.h"
#include "base/checkpoints/checksum.h"
#include "translate/decode.h"
#include "nn/optim/adam.h"
#include "tensor/safetensors.h"
#include "tensor/threads.h"
#include "translate/train.h"
#include "translate/translator.h"
#include "base/data/tsv.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::translate;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A fresh, empty directory for one test case, removed when the case ends.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("atencion-test-checkpoint-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// 200 pairs from a 5 × 4 × 5 grammar, as statements and as questions:
// "El gato come pan." <-> "The cat eats bread.",
// "¿El gato come pan?" <-> "Does the cat eat bread?"
std::vector<SentencePair> tiny_pairs() {
  const std::vector<std::pair<std::string, std::string>> animals = {
      {"gato", "cat"},     {"perro", "dog"},      {"niño", "boy"},
      {"pájaro", "bird"},  {"caballo", "horse"}};
  const std::vector<std::vector<std::string>> verbs = {  // es, en (he ...), en (does he ...)
      {"come", "eats", "eat"}, {"ve", "sees", "see"}, {"quiere", "wants", "want"},
      {"tiene", "has", "have"}};
  const std::vector<std::pair<std::string, std::string>> things = {
      {"pan", "bread"}, {"agua", "water"}, {"fruta", "fruit"}, {"leche", "milk"},
      {"carne", "meat"}};
  std::vector<SentencePair> pairs;
  for (const auto& [animal_es, animal_en] : animals)
    for (const auto& verb : verbs)
      for (const auto& [thing_es, thing_en] : things) {
        pairs.push_back({"El " + animal_es + " " + verb[0] + " " + thing_es + ".",
                         "The " + animal_en + " " + verb[1] + " " + thing_en + "."});
        pairs.push_back({"¿El " + animal_es + " " + verb[0] + " " + thing_es + "?",
                         "Does the " + animal_en + " " + verb[2] + " " + thing_en + "?"});
      }
  return pairs;
}

void write_tiny_pairs(const std::string& path) {
  std::ofstream out(path);
  for (const auto& pair : tiny_pairs()) out << pair.source << "\t" << pair.target << "\n";
}

TrainOptions tiny_training(const std::string& data, const std::string& out, int64_t epochs,
                           double dropout = 0.0) {
  TrainOptions options;
  options.run.data_path = data;
  options.trainer.out_dir = out;
  options.run.vocab_size = 100;
  options.model = {.d_model = 16, .heads = 2, .encoder_layers = 1, .decoder_layers = 1,
                   .d_ff = 32, .dropout = dropout, .max_len = 32};
  options.run.max_tokens = 64;  // about 8 sentences a batch: ~22 steps an epoch
  options.run.warmup_steps = 10;
  // The paper's schedule: these tests stop a run and resume it with other limits (one epoch,
  // then two), which --schedule linear, the default, would plan as another run (it decays to the
  // limit's last step); its own resume and thread tests below use "linear".
  options.run.schedule = "inverse-sqrt";
  options.trainer.epochs = epochs;
  options.trainer.checkpoint_every = 2;
  options.trainer.log_every = 4;
  return options;
}

// A translator with its tokenizers, and an optimizer that has taken one step, as plain data.
CheckpointData tiny_checkpoint() {
  std::vector<std::string> sources, targets;
  for (const auto& pair : tiny_pairs()) {
    sources.push_back(pair.source);
    targets.push_back(pair.target);
  }
  TokenizerOptions tokenizer_options;
  tokenizer_options.vocab_size = 100;
  nn::TransformerConfig config{.d_model = 16, .heads = 2, .encoder_layers = 1,
                               .decoder_layers = 1, .d_ff = 32, .dropout = 0.0, .max_len = 32};
  Translator translator = Translator::create(config, Tokenizer::train(sources, tokenizer_options),
                                             Tokenizer::train(targets, tokenizer_options), 7);
  nn::Adam optimizer(translator.model->parameters(), {});
  const std::vector<Example> examples = {{translator.source_tokenizer.encode(sources[0]),
                                          translator.target_tokenizer.encode(targets[0])}};
  const Batch batch = make_batch(examples, {0}, BatchOptions{});
  translator.loss(to_tensors(batch), 0.1).backward();
  optimizer.step();

  CheckpointData data = translator.to_checkpoint();
  data.config["run"] = {{"note", "test"}};
  data.optimizer = optimizer.state_dict();
  data.trainer = {{"step", 1}, {"epoch", 0}, {"batch", 1}, {"history", nlohmann::json::array()}};
  return data;
}

void require_same_tensors(const NamedTensors& a, const NamedTensors& b) {
  std::map<std::string, Tensor> by_name(b.begin(), b.end());
  REQUIRE(a.size() == b.size());
  for (const auto& [name, tensor] : a) {
    INFO(name);
    REQUIRE(by_name.count(name) == 1);
    CHECK(tensor.dtype() == by_name.at(name).dtype());
    CHECK(tensor.shape() == by_name.at(name).shape());
    CHECK(tensor.to_vector() == by_name.at(name).to_vector());  // bit for bit
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

void flip_byte(const std::string& path, size_t offset) {
  std::string bytes = read_file(path);
  REQUIRE(offset < bytes.size());
  bytes[offset] = static_cast<char>(bytes[offset] ^ 0x10);
  write_text(path, bytes);
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// translate::train in this test program's single process (rank 0 of 1).
std::string train(const TrainOptions& options) {
  nn::distributed::Communicator one_process;
  return translate::train(options, one_process);
}

}  // namespace

TEST_CASE("checkpoint: save and load give back config, weights, optimizer, trainer, tokenizers",
          "[translate][checkpoint]") {
  TempDir run("roundtrip");
  const CheckpointData saved = tiny_checkpoint();
  const std::string dir = save_checkpoint(run.path.string(), 1200, saved);
  CHECK(dir == run / "step-00001200");
  CHECK(read_text(run / "latest") == "step-00001200\n");
  for (const char* file : {"config.json", "model.safetensors", "optimizer.safetensors",
                           "trainer.json", "source.model", "target.model"}) {
    INFO(file);
    CHECK(fs::exists(fs::path(dir) / file));
  }

  // The run directory (through "latest") and the checkpoint directory both load.
  for (const std::string& path : {run.path.string(), dir}) {
    const CheckpointData loaded = load_checkpoint(path);
    CHECK(loaded.directory == dir);
    CHECK(loaded.config == saved.config);
    CHECK(loaded.trainer == saved.trainer);
    CHECK(loaded.files == saved.files);
    require_same_tensors(loaded.model, saved.model);
    require_same_tensors(loaded.optimizer, saved.optimizer);
  }

  // The translator built from it has the same weights and tokenizers, and translates alike.
  const Translator original = Translator::from_checkpoint(saved);
  const Translator restored = Translator::from_checkpoint(load_checkpoint(run.path.string()));
  CHECK(restored.config.d_model == 16);
  CHECK(restored.config.src_vocab == original.source_tokenizer.vocab_size());
  require_same_tensors(restored.model->state_dict(), saved.model);
  CHECK(restored.source_tokenizer.encode("¿El gato come pan?") ==
        original.source_tokenizer.encode("¿El gato come pan?"));
  const auto options = decode_options(1, 10);
  CHECK(translate_sentences(restored, {"El perro ve agua."}, options) ==
        translate_sentences(original, {"El perro ve agua."}, options));

  // The Adam state loads into an optimizer over the restored model's parameters.
  nn::Adam optimizer(restored.model->parameters(), {});
  optimizer.load_state_dict(load_checkpoint(dir).optimizer);
  CHECK(optimizer.step_count(0) == 1);
}

TEST_CASE("checkpoint: a loaded translator is the one that wrote it (built without drawing an "
          "initialisation)",
          "[checkpoint]") {
  std::vector<std::string> sources, targets;
  for (const auto& pair : tiny_pairs()) {
    sources.push_back(pair.source);
    targets.push_back(pair.target);
  }
  TokenizerOptions tokenizer_options;
  tokenizer_options.vocab_size = 100;
  const Translator written = Translator::create(
      {.d_model = 16, .heads = 2, .encoder_layers = 1, .decoder_layers = 1, .d_ff = 32,
       .dropout = 0.0, .max_len = 32},
      Tokenizer::train(sources, tokenizer_options), Tokenizer::train(targets, tokenizer_options),
      11);
  const Translator loaded = Translator::from_checkpoint(written.to_checkpoint());
  require_same_tensors(loaded.model->state_dict(), written.model->state_dict());
  for (const auto beam : {1, 3}) {
    const auto options = decode_options(beam, 12);
    CHECK(translate_sentences(loaded, sources, options) ==
          translate_sentences(written, sources, options));
  }
}

TEST_CASE("checkpoint: a family's own file needs a plain name of its own",
          "[translate][checkpoint]") {
  TempDir run("family-files");
  for (const std::string name : {"../escape.model", "sub/dir.model", "config.json", "", ".."}) {
    INFO("name '" << name << "'");
    CheckpointData data = tiny_checkpoint();
    data.files[name] = "bytes";
    CHECK_THROWS_WITH(save_checkpoint(run.path.string(), 2, data),
                      Contains("save_checkpoint: '" + name +
                               "' is not a file name a checkpoint can hold"));
  }
  CheckpointData data = tiny_checkpoint();
  data.files["notes.txt"] = "a family's own file";
  const std::string dir = save_checkpoint(run.path.string(), 2, data);
  CHECK(load_checkpoint(dir).files.at("notes.txt") == "a family's own file");
}

TEST_CASE("checkpoint: keeps the newest two, and 'latest' names the newest",
          "[translate][checkpoint]") {
  TempDir run("keep");
  const CheckpointData data = tiny_checkpoint();
  for (int64_t step : {2, 4, 6}) save_checkpoint(run.path.string(), step, data);
  CHECK(entries(run.path) == std::vector<std::string>{"latest", "step-00000004", "step-00000006"});
  CHECK(read_text(run / "latest") == "step-00000006\n");
  CHECK(resolve_checkpoint(run.path.string()) == run / "step-00000006");
  // Saving a step again replaces it and keeps the other.
  save_checkpoint(run.path.string(), 6, data);
  CHECK(entries(run.path) == std::vector<std::string>{"latest", "step-00000004", "step-00000006"});
  // keep = 1
  save_checkpoint(run.path.string(), 8, data, 1);
  CHECK(entries(run.path) == std::vector<std::string>{"latest", "step-00000008"});
}

TEST_CASE("checkpoint: the leftovers of a killed run are ignored, then cleaned",
          "[translate][checkpoint]") {
  TempDir run("leftovers");
  const CheckpointData data = tiny_checkpoint();
  save_checkpoint(run.path.string(), 3, data);
  // What kill -9 in the middle of the next save leaves: a half-written directory and a
  // half-written "latest" under temporary names.
  fs::create_directories(run / "step-00000005.tmp-123");
  write_text(run / "step-00000005.tmp-123/config.json", "{\"model\": ");
  write_text(run / "latest.tmp-123", "step-000");
  CHECK(resolve_checkpoint(run.path.string()) == run / "step-00000003");
  CHECK(load_checkpoint(run.path.string()).trainer == data.trainer);

  save_checkpoint(run.path.string(), 5, data);
  CHECK(entries(run.path) == std::vector<std::string>{"latest", "step-00000003", "step-00000005"});

  // "latest" missing, or naming a checkpoint that is gone: the newest whole one is used.
  fs::remove(run / "latest");
  CHECK(resolve_checkpoint(run.path.string()) == run / "step-00000005");
  write_text(run / "latest", "step-00000007\n");
  CHECK(resolve_checkpoint(run.path.string()) == run / "step-00000005");
}

TEST_CASE("checkpoint: missing, truncated and mismatched checkpoints give clear errors",
          "[translate][checkpoint]") {
  TempDir run("errors");
  const std::string missing = run / "no-such-run";
  CHECK_THROWS_WITH(load_checkpoint(missing), Contains(missing) && Contains("no such directory"));
  CHECK(resolve_checkpoint(missing).empty());

  fs::create_directories(run / "empty");
  write_text(run / "empty/notes.txt", "not a checkpoint");
  CHECK_THROWS_WITH(load_checkpoint(run / "empty"),
                    Contains("empty") && Contains("not a checkpoint (no config.json"));

  const CheckpointData data = tiny_checkpoint();
  // Each case damages a fresh copy of one good checkpoint.
  auto damaged = [&](const std::string& name) {
    const std::string dir = save_checkpoint(run / name, 1, data);
    return dir;
  };

  SECTION("truncated model.safetensors") {
    const std::string dir = damaged("truncated");
    const fs::path model = fs::path(dir) / "model.safetensors";
    fs::resize_file(model, fs::file_size(model) / 2);
    CHECK_THROWS_WITH(load_checkpoint(dir), Contains("model.safetensors"));
    CHECK_THROWS_WITH(load_checkpoint(run / "truncated"), Contains("model.safetensors"));
  }
  SECTION("a missing tokenizer") {
    const std::string dir = damaged("no-tokenizer");
    fs::remove(fs::path(dir) / "target.model");
    CHECK_THROWS_WITH(load_checkpoint(dir), Contains(dir + "/target.model"));
  }
  SECTION("config.json that is not JSON") {
    const std::string dir = damaged("bad-json");
    write_text(dir + "/config.json", "{\"model\": {\"d_model\": 16,");
    write_manifest(dir);  // as if it had been written so: the parser's error, not the checksum
    CHECK_THROWS_WITH(load_checkpoint(dir), Contains(dir + "/config.json: bad JSON"));
  }
  SECTION("config.json without a model") {
    const std::string dir = damaged("no-model");
    write_text(dir + "/config.json", "{\"run\": {}}");
    write_manifest(dir);
    CHECK_THROWS_WITH(Translator::from_checkpoint(load_checkpoint(dir)),
                      Contains(dir + "/config.json: no \"model\" section"));
  }
  SECTION("weights that do not match the config (d_model edited)") {
    const std::string dir = damaged("mismatch");
    nlohmann::json config = nlohmann::json::parse(read_text(dir + "/config.json"));
    config["model"]["d_model"] = 32;
    write_text(dir + "/config.json", config.dump());
    write_manifest(dir);
    const CheckpointData edited = load_checkpoint(dir);  // the files are whole
    CHECK_THROWS_WITH(Translator::from_checkpoint(edited),
                      Contains(dir + "/model.safetensors: tensor 'src_embedding.weight' has "
                                     "shape [") &&
                          Contains(", 16], config.json asks for [") && Contains(", 32]"));
  }
  SECTION("config.json with a field missing") {
    const std::string dir = damaged("missing-field");
    nlohmann::json config = nlohmann::json::parse(read_text(dir + "/config.json"));
    config["model"].erase("heads");
    write_text(dir + "/config.json", config.dump());
    write_manifest(dir);
    CHECK_THROWS_WITH(Translator::from_checkpoint(load_checkpoint(dir)),
                      Contains("config.json: bad model config") && Contains("heads"));
  }
}

TEST_CASE("train: a resumed run continues step, data position, optimizer and dropout exactly",
          "[translate][checkpoint][train]") {
  TempDir work("resume");
  const std::string data = work / "pairs.tsv";
  write_tiny_pairs(data);

  // Two epochs without a break, dropout on: its masks must continue across the resume too.
  const double dropout = 0.1;
  TrainOptions uninterrupted = tiny_training(data, work / "straight", 2, dropout);
  uninterrupted.trainer.checkpoint_every = 0;  // one at the end: checkpoints change nothing of the run
  const std::string straight = train(uninterrupted);
  const CheckpointData whole = load_checkpoint(straight);
  const int64_t steps = whole.trainer.at("step").get<int64_t>();
  REQUIRE(steps >= 30);
  REQUIRE(steps % 2 == 0);
  const int64_t per_epoch = steps / 2;
  // The stream stands after the last batch of epoch 1: exactly two epochs, no batch more.
  CHECK(whole.trainer.at("epoch") == 1);
  CHECK(whole.trainer.at("batch") == per_epoch);

  // One epoch, then an "interruption": the last checkpoint is lost, so the run must go on from
  // the one before it, in the middle of epoch 0 (checkpoints every 2 steps).
  const std::string first = train(tiny_training(data, work / "interrupted", 1, dropout));
  CHECK(load_checkpoint(first).trainer.at("step") == per_epoch);
  fs::remove_all(first);
  const CheckpointData before = load_checkpoint(work / "interrupted");
  const int64_t resumed_at = before.trainer.at("step").get<int64_t>();
  CHECK(resumed_at == (per_epoch - 1) / 2 * 2);
  CHECK(before.trainer.at("epoch") == 0);
  CHECK(before.trainer.at("batch") == resumed_at);
  // Adam counts its own steps; they are the trainer's.
  nn::Adam adam(Translator::from_checkpoint(before).model->parameters(), {});
  adam.load_state_dict(before.optimizer);
  CHECK(adam.step_count(0) == resumed_at);
  // Every dropout's generator state is saved (the positional encoding's 1, the encoder
  // layer's 2 + its attention's 1 + feed-forward's 1, the decoder layer's 3 + 2 + 1).
  CHECK(before.trainer.at("generators").size() == 11);
  CHECK(before.trainer.at("generators").contains("decoder.layers.0.dropout3"));

  TrainOptions resume = tiny_training("", work / "interrupted", 2);
  resume.trainer.resume = true;  // the data path and every setting come from the checkpoint
  const CheckpointData after = load_checkpoint(train(resume));
  CHECK(after.trainer.at("step") == steps);
  CHECK(after.trainer.at("epoch") == 1);
  CHECK(after.trainer.at("batch") == per_epoch);
  CHECK(after.config.at("run") == whole.config.at("run"));
  // Same batches in the same order with the same Adam moments and step counts: the weights
  // and the optimizer state are those of the run that was never interrupted, bit for bit.
  require_same_tensors(after.model, whole.model);
  require_same_tensors(after.optimizer, whole.optimizer);
  std::vector<int64_t> history_steps, whole_history_steps;
  for (const auto& point : after.trainer.at("history")) history_steps.push_back(point.at("step"));
  for (const auto& point : whole.trainer.at("history"))
    whole_history_steps.push_back(point.at("step"));
  CHECK(history_steps == whole_history_steps);

  // Resuming a run that is already done trains nothing and changes nothing.
  const std::string again_dir = train(resume);
  char name[32];
  std::snprintf(name, sizeof name, "interrupted/step-%08lld", static_cast<long long>(steps));
  CHECK(again_dir == work / name);
  const CheckpointData again = load_checkpoint(again_dir);
  CHECK(again.trainer.at("step") == steps);
  require_same_tensors(again.model, whole.model);

  // And the result translates.
  const Translator translator = Translator::from_checkpoint(after);
  const auto translations =
      translate_sentences(translator, {"El gato come pan.", "¿El perro tiene agua?"},
                          decode_options(2, 12));
  REQUIRE(translations.size() == 2);
  CHECK_FALSE(translations[0].empty());
}

TEST_CASE("train --schedule linear: a resumed run, and one on 1 thread, end with the bits of "
          "a run never stopped", "[translate][checkpoint][train][schedule]") {
  TempDir work("linear");
  const std::string data = work / "pairs.tsv";
  write_tiny_pairs(data);
  auto linear = [&](const std::string& out) {
    TrainOptions options = tiny_training(data, out, 0, /*dropout=*/0.1);
    options.run.schedule = "linear";
    options.trainer.steps = 14;
    options.trainer.checkpoint_every = 4;
    return options;
  };
  const int threads = num_threads();
  set_num_threads(2);
  const CheckpointData whole = load_checkpoint(train(linear(work / "straight")));
  // T = 14; the warm-up 4 steps (the run's 10, at most a third of T).
  CHECK(whole.trainer.at("schedule") ==
        nlohmann::json({{"last_step", 14}, {"warmup_steps", 4}}));
  CHECK(whole.config.at("run").at("schedule") == "linear");

  // Interrupted: the checkpoint of step 14 is lost, so the run goes on from step 12.
  train(linear(work / "interrupted"));
  fs::remove_all(work / "interrupted/step-00000014");
  TrainOptions resume = linear(work / "interrupted");
  resume.run = RunConfig{};  // every setting comes from the checkpoint
  resume.trainer.resume = true;
  const CheckpointData after = load_checkpoint(train(resume));
  CHECK(after.trainer.at("step") == 14);
  CHECK(after.trainer.at("schedule") == whole.trainer.at("schedule"));
  require_same_tensors(after.model, whole.model);
  require_same_tensors(after.optimizer, whole.optimizer);

  set_num_threads(1);
  const CheckpointData one_thread = load_checkpoint(train(linear(work / "one-thread")));
  set_num_threads(threads);
  require_same_tensors(one_thread.model, whole.model);
}

TEST_CASE("train: config.json of a run saved before --schedule reads as inverse-sqrt and "
          "resumes so", "[translate][checkpoint][train][schedule]") {
  TempDir work("older-run");
  const std::string data = work / "pairs.tsv";
  write_tiny_pairs(data);
  TrainOptions options = tiny_training(data, work / "run", 0);
  options.trainer.steps = 4;
  options.run.schedule = "inverse-sqrt";  // what every run before --schedule trained with
  const std::string dir = train(options);
  nlohmann::json config = nlohmann::json::parse(read_text(dir + "/config.json"));
  CHECK(config.at("run").at("schedule") == "inverse-sqrt");
  config["run"].erase("schedule");
  config["run"].erase("lr_floor");
  config["run"].erase("ema");
  write_text(dir + "/config.json", config.dump());
  write_manifest(dir);
  const std::string file = dir + "/config.json";
  const RunConfig older = read_run_config(config, file);
  CHECK(older.schedule == "inverse-sqrt");
  CHECK(older.lr_floor == 0);
  CHECK(older.ema == 0);
  options.trainer.resume = true;
  options.trainer.steps = 6;
  CHECK(load_checkpoint(train(options)).trainer.at("step") == 6);

  config["run"]["schedule"] = "cosine";
  CHECK_THROWS_WITH(read_run_config(config, file),
                    file + ": run: 'schedule' is \"cosine\", not \"inverse-sqrt\" or \"linear\"");
  config["run"]["schedule"] = "linear";
  config["run"]["lr_floor"] = 1.5;
  CHECK_THROWS_WITH(read_run_config(config, file),
                    file + ": run: 'lr_floor' is 1.5, not from 0 to 1");
  config["run"]["lr_floor"] = 0.0;
  config["run"]["ema"] = 1.0;
  CHECK_THROWS_WITH(read_run_config(config, file),
                    file + ": run: 'ema' is 1.0, not from 0 to below 1");
}

TEST_CASE("train --ema: the checkpoint's model is the average, and a resumed run ends with the "
          "bits of one never stopped", "[translate][checkpoint][train][ema]") {
  TempDir work("ema");
  const std::string data = work / "pairs.tsv";
  write_tiny_pairs(data);
  auto averaged = [&](const std::string& out, double ema) {
    TrainOptions options = tiny_training(data, out, 0, /*dropout=*/0.1);
    options.run.ema = ema;
    options.trainer.steps = 10;
    options.trainer.checkpoint_every = 4;
    return options;
  };
  const CheckpointData whole = load_checkpoint(train(averaged(work / "straight", 0.9)));
  const CheckpointData plain = load_checkpoint(train(averaged(work / "plain", 0)));
  // The average changes nothing of the training: the weights trained are the plain run's.
  NamedTensors optimizer_state = whole.optimizer;
  const auto trained = take_trained_weights(optimizer_state);
  REQUIRE(trained.size() == plain.model.size());
  for (const auto& [name, tensor] : plain.model) {
    INFO(name);
    CHECK(trained.at(name).to_vector() == tensor.to_vector());
  }
  require_same_tensors(optimizer_state, plain.optimizer);  // Adam's moments too
  // The model saved is the average, which is not the weights.
  CHECK(whole.model[0].second.to_vector() != plain.model[0].second.to_vector());
  CHECK(whole.trainer.at("dev_loss") != plain.trainer.at("dev_loss"));

  train(averaged(work / "interrupted", 0.9));
  fs::remove_all(work / "interrupted/step-00000010");  // lost: go on from step 8
  TrainOptions resume = averaged(work / "interrupted", 0.9);
  resume.run = RunConfig{};
  resume.trainer.resume = true;
  const CheckpointData after = load_checkpoint(train(resume));
  require_same_tensors(after.model, whole.model);
  require_same_tensors(after.optimizer, whole.optimizer);
  CHECK(after.trainer.at("dev_loss") == whole.trainer.at("dev_loss"));
}

TEST_CASE("checkpoint: the format is recorded, and its manifest required",
          "[translate][checkpoint]") {
  TempDir run("format");
  const CheckpointData data = tiny_checkpoint();
  const std::string dir = save_checkpoint(run.path.string(), 2, data);
  CHECK(nlohmann::json::parse(read_text(dir + "/config.json")).at("checkpoint_format") ==
        kCheckpointFormat);
  CHECK(load_checkpoint(dir).config == data.config);  // the file's field, not the model's

  // Without its manifest a checkpoint of this format cannot be checked: a flipped bit in the
  // weights would load. Refused.
  fs::remove(dir + "/manifest.json");
  flip_byte(dir + "/model.safetensors", fs::file_size(dir + "/model.safetensors") - 3);
  CHECK_THROWS_WITH(load_checkpoint(dir),
                    Contains(dir + "/manifest.json is missing: a checkpoint of format 2 always "
                                   "has one"));
  // One from before formats (no "checkpoint_format") loads, unchecked, and says so.
  nlohmann::json config = nlohmann::json::parse(read_text(dir + "/config.json"));
  config.erase("checkpoint_format");
  write_text(dir + "/config.json", config.dump());
  CHECK(verify_checkpoint_files(dir) ==
        "load_checkpoint: " + dir + " has no manifest.json (written before checkpoints had "
                                    "one): its files are loaded unchecked");
  CHECK_NOTHROW(load_checkpoint(dir));
  // A format from a newer program is refused, manifest or not.
  config["checkpoint_format"] = kCheckpointFormat + 1;
  write_text(dir + "/config.json", config.dump());
  write_manifest(dir);
  CHECK_THROWS_WITH(load_checkpoint(dir), Contains(dir + "/config.json: checkpoint_format 3 is "
                                                         "not one this program reads"));
}

TEST_CASE("checkpoint: a damaged newest checkpoint is named when an older one is loaded",
          "[translate][checkpoint]") {
  TempDir run("skipped");
  const CheckpointData data = tiny_checkpoint();
  for (int64_t step : {8, 12}) save_checkpoint(run.path.string(), step, data);
  fs::remove(run / "step-00000012/config.json");
  const CheckpointChoice choice = choose_checkpoint(run.path.string());
  CHECK(choice.directory == run / "step-00000008");
  CHECK(choice.skipped == run / "step-00000012");
  CHECK(load_checkpoint(run.path.string()).directory == run / "step-00000008");
  // Nothing whole at all: the refusal names the damaged one.
  fs::remove(run / "step-00000008/config.json");
  CHECK_THROWS_WITH(load_checkpoint(run.path.string()),
                    Contains("not a checkpoint") &&
                        Contains(run / "step-00000012" + " has no config.json"));
}

TEST_CASE("checkpoint: a flipped byte in any file is refused, naming the file",
          "[translate][checkpoint][checksum]") {
  TempDir run("flipped");
  const CheckpointData data = tiny_checkpoint();
  for (const char* file : {"config.json", "model.safetensors", "optimizer.safetensors",
                           "trainer.json", "source.model", "target.model"}) {
    INFO(file);
    const std::string dir = save_checkpoint(run / file, 1, data);
    const std::string path = dir + "/" + file;
    // A byte of the data section (the safetensors header is checked by its own parser).
    flip_byte(path, fs::file_size(path) - 5);
    CHECK_THROWS_WITH(load_checkpoint(dir),
                      Contains(path + " is damaged") && Contains("manifest.json records"));
  }
  // A truncated file, and a file that the manifest does not list.
  const std::string dir = save_checkpoint(run / "truncated", 1, data);
  fs::resize_file(dir + "/source.model", 100);
  CHECK_THROWS_WITH(load_checkpoint(dir), Contains(dir + "/source.model is damaged: 100 bytes"));
  const std::string unlisted = save_checkpoint(run / "unlisted", 1, data);
  CheckpointData without_optimizer = data;
  without_optimizer.optimizer.clear();
  const std::string bare = save_checkpoint(run / "bare", 1, without_optimizer);
  fs::copy_file(unlisted + "/optimizer.safetensors", bare + "/optimizer.safetensors");
  CHECK_THROWS_WITH(load_checkpoint(bare),
                    Contains(bare + "/optimizer.safetensors: not listed in manifest.json"));
}

TEST_CASE("checkpoint: NaN is never written, and never loaded (NaN in the optimizer state)",
          "[translate][checkpoint]") {
  TempDir run("nan");
  CheckpointData data = tiny_checkpoint();
  const std::string good = save_checkpoint(run / "run", 2, data);
  // Inject a NaN into Adam's first moment of parameter 3.
  CheckpointData poisoned = data;
  for (auto& [name, tensor] : poisoned.optimizer)
    if (name == "3.exp_avg") {
      tensor = tensor.clone();
      tensor.data<float>()[1] = NAN;
    }
  CHECK_THROWS_WITH(save_checkpoint(run / "run", 4, poisoned),
                    Contains("save_checkpoint: step 4: optimizer tensor '3.exp_avg' element 1 "
                             "is nan: not written"));
  try {  // what the trainer's "training stopped" line names
    save_checkpoint(run / "run", 4, poisoned);
  } catch (const NonFiniteTensor& error) {
    CHECK(error.found == "optimizer tensor '3.exp_avg' element 1 is nan");
  }
  CHECK(resolve_checkpoint(run / "run") == good);  // "latest" still names the good one
  CHECK(entries(run / "run") == std::vector<std::string>{"latest", "step-00000002"});

  // One written by hand (with a manifest that matches it) is refused on load, by file and name.
  save_safetensors(good + "/optimizer.safetensors", poisoned.optimizer);
  write_manifest(good);
  CHECK_THROWS_WITH(load_checkpoint(good),
                    Contains(good + "/optimizer.safetensors: tensor '3.exp_avg' element 1 is nan"));
}

TEST_CASE("checkpoint: a damaged 'latest' falls back to the newest whole checkpoint",
          "[translate][checkpoint]") {
  TempDir run("latest");
  const CheckpointData data = tiny_checkpoint();
  for (int64_t step : {2, 4}) save_checkpoint(run.path.string(), step, data);
  const std::string newest = run / "step-00000004";
  std::string binary(1 << 20, '\0');
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 7);
  for (const std::string& latest :
       {binary, "step-00000002" + std::string(5000, ' ') + "\n", std::string("../../etc\n"),
        std::string("step-00000002/../step-00000002\n"), std::string("\n")}) {
    write_text(run / "latest", latest);
    CHECK(resolve_checkpoint(run.path.string()) == newest);
  }
  // A checkpoint a kill left half-removed is renamed aside first, so it never counts.
  fs::rename(run / "step-00000002", run / "step-00000002.tmp-77-removed");
  fs::remove(run / "step-00000002.tmp-77-removed/model.safetensors");
  write_text(run / "latest", "step-00000002\n");
  CHECK(resolve_checkpoint(run.path.string()) == newest);
  save_checkpoint(run.path.string(), 6, data);  // and the next save cleans it away
  CHECK(entries(run.path) == std::vector<std::string>{"latest", "step-00000004", "step-00000006"});
}

TEST_CASE("checkpoint: the best checkpoint by dev loss stays out of rotation",
          "[translate][checkpoint]") {
  TempDir run("best");
  CheckpointData data = tiny_checkpoint();
  for (const auto& [step, dev_loss] : std::vector<std::pair<int64_t, double>>{
           {2, 3.0}, {4, 1.5}, {6, 2.0}, {8, 2.5}, {10, 1.7}}) {
    data.trainer["dev_loss"] = dev_loss;
    save_checkpoint(run.path.string(), step, data);
  }
  CHECK(read_text(run / "best") == "step-00000004\n");
  CHECK(entries(run.path) == std::vector<std::string>{"best", "latest", "step-00000004",
                                                      "step-00000008", "step-00000010"});
  data.trainer["dev_loss"] = 1.0;  // a new best: the old one rotates out at the next save
  save_checkpoint(run.path.string(), 12, data);
  CHECK(read_text(run / "best") == "step-00000012\n");
  CHECK(entries(run.path) ==
        std::vector<std::string>{"best", "latest", "step-00000010", "step-00000012"});
}

TEST_CASE("checkpoint: a config whose sizes do not match the weights is refused before building",
          "[translate][checkpoint]") {
  TempDir run("config-sizes");
  CheckpointData data = tiny_checkpoint();
  data.directory = run / "step-1";
  auto refused = [&](const std::string& field, const nlohmann::json& value) {
    CheckpointData edited = data;
    edited.config["model"][field] = value;
    return Translator::from_checkpoint(edited);
  };
  // d_ff 4e9 would allocate 2 × 4e9 × 16 floats if the model were built first.
  CHECK_THROWS_WITH(refused("d_ff", 4000000000LL),
                    Contains(data.directory + "/model.safetensors: tensor "
                                              "'encoder.layers.0.feed_forward.linear1.weight' "
                                              "has shape [32, 16], config.json asks for "
                                              "[4000000000, 16]"));
  CHECK_THROWS_WITH(refused("src_vocab", 1LL << 40),
                    Contains("'src_embedding.weight' has shape [") &&
                        Contains("config.json asks for [1099511627776, 16]"));
  CHECK_THROWS_WITH(refused("max_len", 4000000000LL), Contains("'max_len' is 4000000000"));
  // A million layers are refused by the field's range, before a list of their tensors is made.
  CHECK_THROWS_WITH(refused("encoder_layers", 1000000), Contains("'encoder_layers' is 1000000"));
  CHECK_THROWS_WITH(refused("encoder_layers", 2),
                    Contains("no tensor 'encoder.layers.1.self_attn.q_proj.weight'"));
  CHECK_THROWS_WITH(refused("tie_target_embeddings", true),
                    Contains("tensor 'output_projection.") &&
                        Contains("is not one config.json asks for"));
  CheckpointData integers = data;
  for (auto& [name, tensor] : integers.model)
    if (name == "tgt_embedding.weight") tensor = tensor.to(DType::Int64);
  CHECK_THROWS_WITH(Translator::from_checkpoint(integers),
                    Contains("tensor 'tgt_embedding.weight' is I64, not floating-point weights"));
}

TEST_CASE("train --resume: errors from the checkpoint's files name the file",
          "[translate][checkpoint][train]") {
  TempDir work("resume-errors");
  const std::string data = work / "pairs.tsv";
  write_tiny_pairs(data);
  TrainOptions options = tiny_training(data, work / "run", 1);
  options.trainer.checkpoint_every = 0;  // one checkpoint, at the end
  const std::string dir = train(options);
  options.trainer.resume = true;
  auto edit_json = [&](const std::string& file, auto&& edit) {
    nlohmann::json json = nlohmann::json::parse(read_text(dir + "/" + file));
    edit(json);
    write_text(dir + "/" + file, json.dump());
    write_manifest(dir);
  };

  SECTION("trainer.json without \"step\"") {
    edit_json("trainer.json", [](nlohmann::json& trainer) { trainer.erase("step"); });
    CHECK_THROWS_WITH(train(options), Contains(dir + "/trainer.json: ") && Contains("'step'"));
  }
  SECTION("an optimizer state that does not fit the model") {
    const auto state = load_safetensors(dir + "/optimizer.safetensors");
    NamedTensors extra(state.begin(), state.end());
    extra.emplace_back("999.step", Tensor::from_ids({1}, {}));
    save_safetensors(dir + "/optimizer.safetensors", extra);
    write_manifest(dir);
    CHECK_THROWS_WITH(train(options),
                      Contains(dir + "/optimizer.safetensors: Adam.load_state_dict"));
  }
  SECTION("a tokenizer that is not a SentencePiece model") {
    write_text(dir + "/target.model", "not a model");
    write_manifest(dir);
    CHECK_THROWS_WITH(train(options), Contains(dir + "/target.model: "));
  }
  // Values a save never writes, with a manifest that matches them (forged, or from before
  // manifests): each refused, naming the file and the field.
  SECTION("trainer.json with values no save writes") {
    const std::string original = read_text(dir + "/trainer.json");
    const std::vector<std::pair<std::string, nlohmann::json>> forged = {
        {"step", -5},          {"step", 1LL << 62},  {"epoch", 1LL << 62},
        {"batch", -1},         {"step", 16.5},       {"seconds", -1.0},
        {"history", nlohmann::json::object()},      {"history", {1, 2}},
        {"dev_history", nlohmann::json::parse(R"([{"step": 3}])")}};
    for (const auto& forgery : forged) {
      // Named copies: a lambda may not capture a structured binding under clang's OpenMP.
      const std::string& field = forgery.first;
      const nlohmann::json& value = forgery.second;
      INFO(field << " = " << value.dump());
      edit_json("trainer.json", [&](nlohmann::json& trainer) { trainer[field] = value; });
      CHECK_THROWS_WITH(train(options),
                        Contains(dir + "/trainer.json: ") && Contains(field));
      write_text(dir + "/trainer.json", original);
      write_manifest(dir);
    }
  }
  SECTION("config.json with values no save writes") {
    const std::string original = read_text(dir + "/config.json");
    const std::vector<std::tuple<std::string, std::string, nlohmann::json>> forged = {
        {"run", "max_words", 0},          {"run", "seed", -1},
        {"run", "split_seed", 1.5},       {"run", "lr_factor", 0.0},
        {"run", "label_smoothing", 2.0},  {"run", "data_path", 7},
        {"model", "d_model", 16.5},       {"model", "heads", -2},
        {"model", "dropout", 1.0},        {"model", "norm_first", 1}};
    for (const auto& forgery : forged) {
      const std::string& section = std::get<0>(forgery);
      const std::string& field = std::get<1>(forgery);
      const nlohmann::json& value = std::get<2>(forgery);
      INFO(section << "." << field << " = " << value.dump());
      edit_json("config.json", [&](nlohmann::json& config) { config[section][field] = value; });
      CHECK_THROWS_WITH(train(options),
                        Contains("config.json") && Contains("'" + field + "' is " + value.dump()));
      write_text(dir + "/config.json", original);
      write_manifest(dir);
    }
  }
  SECTION("no optimizer.safetensors: refused, unless Adam may start afresh") {
    fs::remove(dir + "/optimizer.safetensors");
    write_manifest(dir);
    CHECK_THROWS_WITH(train(options), Contains(dir + "/optimizer.safetensors is missing") &&
                                          Contains("--fresh-optimizer"));
    options.trainer.fresh_optimizer = true;
    options.trainer.epochs = 2;
    CHECK_NOTHROW(train(options));
  }
  SECTION("dropout states that do not fit the model") {
    edit_json("trainer.json", [](nlohmann::json& trainer) {
      trainer["generators"].erase("encoder.layers.0.dropout1");
    });
    CHECK_THROWS_WITH(train(options),
                      Contains(dir + "/trainer.json: no generator state for the dropout "
                                     "'encoder.layers.0.dropout1'"));
  }
}

TEST_CASE("train: a diverging run stops at the first NaN, keeping every checkpoint finite",
          "[translate][checkpoint][train]") {
  TempDir work("diverge");
  const std::string data = work / "pairs.tsv";
  write_tiny_pairs(data);
  TrainOptions options = tiny_training(data, work / "run", 3, 0.1);
  options.run.lr_factor = 1e10;  // a peak rate of ~1e8: the weights overflow within a few steps
  // A checkpoint after every step, so that one is written before the first NaN however soon it
  // comes (on the fused attention path it comes at step 2: docs/14-flash-attention.md#the-derivation-of-d).
  options.trainer.checkpoint_every = 1;
  std::string message;
  try {
    train(options);
  } catch (const std::runtime_error& error) {
    message = error.what();
  }
  INFO(message);
  REQUIRE_THAT(message, Contains("train: step ") && Contains("training stopped") &&
                            Contains("the last good checkpoint is " + work / "run/step-"));
  // Every checkpoint left is finite, loads, and is older than the step that failed.
  const int64_t failed = std::stoll(message.substr(message.find("step ") + 5));
  const std::string last =
      message.substr(message.find(work / "run/step-"), (work / "run/").size() + 13);
  CHECK(resolve_checkpoint(work / "run") == last);
  for (const auto& name : entries(work.path / "run")) {
    if (name.rfind("step-", 0) != 0) continue;
    INFO(name);
    const CheckpointData checkpoint = load_checkpoint(work / ("run/" + name));
    CHECK(checkpoint.trainer.at("step").get<int64_t>() < failed);
    CHECK(first_non_finite(checkpoint.model).empty());
  }
}
