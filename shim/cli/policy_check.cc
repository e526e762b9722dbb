// `policy check --policy FILE [--sources FILE] [--shell] [--cwd DIR] -- CMD...`: the decision
// a session exec would get, without a session: one JSON line, exit 0 allow, 77 deny, 78 ask.
// `--batch FILE` judges each line of FILE as a --shell script and prints one JSON line per
// command with the time the decision took (bench/policy_bench.sh).
#include <chrono>
#include <fstream>
#include <iostream>

#include "shim/cli/verbs.h"
#include "shim/core/fs.h"
#include "shim/session/exec/exec_policy.h"

namespace sandshim::cli {

struct PolicyCheckArgs {
  std::string policy, sources, cwd, workspace = "/workspace", batch;
  bool shell = false;
  std::vector<std::string> command;
};

static boost::json::object VerdictJson(const policy::Verdict& v) {
  return {{"decision", policy::Name(v.decision)}, {"rule", v.rule}, {"command", v.command}, {"reason", v.reason}};
}

static int StatusOf(policy::Decision d) {
  return d == policy::Decision::kAllow ? 0 : d == policy::Decision::kDeny ? session::kPolicyDenied : session::kPolicyAsk;
}

static int Batch(const policy::Policy& rules, const PolicyCheckArgs& a) {
  std::ifstream in(a.batch);
  if (!in) return ExitWith(Status(ErrnoError("policy check --batch " + a.batch)));
  for (std::string line; std::getline(in, line);) {
    session::SessionExec e;
    e.shell = true;
    e.overrides.args = {line};
    auto t0 = std::chrono::steady_clock::now();
    auto v = session::JudgeExec(rules, e, a.workspace);
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    auto o = VerdictJson(v);
    o["decision_ns"] = ns;
    std::cout << boost::json::serialize(o) << "\n";
  }
  return 0;
}

static Result<int> Check(const PolicyCheckArgs& a) {
  std::string sources = a.sources.empty() ? "" : TRY_CTX(fs::ReadFile(a.sources), "--sources");
  auto p = TRY(session::CompileExecPolicy(TRY_CTX(fs::ReadFile(a.policy), "--policy"), sources, a.workspace));
  if (!p.rules) return MakeError("--policy: no rules", EINVAL);
  if (!a.batch.empty()) return Batch(*p.rules, a);
  if (a.command.empty()) return MakeError("usage: policy check --policy FILE [--shell] -- CMD [ARG...]", EINVAL);
  session::SessionExec e;
  e.shell = a.shell;
  e.overrides.args = a.command;
  e.overrides.cwd = a.cwd;
  e.shell_cwd = "";  // --shell: judged as a fresh persistent shell (where the exec starts)
  auto v = session::JudgeExec(*p.rules, e, a.workspace);
  PrintJson(VerdictJson(v));
  return StatusOf(v.decision);
}

void RegisterPolicy(Verbs& v) {
  CLI::App* policy = v.app.add_subcommand("policy", "the command policy sessions judge execs by (docs/POLICY.md)");
  policy->require_subcommand(1);
  auto a = std::make_shared<PolicyCheckArgs>();
  auto* sub = v.Add("check", "print the decision a session exec would get, as JSON (exit 0 allow, 77 deny, 78 ask)", [a] {
    auto r = Check(*a);
    if (!r) return ExitWith(Status(r.error().Wrap("policy check")));
    return *r;
  }, policy);
  sub->add_option("--policy", a->policy, "policy file: {\"permissions\":{\"allow\":[...],\"deny\":[...]}}")->required();
  sub->add_option("--sources", a->sources, "sources.json (blocked packages)");
  sub->add_flag("--shell", a->shell, "judge the arguments as one shell script, as session exec --shell runs them");
  sub->add_option("--cwd", a->cwd, "where the command starts (default: the workspace; --shell: unknown)");
  sub->add_option("--workspace", a->workspace, "the workspace in the sandbox, for ${WORKSPACE}")->capture_default_str();
  sub->add_option("--batch", a->batch, "judge each line of this file as a --shell script; JSON line each, with decision_ns");
  // Words that look like options need the "--" before the command (CLI11 reads them otherwise).
  sub->add_option("command", a->command, "the command, after --")->expected(-1);
}

}  // namespace sandshim::cli
