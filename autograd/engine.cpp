// autograd/engine.cpp — the backward pass: reverse topological order, then the chain rule.
// Lesson: docs/02-autograd.md#the-backward-pass
//
//  1. Order: a depth-first walk from the output, written with an explicit stack (a chain of
//     100000 ops would overflow the call stack of a recursive walk), lists each node after all
//     of its inputs (post-order). Reversed, every node comes before the nodes it was made from,
//     so when we reach a node, every op that used it has already sent its gradient.
//  2. Chain rule: for each node in that order, its backward closure turns dL/d(node) into one
//     dL/d(input) per input, and each is ADDED into that input's pending gradient.
//  3. Leaves (and non-leaves that asked with retain_grad) add their total into .grad; a leaf's
//     gradient-ready hook, if it has one, is called then (its .grad is final for this pass).
//  4. Unless retain_graph, each closure is dropped once used: the tensors it saved are freed.
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "autograd/variable.h"

namespace atencion {

namespace {

std::string op_name(const Node& node) { return node.is_leaf() ? "leaf" : node.op(); }

// Nodes that need a gradient, each listed after all of its inputs (depth-first post-order).
// The list holds each node alive: releasing a node's inputs during the pass must not free a
// node that is still to be visited.
std::vector<std::shared_ptr<Node>> postorder_from(const std::shared_ptr<Node>& root) {
  std::vector<std::shared_ptr<Node>> order;
  std::unordered_set<Node*> visited{root.get()};
  // (node, index of the next input to visit): the call stack of a recursive walk, made explicit.
  std::vector<std::pair<std::shared_ptr<Node>, std::size_t>> stack{{root, 0}};
  while (!stack.empty()) {
    auto& [node, next_input] = stack.back();
    if (next_input < node->inputs().size()) {
      std::shared_ptr<Node> input = node->inputs()[next_input++];
      if (input->requires_grad() && visited.insert(input.get()).second) {
        stack.emplace_back(std::move(input), 0);
      }
    } else {
      order.push_back(std::move(node));
      stack.pop_back();
    }
  }
  return order;
}

// gradient arriving at `input` from the backward of `producer` must match the input's value
// (its shape and dtype, kept when the value itself was dropped: autograd/variable.h).
void check_gradient(const Node& producer, std::size_t input_index, const Node& input,
                    const Tensor& gradient) {
  const Shape& shape = input.shape();
  const DType dtype = input.dtype();
  if (gradient.shape() != shape) {
    throw std::invalid_argument(
        "backward: '" + op_name(producer) + "' produced a gradient of shape " +
        shape_to_string(gradient.shape()) + " for its input " + std::to_string(input_index) +
        " of shape " + shape_to_string(shape));
  }
  if (gradient.dtype() != dtype) {
    throw std::invalid_argument(
        "backward: '" + op_name(producer) + "' produced a " + dtype_name(gradient.dtype()) +
        " gradient for its input " + std::to_string(input_index) + " of dtype " +
        dtype_name(dtype));
  }
}

// total += contribution. The first contribution is kept as it is (it may be a view shared with
// another node's gradient, or a tensor an op saved for its backward). A later one is added into
// total in place when nothing else holds total's storage (no other gradient, view or saved
// tensor can see the write: the engine is the only holder), else into a new sum; both add
// total + contribution element by element, so the bits are the same either way.
void accumulate(Tensor& total, const Tensor& contribution) {
  if (!total.defined())
    total = contribution;
  else if (total.storage().use_count() == 1 && total.is_contiguous())
    add_(total, contribution);
  else
    total = add(total, contribution);
}

// .grad must never alias a gradient that another node also received (add's backward hands the
// same g to both inputs), and must be safe to scale in place (a stride-0 expanded view is not).
// A contiguous gradient whose storage nothing else holds is kept as it is; anything else is
// copied. (An embedding's gradient, fresh from index_add, is not copied.)
Tensor owned(Tensor gradient) {
  const bool sole_owner = gradient.storage().use_count() == 1 && gradient.is_contiguous();
  return sole_owner ? gradient : gradient.clone();
}

}  // namespace

void detail::run_backward(const std::shared_ptr<Node>& root, Tensor grad_output,
                          bool retain_graph) {
  std::unordered_map<Node*, Tensor> pending;  // dL/d(node), summed over the ops that used node
  pending[root.get()] = std::move(grad_output);
  const std::vector<std::shared_ptr<Node>> order = postorder_from(root);

  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = it->get();
    auto found = pending.find(node);
    if (found == pending.end()) continue;  // no path from the output carried a gradient here
    Tensor gradient = std::move(found->second);
    pending.erase(found);

    const bool is_leaf = node->is_leaf();
    if (is_leaf || node->retains_grad_) {
      // a leaf is done with its gradient; a non-leaf still passes it on (so it is copied)
      Tensor keep = is_leaf ? std::move(gradient) : gradient;
      node->grad_ = node->grad_.defined() ? add(node->grad_, keep) : owned(std::move(keep));
    }
    if (is_leaf) {
      if (node->gradient_ready_) node->gradient_ready_();
      continue;
    }

    if (node->released_) {
      throw std::runtime_error(
          "backward: the graph through '" + node->op_ + "' was already released by an earlier "
          "backward (its saved tensors are freed); call the first backward with "
          "retain_graph=true to go through it again");
    }
    Grads input_grads = node->backward_(gradient);
    if (input_grads.size() != node->inputs_.size()) {
      throw std::logic_error("backward: '" + node->op_ + "' returned " +
                             std::to_string(input_grads.size()) + " gradients for " +
                             std::to_string(node->inputs_.size()) + " inputs");
    }
    for (std::size_t i = 0; i < input_grads.size(); ++i) {
      Node* input = node->inputs_[i].get();
      if (!input->requires_grad() || !input_grads[i].defined()) continue;
      check_gradient(*node, i, *input, input_grads[i]);
      accumulate(pending[input], input_grads[i]);
    }
    if (!retain_graph) {
      // Free what backward no longer needs: the closure's saved tensors and the links to the
      // inputs. The node stays, marked, so that another backward through it can say why it fails.
      node->backward_ = nullptr;
      node->inputs_.clear();
      node->released_ = true;
    }
  }
}

void Variable::backward(bool retain_graph) const {
  const Tensor& output = value();
  if (output.numel() != 1) {
    throw std::invalid_argument(
        "backward: grad_output can be omitted only for a one-element output (dL/dL = 1), but "
        "the output has shape " + shape_to_string(output.shape()) +
        "; pass grad_output, or reduce the output to a scalar first");
  }
  backward(Tensor::ones(output.shape(), output.dtype()), retain_graph);
}

void Variable::backward(const Tensor& grad_output, bool retain_graph) const {
  const Tensor& output = value();
  if (!node_->requires_grad()) {
    throw std::invalid_argument(
        "backward: the output does not require grad (no input requires grad, or it was "
        "computed inside a NoGradGuard)");
  }
  if (!grad_output.defined() || grad_output.shape() != output.shape() ||
      grad_output.dtype() != output.dtype()) {
    throw std::invalid_argument(
        "backward: grad_output must match the output: expected " +
        std::string(dtype_name(output.dtype())) + " " + shape_to_string(output.shape()) +
        ", got " +
        (grad_output.defined() ? std::string(dtype_name(grad_output.dtype())) + " " +
                                     shape_to_string(grad_output.shape())
                               : std::string("an undefined tensor")));
  }
  detail::run_backward(node_, grad_output, retain_graph);
}

}  // namespace atencion
