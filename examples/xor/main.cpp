// examples/xor/main.cpp — the smallest thing the autograd can learn that a straight line cannot:
// XOR. Lesson: docs/02-autograd.md
//
//   input x (4 x 2)  →  hidden = tanh(x · W1 + b1)  (4 x 8)  →  output = hidden · W2 + b2  (4 x 1)
//   loss = mean((output − target)²)
//
// One training step is the cycle every later example repeats:
//   1. forward:  the ops record a graph from the parameters to the loss;
//   2. backward: loss.backward() walks that graph in reverse and adds dL/dp into p.grad;
//   3. update:   p ← p − learning_rate · dL/dp under NoGradGuard (the update is not part of
//                the graph), then zero_grad() so the next backward starts from nothing.
//
// Prints the loss every 100 steps and the final predictions. Exits 1 if the final loss is not
// below 0.01, so CTest can check that the network learned.
#include <cstdio>
#include <vector>

#include "autograd/ops.h"
#include "autograd/variable.h"
#include "tensor/random.h"

using namespace atencion;

// One line per case: its two inputs, the answer, and what the network says.
void print_predictions(const Tensor& inputs, const Tensor& targets, const Tensor& predictions) {
  std::printf("\n x1 x2 | target | prediction\n");
  for (int64_t row = 0; row < 4; ++row) {
    std::printf("  %g  %g |   %g    | %.3f\n", inputs.at({row, 0}), inputs.at({row, 1}),
                targets.at({row, 0}), predictions.at({row, 0}));
  }
}

int main() {
  // The four XOR cases and their answers: 1 when exactly one input is 1.
  const Variable inputs(Tensor::from({{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  const Variable targets(Tensor::from({{0}, {1}, {1}, {0}}));

  // Small random weights from a fixed seed: the same run on every machine.
  const int hidden_size = 8;
  Generator generator(42);
  Variable w1(mul(randn({2, hidden_size}, generator), 0.5), /*requires_grad=*/true);
  Variable b1(Tensor::zeros({hidden_size}), true);
  Variable w2(mul(randn({hidden_size, 1}, generator), 0.5), true);
  Variable b2(Tensor::zeros({1}), true);
  std::vector<Variable> parameters = {w1, b1, w2, b2};

  // The network: b1 and b2 broadcast over the rows.
  auto network = [&](const Variable& x) {
    Variable hidden = tanh(matmul(x, w1) + b1);
    return matmul(hidden, w2) + b2;
  };

  const double learning_rate = 0.05;
  const int steps = 1000;
  double final_loss = 0;
  for (int step = 1; step <= steps; ++step) {
    // 1. forward
    Variable output = network(inputs);
    Variable error = output - targets;
    Variable loss = mean(error * error);

    // 2. backward: dL/dp for every parameter p
    loss.backward();

    // 3. update: p ← p − learning_rate · dL/dp, recorded nowhere
    {
      NoGradGuard no_grad;
      for (Variable& parameter : parameters) {
        add_(parameter.mutable_value(), mul(parameter.grad(), -learning_rate));
        parameter.zero_grad();
      }
    }

    final_loss = loss.item();
    if (step == 1 || step % 100 == 0) std::printf("step %4d  loss %.6f\n", step, final_loss);
  }

  // The trained network on the four cases.
  NoGradGuard no_grad;
  print_predictions(inputs.value(), targets.value(), network(inputs).value());

  const double threshold = 0.01;
  if (final_loss >= threshold) {
    std::printf("\nxor: final loss %.6f is not below %g: the network did not learn\n", final_loss,
                threshold);
    return 1;
  }
  std::printf("\nxor: learned (final loss %.6f < %g)\n", final_loss, threshold);
  return 0;
}
