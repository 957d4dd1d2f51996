// tests/examples/base/serve/test_batch_queue.cpp — BatchQueue (examples/base/serve/batch_queue.h)
// without a server: batches hold one endpoint's jobs in arrival order, a failing batch function
// answers 500 to each of its jobs, a full queue refuses, stop() answers what waits with 503, and
// what queued while the model was busy goes together, at once (without the window), past
// full_batch up to largest_batch, a reply sent early (Progress::answer) is sent once, a
// running batch takes what queued meanwhile (Progress::more), and two model threads run two
// batches side by side, each taking its share.
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "base/serve/batch_queue.h"
#include "catch2/catch.hpp"
#include "tensor/threads.h"

using namespace atencion::examples::serve;
using namespace std::chrono_literals;

namespace {

// Pushes a job whose reply arrives in the returned future.
std::future<Reply> push(BatchQueue& queue, const std::string& endpoint, int value,
                        bool* accepted = nullptr) {
  auto promise = std::make_shared<std::promise<Reply>>();
  std::future<Reply> reply = promise->get_future();
  const bool pushed = queue.push({endpoint, {{"value", value}},
                                  [promise](Reply r) { promise->set_value(std::move(r)); }});
  if (accepted) *accepted = pushed;
  if (!pushed) promise->set_value(error_reply(503, "refused"));
  return reply;
}

}  // namespace

TEST_CASE("batch queue: a batch holds one endpoint's jobs, in arrival order") {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::vector<int>>> batches;
  BatchQueue queue(
      [&](const std::string& endpoint, const std::vector<nlohmann::json>& requests, const Progress&) {
        std::vector<int> values;
        std::vector<Reply> replies;
        for (const auto& request : requests) {
          values.push_back(request.at("value"));
          replies.push_back({200, {{"twice", 2 * request.at("value").get<int>()}}});
        }
        std::lock_guard lock(mutex);
        batches.emplace_back(endpoint, values);
        return replies;
      },
      {16, 8, 10s, 6});  // the window closes once all six wait, however slow the machine
  std::vector<std::future<Reply>> replies;
  for (int i = 0; i < 6; ++i) replies.push_back(push(queue, i % 2 == 0 ? "even" : "odd", i));
  for (int i = 0; i < 6; ++i) {
    const Reply reply = replies[static_cast<size_t>(i)].get();
    CHECK(reply.status == 200);
    CHECK(reply.body.at("twice") == 2 * i);
  }
  std::lock_guard lock(mutex);
  REQUIRE(batches.size() == 2);  // all six waited when the window closed
  CHECK(batches[0] == std::make_pair(std::string("even"), std::vector<int>{0, 2, 4}));
  CHECK(batches[1] == std::make_pair(std::string("odd"), std::vector<int>{1, 3, 5}));
}

TEST_CASE("batch queue: a failing batch function answers 500 to each of its jobs") {
  SECTION("it throws") {
    BatchQueue queue([](const std::string&, const std::vector<nlohmann::json>&, const Progress&)
                         -> std::vector<Reply> { throw std::runtime_error("no model"); },
                     {16, 8, 20ms});
    auto first = push(queue, "x", 1), second = push(queue, "x", 2);
    for (auto* reply : {&first, &second}) {
      const Reply answer = reply->get();
      CHECK(answer.status == 500);
      CHECK(answer.body.at("error") == "the model failed: no model");
    }
  }
  SECTION("it throws something that is not a std::exception") {
    BatchQueue queue([](const std::string&, const std::vector<nlohmann::json>&, const Progress&)
                         -> std::vector<Reply> { throw 42; },
                     {16, 8, 20ms});
    auto first = push(queue, "x", 1), second = push(queue, "x", 2);
    for (auto* reply : {&first, &second}) {
      const Reply answer = reply->get();
      CHECK(answer.status == 500);
      CHECK(answer.body.at("error") == "the model failed (an unknown exception)");
    }
  }
  SECTION("it gives one reply too few") {
    BatchQueue queue([](const std::string&, const std::vector<nlohmann::json>& requests, const Progress&) {
      return std::vector<Reply>(requests.size() - 1);
    }, {16, 8, 20ms});
    auto first = push(queue, "x", 1), second = push(queue, "x", 2);
    CHECK(first.get().status == 500);
    CHECK(second.get().body.at("error").get<std::string>().find("1 replies for 2 requests") !=
          std::string::npos);
  }
}

TEST_CASE("batch queue: full, it refuses, and stopped, it answers what waits with 503") {
  std::atomic<bool> hold{true}, running{false};
  BatchQueue queue([&](const std::string&, const std::vector<nlohmann::json>& requests, const Progress&) {
    running = true;
    while (hold) std::this_thread::sleep_for(1ms);
    return std::vector<Reply>(requests.size(), Reply{200, {{"ok", true}}});
  }, {2, 1, 1ms});
  auto held = push(queue, "x", 0);
  while (!running) std::this_thread::sleep_for(1ms);  // the model thread has the first job
  bool accepted = false;
  auto waiting1 = push(queue, "x", 1, &accepted);
  CHECK(accepted);
  auto waiting2 = push(queue, "x", 2, &accepted);
  CHECK(accepted);
  auto refused = push(queue, "x", 3, &accepted);
  CHECK_FALSE(accepted);
  CHECK(queue.waiting() == 2);
  std::thread stopper([&] { queue.stop(); });
  std::this_thread::sleep_for(20ms);
  hold = false;  // the batch in progress finishes; the two waiting are answered 503
  stopper.join();
  CHECK(held.get().status == 200);
  CHECK(waiting1.get().status == 503);
  CHECK(waiting2.get().body.at("error") == "the server is stopping");
  CHECK_FALSE(queue.push({"x", {}, [](Reply) {}}));  // stopped: refused
}

TEST_CASE("batch queue: partial results reach only the jobs that stream, in order, before done") {
  BatchQueue queue([](const std::string&, const std::vector<nlohmann::json>& requests,
                      const Progress& progress) {
    for (int step = 1; step <= 3; ++step)
      for (size_t i = 0; i < requests.size(); ++i) progress.push(i, {{"step", step}});
    progress.push(requests.size(), {{"step", 99}});  // past the batch: ignored
    std::vector<Reply> replies;
    for (size_t i = 0; i < requests.size(); ++i)
      replies.push_back({200, {{"wanted", progress.wanted(i)}}});
    return replies;
  }, {16, 8, 10s, 2});  // one batch of both jobs: the window closes once both wait
  std::mutex mutex;
  std::vector<std::string> seen;  // "<job>:<step>" and "<job>:done", as they arrive
  std::vector<std::future<Reply>> replies;
  for (int job = 0; job < 2; ++job) {
    auto promise = std::make_shared<std::promise<Reply>>();
    replies.push_back(promise->get_future());
    Progress::Sink sink;
    if (job == 1)
      sink = [&, job](nlohmann::json partial) {
        std::lock_guard lock(mutex);
        seen.push_back(std::to_string(job) + ":" + partial.at("step").dump());
      };
    REQUIRE(queue.push({"x", {{"value", job}},
                        [&, promise, job](Reply r) {
                          {
                            std::lock_guard lock(mutex);
                            seen.push_back(std::to_string(job) + ":done");
                          }
                          promise->set_value(std::move(r));
                        },
                        sink}));
  }
  CHECK(replies[0].get().body.at("wanted") == false);
  CHECK(replies[1].get().body.at("wanted") == true);
  std::lock_guard lock(mutex);
  CHECK(seen == std::vector<std::string>{"1:1", "1:2", "1:3", "0:done", "1:done"});
}

TEST_CASE("batch queue: what queued while the model was busy goes as one batch, past full_batch") {
  std::atomic<bool> hold{true}, running{false};
  std::mutex mutex;
  std::vector<size_t> sizes;
  BatchQueue queue([&](const std::string&, const std::vector<nlohmann::json>& requests,
                       const Progress&) {
    running = true;
    while (hold) std::this_thread::sleep_for(1ms);
    std::lock_guard lock(mutex);
    sizes.push_back(requests.size());
    return std::vector<Reply>(requests.size(), Reply{200, {{"ok", true}}});
  }, {64, 30, 1ms, 4});  // capacity 64, at most 30 a call, the window closes at 4
  auto first = push(queue, "x", 0);
  while (!running) std::this_thread::sleep_for(1ms);  // the model thread has the first job
  std::vector<std::future<Reply>> waiting;
  for (int i = 1; i <= 40; ++i) waiting.push_back(push(queue, "x", i));
  hold = false;
  CHECK(first.get().status == 200);
  for (auto& reply : waiting) CHECK(reply.get().status == 200);
  std::lock_guard lock(mutex);
  // 1 alone, then the 40 that waited: 30 (largest_batch) and the 10 left, not ten batches of 4.
  CHECK(sizes == std::vector<size_t>{1, 30, 10});
}

TEST_CASE("batch queue: jobs that queued while the model was busy go without the window") {
  std::atomic<bool> hold{true}, running{false};
  BatchQueue queue([&](const std::string&, const std::vector<nlohmann::json>& requests,
                       const Progress&) {
    running = true;
    while (hold) std::this_thread::sleep_for(1ms);
    return std::vector<Reply>(requests.size(), Reply{200, {{"ok", true}}});
  }, {64, 64, 60s, 2});  // an idle model waits a minute for a second job
  auto first = push(queue, "x", 0), second = push(queue, "x", 1);  // full: no wait
  while (!running) std::this_thread::sleep_for(1ms);
  auto waited = push(queue, "x", 2);  // queued while the model works: one job, below full_batch
  hold = false;
  CHECK(first.get().status == 200);
  CHECK(second.get().status == 200);
  // Within 30 s, not after the minute's window: it went as soon as the model was free.
  REQUIRE(waited.wait_for(30s) == std::future_status::ready);
  CHECK(waited.get().status == 200);
}

TEST_CASE("batch queue: a reply sent early reaches its job before the batch ends, once") {
  std::promise<void> early_seen;
  std::future<void> seen = early_seen.get_future();
  BatchQueue queue([&](const std::string&, const std::vector<nlohmann::json>& requests,
                       const Progress& progress) {
    std::vector<Reply> replies(requests.size(), Reply{200, {{"when", "returned"}}});
    Reply early{200, {{"when", "early"}}};
    CHECK(progress.answer(0, early));
    CHECK(early.body.is_null());  // moved into the job's reply
    // The batch does not end before job 0 has its reply.
    CHECK(seen.wait_for(30s) == std::future_status::ready);
    return replies;  // replies[0] is not sent: job 0 has been answered
  }, {16, 8, 50ms});
  auto promise = std::make_shared<std::promise<Reply>>();
  std::future<Reply> zero = promise->get_future();
  REQUIRE(queue.push({"x", {{"value", 0}}, [&, promise](Reply r) {
                        promise->set_value(std::move(r));  // a second call would throw
                        early_seen.set_value();
                      }}));
  auto one = push(queue, "x", 1);
  CHECK(zero.get().body.at("when") == "early");
  CHECK(one.get().body.at("when") == "returned");
}

TEST_CASE("batch queue: without a queue, Progress::answer leaves the reply to be returned") {
  Progress progress;
  Reply reply{200, {{"ok", true}}};
  CHECK_FALSE(progress.answer(0, reply));
  CHECK(reply.body.at("ok") == true);
}

TEST_CASE("batch queue: a running batch takes the jobs of its endpoint that queued meanwhile "
          "(Progress::more), numbered after its own, each answered once") {
  std::promise<void> queued;
  std::future<void> all_queued = queued.get_future();
  std::vector<size_t> taken_per_call;
  BatchQueue queue([&](const std::string& endpoint, const std::vector<nlohmann::json>& requests,
                       const Progress& progress) {
    std::vector<nlohmann::json> all = requests;
    if (endpoint == "x") {
      CHECK(all_queued.wait_for(30s) == std::future_status::ready);
      // At most 2 at a time, as a model with room for 2 more rows would take them.
      for (auto more = progress.more(2); !more.empty(); more = progress.more(2)) {
        taken_per_call.push_back(more.size());
        for (auto& request : more) all.push_back(std::move(request));
      }
    }
    std::vector<Reply> replies;
    for (size_t i = 0; i < all.size(); ++i) {
      Reply reply{200, {{"value", all[i].at("value")}, {"number", i}}};
      if (i == 3) CHECK(progress.answer(i, reply));  // a taken job answered early, once
      replies.push_back(std::move(reply));
    }
    return replies;
  }, {16, 8, 1ms});
  std::vector<std::future<Reply>> replies;
  replies.push_back(push(queue, "x", 0));
  std::this_thread::sleep_for(50ms);  // the model thread holds job 0's batch
  for (int value = 1; value <= 4; ++value) {
    replies.push_back(push(queue, "x", value));
    if (value == 2) replies.push_back(push(queue, "y", 10));  // another endpoint: not taken
  }
  queued.set_value();
  for (size_t i = 0; i < replies.size(); ++i) {
    const Reply reply = replies[i].get();
    CHECK(reply.status == 200);
    if (reply.body.at("value") == 10) continue;
    CHECK(reply.body.at("number") == reply.body.at("value"));  // in arrival order
  }
  CHECK(taken_per_call == std::vector<size_t>{2, 2});
  CHECK(queue.waiting() == 0);
}

TEST_CASE("batch queue: without a queue, Progress::more takes nothing") {
  CHECK(Progress().more(8).empty());
}

namespace {

// A batch function for two model threads: each batch waits (10 s at most) until a batch runs on
// the other thread too, and says where it ran.
struct SideBySide {
  std::mutex mutex;
  std::atomic<int> inside{0};
  std::vector<std::size_t> model_threads;
  std::vector<std::thread::id> thread_ids;
  std::vector<bool> kernels_alone;

  void meet(const Progress& progress) {
    {
      std::lock_guard lock(mutex);
      model_threads.push_back(progress.model_thread());
      thread_ids.push_back(std::this_thread::get_id());
      kernels_alone.push_back(atencion::detail::in_parallel_task());
    }
    inside.fetch_add(1);
    for (int i = 0; i < 10000 && inside.load() < 2; ++i) std::this_thread::sleep_for(1ms);
  }
};

std::vector<Reply> echo(const std::vector<nlohmann::json>& requests) {
  std::vector<Reply> replies;
  for (const auto& request : requests) replies.push_back({200, {{"value", request.at("value")}}});
  return replies;
}

}  // namespace

TEST_CASE("batch queue: two model threads run two batches side by side, each its kernels alone") {
  SideBySide side;
  BatchQueue queue([&](const std::string&, const std::vector<nlohmann::json>& requests,
                       const Progress& progress) {
    side.meet(progress);
    return echo(requests);
  }, {16, 8, 1ms, 32, 2});
  std::future<Reply> first = push(queue, "x", 0);
  std::this_thread::sleep_for(50ms);  // one model thread holds job 0's batch
  std::future<Reply> second = push(queue, "x", 1);
  CHECK(first.get().body.at("value") == 0);
  CHECK(second.get().body.at("value") == 1);
  CHECK(side.inside.load() == 2);
  REQUIRE(side.model_threads.size() == 2);
  CHECK(side.model_threads[0] + side.model_threads[1] == 1);  // threads 0 and 1
  CHECK(side.thread_ids[0] != side.thread_ids[1]);
  CHECK(side.kernels_alone == std::vector<bool>{true, true});
}

TEST_CASE("batch queue: with two model threads a take leaves the other its share of what waits") {
  SideBySide side;
  std::promise<void> queued, first_took, second_took;
  std::shared_future<void> all_queued = queued.get_future().share();
  std::shared_future<void> first_done = first_took.get_future().share();
  std::shared_future<void> second_done = second_took.get_future().share();
  std::vector<std::size_t> taken;  // by the batch of job 0, then by the other
  BatchQueue queue([&](const std::string&, const std::vector<nlohmann::json>& requests,
                       const Progress& progress) {
    std::vector<nlohmann::json> all = requests;
    if (requests.at(0).at("value") == 0 || requests.at(0).at("value") == 1) {
      side.meet(progress);
      CHECK(all_queued.wait_for(10s) == std::future_status::ready);
      const bool first = requests.at(0).at("value") == 0;
      if (!first) CHECK(first_done.wait_for(10s) == std::future_status::ready);
      std::vector<nlohmann::json> more = progress.more(10);
      taken.push_back(more.size());
      if (first) {  // its batch ends only after the other's take
        first_took.set_value();
        CHECK(second_done.wait_for(10s) == std::future_status::ready);
      } else {
        second_took.set_value();
      }
      for (auto& request : more) all.push_back(std::move(request));
    }
    return echo(all);
  }, {16, 8, 1ms, 32, 2});
  std::vector<std::future<Reply>> replies;
  replies.push_back(push(queue, "x", 0));
  std::this_thread::sleep_for(50ms);
  replies.push_back(push(queue, "x", 1));
  for (int i = 0; i < 1000 && side.inside.load() < 2; ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(side.inside.load() == 2);  // both model threads are busy: what comes now waits
  for (int value = 2; value < 6; ++value) replies.push_back(push(queue, "x", value));
  queued.set_value();
  for (size_t i = 0; i < replies.size(); ++i) {
    const Reply reply = replies[i].get();
    CHECK(reply.status == 200);
    CHECK(reply.body.at("value") == static_cast<int>(i));
  }
  // 4 waited: the first take got ceil(4 / 2), the second ceil(2 / 2); the last went as a batch.
  CHECK(taken == std::vector<std::size_t>{2, 1});
  CHECK(queue.waiting() == 0);
}
