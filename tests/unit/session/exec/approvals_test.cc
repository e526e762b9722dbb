// Approvals for the command policy's asks (#19): once means once, always lasts for the
// session, an expired approval asks again, a rejected one never runs. The clock is ours.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "shim/session/exec/approvals.h"
#include "shim/session/exec/exec_policy.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using session::ApprovalState;

namespace {

struct Fixture {
  testing::TempDir dir;
  int64_t now = 1'000'000;
  session::ApprovalStore store{dir.path() / "approvals.json", [this] { return now; }};
  std::chrono::seconds ttl{60};

  session::Consultation Ask(const std::string& key = "argv:[\"ls\"]") {
    auto c = store.Consult(key, "ls", "", "no rule allows it", ttl);
    REQUIRE(c.ok());
    return *c;
  }
};

}  // namespace

TEST_CASE("approvals: an ask waits, and asking again names the same approval") {
  Fixture f;
  auto first = f.Ask();
  CHECK_FALSE(first.run);
  CHECK(first.id.rfind("ap-", 0) == 0);
  CHECK(first.expires == f.now + 60);
  CHECK(f.Ask().id == first.id);
  CHECK(f.Ask("argv:[\"ls\",\"-l\"]").id != first.id);  // another command, another approval
  struct stat st;
  REQUIRE(::stat((f.dir.path() / "approvals.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("approvals: once means once") {
  Fixture f;
  auto id = f.Ask().id;
  REQUIRE(f.store.Decide(id, ApprovalState::kOnce, f.ttl).ok());
  auto run = f.Ask();
  CHECK(run.run);
  CHECK(run.used == ApprovalState::kOnce);
  auto again = f.Ask();
  CHECK_FALSE(again.run);
  CHECK(again.id != id);  // a new approval for the next time
  CHECK_FALSE(f.store.Decide(id, ApprovalState::kOnce, f.ttl).ok());  // used: cannot be approved again
}

TEST_CASE("approvals: always lasts for the session, past any expiry") {
  Fixture f;
  auto id = f.Ask().id;
  REQUIRE(f.store.Decide(id, ApprovalState::kAlways, f.ttl).ok());
  for (int i = 0; i < 3; ++i) {
    f.now += 3600;
    auto c = f.Ask();
    CHECK(c.run);
    CHECK(c.used == ApprovalState::kAlways);
  }
  CHECK_FALSE(f.Ask("argv:[\"other\"]").run);  // only that exact command
}

TEST_CASE("approvals: an expired approval asks again") {
  Fixture f;
  auto id = f.Ask().id;
  f.now += 61;
  auto d = f.store.Decide(id, ApprovalState::kOnce, f.ttl);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().msg.find("expired") != std::string::npos);
  auto fresh = f.Ask();
  CHECK_FALSE(fresh.run);
  CHECK(fresh.id != id);
  // A once approval not used within the ttl expires too.
  REQUIRE(f.store.Decide(fresh.id, ApprovalState::kOnce, f.ttl).ok());
  f.now += 61;
  CHECK_FALSE(f.Ask().run);
  auto listed = f.store.List();
  REQUIRE(listed.ok());
  CHECK(session::ApprovalToJson(listed->front(), f.now)["state"] == "expired");
}

TEST_CASE("approvals: rejected never runs; unknown ids are an error") {
  Fixture f;
  auto id = f.Ask().id;
  REQUIRE(f.store.Decide(id, ApprovalState::kRejected, f.ttl).ok());
  auto c = f.Ask();
  CHECK_FALSE(c.run);
  CHECK(c.id != id);
  auto bad = f.store.Decide("ap-nope", ApprovalState::kOnce, f.ttl);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().msg.find("does not exist") != std::string::npos);
}

TEST_CASE("exec policy: approvals key the exact command; --shell is judged as a script") {
  auto p = session::CompileExecPolicy(R"J({"permissions": {"allow": ["shell(ls:*)"], "deny": ["shell(curl:*)"]}})J", "",
                                      "/workspace");
  REQUIRE(p.ok());
  session::SessionExec e;
  e.overrides.args = {"ls", "-l"};
  CHECK(session::ApprovalKey(e) == "argv:[\"ls\",\"-l\"]");
  CHECK(session::JudgeExec(*p->rules, e, p->workspace).decision == policy::Decision::kAllow);
  e.shell = true;
  e.overrides.args = {"ls;", "curl", "x"};
  CHECK(session::ApprovalKey(e) == "shell:ls; curl x");
  CHECK(session::JudgeExec(*p->rules, e, p->workspace).decision == policy::Decision::kDeny);
}

TEST_CASE("exec policy: the exec's own variables are judged and part of the approval key (polred2 F11)") {
  auto p = session::CompileExecPolicy(R"J({"permissions": {"allow": ["shell(ls:*)", "shell(sh:*)"]}})J", "", "/workspace");
  REQUIRE(p.ok());
  session::SessionExec e;
  e.overrides.args = {"sh", "-c", "ls"};
  e.overrides.env = {"CI=1", "LANG=C.UTF-8"};
  CHECK(session::JudgeExec(*p->rules, e, p->workspace).decision == policy::Decision::kAllow);
  auto with_inert = session::ApprovalKey(e);
  e.overrides.env = {"BASH_ENV=/workspace/e.sh"};
  CHECK(session::JudgeExec(*p->rules, e, p->workspace).decision == policy::Decision::kAsk);
  CHECK(session::ApprovalKey(e) != with_inert);
  e.overrides.env = {"ENV=/workspace/e.sh"};
  auto other = session::ApprovalKey(e);
  e.overrides.env = {"BASH_ENV=/workspace/e.sh"};
  CHECK(session::ApprovalKey(e) != other);
  e.overrides.env.clear();
  CHECK(session::ApprovalKey(e) == "argv:[\"sh\",\"-c\",\"ls\"]");  // unchanged without variables
}

TEST_CASE("exec policy: sources.json alone refuses blocked installs and nothing else") {
  auto p = session::CompileExecPolicy("", R"J({"blocked_packages": ["evil"]})J", "/workspace");
  REQUIRE(p.ok());
  REQUIRE(p->rules);
  session::SessionExec e;
  e.shell = true;
  e.overrides.args = {"./build.sh && case x in *) ;; esac"};
  CHECK(session::JudgeExec(*p->rules, e, p->workspace).decision == policy::Decision::kAllow);
  e.overrides.args = {"cd /tmp && sh -c 'pip install evil'"};
  auto v = session::JudgeExec(*p->rules, e, p->workspace);
  CHECK(v.decision == policy::Decision::kDeny);
  CHECK(v.rule == "sources(blocked_packages:pip:evil)");
}

TEST_CASE("exec policy: sources join the egress lists; a denied network refuses the host's") {
  bundle::SessionProfile prof;
  prof.command_policy_json = R"J({"permissions": {"deny": ["network(outbound:*)", "network(outbound:evil.example)"]}})J";
  prof.sources_json = R"J({"package_managers": {"pip": {"registries": ["https://pypi.org/simple"]}},
                          "web_domains": {"blocked": ["bad.example"]}})J";
  prof.network = "proxy";
  REQUIRE(session::ApplyCommandPolicy(prof).ok());
  CHECK(prof.allow_domains == std::vector<std::string>{"pypi.org"});
  CHECK(prof.deny_domains == std::vector<std::string>{"bad.example", "evil.example"});
  bundle::SessionProfile host = prof;
  host.network = "host";
  auto s = session::ApplyCommandPolicy(host);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg.find("network(outbound:*)") != std::string::npos);
}

TEST_CASE("exec policy: the memory limit is the tighter RLIMIT_AS") {
  boost::json::object proc{{"rlimits", boost::json::array{{{"type", "RLIMIT_AS"}, {"soft", 1 << 30}, {"hard", 1 << 30}}}}};
  session::LimitExecMemory(proc, 256 << 20);
  CHECK(proc["rlimits"].as_array()[0].as_object()["soft"] == 256 << 20);
  session::LimitExecMemory(proc, 512 << 20);
  CHECK(proc["rlimits"].as_array()[0].as_object()["hard"] == 256 << 20);
  boost::json::object bare;
  session::LimitExecMemory(bare, 64 << 20);
  CHECK(bare["rlimits"].as_array().size() == 1);
}

// polred (--shell false positives): a --shell script is judged from where it starts — the
// directory the last --shell exec ended in (host-kept state) or, if that is gone, where the
// exec starts — not from nowhere, which made every relative word "a path known only at run
// time" (`git status` asked under the docs' example). Unknown state: still anywhere.
TEST_CASE("exec policy: --shell is judged from the saved directory, or where the exec starts") {
  auto p = session::CompileExecPolicy(R"J({"permissions": {"allow": ["shell(git status:*)", "shell(cat:*)",
      "file(read:${WORKSPACE}/**)"], "deny": ["shell(curl:*)", "file(read:/etc/shadow:*)"]}})J", "", "/workspace");
  REQUIRE(p.ok());
  session::SessionExec e;
  e.shell = true;
  auto judge = [&](const char* script, std::optional<std::string> cwd) {
    e.overrides.args = {script};
    e.shell_cwd = std::move(cwd);
    return session::JudgeExec(*p->rules, e, p->workspace).decision;
  };
  CHECK(judge("git status", "") == policy::Decision::kAllow);
  CHECK(judge("cat README.md", "") == policy::Decision::kAllow);
  CHECK(judge("cat README.md", "/workspace/src") == policy::Decision::kAllow);
  CHECK(judge("cat shadow", "/etc") == policy::Decision::kDeny);            // cd /etc in the last exec
  CHECK(judge("cat passwd", "/etc") == policy::Decision::kAsk);             // no file rule allows /etc/passwd
  CHECK(judge("cat README.md", std::nullopt) == policy::Decision::kAsk);    // state unreadable: anywhere
  CHECK(judge("cd /etc && cat shadow", "") == policy::Decision::kDeny);
}
