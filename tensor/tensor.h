// tensor/tensor.h — a strided N-d array: storage + shape + strides + offset.
// Lesson: docs/01-tensor.md
//
// A Tensor is a *view* onto shared, 64-byte-aligned storage. Element (i0, i1, ..., in-1)
// lives at   storage[offset + i0*stride[0] + i1*stride[1] + ... + in-1*stride[n-1]]
// (strides count elements, not bytes). Views (reshape, transpose, permute, narrow, expand, ...)
// build a new shape/strides/offset over the same storage and copy nothing; `contiguous()`
// copies only when the layout is not already row-major.
//
// This layer knows nothing of gradients: see autograd/ for that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace atencion {

// Float32 trains, Float64 checks gradients; Int64 holds token ids and indices; Bool holds masks
// (one byte per element, 0 or 1).
enum class DType { Float32, Float64, Int64, Bool };

std::size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);  // "float32", "float64", "int64", "bool"
bool is_floating(DType dtype);

using Shape = std::vector<int64_t>;
std::string shape_to_string(const Shape& shape);  // "[2, 3]"
int64_t shape_numel(const Shape& shape);
Shape contiguous_strides(const Shape& shape);      // row-major strides for `shape`

// A reference-counted block of 64-byte-aligned bytes; tensors share it.
class Storage {
 public:
  // Zero-filled, unless zero_fill is false: then the bytes are whatever memory held, for a
  // kernel that writes every one of them (Tensor::uninitialized).
  explicit Storage(std::size_t nbytes, bool zero_fill = true);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }

  // Bytes held by all live Storages now, and the most held at once since the last reset
  // (as torch.cuda.memory_allocated / max_memory_allocated): what a step's tensors need,
  // apart from what the allocator keeps around them.
  static std::size_t live_bytes();
  static std::size_t peak_bytes();
  static void reset_peak_bytes();  // peak := live

 private:
  void* data_ = nullptr;
  std::size_t nbytes_ = 0;
};

// Nested braces for small literal tensors: Tensor t = Tensor::from({{1, 2}, {3, 4}});
struct NestedValues {
  NestedValues(double value);                            // NOLINT: implicit on purpose
  NestedValues(std::initializer_list<NestedValues> rows);  // NOLINT
  bool is_scalar = true;
  double value = 0;
  std::vector<NestedValues> rows;
};

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor (defined() == false)

  // ---- creation --------------------------------------------------------------------------
  static Tensor empty(const Shape& shape, DType dtype = DType::Float32);  // zero-filled
  // Like empty, but the values are not set (torch.empty): for kernels that write every element
  // before anything reads it, so the zero-filling pass over memory is not paid for twice.
  static Tensor uninitialized(const Shape& shape, DType dtype = DType::Float32);
  static Tensor zeros(const Shape& shape, DType dtype = DType::Float32);
  static Tensor ones(const Shape& shape, DType dtype = DType::Float32);
  static Tensor full(const Shape& shape, double value, DType dtype = DType::Float32);
  static Tensor scalar(double value, DType dtype = DType::Float32);  // shape []
  // 0, step, 2*step, ... up to (not including) end, like torch.arange.
  static Tensor arange(double start, double end, double step = 1, DType dtype = DType::Float32);
  static Tensor from_vector(const std::vector<double>& values, const Shape& shape,
                            DType dtype = DType::Float32);
  static Tensor from_vector(const std::vector<float>& values, const Shape& shape);
  static Tensor from_ids(const std::vector<int64_t>& ids, const Shape& shape);  // Int64
  static Tensor from(const NestedValues& values, DType dtype = DType::Float32);
  static Tensor zeros_like(const Tensor& other);

  // ---- what it is ------------------------------------------------------------------------
  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const;
  int64_t size(int64_t dim) const;  // negative dims count from the end
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  // Typed pointer to the first element (storage + offset). Throws if T does not match dtype.
  template <typename T> T* data();
  template <typename T> const T* data() const;

  // ---- reading values (slow, for tests and printing) -----------------------------------
  double item() const;                                   // a one-element tensor's value
  double at(const std::vector<int64_t>& index) const;    // element at a multi-index
  void set(const std::vector<int64_t>& index, double value);
  std::vector<double> to_vector() const;                 // all elements in row-major order
  std::vector<int64_t> to_ids() const;                   // the same for Int64 / Bool

  // ---- copies ----------------------------------------------------------------------------
  Tensor to(DType dtype) const;  // converts (copies; returns *this if already that dtype)
  Tensor contiguous() const;     // *this if already contiguous, else a row-major copy
  Tensor clone() const;          // always a fresh contiguous copy
  void copy_(const Tensor& source);  // in place, source broadcasts to this shape
  void fill_(double value);

  // ---- views: share storage, copy nothing --------------------------------------------------
  Tensor view(const Shape& shape) const;     // needs a compatible layout; one dim may be -1
  Tensor reshape(const Shape& shape) const;  // a view when possible, else a copy
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;                           // transpose(-2, -1)
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;  // removes `dim`
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor expand(const Shape& shape) const;  // broadcast size-1 dims with stride 0
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;

  std::string to_string() const;  // shape, dtype and values, elided in the middle when large

  // Low-level constructor: a view with explicit layout over existing storage.
  Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset, DType dtype);

 private:
  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Shape strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::Float32;
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

// Normalises a possibly negative dim against `ndim`; throws "<op>: dim d out of range for
// a tensor of rank r".
int64_t normalize_dim(const char* op, int64_t dim, int64_t ndim);

}  // namespace atencion
