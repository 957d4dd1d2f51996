// nn/eval_scope.h — evaluation for the length of a scope: the module in eval mode (no dropout)
// and no graph recorded, its mode given back when the scope ends, by return or by exception.
// Lesson: docs/03-linear.md#modules
//
//   {
//     nn::EvalScope evaluating(model);   // model.eval(), NoGradGuard
//     ... forward passes ...
//   }                                    // model.train(was_training), grad mode as before
//
// What torch writes as `model.eval()` + `with torch.no_grad():` and then `model.train(mode)` by
// hand; here the destructor does the last step, so an exception inside cannot leave a model that
// was training in eval mode. A model already in eval mode, submodules included, is not written at all, so that several
// threads may evaluate one model at once (a server's model threads, after model.eval()).
#pragma once

#include "autograd/variable.h"
#include "nn/module.h"

namespace atencion::nn {

class EvalScope {
 public:
  explicit EvalScope(Module& module)
      : module_(module), was_training_(module.is_training()), changed_(module.any_training()) {
    if (changed_) module_.eval();
  }
  ~EvalScope() {
    if (changed_) module_.train(was_training_);
  }
  EvalScope(const EvalScope&) = delete;
  EvalScope& operator=(const EvalScope&) = delete;

 private:
  Module& module_;
  bool was_training_;
  bool changed_;  // some module of the tree was training: eval() was called
  NoGradGuard no_grad_;
};

}  // namespace atencion::nn
