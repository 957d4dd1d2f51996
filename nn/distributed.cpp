// nn/distributed.cpp — Lesson: docs/13-data-parallel.md
//
// Two parts: a handful of calls into MPI (the only lines that name it, and the only ones that
// change in a build without MPI), and, on top of them, what data-parallel training does with
// those calls: broadcast, buckets, the token-weighted average.
#include "nn/distributed.h"

#include "nn/optim/optimizer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#if ATENCION_HAVE_MPI
#include <mpi.h>
#endif

namespace atencion::nn::distributed {
namespace {

// MPI is one per process, and so is the Communicator that starts and ends it.
std::atomic<bool> a_communicator_is_alive{false};

// A launcher leaves its mark in each process's environment: Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE, MPICH's hydra and Slurm's PMI set PMI_SIZE, PMIx (Slurm's
// srun --mpi=pmix, Open MPI 4) sets PMIX_RANK.
bool started_by_a_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

enum class Element { Float32, Float64, Int64, UInt64 };
enum class Reduction { Sum, Min, Max };

// ---- the MPI calls ---------------------------------------------------------------------------
#if ATENCION_HAVE_MPI
MPI_Datatype mpi_type(Element element) {
  switch (element) {
    case Element::Float32: return MPI_FLOAT;
    case Element::Float64: return MPI_DOUBLE;
    case Element::Int64: return MPI_INT64_T;
    case Element::UInt64: return MPI_UINT64_T;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(Reduction reduction) {
  switch (reduction) {
    case Reduction::Sum: return MPI_SUM;
    case Reduction::Min: return MPI_MIN;
    case Reduction::Max: return MPI_MAX;
  }
  return MPI_OP_NULL;
}

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("distributed: ") + call + " failed: " +
                           std::string(text, static_cast<size_t>(length)));
}

// Returns true when this call started MPI (false when the program had started it itself).
bool start_mpi(int& rank, int& size) {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised)
    throw std::logic_error("distributed::Communicator: MPI has already ended in this process "
                           "(one Communicator per process)");
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  }
  // Errors come back as codes (and become exceptions) instead of ending the job silently.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return !initialised;
}

void stop_mpi() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Finalize();
}

[[noreturn]] void abort_mpi(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this is for the compiler
}

// In place: every rank ends with the reduction of every rank's `data`.
void all_reduce(void* data, int64_t count, Element element, Reduction reduction) {
  if (count > INT_MAX) throw std::invalid_argument("distributed: all_reduce of > 2^31 numbers");
  check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), mpi_type(element),
                      mpi_op(reduction), MPI_COMM_WORLD),
        "MPI_Allreduce");
}

void broadcast_from_rank0(void* data, int64_t bytes) {
  if (bytes > INT_MAX) throw std::invalid_argument("distributed: broadcast of > 2 GiB");
  check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void barrier_mpi() { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

// In place: rank r's counts[r] elements at offsets[r] of `data` copied into every rank's.
void all_gather(void* data, const std::vector<int>& counts, const std::vector<int>& offsets,
                Element element) {
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, counts.data(), offsets.data(),
                       mpi_type(element), MPI_COMM_WORLD),
        "MPI_Allgatherv");
}

// Non-blocking: starts the sum over the ranks of each rank's `in` into every rank's `out` (in
// place when they are the same); test/wait for its end. Not in place is cheaper: on two
// processes Open MPI 4.1's in-place Iallreduce first copies the whole buffer aside.
using Request = MPI_Request;
Request start_all_reduce(const void* in, void* out, int64_t count, Element element) {
  if (count > INT_MAX) throw std::invalid_argument("distributed: all_reduce of > 2^31 numbers");
  Request request = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(in == out ? MPI_IN_PLACE : in, out, static_cast<int>(count),
                       mpi_type(element), MPI_SUM, MPI_COMM_WORLD, &request),
        "MPI_Iallreduce");
  return request;
}
bool test_request(Request& request) {  // also lets MPI move the data a step further
  int done = 0;
  check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}
void wait_request(Request& request) { check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait"); }
#else
bool start_mpi(int&, int&) {
  throw std::runtime_error(
      "distributed: started by an MPI launcher, but atencion was built without MPI "
      "(install libopenmpi-dev and run CMake again)");
}
void stop_mpi() {}
[[noreturn]] void abort_mpi(int exit_code) { std::exit(exit_code); }
// Never reached: with one process the methods below return before communicating.
void all_reduce(void*, int64_t, Element, Reduction) {}
void broadcast_from_rank0(void*, int64_t) {}
void barrier_mpi() {}
void all_gather(void*, const std::vector<int>&, const std::vector<int>&, Element) {}
using Request = int;
Request start_all_reduce(const void*, void*, int64_t, Element) { return 0; }
bool test_request(Request&) { return true; }
void wait_request(Request&) {}
#endif

// ---- data-parallel training on top of them ---------------------------------------------------

template <typename Value>
void all_reduce_values(std::vector<Value>& values, Element element, Reduction reduction) {
  all_reduce(values.data(), static_cast<int64_t>(values.size()), element, reduction);
}

// Parameters of one dtype, packed one after another into a flat buffer of at most about
// `bucket_bytes` (a parameter bigger than that gets a bucket of its own).
struct Bucket {
  DType dtype;
  std::vector<size_t> parameters;  // indices into the parameter list
  int64_t numel = 0;
};

std::vector<Bucket> plan_buckets(const std::vector<Variable>& parameters,
                                 const std::vector<bool>& included, size_t bucket_bytes) {
  std::vector<Bucket> buckets;
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const int64_t capacity =
        std::max<int64_t>(1, static_cast<int64_t>(bucket_bytes / dtype_size(dtype)));
    Bucket bucket{dtype, {}, 0};
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (!included[i] || parameters[i].dtype() != dtype) continue;
      const int64_t numel = parameters[i].value().numel();
      if (bucket.numel > 0 && bucket.numel + numel > capacity) {
        buckets.push_back(std::move(bucket));
        bucket = Bucket{dtype, {}, 0};
      }
      bucket.parameters.push_back(i);
      bucket.numel += numel;
    }
    if (bucket.numel > 0) buckets.push_back(std::move(bucket));
  }
  return buckets;
}

void check_floating(const std::vector<Variable>& parameters, const char* owner) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    const DType dtype = parameters[i].dtype();
    if (dtype != DType::Float32 && dtype != DType::Float64)
      throw std::invalid_argument(std::string("distributed::") + owner + ": parameter " +
                                  std::to_string(i) + " has dtype " + dtype_name(dtype) +
                                  " (float32 or float64 expected)");
  }
}

// Writes the bucket's buffer `out` (bucket.numel numbers): each parameter's gradient times
// `scale`, zeros where it has none.
template <typename T>
void pack_gradients(const std::vector<Variable>& parameters, const Bucket& bucket, double scale,
                    T* out) {
  for (size_t index : bucket.parameters) {
    const Variable& parameter = parameters[index];
    const int64_t numel = parameter.value().numel();
    if (parameter.has_grad()) {
      const Tensor grad = parameter.grad().contiguous();
      if (grad.shape() != parameter.shape() || grad.dtype() != parameter.dtype())
        throw std::invalid_argument("distributed::average_gradients: parameter " +
                                    std::to_string(index) + " has a gradient of another shape "
                                    "or dtype than itself");
      const T* g = grad.data<T>();
      const T factor = static_cast<T>(scale);
      for (int64_t k = 0; k < numel; ++k) out[k] = g[k] * factor;
    } else {
      std::fill(out, out + numel, T(0));
    }
    out += numel;
  }
}

// Each parameter's .grad becomes a fresh tensor holding its part of the reduced buffer (fresh:
// a gradient may share storage with another, see nn/optim/clip_grad_norm.cpp).
// (The loops below copy each Variable, a handle: the copy writes the parameter's own .grad
// and value.)
template <typename T>
void unpack_gradients(const std::vector<Variable>& parameters, const Bucket& bucket,
                      const std::vector<T>& flat) {
  const T* in = flat.data();
  for (size_t index : bucket.parameters) {
    Variable parameter = parameters[index];
    Tensor grad = Tensor::uninitialized(parameter.shape(), parameter.dtype());
    const int64_t numel = grad.numel();
    std::memcpy(grad.data<T>(), in, static_cast<size_t>(numel) * sizeof(T));
    parameter.set_grad(std::move(grad));
    in += numel;
  }
}

// Seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Sums the bucket's scaled gradients over the ranks into their .grad; returns the seconds
// spent in the all-reduce.
template <typename T>
double reduce_bucket(const std::vector<Variable>& parameters, const Bucket& bucket,
                     double scale) {
  std::vector<T> flat(static_cast<size_t>(bucket.numel));
  pack_gradients<T>(parameters, bucket, scale, flat.data());
  const auto start = std::chrono::steady_clock::now();
  all_reduce_values(flat, std::is_same_v<T, float> ? Element::Float32 : Element::Float64,
                    Reduction::Sum);
  const double seconds = seconds_since(start);
  unpack_gradients<T>(parameters, bucket, flat);
  return seconds;
}

template <typename T>
void copy_values(const std::vector<Variable>& parameters, const Bucket& bucket,
                 std::vector<T>& flat, bool into_buffer) {
  T* cursor = flat.data();
  for (size_t index : bucket.parameters) {
    Variable parameter = parameters[index];
    Tensor& value = parameter.mutable_value();
    if (!value.is_contiguous())
      throw std::invalid_argument("distributed::broadcast_parameters: parameter " +
                                  std::to_string(index) + " is not contiguous");
    const size_t bytes = static_cast<size_t>(value.numel()) * sizeof(T);
    if (into_buffer)
      std::memcpy(cursor, value.data<T>(), bytes);
    else
      std::memcpy(value.data<T>(), cursor, bytes);
    cursor += value.numel();
  }
}

template <typename T>
void broadcast_bucket(const std::vector<Variable>& parameters, const Bucket& bucket, int rank) {
  std::vector<T> flat(static_cast<size_t>(bucket.numel));
  if (rank == 0) copy_values(parameters, bucket, flat, true);
  broadcast_from_rank0(flat.data(), static_cast<int64_t>(flat.size() * sizeof(T)));
  if (rank != 0) copy_values(parameters, bucket, flat, false);
}

// One buffer holds rank 0's parts of every tensor, then rank 1's, and so on; each rank writes
// its own, the all-gather fills in the others', and they go back into the tensors.
template <typename T>
void all_gather_parts_of(const std::vector<Tensor>& tensors, int rank, int size) {
  std::vector<int> counts(static_cast<size_t>(size), 0), offsets(static_cast<size_t>(size), 0);
  int64_t total = 0;
  for (int r = 0; r < size; ++r) {
    int64_t count = 0;
    for (const Tensor& tensor : tensors) count += part_of(tensor.numel(), r, size).count();
    if (total + count > INT_MAX)
      throw std::invalid_argument("distributed::all_gather_parts: more than 2^31 numbers");
    offsets[static_cast<size_t>(r)] = static_cast<int>(total);
    counts[static_cast<size_t>(r)] = static_cast<int>(count);
    total += count;
  }
  const std::unique_ptr<T[]> flat(new T[static_cast<size_t>(total)]);  // every number written
  const auto copy = [&](int r, bool into_buffer) {
    T* cursor = flat.get() + offsets[static_cast<size_t>(r)];
    for (const Tensor& tensor : tensors) {
      const ElementRange part = part_of(tensor.numel(), r, size);
      Tensor handle = tensor;  // shares the tensor's storage: writing it writes the tensor
      T* numbers = handle.data<T>() + part.begin;
      const size_t bytes = static_cast<size_t>(part.count()) * sizeof(T);
      if (into_buffer)
        std::memcpy(cursor, numbers, bytes);
      else
        std::memcpy(numbers, cursor, bytes);
      cursor += part.count();
    }
  };
  copy(rank, true);
  all_gather(flat.get(), counts, offsets,
             std::is_same_v<T, float> ? Element::Float32 : Element::Float64);
  for (int r = 0; r < size; ++r)
    if (r != rank) copy(r, false);
}

uint64_t fnv1a(const void* data, size_t bytes, uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 0x100000001b3ULL;
  return hash;
}
constexpr uint64_t fnv_offset = 0xcbf29ce484222325ULL;

}  // namespace

Communicator::Communicator() {
  if (a_communicator_is_alive.exchange(true))
    throw std::logic_error("distributed::Communicator: one per process, and one is alive");
  if (!started_by_a_launcher()) return;
  try {
    started_mpi_ = start_mpi(rank_, size_);
  } catch (...) {
    a_communicator_is_alive = false;
    throw;
  }
  uses_mpi_ = true;
}

Communicator::~Communicator() {
  // MPI_Finalize only if this object called MPI_Init: a program that started MPI ends it.
  if (started_mpi_) stop_mpi();
  a_communicator_is_alive = false;
}

void Communicator::abort(const std::string& message, int exit_code) const {
  std::fflush(stdout);
  std::fprintf(stderr, "rank %d of %d: %s\n", rank_, size_, message.c_str());
  std::fflush(stderr);
  if (uses_mpi_) abort_mpi(exit_code);
  std::exit(exit_code);
}

RowRange shard_rows(int64_t rows, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size)
    throw std::invalid_argument("distributed::shard_rows: rank " + std::to_string(rank) +
                                " of " + std::to_string(size) + " processes");
  if (rows < size)
    throw std::invalid_argument("distributed::shard_rows: a global batch of " +
                                std::to_string(rows) + " rows cannot be shared by " +
                                std::to_string(size) + " processes (each needs at least one)");
  const ElementRange part = part_of(rows, rank, size);  // the first rows % size take one more
  return {part.begin, part.end};
}

void Communicator::broadcast_parameters(const std::vector<Variable>& parameters) {
  check_floating(parameters, "broadcast_parameters");
  if (size_ == 1) return;
  // Same list everywhere? Compare the count and a hash of the shapes and dtypes.
  uint64_t layout = fnv1a("", 0, fnv_offset);
  for (const Variable& parameter : parameters) {
    const int64_t dtype = static_cast<int64_t>(parameter.dtype());
    layout = fnv1a(&dtype, sizeof dtype, layout);
    for (int64_t extent : parameter.shape()) layout = fnv1a(&extent, sizeof extent, layout);
  }
  std::vector<int64_t> counts{static_cast<int64_t>(parameters.size()),
                              -static_cast<int64_t>(parameters.size())};
  all_reduce_values(counts, Element::Int64, Reduction::Max);  // max and -min
  if (counts[0] != -counts[1])
    throw std::invalid_argument("distributed::broadcast_parameters: the ranks' models differ: "
                                "between " + std::to_string(-counts[1]) + " and " +
                                std::to_string(counts[0]) + " parameters");
  if (!same_on_all_ranks(layout))
    throw std::invalid_argument("distributed::broadcast_parameters: the ranks' models differ: "
                                "same number of parameters, other shapes or dtypes");
  const std::vector<bool> all(parameters.size(), true);
  for (const Bucket& bucket : plan_buckets(parameters, all, default_bucket_bytes)) {
    if (bucket.dtype == DType::Float32)
      broadcast_bucket<float>(parameters, bucket, rank_);
    else
      broadcast_bucket<double>(parameters, bucket, rank_);
  }
}

void Communicator::broadcast_bytes(std::string& bytes) {
  if (size_ == 1) return;
  int64_t length = static_cast<int64_t>(bytes.size());
  broadcast_from_rank0(&length, sizeof length);
  bytes.resize(static_cast<size_t>(length));
  broadcast_from_rank0(bytes.data(), length);
}

int64_t Communicator::average_gradients(const std::vector<Variable>& parameters,
                                        int64_t local_count, size_t bucket_bytes) {
  if (local_count < 0)
    throw std::invalid_argument("distributed::average_gradients: local_count " +
                                std::to_string(local_count) + " < 0");
  check_floating(parameters, "average_gradients");
  if (size_ == 1) return local_count;

  // One small reduction first: n = Σ n_r, and how many ranks have a gradient for each parameter.
  std::vector<int64_t> header(parameters.size() + 1);
  header[0] = local_count;
  for (size_t i = 0; i < parameters.size(); ++i) header[i + 1] = parameters[i].has_grad();
  const auto start = std::chrono::steady_clock::now();
  all_reduce_values(header, Element::Int64, Reduction::Sum);
  communication_seconds_ += seconds_since(start);
  const int64_t total_count = header[0];
  if (total_count <= 0)
    throw std::invalid_argument("distributed::average_gradients: no rank has a target to count");
  std::vector<bool> included(parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) included[i] = header[i + 1] > 0;

  // g = Σ_r (n_r / n) · g_r: each rank scales its own, the all-reduce sums.
  const double scale = static_cast<double>(local_count) / static_cast<double>(total_count);
  for (const Bucket& bucket : plan_buckets(parameters, included, bucket_bytes)) {
    communication_seconds_ += bucket.dtype == DType::Float32
                                  ? reduce_bucket<float>(parameters, bucket, scale)
                                  : reduce_bucket<double>(parameters, bucket, scale);
  }
  return total_count;
}

double Communicator::all_reduce_sum(double value) {
  if (size_ == 1) return value;
  std::vector<double> values{value};
  all_reduce_values(values, Element::Float64, Reduction::Sum);
  return values[0];
}

uint64_t parameters_fingerprint(const std::vector<Variable>& parameters) {
  uint64_t hash = fnv_offset;
  for (const Variable& parameter : parameters) {
    const Tensor value = parameter.value().contiguous();
    const size_t element = dtype_size(value.dtype());
    const auto* bytes = static_cast<const unsigned char*>(value.storage()->data());
    hash = fnv1a(bytes + static_cast<size_t>(value.offset()) * element,
                 static_cast<size_t>(value.numel()) * element, hash);
  }
  return hash;
}

bool Communicator::same_on_all_ranks(uint64_t value) {
  if (size_ == 1) return true;
  // One reduction for both ends: min(v) = ~max(~v).
  std::vector<uint64_t> highest{value, ~value};
  all_reduce_values(highest, Element::UInt64, Reduction::Max);
  return highest[0] == ~highest[1];
}

void Communicator::barrier() {
  if (size_ > 1) barrier_mpi();
}

void Communicator::all_gather_parts(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> floats, doubles;
  std::string refused;           // the first tensor this rank cannot send
  uint64_t layout = fnv_offset;  // the sizes and dtypes, which every rank must share
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& tensor = tensors[i];
    const DType dtype = tensor.dtype();
    const bool sendable =
        tensor.is_contiguous() && (dtype == DType::Float32 || dtype == DType::Float64);
    if (!sendable && refused.empty())
      refused = "distributed::all_gather_parts: tensor " + std::to_string(i) + " is " +
                shape_to_string(tensor.shape()) + " " + dtype_name(dtype) +
                " (contiguous float32 or float64 expected)";
    const int64_t facts[3] = {tensor.numel(), dtype == DType::Float32 ? 4 : 8, sendable};
    layout = fnv1a(facts, sizeof facts, layout);
    (dtype == DType::Float32 ? floats : doubles).push_back(tensor);
  }
  // Every rank learns whether the lists agree before any rank throws: none is left waiting.
  const bool same = same_on_all_ranks(layout);
  if (!refused.empty()) throw std::invalid_argument(refused);
  if (!same)
    throw std::invalid_argument("distributed::all_gather_parts: the processes passed different "
                                "lists of tensors (their sizes or dtypes differ)");
  if (size_ == 1) return;  // checked as on N processes; nothing to exchange
  if (!floats.empty()) all_gather_parts_of<float>(floats, rank_, size_);
  if (!doubles.empty()) all_gather_parts_of<double>(doubles, rank_, size_);
}

// ---- GradientReducer: the all-reduce of each bucket while backward goes on -------------------

namespace {

using Clock = std::chrono::steady_clock;

// One bucket of the reducer: its parameters, its two buffers (this rank's scaled gradients
// and the ranks' sum; made once, kept from step to step), its times.
struct ReducerBucket {
  Bucket plan{DType::Float32, {}, 0};
  int64_t waiting = 0;  // parameters whose gradient is not final yet in this step
  std::vector<float> f32, f32_sum;
  std::vector<double> f64, f64_sum;
  Request request{};
  bool started = false, done = false;
  Clock::time_point started_at, done_at;
};

// Buckets in the reverse order of the parameters; a bucket closes at about `bucket_bytes` or
// where the dtype changes.
std::vector<ReducerBucket> plan_reverse_buckets(const std::vector<Variable>& parameters,
                                                size_t bucket_bytes) {
  std::vector<ReducerBucket> buckets;
  for (size_t k = parameters.size(); k-- > 0;) {
    const DType dtype = parameters[k].dtype();
    const int64_t numel = parameters[k].value().numel();
    const int64_t capacity =
        std::max<int64_t>(1, static_cast<int64_t>(bucket_bytes / dtype_size(dtype)));
    if (buckets.empty() || buckets.back().plan.dtype != dtype ||
        buckets.back().plan.numel + numel > capacity)
      buckets.emplace_back().plan = Bucket{dtype, {}, 0};
    buckets.back().plan.parameters.push_back(k);
    buckets.back().plan.numel += numel;
  }
  return buckets;
}

// The length of the union of the buckets' [started_at, done_at] (they start in order).
double union_seconds(const std::vector<ReducerBucket>& buckets) {
  double seconds = 0;
  Clock::time_point covered{};
  for (const ReducerBucket& bucket : buckets) {
    const Clock::time_point from = std::max(bucket.started_at, covered);
    if (bucket.done_at > from) seconds += std::chrono::duration<double>(bucket.done_at - from).count();
    covered = std::max(covered, bucket.done_at);
  }
  return seconds;
}

}  // namespace

struct GradientReducer::State {
  std::vector<Variable> parameters;
  std::vector<ReducerBucket> buckets;
  std::vector<size_t> bucket_of;  // parameter index → bucket
  // n_r; then 1 per parameter holding a gradient on this rank; then per rank, the microseconds
  // from its last finish() (its first begin()) to the end of its backward (this rank's filled).
  std::vector<int64_t> header;
  Clock::time_point working_since{};
  Request header_request{};
  size_t next = 0;                // the next bucket to start
  bool in_step = false;
  int64_t total = 0;
  double scale = 1;

  // Packs this rank's scaled gradients into `mine` and starts their sum into `sum` (both made
  // with the reducer, bucket.numel numbers each).
  template <typename T>
  Request pack_and_start(const Bucket& plan, std::vector<T>& mine, std::vector<T>& sum) {
    pack_gradients<T>(parameters, plan, scale, mine.data());
    return start_all_reduce(mine.data(), sum.data(), plan.numel,
                            std::is_same_v<T, float> ? Element::Float32 : Element::Float64);
  }
  void start(ReducerBucket& bucket) {
    bucket.request = bucket.plan.dtype == DType::Float32
                         ? pack_and_start(bucket.plan, bucket.f32, bucket.f32_sum)
                         : pack_and_start(bucket.plan, bucket.f64, bucket.f64_sum);
    bucket.started = true;
    bucket.started_at = Clock::now();
  }
  // A bucket started and not yet seen to end: MPI may still read or write its buffers.
  bool in_flight() const {
    return std::any_of(buckets.begin(), buckets.end(),
                       [](const ReducerBucket& bucket) { return bucket.started && !bucket.done; });
  }
  // Starts the full buckets at the front of the line, then lets the ones in flight move on.
  void start_ready_and_progress() {
    while (next < buckets.size() && buckets[next].waiting == 0) start(buckets[next++]);
    for (size_t b = 0; b < next; ++b)
      if (!buckets[b].done && test_request(buckets[b].request)) {
        buckets[b].done = true;
        buckets[b].done_at = Clock::now();
      }
  }
};

GradientReducer::GradientReducer(Communicator& communicator, std::vector<Variable> parameters,
                                 size_t bucket_bytes)
    : communicator_(communicator), state_(std::make_unique<State>()) {
  check_floating(parameters, "GradientReducer");
  State& state = *state_;
  state.parameters = std::move(parameters);
  state.buckets = plan_reverse_buckets(state.parameters, bucket_bytes);
  state.bucket_of.resize(state.parameters.size());
  for (size_t b = 0; b < state.buckets.size(); ++b)
    for (size_t index : state.buckets[b].plan.parameters) state.bucket_of[index] = b;
  if (communicator_.size() == 1) return;
  for (ReducerBucket& bucket : state.buckets) {  // the two buffers, kept from step to step
    const auto n = static_cast<size_t>(bucket.plan.numel);
    if (bucket.plan.dtype == DType::Float32) {
      bucket.f32.resize(n);
      bucket.f32_sum.resize(n);
    } else {
      bucket.f64.resize(n);
      bucket.f64_sum.resize(n);
    }
  }
  for (size_t i = 0; i < state.parameters.size(); ++i)
    state.parameters[i].set_gradient_ready_hook([this, i] { parameter_ready(i); });
}

GradientReducer::~GradientReducer() {
  if (communicator_.size() == 1) return;
  for (Variable& parameter : state_->parameters) parameter.set_gradient_ready_hook({});
  // After a step that failed with buckets in flight, MPI may still write into their buffers:
  // they are left allocated (the job is ending) rather than freed under it.
  if (state_->in_flight()) static_cast<void>(state_.release());
}

int64_t GradientReducer::buckets() const { return static_cast<int64_t>(state_->buckets.size()); }

std::vector<int64_t> GradientReducer::bucket_numbers() const {
  std::vector<int64_t> numbers;
  for (const ReducerBucket& bucket : state_->buckets) numbers.push_back(bucket.plan.numel);
  return numbers;
}

void GradientReducer::begin(int64_t local_count, int64_t total_count) {
  if (local_count < 0 || total_count <= 0 || local_count > total_count)
    throw std::invalid_argument("distributed::GradientReducer::begin: " +
                                std::to_string(local_count) + " of " +
                                std::to_string(total_count) + " targets");
  if (communicator_.size() == 1) return;
  State& state = *state_;
  if (state.in_step || state.in_flight())
    throw std::logic_error("distributed::GradientReducer::begin: the last step did not finish");
  for (ReducerBucket& bucket : state.buckets) {
    bucket.waiting = static_cast<int64_t>(bucket.plan.parameters.size());
    bucket.started = bucket.done = false;
  }
  state.header.assign(state.parameters.size() + 1 + static_cast<size_t>(communicator_.size()), 0);
  state.header[0] = local_count;
  if (state.working_since == Clock::time_point{}) state.working_since = Clock::now();
  state.next = 0;
  state.total = total_count;
  state.scale = static_cast<double>(local_count) / static_cast<double>(total_count);
  state.in_step = true;
}

void GradientReducer::parameter_ready(size_t index) {
  State& state = *state_;
  if (!state.in_step) return;  // a backward outside begin() / finish()
  if (state.header[index + 1] != 0)
    throw std::logic_error("distributed::GradientReducer: parameter " + std::to_string(index) +
                           "'s gradient became final twice in one step (one backward a step)");
  state.header[index + 1] = 1;
  --state.buckets[state.bucket_of[index]].waiting;
  state.start_ready_and_progress();
}

void GradientReducer::finish() {
  if (communicator_.size() == 1) return;
  State& state = *state_;
  if (!state.in_step)
    throw std::logic_error("distributed::GradientReducer::finish: without begin()");
  state.in_step = false;
  const Clock::time_point backward_end = Clock::now();
  // Parameters that got no gradient on this rank: zeros in their bucket. The buckets still
  // waiting leave first and the header last, so that every rank starts the same collectives in
  // the same order, wherever its buckets stopped (MPI pairs collectives by their order).
  for (ReducerBucket& bucket : state.buckets) bucket.waiting = 0;
  state.start_ready_and_progress();
  // The header says whether any rank had a gradient for each parameter, and how long each
  // rank worked on this step.
  const size_t count = state.parameters.size();
  for (size_t i = 0; i < count; ++i)
    if (state.parameters[i].has_grad()) state.header[i + 1] = 1;
  state.header[count + 1 + static_cast<size_t>(communicator_.rank())] =
      std::chrono::duration_cast<std::chrono::microseconds>(backward_end - state.working_since)
          .count();
  state.header_request = start_all_reduce(state.header.data(), state.header.data(),
                                          static_cast<int64_t>(state.header.size()),
                                          Element::Int64);
  wait_request(state.header_request);
  for (ReducerBucket& bucket : state.buckets) {
    if (!bucket.done) {
      wait_request(bucket.request);
      bucket.done = true;
      bucket.done_at = Clock::now();
    }
    if (bucket.plan.dtype == DType::Float32)
      unpack_gradients<float>(state.parameters, bucket.plan, bucket.f32_sum);
    else
      unpack_gradients<double>(state.parameters, bucket.plan, bucket.f64_sum);
  }
  exposed_seconds_ += seconds_since(backward_end);
  communication_seconds_ += union_seconds(state.buckets);
  const auto worked = state.header.begin() + static_cast<std::ptrdiff_t>(count + 1);
  const auto [fastest, slowest] = std::minmax_element(worked, state.header.end());
  spread_seconds_ += 1e-6 * static_cast<double>(*slowest - *fastest);
  for (size_t i = 0; i < count; ++i)
    if (state.header[i + 1] == 0) state.parameters[i].zero_grad();  // no rank had one
  if (state.header[0] != state.total)
    throw std::logic_error("distributed::GradientReducer: the processes' shares hold " +
                           std::to_string(state.header[0]) + " targets, the global batch " +
                           std::to_string(state.total));
  state.working_since = Clock::now();
}

}  // namespace atencion::nn::distributed
