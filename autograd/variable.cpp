// autograd/variable.cpp — the Variable handle, record(), and grad mode.
// Lesson: docs/02-autograd.md#recording-the-graph
//
// The backward pass itself lives in autograd/engine.cpp.
#include "autograd/variable.h"

#include <stdexcept>
#include <utility>

namespace atencion {

namespace {

// Grad mode is per thread, like PyTorch's: a NoGradGuard on one thread does not switch off
// recording on another.
thread_local bool grad_mode = true;

const std::shared_ptr<Node>& checked(const std::shared_ptr<Node>& node, const char* what) {
  if (!node) {
    throw std::invalid_argument(std::string("Variable::") + what +
                                ": the Variable is undefined (default-constructed)");
  }
  return node;
}

}  // namespace

// ---- Node --------------------------------------------------------------------------------------

Node::Node(Tensor value, bool requires_grad)
    : value_(std::move(value)), requires_grad_(requires_grad) {}

Node::Node(std::string op, Tensor value, std::vector<std::shared_ptr<Node>> inputs,
           BackwardFn backward)
    : value_(std::move(value)),
      requires_grad_(true),
      op_(std::move(op)),
      inputs_(std::move(inputs)),
      backward_(std::move(backward)) {}

Node::~Node() {
  // A chain x -> op1 -> op2 -> ... -> opN is held together by `inputs`. Letting the shared_ptrs
  // destroy each other would recurse N deep. Instead, take over every input that only we hold,
  // and empty it here, one at a time.
  std::vector<std::shared_ptr<Node>> pending = std::move(inputs_);
  while (!pending.empty()) {
    std::shared_ptr<Node> node = std::move(pending.back());
    pending.pop_back();
    if (node && node.use_count() == 1) {
      for (auto& input : node->inputs_) pending.push_back(std::move(input));
      node->inputs_.clear();
      node->backward_ = nullptr;
    }
    // `node` goes out of scope here; its own inputs are already empty, so no recursion.
  }
}

// ---- Variable ----------------------------------------------------------------------------------

Variable::Variable(Tensor value, bool requires_grad) {
  if (!value.defined()) {
    throw std::invalid_argument("Variable: the value tensor is undefined");
  }
  node_ = std::make_shared<Node>(std::move(value), false);
  hold();
  set_requires_grad(requires_grad);
}

// ---- handles: a node keeps its value while a Variable can read it ------------------------------

Variable::Variable(std::shared_ptr<Node> node) : node_(std::move(node)) { hold(); }
Variable::Variable(const Variable& other) : node_(other.node_) { hold(); }
Variable::Variable(Variable&& other) noexcept : node_(std::move(other.node_)) {}
Variable& Variable::operator=(const Variable& other) {
  if (node_ != other.node_) {
    let_go();
    node_ = other.node_;
    hold();
  }
  return *this;
}
Variable& Variable::operator=(Variable&& other) noexcept {
  if (this != &other) {
    let_go();
    node_ = std::move(other.node_);
  }
  return *this;
}
Variable::~Variable() { let_go(); }

void Variable::hold() {
  if (node_) node_->handles_.fetch_add(1, std::memory_order_relaxed);
}

void Variable::let_go() {
  if (!node_ || node_->handles_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // No Variable can read the value any more. The graph may still hold the node (a later op's
  // input), but it needs only the shape and dtype; what a backward needs of the value, its
  // closure saved. A non-leaf that keeps its .grad keeps its value too (as retain_grad says).
  if (node_->retains_grad_ || !node_->value_.defined()) return;
  node_->dropped_shape_ = node_->value_.shape();
  node_->dropped_dtype_ = node_->value_.dtype();
  node_->value_ = Tensor();
}

const Tensor& Variable::value() const {
  const Tensor& value = checked(node_, "value")->value_;
  if (!value.defined())
    throw std::logic_error("Variable::value: the value of '" + node_->op_ + "' was dropped when "
                           "its last Variable went; keep a Variable to read it");
  return value;
}

Tensor& Variable::mutable_value() { return checked(node_, "mutable_value")->value_; }

const Tensor& Variable::grad() const { return checked(node_, "grad")->grad_; }

bool Variable::has_grad() const { return checked(node_, "has_grad")->grad_.defined(); }

Tensor& Variable::mutable_grad() { return checked(node_, "mutable_grad")->grad_; }

void Variable::set_grad(Tensor grad) {
  checked(node_, "set_grad");
  if (grad.defined() && (grad.shape() != node_->shape() || grad.dtype() != node_->dtype())) {
    throw std::invalid_argument(std::string("Variable::set_grad: a ") + dtype_name(grad.dtype()) +
                                " " + shape_to_string(grad.shape()) + " gradient for a " +
                                dtype_name(node_->dtype()) + " " +
                                shape_to_string(node_->shape()) + " value");
  }
  node_->grad_ = std::move(grad);
}

bool Variable::requires_grad() const { return checked(node_, "requires_grad")->requires_grad_; }

Variable& Variable::set_requires_grad(bool requires_grad) {
  checked(node_, "set_requires_grad");
  if (!is_leaf()) {
    throw std::invalid_argument("Variable::set_requires_grad: only a leaf can change it, but this "
                                "value was computed by '" + node_->op_ + "' (use detach())");
  }
  if (requires_grad && !is_floating(node_->dtype())) {
    throw std::invalid_argument(std::string("Variable::set_requires_grad: only floating-point "
                                            "values have gradients, got ") +
                                dtype_name(node_->dtype()) + " " +
                                shape_to_string(node_->shape()));
  }
  node_->requires_grad_ = requires_grad;
  return *this;
}

bool Variable::is_leaf() const { return checked(node_, "is_leaf")->is_leaf(); }

const std::string& Variable::op() const { return checked(node_, "op")->op(); }

void Variable::set_gradient_ready_hook(std::function<void()> hook) {
  checked(node_, "set_gradient_ready_hook");
  if (!is_leaf())
    throw std::invalid_argument("Variable::set_gradient_ready_hook: only a leaf has a final "
                                "gradient, but this value was computed by '" + node_->op_ + "'");
  node_->gradient_ready_ = std::move(hook);
}

void Variable::retain_grad() {
  checked(node_, "retain_grad");
  if (!node_->requires_grad_) {
    throw std::invalid_argument("Variable::retain_grad: the value does not require grad");
  }
  if (!is_leaf()) node_->retains_grad_ = true;  // leaves keep their grad anyway
}

void Variable::zero_grad() { checked(node_, "zero_grad")->grad_ = Tensor(); }

Variable Variable::detach() const { return Variable(value(), false); }

// ---- recording ---------------------------------------------------------------------------------

Variable record(const char* op, Tensor value, const std::vector<Variable>& inputs,
                BackwardFn backward) {
  bool any_input_requires_grad = false;
  for (const Variable& input : inputs) {
    if (!input.defined()) {
      throw std::invalid_argument(std::string(op) + ": an input Variable is undefined");
    }
    any_input_requires_grad = any_input_requires_grad || input.requires_grad();
  }
  // Nothing to remember: a constant, like every result under NoGradGuard.
  if (!grad_mode || !any_input_requires_grad) return Variable(std::move(value), false);

  std::vector<std::shared_ptr<Node>> input_nodes;
  input_nodes.reserve(inputs.size());
  for (const Variable& input : inputs) input_nodes.push_back(input.node());
  return Variable(std::make_shared<Node>(op, std::move(value), std::move(input_nodes),
                                         std::move(backward)));
}

NoGradGuard::NoGradGuard() : previous_(grad_mode) { grad_mode = false; }

NoGradGuard::~NoGradGuard() { grad_mode = previous_; }

bool grad_mode_enabled() { return grad_mode; }

}  // namespace atencion
