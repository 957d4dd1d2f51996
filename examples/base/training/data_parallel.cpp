// examples/base/training/data_parallel.cpp — see data_parallel.h.
// Lesson: docs/13-data-parallel.md#the-translator-on-n-processes
#include "base/training/data_parallel.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "nn/distributed.h"

namespace atencion::examples {
namespace distributed = nn::distributed;

DataParallel::DataParallel(distributed::Communicator& communicator)
    : communicator_(communicator) {}

Tokenizer DataParallel::share_tokenizer(const std::function<Tokenizer()>& make) const {
  if (size() == 1) return make();
  std::string bytes = is_main() ? make().serialized() : std::string();
  communicator_.broadcast_bytes(bytes);
  return Tokenizer::from_serialized(std::move(bytes));
}

void DataParallel::share_parameters(const std::vector<Variable>& parameters) const {
  communicator_.broadcast_parameters(parameters);
}

distributed::RowRange DataParallel::rows(int64_t rows, const std::string& unit,
                                         BatchPosition at, const std::string& remedy) const {
  if (rows < size())
    throw std::invalid_argument("train: batch " + std::to_string(at.batch) + " of epoch " +
                                std::to_string(at.epoch) + " is too small to share: " +
                                std::to_string(rows) + " " + unit + " for " +
                                std::to_string(size()) + " processes; " + remedy +
                                " or use fewer processes");
  return distributed::shard_rows(rows, rank(), size());
}

Batch DataParallel::shard(const Batch& global, const std::vector<Example>& examples,
                          const BatchOptions& options) const {
  if (size() == 1) return global;
  const distributed::RowRange mine =
      rows(global.batch_size, "sentence(s)", {global.epoch, global.index},
           "raise --max-tokens (now " + std::to_string(options.max_tokens) + ")");
  const std::vector<size_t> indices(global.example_indices.begin() + mine.begin,
                                    global.example_indices.begin() + mine.end);
  Batch local = make_batch(examples, indices, options);
  local.epoch = global.epoch;
  local.index = global.index;
  return local;
}

std::unique_ptr<distributed::GradientReducer> DataParallel::gradient_reducer(
    const std::vector<Variable>& parameters) const {
  if (size() == 1) return nullptr;
  return std::make_unique<distributed::GradientReducer>(communicator_, parameters, kBucketBytes);
}

void DataParallel::step(nn::Adam& optimizer) const {
  if (size() == 1) return optimizer.step();
  optimizer.step_part(rank(), size());
  std::vector<Tensor> updated;  // the same list on every process: finish() made it so
  for (const Variable& parameter : optimizer.parameters())
    if (parameter.has_grad()) updated.push_back(parameter.value());
  communicator_.all_gather_parts(updated);
}

void DataParallel::gather_optimizer_state(const nn::Adam& optimizer) const {
  if (size() > 1) communicator_.all_gather_parts(optimizer.moments());
}

double DataParallel::loss_share(double shard_loss, int64_t shard_tokens,
                                int64_t global_tokens) const {
  if (size() == 1) return shard_loss;
  return shard_loss * static_cast<double>(shard_tokens) / static_cast<double>(global_tokens);
}

double DataParallel::sum(double value) const { return communicator_.all_reduce_sum(value); }

void DataParallel::barrier() const { communicator_.barrier(); }

bool DataParallel::any(bool value) const {
  return size() == 1 ? value : communicator_.all_reduce_sum(value ? 1.0 : 0.0) > 0;
}

void DataParallel::check_parameters_identical(const std::vector<Variable>& parameters,
                                              int64_t step) const {
  if (size() == 1) return;
  if (!communicator_.same_on_all_ranks(distributed::parameters_fingerprint(parameters)))
    throw std::logic_error("train: at step " + std::to_string(step) +
                           " the processes' parameters differ (they must stay bit-identical)");
}

std::string DataParallel::summary(int64_t steps, double seconds,
                                  const distributed::GradientReducer& reducer) const {
  const double communication = reducer.communication_seconds();
  const double hidden =
      communication > 0 ? std::max(0.0, 1 - reducer.exposed_seconds() / communication) : 0.0;
  std::string buckets;
  for (const int64_t numbers : reducer.bucket_numbers()) {
    char one[32];
    std::snprintf(one, sizeof one, "%s%.2f", buckets.empty() ? "" : " + ",
                  static_cast<double>(numbers) / 1e6);
    buckets += one;
  }
  char text[200];
  std::snprintf(text, sizeof text,
                "data parallel: %d processes, communication %.2f s of %.1f s (%.1f ms a step, "
                "%.1f%%), %.0f%% of it hidden behind backward; ",
                size(), communication, seconds,
                steps > 0 ? 1e3 * communication / static_cast<double>(steps) : 0.0,
                seconds > 0 ? 100 * communication / seconds : 0.0, 100 * hidden);
  char spread[120];
  std::snprintf(spread, sizeof spread,
                "; the processes ended backward %.1f ms apart (a step, on average)",
                steps > 0 ? 1e3 * reducer.spread_seconds() / static_cast<double>(steps) : 0.0);
  return text + std::to_string(reducer.buckets()) + " bucket(s) (" + buckets + " M numbers)" +
         spread;
}

}  // namespace atencion::examples
