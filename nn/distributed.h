// nn/distributed.h — data-parallel training over MPI: every process holds the whole model,
// computes the gradient of its own share of each global batch, and the gradients are averaged
// before every optimizer step, as torch.distributed with DistributedDataParallel does.
// Lesson: docs/13-data-parallel.md
//
// A training loop in a few lines (the shared one is examples/base/training/trainer.cpp, over
// examples/base/training/data_parallel.h):
//
//   distributed::Communicator world;                      // at the top of main(), passed down
//   world.broadcast_parameters(model.parameters());       // rank 0's weights everywhere
//   for each global batch:
//     rows = distributed::shard_rows(B, world.rank(), world.size());  // this process's share
//     loss = cross_entropy(model(rows of the batch));       // a mean over its n_r tokens
//     optimizer.zero_grad(); loss.backward();
//     world.average_gradients(optimizer.parameters(), n_r); // Σ n_r·g_r / Σ n_r
//     optimizer.step();                                     // the same update on every rank
//
// Started by a launcher (mpirun, mpiexec, Slurm's srun) the processes are MPI's ranks; started
// on its own a program is rank 0 of 1, and no MPI function is ever called. A build without MPI
// (no libopenmpi-dev when CMake ran) is always rank 0 of 1 and refuses to run under a launcher.
//
// Every method of Communicator except rank(), size(), abort() and communication_seconds() is
// collective: every rank must call it, in the same order, or the job waits forever. Only the
// thread that made the Communicator calls them (MPI_THREAD_FUNNELED); the kernels' OpenMP
// threads never do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autograd/variable.h"

namespace atencion::nn::distributed {

// The rows [begin, end) of a global batch of `rows` that `rank` of `size` takes: contiguous,
// disjoint, together all of them, sizes differing by at most one. Throws std::invalid_argument
// when rows < size (a rank would have nothing to learn from).
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t count() const { return end - begin; }
};
RowRange shard_rows(int64_t rows, int rank, int size);

inline constexpr std::size_t default_bucket_bytes = std::size_t{25} << 20;  // as DDP's 25 MB

// The processes of one job and the collectives between them. One per process: made at the top
// of main() (it starts MPI) and handed to the code that trains.
class Communicator {
 public:
  // Starts MPI if a launcher started this process (its environment says so); otherwise this
  // process is rank 0 of 1. Throws std::logic_error while another Communicator is alive.
  Communicator();
  ~Communicator();  // ends MPI if the constructor started it
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }  // 0 .. size() - 1
  int size() const { return size_; }  // the number of processes; 1 without a launcher

  // Ends every process of the job: prints "rank R of N: message" on stderr and calls
  // MPI_Abort, so that the others do not wait forever in a collective for this one. Without
  // MPI, exits.
  [[noreturn]] void abort(const std::string& message, int exit_code = 1) const;

  // Copies rank 0's parameter values into every rank's parameters, after checking that every
  // rank has the same list (count, shapes, dtypes); throws std::invalid_argument if not.
  void broadcast_parameters(const std::vector<Variable>& parameters);
  // Rank 0's `bytes` on every rank (e.g. a tokenizer that only rank 0 trained).
  void broadcast_bytes(std::string& bytes);

  // The gradient of the global batch from each rank's gradient of its shard. Each rank's loss
  // is a mean over its own `local_count` targets (tokens), so its gradient is g_r = ∇S_r / n_r,
  // and
  //   g = ∇(Σ_r S_r) / Σ_r n_r = Σ_r (n_r / n) · g_r,        n = Σ_r n_r
  // (docs/13-data-parallel.md#the-token-count-trap). Each rank scales its gradients by n_r / n,
  // packs them into flat buckets of about `bucket_bytes`, and one all-reduce (sum) per bucket
  // leaves g in every rank's .grad. A parameter without a gradient on some rank counts as
  // zeros there; one without a gradient on every rank keeps none (the optimizer skips it, as
  // one process would). Returns n. With one process, returns local_count and changes nothing.
  // local_count = 1 on every rank gives the plain mean of the ranks' gradients.
  int64_t average_gradients(const std::vector<Variable>& parameters, int64_t local_count,
                            std::size_t bucket_bytes = default_bucket_bytes);

  // Rank r's part r of each tensor (part_of(numel, r, size()), nn/optim/optimizer.h) copied
  // into every other rank's: afterwards every rank holds, in each part, the owner's numbers.
  // After Adam::step_part(rank(), size()) on every rank, all_gather_parts of the parameters'
  // values leaves on every rank the values of one whole step (ZeRO stage 1,
  // docs/13-data-parallel.md#the-update-shared-out). The tensors must be contiguous, float32
  // or float64, and the same list (sizes, dtypes) on every rank: std::invalid_argument if not.
  // With one process it only checks them.
  void all_gather_parts(const std::vector<Tensor>& tensors);

  // Σ over ranks of `value` (e.g. a loss weighted by tokens, for logging); `value` on one rank.
  double all_reduce_sum(double value);
  // True when `value` is the same on every rank (on every rank: they all get the answer).
  bool same_on_all_ranks(uint64_t value);
  // Returns once every rank has called it (MPI_Barrier).
  void barrier();

  // Seconds this process has spent inside the collectives of average_gradients (the
  // communication, plus the waiting for the slowest rank), since the Communicator was made.
  double communication_seconds() const { return communication_seconds_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  bool uses_mpi_ = false;     // a launcher started this process
  bool started_mpi_ = false;  // the constructor called MPI_Init (not the program)
  double communication_seconds_ = 0;
};

// The gradients of a data-parallel step averaged while backward still runs, as PyTorch's
// DistributedDataParallel does (docs/13-data-parallel.md#buckets-and-overlap). The parameters
// are grouped into buckets of about `bucket_bytes` in the REVERSE of their order (a model lists
// them in the order of the forward, and backward makes the last layers' gradients final
// first). A gradient-ready hook on each parameter (autograd/variable.h) counts it into its
// bucket; a full bucket is scaled by n_r / n, packed, and its all-reduce started without
// waiting (MPI_Iallreduce), backward going on with the earlier layers meanwhile. Buckets leave
// in their order only (every rank starts the same collectives in the same order), and every
// hook lets MPI move the buckets in flight (MPI_Test): Open MPI moves data only inside a call.
//
//   GradientReducer reducer(world, model.parameters());   // hooks the parameters
//   for each step: optimizer.zero_grad(); loss = ...;
//                  reducer.begin(n_r, n); loss.backward(); reducer.finish();  // .grad = g
//                  optimizer.step();
//
// finish() starts what backward left (a parameter without a gradient on this rank counts as
// zeros; one without a gradient on every rank keeps none, as average_gradients), waits for
// every bucket and leaves g = Σ_r (n_r / n) · g_r in each .grad: the same bits as
// average_gradients. With one process it changes nothing.
class GradientReducer {
 public:
  GradientReducer(Communicator& communicator, std::vector<Variable> parameters,
                  std::size_t bucket_bytes = default_bucket_bytes);
  ~GradientReducer();  // removes the hooks
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Before backward: this rank's targets n_r and the global batch's n (every rank knows it).
  void begin(int64_t local_count, int64_t total_count);
  // After backward: the averaged gradients in .grad. Throws std::logic_error when the ranks'
  // n_r do not add up to n.
  void finish();

  int64_t buckets() const;
  std::vector<int64_t> bucket_numbers() const;  // each bucket's numbers, in the order they leave
  // Over every step so far: the seconds from each bucket's start to its observed end (their
  // union within a step), and the part of them after backward ended (finish() waiting).
  double communication_seconds() const { return communication_seconds_; }
  double exposed_seconds() const { return exposed_seconds_; }
  // Over every step so far: how far apart the processes ended their backward (the slowest
  // rank's time from its last finish() to the end of its backward, less the fastest one's; on
  // the first step, from begin()).
  // The step goes at the slowest rank's pace: the others wait this long in finish().
  double spread_seconds() const { return spread_seconds_; }

 private:
  struct State;  // the buckets, their buffers and requests (nn/distributed.cpp)
  void parameter_ready(std::size_t index);
  Communicator& communicator_;
  std::unique_ptr<State> state_;
  double communication_seconds_ = 0, exposed_seconds_ = 0, spread_seconds_ = 0;
};

// A 64-bit FNV-1a hash of the parameters' bytes (values, in order) on this rank.
uint64_t parameters_fingerprint(const std::vector<Variable>& parameters);

}  // namespace atencion::nn::distributed
