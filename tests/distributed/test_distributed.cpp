// tests/distributed/test_distributed.cpp — nn/distributed.cpp, run by CTest on its own (one
// process) and under `mpiexec -n 2` and `-n 3` (tests/CMakeLists.txt). Every rank runs every
// test case in the same order; what a check compares is the same on every rank (reduced or
// computed alike everywhere), so a failure fails on all ranks instead of leaving one waiting.
// Lesson: docs/13-data-parallel.md
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "autograd/ops.h"
#include "nn/distributed.h"
#include "nn/loss.h"
#include "nn/masks.h"
#include "nn/optim/adam.h"
#include "nn/transformer.h"
#include "tensor/random.h"

using namespace atencion;
namespace distributed = atencion::nn::distributed;

namespace {
// This process's communicator, made by main() for the test cases below.
distributed::Communicator* the_communicator = nullptr;
distributed::Communicator& world() { return *the_communicator; }
}  // namespace

int main(int argc, char** argv) {
  distributed::Communicator communicator;
  the_communicator = &communicator;
  return Catch::Session().run(argc, argv);
}

namespace {

constexpr int64_t pad = 0;  // padding, and the targets the loss ignores

// A global batch for a translation-shaped model: sources and targets of varied lengths padded
// with `pad`, and some targets inside the sentences set to `pad` too (ignored by the loss), so
// that each row holds a different number of counted tokens.
struct GlobalBatch {
  int64_t rows = 0, source_length = 0, target_length = 0;
  std::vector<int64_t> source, target_input, target_output, source_lengths;
};

GlobalBatch make_global_batch(Generator& generator, int64_t rows, int64_t vocab) {
  GlobalBatch batch{rows, 6, 5, {}, {}, {}, {}};
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t source_length = generator.randint(1, batch.source_length + 1);
    const int64_t target_length = generator.randint(1, batch.target_length + 1);
    batch.source_lengths.push_back(source_length);
    for (int64_t s = 0; s < batch.source_length; ++s)
      batch.source.push_back(s < source_length ? generator.randint(1, vocab) : pad);
    for (int64_t t = 0; t < batch.target_length; ++t) {
      const bool real = t < target_length;
      batch.target_input.push_back(real ? generator.randint(1, vocab) : pad);
      const bool ignored = generator.uniform() < 0.25;
      batch.target_output.push_back(real && !ignored ? generator.randint(1, vocab) : pad);
    }
  }
  return batch;
}

int64_t counted_tokens(const std::vector<int64_t>& targets) {
  return static_cast<int64_t>(std::count_if(targets.begin(), targets.end(),
                                            [](int64_t id) { return id != pad; }));
}

// Rows [begin, end) of the batch; returns the loss (a mean over its counted targets) and
// leaves the count in *tokens.
Variable shard_loss(nn::Transformer& model, const GlobalBatch& batch,
                    distributed::RowRange rows, int64_t* tokens) {
  auto take = [&](const std::vector<int64_t>& values, int64_t width) {
    return std::vector<int64_t>(values.begin() + rows.begin * width,
                                values.begin() + rows.end * width);
  };
  const int64_t b = rows.count(), s = batch.source_length, t = batch.target_length;
  const std::vector<int64_t> target_output = take(batch.target_output, t);
  *tokens = counted_tokens(target_output);
  const Tensor source_mask = nn::padding_mask(
      std::vector<int64_t>(batch.source_lengths.begin() + rows.begin,
                           batch.source_lengths.begin() + rows.end),
      s);
  Variable logits = model.forward(Tensor::from_ids(take(batch.source, s), {b, s}),
                                  Tensor::from_ids(take(batch.target_input, t), {b, t}),
                                  source_mask, nn::causal_mask(t), source_mask);
  nn::CrossEntropyOptions options;
  options.ignore_index = pad;
  options.label_smoothing = 0.1;
  return nn::cross_entropy(logits, Tensor::from_ids(target_output, {b, t}), options);
}

std::unique_ptr<nn::Transformer> tiny_model() {
  const nn::TransformerConfig config{.src_vocab = 7, .tgt_vocab = 7, .d_model = 8, .heads = 2,
                                     .encoder_layers = 1, .decoder_layers = 1, .d_ff = 16,
                                     .dropout = 0, .max_len = 16, .padding_idx = pad};
  Generator generator(5);
  auto model = std::make_unique<nn::Transformer>(config, generator);
  model->to(DType::Float64);
  return model;
}

// ByTokens: average_gradients after backward; Overlapped: a GradientReducer with buckets of
// 512 bytes (many of them for the tiny model), started while backward runs.
enum class Averaging { ByTokens, MeanOfMeans, Overlapped };

// Adam steps on the global batches: with one process when `sharded` is false, else each rank
// on its shard of every batch followed by average_gradients. Checks after every step that all
// ranks hold the same bits. Returns the parameters.
std::vector<Tensor> train(const std::vector<GlobalBatch>& batches, bool sharded,
                          Averaging averaging) {
  auto model = tiny_model();
  if (sharded) world().broadcast_parameters(model->parameters());
  nn::AdamOptions adam_options;
  adam_options.lr = 0.01;
  // Adam moves a weight by lr · m / (√v + ε). The key projection's bias has a gradient that is
  // zero in exact arithmetic (softmax ignores a constant added to every score), so in either
  // run it is rounding noise of ~1e-17, which ε = 1e-8 would turn into steps of ~1e-11 that
  // differ between the runs (docs/13-data-parallel.md#determinism). ε = 1e-6 keeps them < 1e-13.
  adam_options.eps = 1e-6;
  nn::Adam optimizer(model->parameters(), adam_options);
  std::unique_ptr<distributed::GradientReducer> reducer;
  if (averaging == Averaging::Overlapped)
    reducer = std::make_unique<distributed::GradientReducer>(world(), model->parameters(), 512);
  for (const GlobalBatch& batch : batches) {
    const distributed::RowRange rows =
        sharded ? distributed::shard_rows(batch.rows, world().rank(), world().size())
                : distributed::RowRange{0, batch.rows};
    int64_t tokens = 0;
    optimizer.zero_grad();
    Variable loss = shard_loss(*model, batch, rows, &tokens);
    if (reducer) reducer->begin(tokens, counted_tokens(batch.target_output));
    loss.backward();
    if (reducer) reducer->finish();
    if (sharded && !reducer)
      world().average_gradients(optimizer.parameters(),
                                averaging == Averaging::ByTokens ? tokens : 1);
    optimizer.step();
    if (sharded)
      REQUIRE(world().same_on_all_ranks(
          distributed::parameters_fingerprint(optimizer.parameters())));
  }
  std::vector<Tensor> values;
  for (const Variable& parameter : model->parameters()) values.push_back(parameter.value());
  return values;
}

double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  double largest = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::vector<double> x = a[i].to_vector(), y = b[i].to_vector();
    for (size_t k = 0; k < x.size(); ++k) largest = std::max(largest, std::abs(x[k] - y[k]));
  }
  return largest;
}

}  // namespace

TEST_CASE("distributed: shard_rows gives disjoint contiguous parts that cover the batch",
          "[distributed]") {
  for (int size = 1; size <= 4; ++size) {
    for (int64_t rows = size; rows <= 11; ++rows) {
      int64_t next = 0;
      for (int rank = 0; rank < size; ++rank) {
        const distributed::RowRange part = distributed::shard_rows(rows, rank, size);
        REQUIRE(part.begin == next);
        REQUIRE(part.count() >= rows / size);
        REQUIRE(part.count() <= rows / size + 1);
        next = part.end;
      }
      REQUIRE(next == rows);
    }
  }
  CHECK(distributed::shard_rows(5, 0, 2).count() == 3);
  CHECK(distributed::shard_rows(5, 1, 2).begin == 3);
}

TEST_CASE("distributed: one Communicator per process; a barrier returns on every rank",
          "[distributed]") {
  CHECK_THROWS_WITH(distributed::Communicator(),
                    "distributed::Communicator: one per process, and one is alive");
  world().barrier();
  CHECK(world().all_reduce_sum(1.0) == world().size());
}

TEST_CASE("distributed: a global batch smaller than the number of processes is refused",
          "[distributed]") {
  CHECK_THROWS_WITH(distributed::shard_rows(2, 0, 3),
                    "distributed::shard_rows: a global batch of 2 rows cannot be shared by 3 "
                    "processes (each needs at least one)");
  CHECK_THROWS_WITH(distributed::shard_rows(4, 2, 2),
                    Catch::Contains("rank 2 of 2 processes"));
  Variable weight(Tensor::ones({2}), true);
  CHECK_THROWS_WITH(world().average_gradients({weight}, -1),
                    Catch::Contains("local_count -1 < 0"));
  Variable ids(Tensor::from_ids({1, 2}, {2}));
  CHECK_THROWS_WITH(world().broadcast_parameters({ids}),
                    Catch::Contains("parameter 0 has dtype int64"));
}

TEST_CASE("distributed: N processes train as one process on the union of their batches",
          "[distributed]") {
  Generator generator(42);
  std::vector<GlobalBatch> batches;
  for (int step = 0; step < 4; ++step) batches.push_back(make_global_batch(generator, 7, 7));

  const std::vector<Tensor> one_process = train(batches, false, Averaging::ByTokens);
  const std::vector<Tensor> by_tokens = train(batches, true, Averaging::ByTokens);
  INFO(world().size() << " processes: largest difference "
       << max_difference(by_tokens, one_process));
  // float64: only the order of the sums differs.
  CHECK(max_difference(by_tokens, one_process) <= 1e-12);
  // The same while backward runs, bucket after bucket; and the same bits again a second time.
  const std::vector<Tensor> overlapped = train(batches, true, Averaging::Overlapped);
  INFO("overlapped: largest difference " << max_difference(overlapped, one_process));
  CHECK(max_difference(overlapped, one_process) <= 1e-12);
  CHECK(max_difference(train(batches, true, Averaging::Overlapped), overlapped) == 0);

  if (world().size() > 1) {
    // The ranks' shards count different numbers of tokens (checked here), so the plain mean
    // of their mean gradients is another gradient, and the weights move elsewhere.
    const distributed::RowRange rows =
        distributed::shard_rows(batches[0].rows, world().rank(), world().size());
    const int64_t tokens = counted_tokens(std::vector<int64_t>(
        batches[0].target_output.begin() + rows.begin * batches[0].target_length,
        batches[0].target_output.begin() + rows.end * batches[0].target_length));
    REQUIRE_FALSE(world().same_on_all_ranks(static_cast<uint64_t>(tokens)));
    const std::vector<Tensor> mean_of_means = train(batches, true, Averaging::MeanOfMeans);
    CHECK(max_difference(mean_of_means, one_process) > 1e-6);
  }
}

TEST_CASE("distributed: broadcast_parameters gives every process rank 0's weights",
          "[distributed]") {
  Generator generator(static_cast<uint64_t>(100 + world().rank()));
  const std::vector<double> values{generator.normal(), generator.normal()};
  Variable weight(Tensor::from_vector(values, {2}, DType::Float64), true);
  Variable bias(Tensor::scalar(static_cast<float>(world().rank())), true);
  const std::vector<Variable> parameters{weight, bias};
  const bool differed =
      !world().same_on_all_ranks(distributed::parameters_fingerprint(parameters));
  CHECK(differed == (world().size() > 1));
  world().broadcast_parameters(parameters);
  CHECK(world().same_on_all_ranks(distributed::parameters_fingerprint(parameters)));
  Generator rank0(100);
  const double first = rank0.normal(), second = rank0.normal();
  CHECK(weight.value().to_vector() == std::vector<double>{first, second});
  CHECK(bias.item() == 0.0);

  std::string bytes = world().rank() == 0 ? std::string("tok\0en", 6) : "other";
  world().broadcast_bytes(bytes);
  CHECK(bytes == std::string("tok\0en", 6));
}

TEST_CASE("distributed: broadcast_parameters refuses ranks whose models differ",
          "[distributed]") {
  if (world().size() == 1) return;  // one process cannot disagree with itself
  std::vector<Variable> parameters{Variable(Tensor::ones({3}), true)};
  if (world().rank() == 1) parameters.emplace_back(Tensor::ones({1}), true);
  CHECK_THROWS_WITH(world().broadcast_parameters(parameters),
                    "distributed::broadcast_parameters: the ranks' models differ: between 1 "
                    "and 2 parameters");
  const std::vector<Variable> other_shape{
      Variable(Tensor::ones({world().rank() == 1 ? 4 : 3}), true)};
  CHECK_THROWS_WITH(world().broadcast_parameters(other_shape),
                    Catch::Contains("same number of parameters, other shapes or dtypes"));
}

TEST_CASE("distributed: a gradient missing on some processes counts as zeros there",
          "[distributed]") {
  // `used` has a gradient on rank 0 only; `unused` on none. Rank r counts r + 1 tokens.
  Variable used(Tensor::from_vector(std::vector<double>{1, 2}, {2}, DType::Float64), true);
  Variable unused(Tensor::from_vector(std::vector<double>{3}, {1}, DType::Float64), true);
  Variable everywhere(Tensor::from_vector(std::vector<double>{0}, {1}, DType::Float64), true);
  if (world().rank() == 0)
    used.set_grad(Tensor::from_vector(std::vector<double>{6, 12}, {2}, DType::Float64));
  everywhere.set_grad(Tensor::from_vector(
      std::vector<double>{static_cast<double>(world().rank())}, {1}, DType::Float64));
  const int64_t local = world().rank() + 1;
  const int64_t size = world().size();
  const int64_t total = world().average_gradients({used, unused, everywhere}, local);
  REQUIRE(total == size * (size + 1) / 2);
  // g = Σ_r (n_r / n) g_r: rank 0 alone holds `used`'s gradient, with weight 1 / n.
  const double n = static_cast<double>(total);
  REQUIRE(used.has_grad());
  CHECK(used.grad().to_vector() == std::vector<double>{6 / n, 12 / n});
  CHECK_FALSE(unused.has_grad());
  double expected = 0;  // Σ_r (r + 1) / n · r
  for (int64_t r = 0; r < size; ++r) expected += static_cast<double>((r + 1) * r) / n;
  CHECK(everywhere.grad().item() == Approx(expected).epsilon(1e-15));
}

TEST_CASE("distributed: GradientReducer buckets the parameters in reverse and checks its counts",
          "[distributed]") {
  // Three float64 parameters of 3, 2 and 4 numbers, buckets of 48 bytes (6 numbers): the last
  // two together first (4 + 2), then the first.
  std::vector<Variable> parameters;
  for (int64_t numel : {3, 2, 4})
    parameters.emplace_back(Tensor::ones({numel}, DType::Float64), true);
  distributed::GradientReducer reducer(world(), parameters, 48);
  CHECK(reducer.bucket_numbers() == std::vector<int64_t>{6, 3});
  CHECK_THROWS_WITH(reducer.begin(3, 2), "distributed::GradientReducer::begin: 3 of 2 targets");
  // Only parameter 1 is used, on rank 0, which holds the one target.
  reducer.begin(world().rank() == 0 ? 1 : 0, 1);
  if (world().rank() == 0) sum(mul(parameters[1], 2.0)).backward();
  reducer.finish();
  CHECK_FALSE(parameters[0].has_grad());  // no rank had one
  REQUIRE(parameters[1].has_grad());
  CHECK(parameters[1].grad().to_vector() == std::vector<double>{2, 2});
  CHECK_FALSE(parameters[2].has_grad());
}

TEST_CASE("distributed: GradientReducer keeps the ranks' collectives in step when a gradient "
          "is missing on some of them",
          "[distributed]") {
  // One parameter a bucket (8 bytes): `rank_zero_only`'s bucket leaves first. On rank 0 both
  // buckets leave while backward runs; on the others the first one waits for finish(), and the
  // second behind it. Every rank must still start bucket 0, bucket 1, then the header (MPI pairs
  // collectives by their order: paired wrongly, they fail or hang, as they did before f5322f5).
  Variable everywhere(Tensor::ones({2}, DType::Float64), true);
  Variable rank_zero_only(Tensor::ones({3}, DType::Float64), true);
  distributed::GradientReducer reducer(world(), {everywhere, rank_zero_only}, 8);
  REQUIRE(reducer.bucket_numbers() == std::vector<int64_t>{3, 2});
  reducer.begin(1, world().size());  // one target on every rank
  Variable loss = sum(everywhere);
  if (world().rank() == 0) loss = add(loss, sum(mul(rank_zero_only, 2.0)));
  loss.backward();
  reducer.finish();
  // g = Σ_r (1 / N) g_r: 1 for `everywhere`, 2 / N for the one rank's gradient.
  const double n = static_cast<double>(world().size());
  for (const double value : everywhere.grad().to_vector()) CHECK(value == Approx(1).epsilon(1e-15));
  for (const double value : rank_zero_only.grad().to_vector())
    CHECK(value == Approx(2 / n).epsilon(1e-15));
}

TEST_CASE("distributed: GradientReducer counts a gradient missing in a later step as zeros, "
          "not as the step before's",
          "[distributed]") {
  // The buckets' buffers are kept from step to step. In the first step every rank has
  // `sometimes`'s gradient; in the second only rank 0 has it, and the others must send zeros
  // for it, not what their buffer held from the first step.
  for (const DType dtype : {DType::Float64, DType::Float32}) {
    INFO(dtype_name(dtype));
    Variable always(Tensor::ones({2}, dtype), true);
    Variable sometimes(Tensor::ones({3}, dtype), true);
    distributed::GradientReducer reducer(world(), {always, sometimes});
    REQUIRE(reducer.buckets() == 1);
    for (int step = 0; step < 2; ++step) {
      always.zero_grad();
      sometimes.zero_grad();
      reducer.begin(1, world().size());  // one target on every rank
      Variable loss = sum(always);
      if (step == 0 || world().rank() == 0) loss = add(loss, sum(mul(sometimes, 5.0)));
      loss.backward();
      reducer.finish();
    }
    // g = Σ_r (1 / N) g_r: 1 for `always`; 5 / N for `sometimes`, from rank 0 alone.
    const double n = static_cast<double>(world().size());
    const double tolerance = dtype == DType::Float64 ? 1e-15 : 1e-6;
    for (const double value : always.grad().to_vector())
      CHECK(value == Approx(1).epsilon(tolerance));
    for (const double value : sometimes.grad().to_vector())
      CHECK(value == Approx(5 / n).epsilon(tolerance));
  }
}

TEST_CASE("distributed: GradientReducer measures how far apart the processes end backward",
          "[distributed]") {
  if (world().size() == 1) return;
  std::vector<Variable> parameters{Variable(Tensor::ones({2}, DType::Float64), true)};
  distributed::GradientReducer reducer(world(), parameters);
  reducer.begin(1, world().size());
  // The last rank is 100 ms late; the others wait for it.
  if (world().rank() == world().size() - 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  sum(parameters[0]).backward();
  reducer.finish();
  // Every rank works the spread out of the same numbers (the header's); the bound leaves the
  // other ranks 75 ms of scheduling noise on a busy machine.
  CHECK(world().same_on_all_ranks(std::bit_cast<uint64_t>(reducer.spread_seconds())));
  CHECK(reducer.spread_seconds() > 0.025);
}

TEST_CASE("distributed: GradientReducer refuses shares that do not add up", "[distributed]") {
  if (world().size() == 1) return;
  std::vector<Variable> parameters{Variable(Tensor::ones({2}, DType::Float64), true)};
  distributed::GradientReducer reducer(world(), parameters);
  reducer.begin(1, 1);  // every rank: 1 target of 1
  sum(parameters[0]).backward();
  CHECK_THROWS_WITH(reducer.finish(),
                    "distributed::GradientReducer: the processes' shares hold " +
                        std::to_string(world().size()) + " targets, the global batch 1");
}

TEST_CASE("distributed: all_gather_parts gives every process each part from its owner",
          "[distributed]") {
  // Every element of rank r's tensors holds 1000·r + its index: only part r is right.
  const int rank = world().rank(), size = world().size();
  const auto filled = [&](const Shape& shape, DType dtype) {
    Tensor tensor = Tensor::zeros(shape, dtype);
    std::vector<double> values(static_cast<size_t>(tensor.numel()));
    for (size_t k = 0; k < values.size(); ++k) values[k] = 1000.0 * rank + static_cast<double>(k);
    return Tensor::from_vector(values, shape, dtype);
  };
  // float32 and float64 mixed; one smaller than the number of processes (empty parts).
  const std::vector<Tensor> tensors{filled({5, 3}, DType::Float32), filled({2}, DType::Float64),
                                    filled({1}, DType::Float32), filled({9}, DType::Float64)};
  world().all_gather_parts(tensors);
  for (const Tensor& tensor : tensors) {
    const std::vector<double> values = tensor.to_vector();
    for (int owner = 0; owner < size; ++owner) {
      const nn::ElementRange part = nn::part_of(tensor.numel(), owner, size);
      for (int64_t k = part.begin; k < part.end; ++k)
        CHECK(values[static_cast<size_t>(k)] == 1000.0 * owner + static_cast<double>(k));
    }
  }
  if (size > 1) {
    const std::vector<Tensor> unlike{Tensor::zeros({rank == 1 ? 4 : 3})};
    CHECK_THROWS_WITH(world().all_gather_parts(unlike),
                      "distributed::all_gather_parts: the processes passed different lists of "
                      "tensors (their sizes or dtypes differ)");
  }
  const Tensor strided = Tensor::zeros({2, 3}).transpose(0, 1);
  CHECK_THROWS_WITH(world().all_gather_parts({strided}),
                    Catch::Contains("tensor 0 is [3, 2] float32 (contiguous float32 or float64"));
  if (size > 1) {  // one rank's tensor cannot be sent: every rank throws, none waits
    const Tensor mine = rank == 1 ? strided : Tensor::zeros({3, 2});
    CHECK_THROWS_WITH(world().all_gather_parts({mine}),
                      Catch::Contains(rank == 1 ? "tensor 0 is [3, 2] float32"
                                                : "the processes passed different lists"));
  }
}

TEST_CASE("distributed: Adam's step shared out is one process's step, to the bit",
          "[distributed]") {
  // The same weights and gradient on every rank: each steps its part, then the parts travel.
  Generator generator(3);
  std::vector<Variable> shared{Variable(randn({4, 7}, generator), true),
                               Variable(randn({3}, generator), true)};
  std::vector<Variable> alone{Variable(shared[0].value().clone(), true),
                              Variable(shared[1].value().clone(), true)};
  nn::Adam stepped_together(shared, {.lr = 0.01}), stepped_alone(alone, {.lr = 0.01});
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < shared.size(); ++i) {
      const Tensor grad = randn(shared[i].shape(), generator);
      shared[i].set_grad(grad.clone());
      alone[i].set_grad(grad.clone());
    }
    stepped_alone.step();
    stepped_together.step_part(world().rank(), world().size());
    world().all_gather_parts({shared[0].value(), shared[1].value()});
    for (size_t i = 0; i < shared.size(); ++i)
      CHECK(shared[i].value().to_vector() == alone[i].value().to_vector());
  }
  world().all_gather_parts(stepped_together.moments());  // as before a checkpoint
  const std::vector<Tensor> together = stepped_together.moments(), one = stepped_alone.moments();
  for (size_t m = 0; m < one.size(); ++m) CHECK(together[m].to_vector() == one[m].to_vector());
}

// Run only by name (CTest: "distributed: one process aborting ends the job"): rank 1 gives up
// while rank 0 waits for it in a collective; the job must end, with rank 1's message.
TEST_CASE("distributed: abort ends every process", "[.abort]") {
  if (world().rank() == 1) world().abort("rank 1 gives up on purpose", 3);
  world().barrier();  // rank 0 waits here for rank 1, which never comes
  FAIL("the collective returned although rank 1 aborted");
}
