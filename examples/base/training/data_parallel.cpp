// examples/base/training/data_parallel.cpp — see data_parallel.h.
// Lesson: docs/13-data-parallel.md#the-translator-on-n-processes
#include "base/training/data_parallel.h"

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

Batch DataParallel::shard(const Batch& global, const std::vector<Example>& examples,
                          const BatchOptions& options) const {
  if (size() == 1) return global;
  if (global.batch_size < size())
    throw std::invalid_argument(
        "train: batch " + std::to_string(global.index) + " of epoch " +
        std::to_string(global.epoch) + " is too small to share: " +
        std::to_string(global.batch_size) + " sentence(s) for " + std::to_string(size()) +
        " processes; raise --max-tokens (now " + std::to_string(options.max_tokens) +
        ") or use fewer processes");
  const distributed::RowRange rows = distributed::shard_rows(global.batch_size, rank(), size());
  const std::vector<size_t> indices(global.example_indices.begin() + rows.begin,
                                    global.example_indices.begin() + rows.end);
  Batch local = make_batch(examples, indices, options);
  local.epoch = global.epoch;
  local.index = global.index;
  return local;
}

void DataParallel::average_gradients(const std::vector<Variable>& parameters,
                                     int64_t shard_tokens, int64_t global_tokens) const {
  const int64_t counted = communicator_.average_gradients(parameters, shard_tokens);
  if (counted != global_tokens)
    throw std::logic_error("train: the processes' shards hold " + std::to_string(counted) +
                           " target tokens, the global batch " +
                           std::to_string(global_tokens));
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

std::string DataParallel::summary(int64_t steps, double seconds) const {
  const double communication = communicator_.communication_seconds();
  char text[200];
  std::snprintf(text, sizeof text,
                "data parallel: %d processes, communication %.2f s of %.1f s (%.1f ms a step, "
                "%.1f%%)",
                size(), communication, seconds,
                steps > 0 ? 1e3 * communication / static_cast<double>(steps) : 0.0,
                seconds > 0 ? 100 * communication / seconds : 0.0);
  return text;
}

}  // namespace atencion::examples
