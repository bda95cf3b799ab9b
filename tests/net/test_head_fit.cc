// Fitting conv heads on an fc net's tower (common/net/head_fit.h, derive_net
// --heads conv): the fitted heads come close to the teacher's outputs, the
// tower is left as it was, and the result is deterministic in the seed.
#include <catch2/catch.hpp>

#include "common/net/head_fit.h"

using namespace gz;

namespace {

// A teacher (a random conv-heads net, 7x7, so that the student's heads can
// match it exactly) and a conv student with other heads and the teacher's tower.
// (derive_net fits conv heads to an fc teacher; the fit is the same code.)
std::pair<PolicyValueNet, PolicyValueNet> TeacherAndStudent() {
  PolicyValueNet teacher(7, 8, 1, NetHeads::kConv);
  teacher->InitSeeded(3);
  PolicyValueNet student(7, 8, 1, NetHeads::kConv);
  student->InitSeeded(4);
  torch::NoGradGuard no_grad;
  // A random net's policy is nearly uniform: sharpen it, so there is something to learn.
  teacher->policy_out->weight.mul_(30.0);
  teacher->value_fc2->weight.mul_(10.0);
  auto from = teacher->named_parameters(true);
  for (auto& p : student->named_parameters(true))
    if (p.key().rfind("input_", 0) == 0 || p.key().rfind("tower.", 0) == 0) p.value().copy_(*from.find(p.key()));
  return {teacher, student};
}

HeadFitOptions Small(int steps) {
  HeadFitOptions o;
  o.positions = 1500;
  o.steps = steps;
  o.size = 7;
  o.seed = 5;
  return o;
}

}  // namespace

TEST_CASE("head fit: fitted conv heads follow the teacher; the tower is untouched") {
  auto [teacher, untrained] = TeacherAndStudent();
  const HeadFitReport before = FitConvHeads(teacher, untrained, Small(1));
  auto [teacher2, student] = TeacherAndStudent();
  const torch::Tensor tower_before = student->input_conv->weight.clone();
  const HeadFitReport after = FitConvHeads(teacher2, student, Small(400));
  INFO("1 step: " << before.Describe() << "; 400 steps: " << after.Describe());
  CHECK(after.positions == 1500);
  CHECK(after.policy_kl < 0.5 * before.policy_kl);
  CHECK(after.value_mse < before.value_mse);
  CHECK(after.top1_agree > before.top1_agree);
  CHECK(torch::equal(student->input_conv->weight, tower_before));
  CHECK(torch::equal(student->input_conv->weight, teacher2->input_conv->weight));

  auto [teacher3, again] = TeacherAndStudent();
  const HeadFitReport repeat = FitConvHeads(teacher3, again, Small(400));
  CHECK(repeat.policy_kl == after.policy_kl);
  CHECK(torch::equal(again->policy_out->weight, student->policy_out->weight));
}

TEST_CASE("head fit: an fc student is refused") {
  auto [teacher, student] = TeacherAndStudent();
  PolicyValueNet fc(7, 8, 1, NetHeads::kFc);
  CHECK_THROWS_WITH(FitConvHeads(teacher, fc, Small(1)), Catch::Contains("conv heads"));
}

TEST_CASE("head fit, whole: the tower is trained too and the student comes closer than with the heads alone") {
  // A student whose tower is not the teacher's: the heads alone cannot make up
  // for it, the whole fit can.
  auto make = [] {
    auto [teacher, student] = TeacherAndStudent();
    PolicyValueNet other(7, 8, 1, NetHeads::kConv);
    other->InitSeeded(9);
    torch::NoGradGuard no_grad;
    auto from = other->named_parameters(true);
    for (auto& p : student->named_parameters(true))
      if (p.key().rfind("input_", 0) == 0 || p.key().rfind("tower.", 0) == 0) p.value().copy_(*from.find(p.key()));
    return std::make_pair(teacher, student);
  };
  auto [t1, heads_only] = make();
  const HeadFitReport heads = FitConvHeads(t1, heads_only, Small(400));
  auto [t2, whole] = make();
  const torch::Tensor stem_before = whole->input_conv->weight.clone();
  HeadFitOptions o = Small(400);
  o.whole = true;
  const HeadFitReport all = FitConvHeads(t2, whole, o);
  INFO("heads only: " << heads.Describe() << "; whole: " << all.Describe());
  CHECK_FALSE(torch::equal(whole->input_conv->weight, stem_before));
  CHECK(all.policy_kl < heads.policy_kl);
}
