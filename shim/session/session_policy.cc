// Sessions' side of the command policy (#19): judge an exec before anything runs, keep the
// approvals under the session lock, and put every decision in the audit trail.
#include "shim/session/store/audit.h"
#include "shim/session/exec/exec_policy.h"
#include "shim/policy/exec_judge.h"
#include "shim/session/sessions.h"
#include "shim/session/exec/shell_state.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;


Result<ExecGate> Sessions::Gate(const SessionRecord& r, const SessionExec& e) {
  auto policy = TRY_CTX(LoadExecPolicy(Dir(r.id)), "session " + r.id + ": policy");
  if (!policy) return ExecGate{};
  return Admit(r, e, *policy);
}

static RunnerOutcome Refusal(int status, json::object line) {
  RunnerOutcome o;
  o.status = status;
  o.refusal = json::serialize(line);
  return o;
}

Result<ExecGate> Sessions::Admit(const SessionRecord& r, const SessionExec& e, const ExecPolicy& p) {
  ExecGate gate{.timeout = p.sources.max_execution_time, .memory_bytes = p.sources.max_memory_bytes};
  if (!p.rules) return gate;
  gate.judged = true;
  gate.guard_rules = policy::GuardRuleArgs(*p.rules);
  // --shell: judged from the directory the state says it starts in (what WithShellState reads).
  SessionExec judged = e;
  if (e.shell) {
    auto state = LoadShellState(Dir(r.id), e.context);
    if (state) judged.shell_cwd = !state->cwd.empty() && state->cwd.front() == '/' ? state->cwd : "";
  }
  auto v = JudgeExec(*p.rules, judged, p.workspace);
  json::object audit{{"session", r.id},  {"decision", policy::Name(v.decision)}, {"rule", v.rule},
                     {"command", v.command}, {"reason", v.reason}, {"shell", e.shell},
                     {"argv", json::value_from(e.overrides.args)}};
  json::object line{{"decision", policy::Name(v.decision)}, {"rule", v.rule}, {"command", v.command},
                    {"reason", v.reason}, {"session", r.id}};
  if (v.decision == policy::Decision::kDeny) {
    (void)AppendAudit(r.audit, "policy", std::move(audit));
    gate.refused = Refusal(kPolicyDenied, std::move(line));
    return gate;
  }
  if (v.decision == policy::Decision::kAsk) {
    // Under the lock: a once approval is used by exactly one exec.
    auto lock = TRY(store_.Lock(r.id));
    ApprovalStore store(SessionLayout(Dir(r.id)).approvals());
    auto c = TRY_CTX(store.Consult(ApprovalKey(e), v.command, v.rule, v.reason, p.rules->approval_ttl),
                     "session " + r.id + ": approvals");
    audit["approval"] = c.id;
    if (c.run) {
      audit["decision"] = "allow";
      audit["approved"] = Name(c.used);
      (void)AppendAudit(r.audit, "policy", std::move(audit));
      return gate;
    }
    (void)AppendAudit(r.audit, "policy", std::move(audit));
    line["approval"] = c.id;
    line["expires"] = c.expires;  // unix seconds: approve before then
    gate.refused = Refusal(kPolicyAsk, std::move(line));
    return gate;
  }
  (void)AppendAudit(r.audit, "policy", std::move(audit));
  return gate;
}

Result<Approval> Sessions::DecideApproval(const std::string& ref, const std::string& approval, ApprovalState to) {
  auto id = TRY(Resolve(ref));
  auto r = TRY(ReadRecord(id));
  auto policy = TRY(LoadExecPolicy(Dir(id)));
  if (!policy || !policy->rules) return MakeError("session " + id + " has no command policy", EINVAL);
  auto lock = TRY(store_.Lock(id));
  auto a = TRY(ApprovalStore(SessionLayout(Dir(id)).approvals()).Decide(approval, to, policy->rules->approval_ttl));
  (void)AppendAudit(r.audit, "approval",
                    {{"session", id}, {"approval", a.id}, {"state", Name(a.state)}, {"command", a.command}, {"rule", a.rule}});
  return a;
}

Result<std::vector<Approval>> Sessions::Approvals(const std::string& ref) {
  auto id = TRY(Resolve(ref));
  auto lock = TRY(store_.Lock(id));
  return ApprovalStore(SessionLayout(Dir(id)).approvals()).List();
}

}  // namespace sandshim::session
