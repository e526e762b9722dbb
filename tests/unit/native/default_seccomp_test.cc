// bundle/default_seccomp: Docker's default profile as we generate it, and the native plan
// made from it.
#include <doctest/doctest.h>
#include <sched.h>

#include <algorithm>

#include "bundle/default_seccomp.h"
#include "bundle/default_spec.h"
#include "bundle/session_spec.h"
#include "bundle/spec.h"
#include "shim/native/plan.h"

using namespace sandshim;
namespace json = boost::json;

namespace {

// Names a rule allows with no argument condition.
bool AllowedOutright(const json::object& profile, std::string_view name) {
  for (const auto& r : profile.at("syscalls").as_array()) {
    const auto& o = r.as_object();
    if (o.at("action").as_string() != "SCMP_ACT_ALLOW" || o.contains("args")) continue;
    for (const auto& n : o.at("names").as_array())
      if (n.as_string() == name) return true;
  }
  return false;
}

const json::object* RuleFor(const json::object& profile, std::string_view name, std::string_view action) {
  for (const auto& r : profile.at("syscalls").as_array()) {
    const auto& o = r.as_object();
    if (o.at("action").as_string() != action) continue;
    for (const auto& n : o.at("names").as_array())
      if (n.as_string() == name) return &o;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("default seccomp: EPERM by default; what docker blocks stays blocked") {
  auto p = bundle::DefaultSeccomp({"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"});
  CHECK(p.at("defaultAction") == "SCMP_ACT_ERRNO");
  CHECK(p.at("defaultErrnoRet") == 1);
  CHECK_FALSE(p.at("architectures").as_array().empty());
  for (const char* ok : {"read", "write", "execve", "clone", "wait4", "setsid", "ptrace", "socket"})
    CHECK_MESSAGE((AllowedOutright(p, ok) || RuleFor(p, ok, "SCMP_ACT_ALLOW")), ok);
  for (const char* blocked : {"unshare", "setns", "mount", "umount2", "keyctl", "add_key", "request_key", "bpf",
                              "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
                              "io_uring_register", "init_module", "kexec_load", "open_by_handle_at", "chroot",
                              "fsopen", "move_mount", "pivot_root", "reboot", "swapon", "acct"})
    CHECK_MESSAGE(!RuleFor(p, blocked, "SCMP_ACT_ALLOW"), blocked);
}

TEST_CASE("default seccomp: argument rules for clone, clone3, socket and personality") {
  auto p = bundle::DefaultSeccomp({});
  const auto* clone = RuleFor(p, "clone", "SCMP_ACT_ALLOW");
  REQUIRE(clone != nullptr);
  const auto& arg = clone->at("args").as_array().at(0).as_object();
  CHECK(arg.at("op") == "SCMP_CMP_MASKED_EQ");
  CHECK(arg.at("value").to_number<uint64_t>() ==
        static_cast<uint64_t>(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
                              CLONE_NEWPID | CLONE_NEWNET));
  const auto* clone3 = RuleFor(p, "clone3", "SCMP_ACT_ERRNO");
  REQUIRE(clone3 != nullptr);
  CHECK(clone3->at("errnoRet") == 38);  // ENOSYS: the libc falls back to clone
  const auto* sock = RuleFor(p, "socket", "SCMP_ACT_ALLOW");
  REQUIRE(sock != nullptr);
  CHECK(sock->at("args").as_array().at(0).as_object().at("value") == 40);  // AF_VSOCK
  CHECK(sock->at("args").as_array().at(0).as_object().at("op") == "SCMP_CMP_NE");
  int personas = 0;
  for (const auto& r : p.at("syscalls").as_array())
    for (const auto& n : r.as_object().at("names").as_array()) personas += n.as_string() == "personality";
  CHECK(personas == 5);
}

TEST_CASE("default seccomp: capability-dependent rules follow the bounding set, as docker's") {
  auto admin = bundle::DefaultSeccomp({"CAP_SYS_ADMIN", "CAP_SYS_PTRACE", "CAP_SYS_CHROOT"});
  for (const char* n : {"mount", "unshare", "setns", "clone", "clone3", "bpf", "chroot", "kcmp", "pidfd_getfd"})
    CHECK_MESSAGE(AllowedOutright(admin, n), n);
  CHECK(RuleFor(admin, "clone3", "SCMP_ACT_ERRNO") == nullptr);  // the "excludes caps" rules are gone
  auto plain = bundle::DefaultSeccomp({});
  CHECK_FALSE(AllowedOutright(plain, "clone"));
  CHECK_FALSE(AllowedOutright(plain, "chroot"));
  CHECK(AllowedOutright(bundle::DefaultSeccomp({"CAP_BPF"}), "bpf"));
}

TEST_CASE("default seccomp: `sandshim spec` and session bundles carry it, and the native plan loads it") {
  auto spec = bundle::DefaultSpec({"sh"}, false);
  const auto& sc = spec.at("linux").as_object().at("seccomp").as_object();
  CHECK(sc.at("defaultAction") == "SCMP_ACT_ERRNO");
  auto parsed = bundle::ParseSpec(json::serialize(spec));
  REQUIRE(parsed.ok());
  auto plan = native::PlanFromSpec(*parsed, "/b");
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().msg));
  CHECK(plan->seccomp.enabled);
  CHECK(plan->seccomp.default_action == "SCMP_ACT_ERRNO");
  CHECK(plan->seccomp.default_errno == 1);
  CHECK(plan->seccomp.rules.size() > 5);

  bundle::SessionProfile prof;
  prof.rootfs = "/r";
  prof.workspace = "/w";
  auto session = bundle::SessionSpec(prof);
  REQUIRE(session.ok());
  CHECK(session->at("linux").as_object().contains("seccomp"));
}
