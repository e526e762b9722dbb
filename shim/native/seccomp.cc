#include "shim/native/seccomp.h"

#include <seccomp.h>

#include <cstring>

#include <map>
#include <memory>

namespace sandshim::native {
namespace {

Result<uint32_t> Action(const std::string& name, std::optional<int> errno_ret) {
  if (name == "SCMP_ACT_ALLOW") return SCMP_ACT_ALLOW;
  if (name == "SCMP_ACT_ERRNO") return SCMP_ACT_ERRNO(static_cast<uint16_t>(errno_ret.value_or(EPERM)));
  if (name == "SCMP_ACT_KILL" || name == "SCMP_ACT_KILL_THREAD") return SCMP_ACT_KILL_THREAD;
  if (name == "SCMP_ACT_KILL_PROCESS") return SCMP_ACT_KILL_PROCESS;
  if (name == "SCMP_ACT_TRAP") return SCMP_ACT_TRAP;
  if (name == "SCMP_ACT_TRACE") return SCMP_ACT_TRACE(static_cast<uint16_t>(errno_ret.value_or(EPERM)));
  if (name == "SCMP_ACT_LOG") return SCMP_ACT_LOG;
  return MakeError("seccomp: unsupported action " + name, EINVAL);
}

Result<scmp_compare> Op(const std::string& op) {
  static const std::map<std::string, scmp_compare> kOps = {
      {"SCMP_CMP_NE", SCMP_CMP_NE}, {"SCMP_CMP_LT", SCMP_CMP_LT}, {"SCMP_CMP_LE", SCMP_CMP_LE},
      {"SCMP_CMP_EQ", SCMP_CMP_EQ}, {"SCMP_CMP_GE", SCMP_CMP_GE}, {"SCMP_CMP_GT", SCMP_CMP_GT},
      {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ}};
  auto it = kOps.find(op);
  if (it == kOps.end()) return MakeError("seccomp: unknown operator " + op, EINVAL);
  return it->second;
}

Result<uint32_t> Arch(const std::string& name) {
  static const std::map<std::string, uint32_t> kArchs = {
      {"SCMP_ARCH_X86_64", SCMP_ARCH_X86_64}, {"SCMP_ARCH_X86", SCMP_ARCH_X86}, {"SCMP_ARCH_X32", SCMP_ARCH_X32},
      {"SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64}, {"SCMP_ARCH_ARM", SCMP_ARCH_ARM}};
  auto it = kArchs.find(name);
  if (it == kArchs.end()) return 0u;  // another machine's arch: nothing to add here
  return it->second;
}

Status AddRule(scmp_filter_ctx ctx, const SeccompRule& r, uint32_t action) {
  std::vector<scmp_arg_cmp> cmps;
  for (const auto& a : r.args) {
    scmp_compare op = TRY(Op(a.op));
    cmps.push_back(scmp_arg_cmp{a.index, op, a.value, a.value_two});
  }
  // libseccomp refuses two conditions on one argument in a rule; like runc, such a rule
  // becomes one rule per condition.
  bool same_index = false;
  for (size_t i = 0; i < cmps.size(); ++i)
    for (size_t j = i + 1; j < cmps.size(); ++j) same_index |= cmps[i].arg == cmps[j].arg;
  for (const auto& name : r.names) {
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) continue;  // unknown to this libseccomp/arch: as runc does, skip
    int rc;
    if (same_index) {
      for (const auto& c : cmps) {
        rc = seccomp_rule_add_exact_array(ctx, action, nr, 1, &c);
        if (rc != 0 && rc != -EEXIST) rc = seccomp_rule_add_array(ctx, action, nr, 1, &c);
        if (rc != 0 && rc != -EEXIST) return MakeError("seccomp: rule for " + name + ": " + std::strerror(-rc), -rc);
      }
      continue;
    }
    rc = seccomp_rule_add_array(ctx, action, nr, static_cast<unsigned>(cmps.size()), cmps.data());
    // A rule whose action equals the default is refused as redundant: harmless.
    if (rc != 0 && rc != -EACCES && rc != -EEXIST) return MakeError("seccomp: rule for " + name + ": " + std::strerror(-rc), -rc);
  }
  return Ok();
}

}  // namespace

Status LoadSeccomp(const SeccompPlan& plan) {
  if (!plan.enabled) return Ok();
  uint32_t def = TRY(Action(plan.default_action, plan.default_errno));
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> ctx(seccomp_init(def), seccomp_release);
  if (!ctx) return MakeError("seccomp_init failed", EINVAL);
  // no_new_privs is the spec's business (process.noNewPrivileges), not libseccomp's.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);
  for (const auto& a : plan.architectures) {
    uint32_t arch = TRY(Arch(a));
    if (arch && seccomp_arch_add(ctx.get(), arch) != 0 && seccomp_arch_exist(ctx.get(), arch) != 0) continue;
  }
  for (const auto& r : plan.rules) {
    uint32_t action = TRY(Action(r.action, r.errno_ret));
    if (action == def) continue;
    TRY(AddRule(ctx.get(), r, action));
  }
  int rc = seccomp_load(ctx.get());
  if (rc != 0) return MakeError(std::string("seccomp_load: ") + std::strerror(-rc), -rc);
  return Ok();
}

}  // namespace sandshim::native
