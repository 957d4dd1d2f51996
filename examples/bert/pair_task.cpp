// examples/bert/pair_task.cpp — see pair_task.h. Lesson: docs/18-finetuning.md#the-task
#include "bert/pair_task.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "base/data/shuffle.h"
#include "base/data/utf8.h"
#include "base/io/file_checks.h"

namespace atencion::examples::bert {
namespace {

std::vector<std::string> fields_of(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    fields.emplace_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

LabelledInput parse_line(std::string_view line, const std::string& where) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::vector<std::string> fields = fields_of(line);
  if (fields.size() < 2 || fields.size() > 3)
    throw std::invalid_argument(where + ": " + std::to_string(fields.size()) +
                                " field(s), not label<TAB>text[<TAB>text]");
  for (const std::string& field : fields)
    if (field.empty()) throw std::invalid_argument(where + ": an empty field");
  return {fields[0], fields[1], fields.size() == 3 ? fields[2] : ""};
}

std::string lowered(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// For each pair of `split` (by position), a partner of about its Spanish length whose English
// and Spanish both differ from its own: a neighbour 1 to 8 places on in length order.
std::vector<size_t> partners(const std::vector<SentencePair>& split, SplitMix64& generator) {
  std::vector<size_t> by_length(split.size());
  for (size_t i = 0; i < split.size(); ++i) by_length[i] = i;
  std::stable_sort(by_length.begin(), by_length.end(), [&](size_t x, size_t y) {
    return split[x].source.size() < split[y].source.size();
  });
  std::vector<size_t> partner(split.size());
  for (size_t place = 0; place < by_length.size(); ++place) {
    const SentencePair& mine = split[by_length[place]];
    // 1 to 8 places on, never a whole turn (a split of fewer than 9 pairs).
    size_t step = 1 + generator.below(std::min<size_t>(8, by_length.size() - 1));
    while (true) {
      const size_t other = by_length[(place + step) % by_length.size()];
      if (lowered(split[other].target) != lowered(mine.target) &&
          lowered(split[other].source) != lowered(mine.source)) {
        partner[by_length[place]] = other;
        break;
      }
      if (++step > by_length.size())
        throw std::invalid_argument("translation_task: no other pair to draw a false one from");
    }
  }
  return partner;
}

std::vector<LabelledInput> labelled(const std::vector<SentencePair>& split, SplitMix64& generator) {
  const std::vector<size_t> partner = partners(split, generator);
  std::vector<LabelledInput> inputs;
  for (size_t i = 0; i < split.size(); ++i) {
    inputs.push_back({"yes", split[i].target, split[i].source});
    inputs.push_back({"no", split[i].target, split[partner[i]].source});
  }
  return inputs;
}

}  // namespace

std::vector<LabelledInput> read_labelled(const std::string& path) {
  const std::string text = read_file(path);
  if (const auto bad = find_invalid_utf8(text))
    throw std::invalid_argument(path + ": invalid UTF-8 at byte " + std::to_string(*bad));
  std::vector<LabelledInput> inputs;
  size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0, line = 1;
  for (; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view content = std::string_view(text).substr(start, end - start);
    if (content.find_first_not_of(" \r") != std::string_view::npos)
      inputs.push_back(parse_line(content, path + ":" + std::to_string(line)));
    start = end + 1;
  }
  if (inputs.empty()) throw std::invalid_argument(path + ": no labelled line in it");
  return inputs;
}

std::string format_labelled(const std::vector<LabelledInput>& inputs) {
  std::string text;
  for (const LabelledInput& input : inputs)
    text += input.label + "\t" + input.a + (input.b.empty() ? "" : "\t" + input.b) + "\n";
  return text;
}

std::vector<std::string> label_set(const std::vector<LabelledInput>& inputs) {
  std::set<std::string> labels;
  for (const LabelledInput& input : inputs) labels.insert(input.label);
  return {labels.begin(), labels.end()};
}

PairTask translation_task(const std::vector<SentencePair>& pairs, const PairTaskOptions& options) {
  const auto wanted = static_cast<size_t>(options.train_pairs + options.held_out_pairs);
  if (options.held_out_pairs < 2 || options.train_pairs < 2 || pairs.size() < wanted)
    throw std::invalid_argument("translation_task: " + std::to_string(pairs.size()) +
                                " pairs, too few for " + std::to_string(options.train_pairs) +
                                " training and " + std::to_string(options.held_out_pairs) +
                                " held-out pairs (2 each at least)");
  std::vector<SentencePair> chosen = pairs;
  SplitMix64 generator(options.seed);
  shuffle(chosen, generator);
  const auto held = static_cast<long>(options.held_out_pairs);
  const std::vector<SentencePair> held_out(chosen.begin(), chosen.begin() + held);
  const std::vector<SentencePair> train(chosen.begin() + held,
                                        chosen.begin() + static_cast<long>(wanted));
  PairTask task{labelled(train, generator), labelled(held_out, generator), {}};
  for (const SentencePair& pair : train)
    task.pretraining_text.push_back(pair.target + " " + pair.source);
  return task;
}

}  // namespace atencion::examples::bert
