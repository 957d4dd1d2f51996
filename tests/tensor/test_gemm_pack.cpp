// tests/tensor/test_gemm_pack.cpp — pack_a and pack_b (tensor/gemm_pack.cpp) against the panel
// layout they promise in tensor/gemm_pack.h, value for value: every panel width, both
// transposes, partial panels, step counts that are not a multiple of 4, block offsets, and row
// strides both under and over a page (the two loop orders for lanes side by side).
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/gemm_pack.h"

using atencion::GemmShape;
namespace detail = atencion::gemm_detail;

namespace {

// A stored matrix whose every value is distinct: value(r, c) = r * 10007 + c + 1 (exact in
// float for the sizes here), so a misplaced value cannot go unnoticed.
template <typename T>
std::vector<T> numbered(int64_t rows, int64_t ld) {
  std::vector<T> values(static_cast<std::size_t>(rows * ld));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ld; ++c) values[r * ld + c] = T(r * 10007 + c + 1);
  return values;
}

// Packs rows [row0, row0 + rows) x steps [p0, p0 + kc) of op(A) (or steps x columns of op(B),
// `lanes` of them) and counts the places where the panels differ from their definition.
template <typename T>
int64_t count_misplaced(bool pack_a_side, bool trans, int width, int64_t lanes, int64_t kc,
                        int64_t ld) {
  const int64_t lane0 = 3, p0 = 5;
  const int64_t stored_rows = 300;  // enough for lane0 + lanes and p0 + kc either way
  const std::vector<T> stored = numbered<T>(stored_rows, ld);
  GemmShape s{};
  s.trans_a = s.trans_b = trans;
  s.lda = s.ldb = ld;
  const int64_t panels = (lanes + width - 1) / width;
  std::vector<T> packed(static_cast<std::size_t>(panels * width * kc), T(-1));
  if (pack_a_side)
    detail::pack_a(s, stored.data(), lane0, lanes, p0, kc, width, packed.data());
  else
    detail::pack_b(s, stored.data(), p0, kc, lane0, lanes, width, packed.data());
  // op(A)[i, p] = trans ? A[p, i] : A[i, p];  op(B)[p, j] = trans ? B[j, p] : B[p, j].
  const bool lanes_are_rows = pack_a_side != trans;
  int64_t misplaced = 0;
  for (int64_t q = 0; q < panels; ++q)
    for (int64_t p = 0; p < kc; ++p)
      for (int lane = 0; lane < width; ++lane) {
        const int64_t i = q * width + lane;
        const T expected = i >= lanes ? T(0)
                           : lanes_are_rows ? stored[(lane0 + i) * ld + p0 + p]
                                            : stored[(p0 + p) * ld + lane0 + i];
        misplaced += packed[q * width * kc + p * width + lane] != expected;
      }
  return misplaced;
}

}  // namespace

TEMPLATE_TEST_CASE("pack_a and pack_b lay out every panel width as gemm_pack.h says",
                   "[gemm][pack]", float, double) {
  for (int width : {4, 6, 8, 14, 16, 32})
    for (bool a_side : {true, false})
      for (bool trans : {false, true})
        for (int64_t lanes : {1, width - 1, width, 2 * width + 3, 70})
          for (int64_t kc : {1, 3, 4, 9, 64})
            for (int64_t ld : {int64_t(120), int64_t(4096 / sizeof(TestType) + 8)}) {
              INFO("width " << width << (a_side ? " A" : " B") << (trans ? "ᵀ" : "") << " lanes "
                            << lanes << " kc " << kc << " ld " << ld);
              REQUIRE(count_misplaced<TestType>(a_side, trans, width, lanes, kc, ld) == 0);
            }
}
