// `session approve ID APPROVAL [--once|--always]`, `session reject ID APPROVAL` and
// `session approvals ID [--json]`: a person's answer to the command policy's asks (#19).
#include <iostream>

#include "shim/cli/session_common.h"

namespace sandshim::cli {

struct ApprovalArgs {
  std::string ref, approval;
  bool once = false, always = false, json = false;
};

static int PrintApproval(const session::Approval& a, bool json) {
  if (json) PrintJson(session::ApprovalToJson(a, session::SystemSeconds()));
  else std::cout << a.id << "\t" << session::Name(a.state) << "\t" << a.command << "\n";
  return 0;
}

static void AddDecide(Verbs& v, CLI::App* parent, const char* verb, bool approve) {
  auto a = std::make_shared<ApprovalArgs>();
  auto* sub = v.Add(verb, approve ? "approve a command the policy asked about" : "reject a command the policy asked about",
                    [&v, a, approve, verb] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto to = !approve ? session::ApprovalState::kRejected
                       : a->always ? session::ApprovalState::kAlways : session::ApprovalState::kOnce;
    auto r = s->DecideApproval(a->ref, a->approval, to);
    if (!r) return ExitWith(Status(r.error().Wrap(std::string("session ") + verb + " " + a->ref)));
    return PrintApproval(*r, a->json);
  }, parent);
  sub->add_option("session", a->ref, "session id or name")->required();
  sub->add_option("approval", a->approval, "the approval id the refused exec printed")->required();
  if (approve) {
    auto* once = sub->add_flag("--once", a->once, "the next identical command runs, once (default)");
    sub->add_flag("--always", a->always, "this exact command runs for the rest of the session")->excludes(once);
  }
  sub->add_flag("--json", a->json, "print the approval as JSON");
}

void RegisterSessionApprovals(Verbs& v, CLI::App* parent) {
  AddDecide(v, parent, "approve", true);
  AddDecide(v, parent, "reject", false);
  auto a = std::make_shared<ApprovalArgs>();
  auto* sub = v.Add("approvals", "list a session's approvals (pending, once, always, used, rejected, expired)", [&v, a] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto all = s->Approvals(a->ref);
    if (!all) return ExitWith(Status(all.error().Wrap("session approvals " + a->ref)));
    auto now = session::SystemSeconds();
    if (a->json) {
      boost::json::array arr;
      for (const auto& x : *all) arr.push_back(session::ApprovalToJson(x, now));
      PrintJson(arr);
      return 0;
    }
    for (const auto& x : *all) {
      auto o = session::ApprovalToJson(x, now);
      std::cout << x.id << "\t" << std::string(o["state"].as_string()) << "\t" << x.command << "\n";
    }
    return 0;
  }, parent);
  sub->add_option("session", a->ref, "session id or name")->required();
  sub->add_flag("--json", a->json, "print JSON");
}

}  // namespace sandshim::cli
