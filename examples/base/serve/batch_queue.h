// examples/base/serve/batch_queue.h — dynamic batching: requests wait in a bounded queue, and
// one model thread takes those that arrived within a few milliseconds of each other (or, under
// load, all that queued while it was busy) as one batch, runs the model once for all of them,
// and hands each its own reply.
// Lesson: docs/17-serving.md#many-users-at-once
//
// Why one model thread, when two forwards could run at once (no module keeps a call's state: the
// maps go to an nn::AttentionObserver per call): the kernels already use every core (OpenMP)
// within one call, so a second thread would only split the cores between two smaller calls; and
// batching is what makes one thread serve many users: a batch of 16 sentences costs far less
// than 16 calls of one.
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

// An HTTP answer: the status and a JSON body, as a tree or, for a large answer written
// straight as text (the maps: explorer::sentence_json), as that text in body_text (body null).
struct Reply {
  int status = 200;
  nlohmann::json body;
  std::string body_text{};
};
std::string reply_text(const Reply& reply);     // the body as sent (non-UTF-8 bytes replaced)
nlohmann::json reply_json(const Reply& reply);  // the body as a tree (body_text parsed)
Reply error_reply(int status, const std::string& reason);  // {"error": reason}

// What a batch function may send before it returns: a streamed request's partial result
// after each step of the model (POST /api/<name>/stream; docs/17-serving.md#streaming), and
// a request's reply as soon as it is ready (e.g. the short sentences of a batch, decoded first:
// their clients send their next requests while the model works on the rest, so that the queue
// holds work when the batch ends). Requests that do not stream ignore what is pushed for them.
//
// And what it may take while it runs (continuous batching, docs/17-serving.md#under-load):
// more(limit) hands it up to `limit` more requests of its endpoint that queued meanwhile, each
// numbered after the batch's others (the batch's replies then number them all), streamed and
// answered as the others.
class Progress {
 public:
  using Sink = std::function<void(nlohmann::json partial)>;  // empty: the request does not stream
  using Answer = std::function<void(std::size_t request, Reply reply)>;
  // A request taken into the running batch: its request and its sink.
  struct Taken {
    nlohmann::json request;
    Sink sink;
  };
  using Take = std::function<std::vector<Taken>(std::size_t limit)>;
  Progress() = default;
  explicit Progress(std::vector<Sink> sinks, Answer answer = {}, Take take = {},
                    std::size_t model_thread = 0)
      : sinks_(std::move(sinks)),
        answer_(std::move(answer)),
        take_(std::move(take)),
        model_thread_(model_thread) {}
  // Which of the queue's model threads runs this batch (0 .. model_threads - 1; 0 without a
  // queue): a batch function that keeps state between batches keeps one per model thread.
  std::size_t model_thread() const { return model_thread_; }
  // Up to `limit` requests that queued since the batch began, numbered from the batch's size
  // before the call on (in order): none without a queue.
  std::vector<nlohmann::json> more(std::size_t limit) const {
    std::vector<nlohmann::json> requests;
    if (!take_ || limit == 0) return requests;
    for (Taken& taken : take_(limit)) {
      requests.push_back(std::move(taken.request));
      sinks_.push_back(std::move(taken.sink));
    }
    return requests;
  }
  // Whether request `request` of the batch streams (so that its partial results are worth making).
  bool wanted(std::size_t request) const {
    return request < sinks_.size() && static_cast<bool>(sinks_[request]);
  }
  void push(std::size_t request, nlohmann::json partial) const {
    if (wanted(request)) sinks_[request](std::move(partial));
  }
  // Sends `reply` to request `request` now, leaving `reply` moved from, and returns true; the
  // batch function's returned reply for that request is then not sent. Without an answerer (a
  // batch function called directly, not by the queue) it returns false and leaves `reply`, which
  // the batch function returns as usual. At most once per request.
  bool answer(std::size_t request, Reply& reply) const {
    if (!answer_) return false;
    answer_(request, std::move(reply));
    return true;
  }

 private:
  mutable std::vector<Sink> sinks_;  // grows with more()
  Answer answer_;
  Take take_;
  std::size_t model_thread_ = 0;
};

// A model's batch function: one reply per request, in order, those it took with Progress::more
// included (those it sent early through Progress::answer are ignored), and for streamed
// requests their partial results on the way.
// Runs on the model thread only. A request it refuses (e.g. a text
// longer than the model's positions) gets its own 400; an exception fails the whole batch with
// 500.
using BatchFunction = std::function<std::vector<Reply>(const std::string& endpoint,
                                                        const std::vector<nlohmann::json>& requests,
                                                        const Progress& progress)>;

struct BatchOptions {
  std::size_t capacity = 256;       // requests waiting at most; one more is refused (503)
  std::size_t largest_batch = 256;  // requests in one model call at most
  // An idle model, woken by a request, waits this long for company before it starts. Requests
  // that queued while the model was busy go at once, all together up to largest_batch: under
  // load a batch grows past full_batch instead of leaving work behind (the batch function sorts
  // by length), and the model never idles while work waits.
  std::chrono::microseconds window{std::chrono::milliseconds(5)};
  std::size_t full_batch = 32;  // the window closes early once this many wait
  // Model threads, each taking batches of its own and calling the batch function at the same
  // time as the others (which must allow it: Service::model_threads). With more than one, each
  // runs its kernels on itself alone (KernelsOnThisThread, tensor/threads.h): the cores go to
  // whole batches side by side rather than to one batch's products split and waited for.
  std::size_t model_threads = 1;
};

class BatchQueue {
 public:
  // `done` of a job is called exactly once, from the model thread (or from stop()); `partial`
  // (empty unless the request streams) any number of times before it, from the model thread.
  struct Job {
    std::string endpoint;
    nlohmann::json request;
    std::function<void(Reply)> done;
    Progress::Sink partial = {};
  };

  BatchQueue(BatchFunction run, BatchOptions options);  // starts the model threads
  ~BatchQueue();                                        // stop()
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  // false, without calling done: the queue is full or stopped (the caller answers 503 at once).
  bool push(Job job);
  std::size_t waiting() const;
  // Answers every job still waiting with 503 and joins the model threads.
  void stop();

 private:
  void model_loop(std::size_t model_thread);
  std::vector<Job> next_batch(bool idle);  // blocks; empty when stopping
  // Up to `limit` waiting jobs of `endpoint`, in arrival order, taken off the queue.
  std::vector<Job> take(const std::string& endpoint, std::size_t limit);
  void run_batch(std::vector<Job>& batch, std::size_t model_thread);

  BatchFunction run_;
  BatchOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> model_threads_;
};

}  // namespace atencion::examples::serve
