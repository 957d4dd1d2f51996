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

// The first job waits at most `window` for others; a full batch, or one already waiting while
// the model was busy, goes at once, with every job of its endpoint that waits (up to
// largest_batch). A batch holds one endpoint's jobs, in arrival order.
std::vector<BatchQueue::Job> BatchQueue::next_batch() {
  std::unique_lock lock(mutex_);
  arrived_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
  if (stopping_) return {};
  const std::size_t full = std::min(options_.full_batch, options_.largest_batch);
  arrived_.wait_for(lock, options_.window, [&] { return stopping_ || jobs_.size() >= full; });
  if (stopping_) return {};
  std::vector<Job> batch;
  const std::string endpoint = jobs_.front().endpoint;
  for (auto job = jobs_.begin(); job != jobs_.end() && batch.size() < options_.largest_batch;) {
    if (job->endpoint != endpoint) {
      ++job;
      continue;
    }
    batch.push_back(std::move(*job));
    job = jobs_.erase(job);
  }
  return batch;
}

void BatchQueue::model_loop() {
  for (std::vector<Job> batch = next_batch(); !batch.empty(); batch = next_batch()) {
    std::vector<nlohmann::json> requests;
    std::vector<Progress::Sink> sinks;
    for (const Job& job : batch) {
      requests.push_back(job.request);
      sinks.push_back(job.partial);
    }
    std::vector<Reply> replies;
    try {
      replies = run_(batch.front().endpoint, requests, Progress(std::move(sinks)));
      if (replies.size() != batch.size())
        throw std::logic_error("the batch function gave " + std::to_string(replies.size()) +
                               " replies for " + std::to_string(batch.size()) + " requests");
    } catch (const std::exception& error) {
      replies.assign(batch.size(), error_reply(500, std::string("the model failed: ") + error.what()));
    } catch (...) {  // not a std::exception: still one reply each, never std::terminate
      replies.assign(batch.size(), error_reply(500, "the model failed (an unknown exception)"));
    }
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(replies[i]));
  }
}

}  // namespace atencion::examples::serve
