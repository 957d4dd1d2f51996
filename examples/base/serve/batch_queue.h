// examples/base/serve/batch_queue.h — dynamic batching: requests wait in a bounded queue, and
// one model thread takes those that arrived within a few milliseconds of each other as one
// batch, runs the model once for all of them, and hands each its own reply.
// Lesson: docs/17-serving.md#many-users-at-once
//
// Why one model thread: a model's modules keep per-call state (each attention module keeps its
// last weights for the pages), so two calls at once would race; and the kernels already use
// every core (OpenMP) within one call. Batching is what makes one thread serve many users: a
// batch of 16 sentences costs far less than 16 calls of one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nlohmann/json.hpp"

namespace atencion::examples::serve {

// An HTTP answer: the status and a JSON body.
struct Reply {
  int status = 200;
  nlohmann::json body;
};
Reply error_reply(int status, const std::string& reason);  // {"error": reason}

// A model's batch function: one reply per request, in order. Runs on the model thread only.
// A request it refuses (e.g. a text longer than the model's positions) gets its own 400; an
// exception fails the whole batch with 500.
using BatchFunction = std::function<std::vector<Reply>(const std::string& endpoint,
                                                        const std::vector<nlohmann::json>& requests)>;

struct BatchOptions {
  std::size_t capacity = 256;      // requests waiting at most; one more is refused (503)
  std::size_t largest_batch = 32;  // requests in one model call at most
  std::chrono::microseconds window{std::chrono::milliseconds(5)};  // wait for company this long
};

class BatchQueue {
 public:
  // `done` of a job is called exactly once, from the model thread (or from stop()).
  struct Job {
    std::string endpoint;
    nlohmann::json request;
    std::function<void(Reply)> done;
  };

  BatchQueue(BatchFunction run, BatchOptions options);  // starts the model thread
  ~BatchQueue();                                        // stop()
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  // false, without calling done: the queue is full or stopped (the caller answers 503 at once).
  bool push(Job job);
  std::size_t waiting() const;
  // Answers every job still waiting with 503 and joins the model thread.
  void stop();

 private:
  void model_loop();
  std::vector<Job> next_batch();  // blocks; empty when stopping

  BatchFunction run_;
  BatchOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread model_thread_;
};

}  // namespace atencion::examples::serve
