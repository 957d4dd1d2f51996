// tests/nn/test_module.cpp — nn/module.cpp: names, counts, modes, dtype, summary, save/load;
// nn/eval_scope.h.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "nn/eval_scope.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "tensor/safetensors.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

namespace {

// Two Linear layers and a parameter of its own, to see the dotted names of a hierarchy.
class TwoLayers : public Module {
 public:
  explicit TwoLayers(Generator& generator, int64_t hidden = 3) {
    first = register_module("first", std::make_shared<Linear>(4, hidden, generator));
    second = register_module("second", std::make_shared<Linear>(hidden, 2, false, generator));
    gain = register_parameter("gain", Tensor::ones({2}));
  }
  std::string type_name() const override { return "TwoLayers()"; }
  std::shared_ptr<Linear> first, second;
  Variable gain;
};

std::string temporary_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("atencion_test_module_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST_CASE("Module: dotted names in registration order, counts", "[module]") {
  Generator generator(1);
  TwoLayers model(generator);
  auto named = model.named_parameters();
  REQUIRE(named.size() == 4);
  CHECK(named[0].first == "gain");
  CHECK(named[1].first == "first.weight");
  CHECK(named[2].first == "first.bias");
  CHECK(named[3].first == "second.weight");
  CHECK(named[1].second.shape() == Shape{3, 4});
  // 2 + (3·4 + 3) + 2·3 = 23 scalars
  CHECK(model.parameter_count() == 23);
  CHECK(model.parameters().size() == 4);
  for (const auto& parameter : model.parameters()) CHECK(parameter.requires_grad());
  // The handle the layer keeps and the one named_parameters gives are the same node.
  CHECK(named[1].second.node() == model.first->weight.node());
}

TEST_CASE("Module: named_modules lists every submodule below, depth first", "[module]") {
  class Outer : public Module {
   public:
    explicit Outer(Generator& generator) {
      inner = register_module("inner", std::make_shared<TwoLayers>(generator));
      head = register_module("head", std::make_shared<Linear>(2, 1, generator));
    }
    std::string type_name() const override { return "Outer()"; }
    std::shared_ptr<TwoLayers> inner;
    std::shared_ptr<Linear> head;
  };
  Generator generator(1);
  Outer model(generator);
  const auto modules = model.named_modules();
  REQUIRE(modules.size() == 4);
  CHECK(modules[0].first == "inner");
  CHECK(modules[1].first == "inner.first");
  CHECK(modules[2].first == "inner.second");
  CHECK(modules[3].first == "head");
  CHECK(modules[1].second == model.inner->first);
  CHECK(modules[3].second == model.head);
}

TEST_CASE("Module: register_parameter refuses bad and duplicate names", "[module]") {
  class Bad : public Module {
   public:
    std::string type_name() const override { return "Bad()"; }
    void add(const std::string& name) { register_parameter(name, Tensor::zeros({1})); }
  };
  Bad bad;
  bad.add("w");
  REQUIRE_THROWS_WITH(bad.add("w"), Contains("'w' is already registered"));
  REQUIRE_THROWS_WITH(bad.add("a.b"), Contains("contain no '.'"));
  REQUIRE_THROWS_WITH(bad.add(""), Contains("non-empty"));
}

TEST_CASE("Module: train/eval reach every submodule", "[module]") {
  Generator generator(2);
  TwoLayers model(generator);
  CHECK(model.is_training());
  model.eval();
  CHECK_FALSE(model.is_training());
  CHECK_FALSE(model.first->is_training());
  CHECK_FALSE(model.second->is_training());
  model.train();
  CHECK(model.second->is_training());
}

TEST_CASE("Module: zero_grad drops every gradient", "[module]") {
  Generator generator(3);
  TwoLayers model(generator);
  Variable x(Tensor::ones({1, 4}));
  Variable y = mul((*model.second)((*model.first)(x)), model.gain);
  sum(y).backward();
  for (const auto& parameter : model.parameters()) CHECK(parameter.has_grad());
  model.zero_grad();
  for (const auto& parameter : model.parameters()) CHECK_FALSE(parameter.has_grad());
}

TEST_CASE("Module: to(Float64) converts values in place for every handle", "[module]") {
  Generator generator(4);
  TwoLayers model(generator);
  const double w00 = model.first->weight.value().at({0, 0});
  model.to(DType::Float64);
  for (const auto& parameter : model.parameters()) {
    CHECK(parameter.dtype() == DType::Float64);
    CHECK(parameter.requires_grad());
  }
  CHECK(model.first->weight.dtype() == DType::Float64);  // the layer's own handle sees it
  CHECK(model.first->weight.value().at({0, 0}) == w00);  // float32 → float64 is exact
  REQUIRE_THROWS_WITH(model.to(DType::Int64), Contains("float32 or float64"));
}

TEST_CASE("Module: summary lists the tree with parameter counts", "[module]") {
  Generator generator(5);
  TwoLayers model(generator);
  const std::string text = model.summary();
  CHECK_THAT(text, Contains("TwoLayers()"));
  CHECK_THAT(text, Contains("  first: Linear(in=4, out=3, bias=true)"));
  CHECK_THAT(text, Contains("  second: Linear(in=3, out=2, bias=false)"));
  CHECK_THAT(text, Contains("15\n"));  // first: 12 + 3
  CHECK_THAT(text, Contains("total parameters"));
  CHECK_THAT(text, Contains("23\n"));
}

TEST_CASE("Module: state_dict round trip and save/load through a file", "[module]") {
  Generator generator_a(6), generator_b(7);
  TwoLayers a(generator_a), b(generator_b);
  REQUIRE_FALSE(allclose(a.first->weight.value(), b.first->weight.value()));

  b.load_state_dict(a.state_dict());
  for (std::size_t i = 0; i < a.parameters().size(); ++i) {
    CHECK(allclose(a.parameters()[i].value(), b.parameters()[i].value(), 0, 0));
  }
  // A copy, not shared storage: changing a afterwards leaves b alone.
  a.first->weight.mutable_value().fill_(0.5);
  CHECK(b.first->weight.value().at({0, 0}) != 0.5);

  const std::string path = temporary_path("roundtrip.safetensors");
  a.save(path);
  TwoLayers c(generator_b);
  c.load(path);
  CHECK(c.first->weight.value().at({2, 3}) == 0.5);
  CHECK(allclose(c.second->weight.value(), a.second->weight.value(), 0, 0));
  // The file is plain safetensors: the names are the dotted parameter names.
  auto tensors = load_safetensors(path);
  CHECK(tensors.size() == 4);
  CHECK(tensors.count("first.bias") == 1);
  std::remove(path.c_str());
}

TEST_CASE("Module: load_state_dict names the parameter and both shapes or dtypes", "[module]") {
  Generator generator(8);
  TwoLayers model(generator);
  auto state = model.state_dict();

  SECTION("shape") {
    TwoLayers wider(generator, /*hidden=*/5);
    REQUIRE_THROWS_WITH(wider.load_state_dict(state),
                        Contains("'first.weight' has shape [5, 4] in the module but [3, 4]"));
  }
  SECTION("dtype") {
    state[1].second = state[1].second.to(DType::Float64);
    REQUIRE_THROWS_WITH(model.load_state_dict(state),
                        Contains("'first.weight' is float32 in the module but float64"));
  }
  SECTION("missing") {
    state.pop_back();
    REQUIRE_THROWS_WITH(model.load_state_dict(state),
                        Contains("missing parameter 'second.weight' of shape [2, 3]"));
  }
  SECTION("unexpected") {
    state.emplace_back("third.weight", Tensor::zeros({1}));
    REQUIRE_THROWS_WITH(model.load_state_dict(state),
                        Contains("unexpected parameter 'third.weight'"));
  }
  SECTION("a failed load changes nothing") {
    const double before = model.gain.value().at({0});
    state[0].second = Tensor::full({2}, 9.0);
    state.emplace_back("third.weight", Tensor::zeros({1}));
    REQUIRE_THROWS(model.load_state_dict(state));
    CHECK(model.gain.value().at({0}) == before);
  }
  SECTION("from a file, the message names the file") {
    const std::string path = temporary_path("narrow.safetensors");
    TwoLayers wider(generator, /*hidden=*/5);
    wider.save(path);
    REQUIRE_THROWS_WITH(model.load(path), Contains(path) && Contains("'first.weight'") &&
                                              Contains("[3, 4] in the module but [5, 4]"));
    std::remove(path.c_str());
  }
}

TEST_CASE("EvalScope: eval mode without a graph, the mode given back even by an exception",
          "[module]") {
  Generator generator(1);
  TwoLayers model(generator);
  REQUIRE(model.is_training());
  REQUIRE(grad_mode_enabled());
  try {
    EvalScope evaluating(model);
    CHECK_FALSE(model.is_training());
    CHECK_FALSE(model.first->is_training());
    CHECK_FALSE(grad_mode_enabled());
    throw std::runtime_error("a forward that fails");
  } catch (const std::runtime_error&) {
  }
  CHECK(model.is_training());
  CHECK(model.second->is_training());
  CHECK(grad_mode_enabled());
  model.eval();  // a model in eval mode stays there
  { EvalScope evaluating(model); }
  CHECK_FALSE(model.is_training());
  model.second->train();  // one submodule training: the scope evaluates all, then as before
  CHECK(model.any_training());
  {
    EvalScope evaluating(model);
    CHECK_FALSE(model.any_training());
  }
  CHECK_FALSE(model.any_training());
}
