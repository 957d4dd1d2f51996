// tests/consumer/main.cpp — builds against an installed atencion and checks one computed value.
// Exit code 0 when the sum is right, 1 otherwise.
#include <cmath>
#include <iostream>

#include "tensor/ops.h"
#include "tensor/tensor.h"

int main() {
  using atencion::Tensor;
  // [[1, 2, 3], [4, 5, 6]] summed over everything is 21; over dim 0 it is [5, 7, 9].
  const Tensor values = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  const double total = atencion::sum(values).item();
  const Tensor column_sums = atencion::sum(values, {0});
  std::cout << "sum of " << values << " = " << total << "\n";

  const bool ok = std::abs(total - 21.0) < 1e-6 && column_sums.to_vector().size() == 3 &&
                  std::abs(column_sums.at({2}) - 9.0) < 1e-6;
  std::cout << (ok ? "consumer: ok" : "consumer: WRONG RESULT") << "\n";
  return ok ? 0 : 1;
}
