// examples/base/serve/batch_queue.cpp — see batch_queue.h.
#include "base/serve/batch_queue.h"

#include <algorithm>
#include <exception>

namespace atencion::examples::serve {

Reply error_reply(int status, const std::string& reason) {
  return {status, {{"error", reason}}};
}

BatchQueue::BatchQueue(BatchFunction run, BatchOptions options)
    : run_(std::move(run)), options_(options), model_thread_([this] { model_loop(); }) {}

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
    if (stopping_ && !model_thread_.joinable()) return;
    stopping_ = true;
  }
  arrived_.notify_all();
  if (model_thread_.joinable()) model_thread_.join();
  {
    std::lock_guard lock(mutex_);
    left.swap(jobs_);
  }
  for (Job& job : left) job.done(error_reply(503, "the server is stopping"));
}

// Jobs that queued while the model was busy go at once; an idle model, woken by a job, waits
// at most `window` for others (less once full_batch wait). The batch is every job of the first
// job's endpoint that waits (up to largest_batch), in arrival order.
std::vector<BatchQueue::Job> BatchQueue::next_batch() {
  std::string endpoint;
  {
    std::unique_lock lock(mutex_);
    if (jobs_.empty()) {
      arrived_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      const std::size_t full = std::min(options_.full_batch, options_.largest_batch);
      arrived_.wait_for(lock, options_.window, [&] { return stopping_ || jobs_.size() >= full; });
    }
    if (stopping_) return {};
    endpoint = jobs_.front().endpoint;
  }
  return take(endpoint, options_.largest_batch);
}

std::vector<BatchQueue::Job> BatchQueue::take(const std::string& endpoint, std::size_t limit) {
  std::lock_guard lock(mutex_);
  std::vector<Job> taken;
  if (stopping_) return taken;
  for (auto job = jobs_.begin(); job != jobs_.end() && taken.size() < limit;) {
    if (job->endpoint != endpoint) {
      ++job;
      continue;
    }
    taken.push_back(std::move(*job));
    job = jobs_.erase(job);
  }
  return taken;
}

// One call of the batch function for `batch`, which grows with the jobs it takes meanwhile
// (Progress::more); every job gets exactly one reply.
void BatchQueue::run_batch(std::vector<Job>& batch) {
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
    replies = run_(batch.front().endpoint, requests, Progress(std::move(sinks), answer, more));
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

void BatchQueue::model_loop() {
  for (std::vector<Job> batch = next_batch(); !batch.empty(); batch = next_batch())
    run_batch(batch);
}

}  // namespace atencion::examples::serve
