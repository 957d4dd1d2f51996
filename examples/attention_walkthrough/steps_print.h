// examples/attention_walkthrough/steps_print.h — how the walk-through prints a step: its name,
// the shape read from the tensor, a note, and the top-left corner of its values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace walkthrough {

using Tokens = std::vector<std::string>;

// "(rows × columns)", the notebooks' way of writing a matrix's size.
std::string dims(int64_t rows, int64_t columns);

// `text` padded with spaces to `width` characters (UTF-8: ᵀ and √ are one character each).
std::string pad(const std::string& text, std::size_t width);

// "  name            [1, 8, 12, 96]   note" and the top-left corner of the last two dims.
void print_step(const std::string& name, const atencion::Tensor& value,
                const std::string& note = "");

// A [m_q, m_k] weight matrix as a table of percentages with the tokens as labels.
void print_weights(const atencion::Tensor& weights, const Tokens& rows, const Tokens& columns);

// "\n== title ==".
void heading(const std::string& title);

}  // namespace walkthrough
