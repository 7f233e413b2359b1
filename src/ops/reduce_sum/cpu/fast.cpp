#include "ops/reduce_sum/cpu/fast.h"

#include "kernels/cpu/reduce_engine.h"

namespace openaclnn::reduce_sum::cpu {
namespace {

class FastPlan : public Plan {
 public:
  FastPlan(const Problem& p, WorkspaceBooking* ws)
      : p_(p), engine_(p, openaclnn::cpu::PlanningTarget(), ws) {}

  Status Run(const Bindings& bindings, void* workspace) const override {
    const void* in = p_.in.Numel() == 0 ? nullptr : p_.in.First(bindings.inputs[kSelf]);
    engine_.Run(in, p_.out.First(bindings.outputs[kOut]), workspace);
    return Status::Ok();
  }

 private:
  Problem p_;
  openaclnn::cpu::ReduceSumEngine engine_;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<FastPlan>(problem, workspace);
}

}  // namespace openaclnn::reduce_sum::cpu
