// examples/base/serve/batch_queue.cpp — see batch_queue.h.
#include "base/serve/batch_queue.h"

#include <algorithm>
#include <exception>
#include <optional>

#include "tensor/threads.h"

namespace atencion::examples::serve {

Reply error_reply(int status, const std::string& reason) {
  return {status, {{"error", reason}}};
}

std::string reply_text(const Reply& reply) {
  if (!reply.body_text.empty()) return reply.body_text;
  // replace: a string that is not UTF-8 cannot make dump() throw on an HTTP thread.
  return reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json reply_json(const Reply& reply) {
  return reply.body_text.empty() ? reply.body : nlohmann::json::parse(reply.body_text);
}

BatchQueue::BatchQueue(BatchFunction run, BatchOptions options)
    : run_(std::move(run)), options_(options) {
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options_.model_threads); ++i)
    model_threads_.emplace_back([this, i] { model_loop(i); });
}

BatchQueue::~BatchQueue() { stop(); }

bool BatchQueue::push(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= options_.capacity) return false;
    jobs_.push_back(std::move(job));
  }
  arrived_.notify_one();
  return true;
}

std::size_t BatchQueue::waiting() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

void BatchQueue::stop() {
  std::deque<Job> left;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && model_threads_.empty()) return;
    stopping_ = true;
  }
  arrived_.notify_all();
  for (std::thread& thread : model_threads_) thread.join();
  model_threads_.clear();
  {
    std::lock_guard lock(mutex_);
    left.swap(jobs_);
  }
  for (Job& job : left) job.done(error_reply(503, "the server is stopping"));
}

// Jobs that queued while the model was busy go at once; an idle model, woken by a job, waits
// at most `window` for others (less once full_batch wait). A model thread that has just started
// is idle, even if jobs queued before it first looked. The batch is every job of the first job's
// endpoint that waits (up to largest_batch), in arrival order.
// With several model threads, another may take the jobs first: then this one waits again.
std::vector<BatchQueue::Job> BatchQueue::next_batch(bool idle) {
  for (;;) {
    std::string endpoint;
    {
      std::unique_lock lock(mutex_);
      if (idle || jobs_.empty()) {
        arrived_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        const std::size_t full = std::min(options_.full_batch, options_.largest_batch);
        arrived_.wait_for(lock, options_.window,
                          [&] { return stopping_ || jobs_.size() >= full; });
      }
      if (stopping_) return {};
      if (jobs_.empty()) continue;
      endpoint = jobs_.front().endpoint;
    }
    std::vector<Job> batch = take(endpoint, options_.largest_batch);
    if (!batch.empty()) return batch;
  }
}

// With several model threads a take leaves the others their share of what waits (it takes
// ceil(waiting / model_threads)), and wakes one of them when it leaves any.
std::vector<BatchQueue::Job> BatchQueue::take(const std::string& endpoint, std::size_t limit) {
  std::unique_lock lock(mutex_);
  std::vector<Job> taken;
  if (stopping_) return taken;
  const std::size_t threads = std::max<std::size_t>(1, options_.model_threads);
  if (threads > 1) {
    const auto waiting = static_cast<std::size_t>(std::count_if(
        jobs_.begin(), jobs_.end(), [&](const Job& job) { return job.endpoint == endpoint; }));
    limit = std::min(limit, (waiting + threads - 1) / threads);
  }
  for (auto job = jobs_.begin(); job != jobs_.end() && taken.size() < limit;) {
    if (job->endpoint != endpoint) {
      ++job;
      continue;
    }
    taken.push_back(std::move(*job));
    job = jobs_.erase(job);
  }
  const bool left_some = threads > 1 && !jobs_.empty();
  lock.unlock();
  if (left_some) arrived_.notify_one();
  return taken;
}

// One call of the batch function for `batch`, which grows with the jobs it takes meanwhile
// (Progress::more); every job gets exactly one reply.
void BatchQueue::run_batch(std::vector<Job>& batch, std::size_t model_thread) {
  std::vector<nlohmann::json> requests;
  std::vector<Progress::Sink> sinks;
  for (const Job& job : batch) {
    requests.push_back(job.request);
    sinks.push_back(job.partial);
  }
  std::vector<char> answered(batch.size(), 0);  // sent early, through Progress::answer
  const Progress::Answer answer = [&](std::size_t request, Reply reply) {
    if (request >= batch.size() || answered[request]) return;
    answered[request] = 1;
    batch[request].done(std::move(reply));
  };
  const Progress::Take more = [&](std::size_t limit) {
    std::vector<Progress::Taken> taken;
    for (Job& job : take(batch.front().endpoint, limit)) {
      taken.push_back({job.request, job.partial});
      batch.push_back(std::move(job));
      answered.push_back(0);
    }
    return taken;
  };
  std::vector<Reply> replies;
  try {
    replies = run_(batch.front().endpoint, requests, Progress(std::move(sinks), answer, more, model_thread));
    if (replies.size() != batch.size())
      throw std::logic_error("the batch function gave " + std::to_string(replies.size()) +
                             " replies for " + std::to_string(batch.size()) + " requests");
  } catch (const std::exception& error) {
    replies.assign(batch.size(), error_reply(500, std::string("the model failed: ") + error.what()));
  } catch (...) {  // not a std::exception: still one reply each, never std::terminate
    replies.assign(batch.size(), error_reply(500, "the model failed (an unknown exception)"));
  }
  for (std::size_t i = 0; i < batch.size(); ++i)
    if (!answered[i]) batch[i].done(std::move(replies[i]));
}

void BatchQueue::model_loop(std::size_t model_thread) {
  std::optional<KernelsOnThisThread> alone;
  if (options_.model_threads > 1) alone.emplace();
  for (std::vector<Job> batch = next_batch(/*idle=*/true); !batch.empty();
       batch = next_batch(/*idle=*/false))
    run_batch(batch, model_thread);
}

}  // namespace atencion::examples::serve
