// tensor/detail/strided.h — private helpers shared by the tensor/*.cpp kernels:
// dtype dispatch, broadcasting strides, and the one strided loop every element-wise kernel uses.
// Lesson: docs/01-tensor.md#shape-strides-offset and #broadcasting
//
// Not part of the public API: only tensor/*.cpp include this file.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/tensor.h"
#include "tensor/threads.h"

namespace atencion::detail {

[[noreturn]] inline void throw_not_floating(const char* op, DType dtype) {
  throw std::invalid_argument(std::string(op) + ": expected a float32 or float64 tensor, got " +
                              dtype_name(dtype));
}

// Calls fn(T{}) with T = float or double; any other dtype is an error naming `op`.
template <typename Fn>
decltype(auto) dispatch_floating(const char* op, DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::Float32: return fn(float{});
    case DType::Float64: return fn(double{});
    default: throw_not_floating(op, dtype);
  }
}

// Calls fn(T{}) with the C++ type that stores `dtype` (Bool is stored as bool, one byte).
template <typename Fn>
decltype(auto) dispatch_any(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::Float32: return fn(float{});
    case DType::Float64: return fn(double{});
    case DType::Int64: return fn(int64_t{});
    case DType::Bool: return fn(bool{});
  }
  throw std::logic_error("dispatch_any: unknown dtype");
}

inline void check_defined(const char* op, const Tensor& t) {
  if (!t.defined()) throw std::invalid_argument(std::string(op) + ": the tensor is undefined");
}

// "add: dtype mismatch float32 vs float64"
inline void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    throw std::invalid_argument(std::string(op) + ": dtype mismatch " + dtype_name(a.dtype()) +
                                " vs " + dtype_name(b.dtype()));
  }
}

// Strides that read `t` as if it had been expanded to `shape` (which t broadcasts to):
// missing leading dims and stretched size-1 dims get stride 0.
inline Shape broadcast_strides(const Tensor& t, const Shape& shape) {
  const std::size_t ndim = shape.size();
  const std::size_t lead = ndim - t.shape().size();
  Shape strides(ndim, 0);
  for (std::size_t d = lead; d < ndim; ++d) {
    const int64_t size = t.shape()[d - lead];
    strides[d] = (size == 1 && shape[d] != 1) ? 0 : t.strides()[d - lead];
  }
  return strides;
}

// mask ? a : b, written with bit operations. GCC compiles `m ? a : b` with m a bool read from
// memory into a branch, which random masks (relu's, dropout's, attention's) mispredict half
// the time, and it does not vectorise it; all-ones-or-zero bit masks it does: about 10x faster
// on a [2048, 1024] select (tests/tensor/test_compare.cpp checks the values, incl. -0 and NaN).
template <typename T>
inline T select(bool mask, T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint8_t>>;
  static_assert(sizeof(T) == sizeof(Bits));
  const Bits all_if_mask = Bits(0) - static_cast<Bits>(mask);  // ~0 when mask, else 0
  return std::bit_cast<T>(static_cast<Bits>((std::bit_cast<Bits>(a) & all_if_mask) |
                                            (std::bit_cast<Bits>(b) & ~all_if_mask)));
}

// The kernels' loops: atencion::parallel_for (tensor/threads.h), named here as they call it.
using atencion::parallel_for;

// A loop nest over `shape` with N stride sets (one per operand), simplified first: size-1 dims
// are dropped and neighbouring dims merged when every operand steps through them as one
// (stride[d] == stride[d+1] * size[d+1]). A contiguous tensor becomes a single 1-D run.
template <std::size_t N>
struct LoopNest {
  Shape shape;
  std::array<Shape, N> strides;

  LoopNest(const Shape& full_shape, const std::array<Shape, N>& full_strides) {
    for (std::size_t d = 0; d < full_shape.size(); ++d) {
      if (full_shape[d] == 1) continue;
      bool merge = !shape.empty();
      for (std::size_t k = 0; k < N && merge; ++k) {
        merge = strides[k].back() == full_strides[k][d] * full_shape[d];
      }
      if (merge) {
        shape.back() *= full_shape[d];
        for (std::size_t k = 0; k < N; ++k) strides[k].back() = full_strides[k][d];
      } else {
        shape.push_back(full_shape[d]);
        for (std::size_t k = 0; k < N; ++k) strides[k].push_back(full_strides[k][d]);
      }
    }
    if (shape.empty()) {  // a scalar or all-ones shape: one element
      shape.push_back(1);
      for (std::size_t k = 0; k < N; ++k) strides[k].push_back(0);
    }
  }

  int64_t numel() const { return shape_numel(shape); }
  int64_t inner_stride(std::size_t k) const { return strides[k].back(); }

  // Each operand's element offset at row-major position `position` (0 <= position < numel).
  std::array<int64_t, N> offsets_at(int64_t position) const {
    std::array<int64_t, N> offsets{};
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      const int64_t index = position % shape[d];
      position /= shape[d];
      for (std::size_t k = 0; k < N; ++k) offsets[k] += index * strides[k][d];
    }
    return offsets;
  }

  // Visits row-major positions [begin, end) as runs along the last dim:
  // body(offsets, run) where offsets[k] is operand k's element offset at the run's start and
  // the run continues with inner_stride(k).
  template <typename Body>
  void for_each_run(int64_t begin, int64_t end, Body&& body) const {
    if (begin >= end) return;
    const int64_t ndim = static_cast<int64_t>(shape.size());
    std::vector<int64_t> index(ndim);
    for (int64_t d = ndim - 1, rest = begin; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    std::array<int64_t, N> offsets = offsets_at(begin);
    const int64_t last = ndim - 1;
    for (int64_t position = begin; position < end;) {
      const int64_t run = std::min(shape[last] - index[last], end - position);
      body(offsets, run);
      position += run;
      index[last] += run;
      for (std::size_t k = 0; k < N; ++k) offsets[k] += run * strides[k][last];
      for (int64_t d = last; d > 0 && index[d] == shape[d]; --d) {  // carry into dim d-1
        index[d] = 0;
        ++index[d - 1];
        for (std::size_t k = 0; k < N; ++k) {
          offsets[k] += strides[k][d - 1] - shape[d] * strides[k][d];
        }
      }
    }
  }

  // True when some operand is read across its memory order: its innermost dim has a large
  // stride while the dim before has stride 1 (a transposed view). Walking row by row would then
  // touch a new cache line for every element.
  bool crosses_memory_order() const {
    if (shape.size() < 2 || numel() < 4096) return false;
    for (std::size_t k = 0; k < N; ++k) {
      if (strides[k][shape.size() - 2] == 1 && strides[k].back() > 1) return true;
    }
    return false;
  }

  // The last two dims in square tiles of kTile x kTile, each tile as up to kTile runs of up to
  // kTile: a transposed operand's cache lines are reused by the tile's next rows.
  template <typename Body>
  void for_each_run_tiled(Body&& body) const {
    constexpr int64_t kTile = 32;
    const std::size_t last = shape.size() - 1;
    const int64_t rows = shape[last - 1], columns = shape[last];
    const int64_t row_tiles = (rows + kTile - 1) / kTile;
    const int64_t column_tiles = (columns + kTile - 1) / kTile;
    const int64_t tiles_per_matrix = row_tiles * column_tiles;
    parallel_for(numel() / (rows * columns) * tiles_per_matrix, kTile * kTile, [&](int64_t tile) {
      const int64_t matrix = tile / tiles_per_matrix;
      const int64_t first_row = tile % tiles_per_matrix / column_tiles * kTile;
      const int64_t first_column = tile % column_tiles * kTile;
      const int64_t run = std::min(kTile, columns - first_column);
      std::array<int64_t, N> offsets =
          offsets_at((matrix * rows + first_row) * columns + first_column);
      for (int64_t row = first_row; row < std::min(rows, first_row + kTile); ++row) {
        body(offsets, run);
        for (std::size_t k = 0; k < N; ++k) offsets[k] += strides[k][last - 1];
      }
    });
  }

  // The whole nest, split into equal slices of positions across threads when it is large
  // (or into tiles, see crosses_memory_order). Each position is visited by exactly one
  // thread, so results do not depend on threads.
  template <typename Body>
  void parallel_for_each_run(Body&& body) const {
    if (crosses_memory_order()) {
      for_each_run_tiled(body);
      return;
    }
    const int64_t total = numel();
    const int threads = num_threads();
    if (total < kParallelThreshold || threads == 1) {
      for_each_run(0, total, body);
      return;
    }
    const int64_t tasks = kTasksPerThread * threads;
    parallel_tasks(tasks, threads, [&](int64_t task) {
      for_each_run(total * task / tasks, total * (task + 1) / tasks, body);
    });
  }
};

// out[i] = fn(in_0[i], in_1[i], ...) over out's shape; every input broadcasts to out's shape.
// Out and In... are the C++ element types; out may be any strided view (for in-place ops).
template <typename Out, typename... In, typename Fn>
void map_elements(Tensor& out, const std::array<const Tensor*, sizeof...(In)>& inputs, Fn fn) {
  constexpr std::size_t N = sizeof...(In) + 1;
  std::array<Shape, N> strides;
  strides[0] = out.strides();
  for (std::size_t k = 1; k < N; ++k) strides[k] = broadcast_strides(*inputs[k - 1], out.shape());
  const LoopNest<N> nest(out.shape(), strides);
  Out* out_data = out.data<Out>();
  const auto in_data = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::make_tuple(inputs[K]->template data<In>()...);
  }(std::index_sequence_for<In...>{});

  nest.parallel_for_each_run([&](const std::array<int64_t, N>& offsets, int64_t run) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      Out* o = out_data + offsets[0];
      const auto pointers = std::make_tuple((std::get<K>(in_data) + offsets[K + 1])...);
      (void)pointers;  // unused when there are no inputs (fill_)
      const bool contiguous = nest.inner_stride(0) == 1 && ((nest.inner_stride(K + 1) == 1) && ...);
      if (contiguous) {  // the fast path: unit strides, the compiler vectorises this loop
        for (int64_t i = 0; i < run; ++i) o[i] = static_cast<Out>(fn(std::get<K>(pointers)[i]...));
      } else {
        const int64_t so = nest.inner_stride(0);
        for (int64_t i = 0; i < run; ++i) {
          o[i * so] =
              static_cast<Out>(fn(std::get<K>(pointers)[i * nest.inner_stride(K + 1)]...));
        }
      }
    }(std::index_sequence_for<In...>{});
  });
}

}  // namespace atencion::detail
