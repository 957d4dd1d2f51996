// autograd/variable.h — a value that remembers how it was made, so its gradient can flow back.
// Lesson: docs/02-autograd.md
//
// A Variable is a handle to a graph Node: the value (a Tensor), the accumulated gradient,
// whether it requires a gradient, and — for a value computed by an op — the op's name, its
// inputs and a backward closure that turns dL/d(output) into dL/d(input) for each input.
//
// Gradient semantics (as in PyTorch):
//  * backward() ADDS into .grad of every leaf that requires grad (and never resets it):
//    call zero_grad() (or Module::zero_grad / Optimizer::zero_grad) between steps.
//  * A value used by several ops receives the sum of their contributions.
//  * After backward the graph's closures are released unless retain_graph is true; a second
//    backward through a released graph throws.
//  * Inside a NoGradGuard scope, ops record nothing and their results do not require grad.
//
// Memory: a node's value is held for the Variables that can read it. When the last Variable
// handle to a node goes (say, the output of a Linear once the next op has used it), the node
// drops its value: the graph keeps only what the backward closures saved (often nothing of
// that value: relu keeps a Bool mask, add keeps shapes), as PyTorch frees an intermediate
// result that no backward saved. docs/02-autograd.md#what-the-graph-keeps
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace atencion {

class Variable;
// One gradient per input of an op, in the order of its inputs; an undefined Tensor means
// "no gradient for this input".
using Grads = std::vector<Tensor>;
using BackwardFn = std::function<Grads(const Tensor& grad_output)>;

class Node;
namespace detail {
// The backward pass (autograd/engine.cpp): with Variable, the only code that changes a node.
void run_backward(const std::shared_ptr<Node>& root, Tensor grad_output, bool retain_graph);
}  // namespace detail

// One value of the graph and how it was made. Anyone may read what the methods below show; the
// fields are written only by the node's Variables (the value, .grad, requires_grad, the
// dropping of the value) and by the backward pass (.grad, and the release of the closure).
class Node {
 public:
  Node(Tensor value, bool requires_grad);  // a leaf (no op, no inputs)
  // An op's result (record() makes them): requires grad, as one of its inputs does.
  Node(std::string op, Tensor value, std::vector<std::shared_ptr<Node>> inputs,
       BackwardFn backward);
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // Frees the inputs it alone owns with an explicit stack, not recursively: dropping the last
  // handle to a chain of 100000 ops must not overflow the stack either.
  ~Node();

  const std::string& op() const { return op_; }  // "matmul", "add", ... ; "" for a leaf
  bool is_leaf() const { return op_.empty(); }
  bool requires_grad() const { return requires_grad_; }
  // What this value was computed from (empty for a leaf, and once backward released it).
  const std::vector<std::shared_ptr<Node>>& inputs() const { return inputs_; }
  // False once the last Variable went and the value was dropped (docs/02-autograd.md).
  bool holds_value() const { return value_.defined(); }
  // The value's shape and dtype, also after it was dropped: what a gradient arriving here
  // must have.
  const Shape& shape() const { return value_.defined() ? value_.shape() : dropped_shape_; }
  DType dtype() const { return value_.defined() ? value_.dtype() : dropped_dtype_; }
  bool released() const { return released_; }  // backward ran and dropped its closure

 private:
  friend class Variable;
  friend void detail::run_backward(const std::shared_ptr<Node>&, Tensor, bool);

  Tensor value_;
  Tensor grad_;  // undefined until a gradient arrives
  bool requires_grad_ = false;
  std::string op_;
  std::vector<std::shared_ptr<Node>> inputs_;
  BackwardFn backward_;        // empty for leaves
  bool released_ = false;
  bool retains_grad_ = false;  // a non-leaf asked to keep its .grad
  std::function<void()> gradient_ready_;  // a leaf's hook (Variable::set_gradient_ready_hook)
  std::atomic<int> handles_{0};  // Variables pointing here; at 0 the value is dropped
  Shape dropped_shape_;          // the value's shape and dtype once it is dropped
  DType dropped_dtype_{};
};

class Variable {
 public:
  Variable() = default;
  explicit Variable(Tensor value, bool requires_grad = false);
  explicit Variable(std::shared_ptr<Node> node);
  Variable(const Variable& other);
  Variable(Variable&& other) noexcept;
  Variable& operator=(const Variable& other);
  Variable& operator=(Variable&& other) noexcept;
  ~Variable();

  bool defined() const { return node_ != nullptr; }
  const Tensor& value() const;
  Tensor& mutable_value();  // for optimizers: in-place updates of a leaf's value
  const Tensor& grad() const;  // undefined Tensor if no gradient has arrived
  bool has_grad() const;
  // For code that changes gradients between backward and the optimizer step (clipping, the
  // average over processes): .grad to scale in place, or a new .grad (PyTorch's p.grad = g),
  // which must have the value's shape and dtype.
  Tensor& mutable_grad();
  void set_grad(Tensor grad);
  bool requires_grad() const;
  Variable& set_requires_grad(bool requires_grad);  // leaves only
  bool is_leaf() const;
  const std::string& op() const;  // "" for a leaf
  void retain_grad();             // keep .grad on a non-leaf too
  // A leaf's hook, called by backward right after this leaf's .grad received its total for the
  // pass (every op that used the leaf has sent its gradient): PyTorch's
  // register_post_accumulate_grad_hook. Data-parallel training starts sending a parameter's
  // gradient from it while backward goes on (docs/13-data-parallel.md#buckets-and-overlap).
  // One hook per leaf; an empty function removes it. Called on the thread running backward.
  void set_gradient_ready_hook(std::function<void()> hook);

  // Shorthands for the value's layout.
  const Shape& shape() const { return value().shape(); }
  int64_t dim() const { return value().dim(); }
  int64_t size(int64_t d) const { return value().size(d); }
  DType dtype() const { return value().dtype(); }
  double item() const { return value().item(); }

  // Reverse-mode pass from this value. Without grad_output the value must have one element
  // (dL/dL = 1). Iterative: deep graphs do not overflow the stack.
  void backward(bool retain_graph = false) const;
  void backward(const Tensor& grad_output, bool retain_graph = false) const;
  void zero_grad();  // drops .grad (PyTorch's set_to_none=True)

  Variable detach() const;  // same value, no history, no grad
  const std::shared_ptr<Node>& node() const { return node_; }

 private:
  void hold();     // counts this handle on its node
  void let_go();  // uncounts it; the last handle out drops the node's value

  std::shared_ptr<Node> node_;
};

// Records an op result: `value` computed from `inputs`, with `backward` giving one gradient
// per input. When grad mode is off or no input requires grad, nothing is recorded.
// Every op in autograd/ops/ is written as:  return record("name", forward, {inputs}, backward);
Variable record(const char* op, Tensor value, const std::vector<Variable>& inputs,
                BackwardFn backward);

// RAII: while alive, ops record no graph (evaluation, optimizer updates).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};
bool grad_mode_enabled();

}  // namespace atencion
