#include <doctest/doctest.h>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/proc.h"
#include "shim/runsc/client.h"
#include "shim/runsc/flags.h"
#include "shim/runsc/net_sysctl_mask.h"
#include "shim/runsc/leftovers.h"
#include "shim/runsc/probe.h"
#include "shim/runsc/runsc_cli.h"
#include "tests/unit/test_helpers.h"
#include "tests/fakes/caller_netns.h"

using namespace sandshim;
using namespace sandshim::runsc;
using V = std::vector<std::string>;

static bundle::Spec SpecWith(const std::string& namespaces, const std::string& caps = "") {
  return *bundle::ParseSpec(R"({"ociVersion":"1.0.2","root":{"path":"r"},"process":{"args":["a"],"cwd":"/",
    "capabilities":{"bounding":[)" + caps + R"(]}},"linux":{"namespaces":[)" + namespaces + "]}}");
}

TEST_CASE("argv: global flags first, id last, paths as --flag=value") {
  Global g{"runsc", "/run/x/@runsc", {"--network=host", "--platform=ptrace"}};
  CHECK(CreateArgv(g, {.bundle = "/b", .pid_file = "/p", .console_socket = "/s"}, "c1") ==
        V{"runsc", "--root=/run/x/@runsc", "--network=host", "--platform=ptrace", "create", "--bundle=/b",
          "--pid-file=/p", "--console-socket=/s", "c1"});
  CHECK(RunArgv(g, {.bundle = "/b"}, "c1", true).back() == "c1");
  CHECK(KillArgv(g, "c1", 9, true) == V{"runsc", "--root=/run/x/@runsc", "--network=host", "--platform=ptrace", "kill",
                                        "--all", "c1", "9"});
  CHECK(DeleteArgv(g, "c1", true) ==
        V{"runsc", "--root=/run/x/@runsc", "--network=host", "--platform=ptrace", "delete", "--force", "c1"});
  auto ex = ExecArgv(g, {.process_file = "/p.json", .internal_pid_file = "/i"}, "x-detach-y");
  CHECK(ex == V{"runsc", "--root=/run/x/@runsc", "--network=host", "--platform=ptrace", "exec", "--process=/p.json",
                "--internal-pid-file=/i", "x-detach-y"});
  CHECK(PsArgv(g, "c1", true)[5] == "--format=json");
  CHECK(EventsStatsArgv(g, "c1")[5] == "--stats");
}

TEST_CASE("argv: checkpoint and restore (session pause/resume) name the image; restore detaches") {
  Global g{"runsc", "/r/@runsc", {"--network=none"}};
  CHECK(CheckpointArgv(g, "c1", "/s/snapshot") ==
        V{"runsc", "--root=/r/@runsc", "--network=none", "checkpoint", "--image-path=/s/snapshot", "c1"});
  CHECK(RestoreArgv(g, {.bundle = "/b", .pid_file = "/p"}, "c1", "/s/snapshot") ==
        V{"runsc", "--root=/r/@runsc", "--network=none", "restore", "--bundle=/b", "--pid-file=/p",
          "--image-path=/s/snapshot", "--detach", "c1"});
}

TEST_CASE("flags: network mode follows the spec's network namespace") {
  CHECK(NetworkMode(SpecWith(R"({"type":"network","path":"/var/run/netns/x"})")) == "host");
  CHECK(NetworkMode(SpecWith(R"({"type":"network"})")) == "none");
  CHECK(NetworkMode(SpecWith(R"({"type":"pid"})")) == "host");
  auto docker = *bundle::ParseSpec(R"({"ociVersion":"1","root":{"path":"r"},"process":{"args":["a"],"cwd":"/"},
    "hooks":{"prestart":[{"path":"/usr/bin/dockerd","args":["libnetwork-setkey"]}]},
    "linux":{"namespaces":[{"type":"network"}]}})");
  CHECK(NetworkMode(docker) == "sandbox");
}

TEST_CASE("flags: the network-stack annotation picks netstack for an own namespace by path, hostinet on request") {
  auto with = [](const std::string& ns, const std::string& stack, bool hook = false) {
    auto spec = SpecWith(ns);
    spec.annotations[kNetworkStackAnnotation] = stack;
    if (hook) spec.doc["hooks"] = boost::json::parse(R"({"prestart":[{"path":"/h"}]})");
    return NetworkMode(spec);
  };
  const std::string by_path = R"({"type":"network","path":"/run/s/netns"})", fresh = R"({"type":"network"})";
  CHECK(with(by_path, "netstack") == "sandbox");  // a session's own namespace: netstack takes it over
  CHECK(with(by_path, "hostinet") == "host");
  CHECK(with(by_path, "bogus") == "host");        // anything else: shared, never stripped
  CHECK(with(fresh, "hostinet", true) == "host");  // docker's bridge namespace, host stack opted into
  CHECK(with(fresh, "netstack", true) == "sandbox");
  CHECK(with(fresh, "hostinet") == "none");       // nothing configures it: loopback only either way
  CHECK(with(R"({"type":"pid"})", "netstack") == "host");  // no namespace of its own: only the host's
  CHECK(UsesNetstack(PolicyFlags([&] {
    auto s = SpecWith(by_path);
    s.annotations[kNetworkStackAnnotation] = "netstack";
    return s;
  }(), {})));
}

TEST_CASE("flags: a pod sandbox's namespace by path runs on netstack, hostinet on request; its app containers do not decide") {
  auto pod = [](const std::string& type, const std::string& stack = "") {
    auto spec = SpecWith(R"({"type":"network","path":"/var/run/netns/cni-1"})");
    spec.annotations["io.kubernetes.cri.container-type"] = type;
    spec.annotations["io.kubernetes.cri.sandbox-id"] = "pod1";
    if (!stack.empty()) spec.annotations[kNetworkStackAnnotation] = stack;
    return NetworkMode(spec);
  };
  CHECK(pod("sandbox") == "sandbox");
  CHECK(pod("sandbox", "hostinet") == "host");
  CHECK(pod("sandbox", "netstack") == "sandbox");
  CHECK(pod("container") == "host");  // joins the pod's sandbox with its flags (gvisor_pod.cc)
  auto crio = SpecWith(R"({"type":"network","path":"/var/run/netns/x"})");
  crio.annotations["io.kubernetes.cri-o.ContainerType"] = "sandbox";
  CHECK(NetworkMode(crio) == "sandbox");
}

TEST_CASE("flags: platform, NET_RAW only when granted, user flags win") {
  auto spec = SpecWith(R"({"type":"network"})", R"("CAP_NET_RAW")");
  CHECK(PolicyFlags(spec, {.platform = "ptrace"}) == V{"--network=none", "--platform=ptrace", "--net-raw"});
  CHECK(PolicyFlags(SpecWith(R"({"type":"network"})"), {}) == V{"--network=none"});
  auto over = PolicyFlags(spec, {.platform = "ptrace", .user_flags = {"--network=host", "--overlay"}});
  CHECK(over == V{"--platform=ptrace", "--net-raw", "--network=host", "--overlay"});
  CHECK(FlagName("--debug-log=/x") == "debug-log");
  // A runsc with --overlay2 (probed): writes stay in the rootfs unless a session or the user
  // asks for an overlay (2024's default root:self is never inherited).
  CHECK(PolicyFlags(spec, {.has_overlay2 = true}) == V{"--network=none", "--net-raw", "--overlay2=none"});
  CHECK(PolicyFlags(spec, {.user_flags = {"--overlay2=root:memory"}, .has_overlay2 = true}) ==
        V{"--network=none", "--net-raw", "--overlay2=root:memory"});
  CHECK(PolicyFlags(spec, {.user_flags = {"--overlay"}, .has_overlay2 = true}) == V{"--network=none", "--net-raw", "--overlay"});
  CHECK(FlagName("-net-raw") == "net-raw");
}

TEST_CASE("flags: a spec with linux.seccomp asks runsc to apply it") {
  CHECK(PolicyFlags(SpecWith(R"({"type":"network"})"), {}) == V{"--network=none"});
  auto sc = *bundle::ParseSpec(R"({"ociVersion":"1","root":{"path":"r"},"process":{"args":["a"],"cwd":"/"},
    "linux":{"namespaces":[{"type":"network"}],"seccomp":{"defaultAction":"SCMP_ACT_ALLOW"}}})");
  CHECK(PolicyFlags(sc, {}) == V{"--network=none", "--oci-seccomp"});
  CHECK(PolicyFlags(sc, {.user_flags = {"--oci-seccomp=false"}}) == V{"--network=none", "--oci-seccomp=false"});
}

TEST_CASE("leftovers: runsc processes recognised by root and id or bundle") {
  Owner o{"/r/@runsc", "c1", "/bundles/c1"};
  CHECK(BelongsTo({"runsc-sandbox", "--root=/r/@runsc", "--network=none", "boot", "--bundle=/bundles/c1", "c1"}, o));
  CHECK(BelongsTo({"runsc-gofer", "--root=/r/@runsc", "gofer", "--bundle", "/bundles/c1", "--spec-fd=3"}, o));
  CHECK(BelongsTo({"runsc-exec", "--root", "/r/@runsc", "exec", "c1", "sleep"}, o));
  CHECK_FALSE(BelongsTo({"runsc-sandbox", "--root=/other", "boot", "c1"}, o));
  CHECK_FALSE(BelongsTo({"runsc-sandbox", "--root=/r/@runsc", "boot", "--bundle=/bundles/c2", "c2"}, o));
  CHECK_FALSE(BelongsTo({"sleep", "--root=/r/@runsc", "c1"}, o));
  CHECK_FALSE(BelongsTo({}, o));
}

TEST_CASE("leftovers: cgroup paths that are not ours to remove") {
  CHECK(RemoveCgroups("a:b:c").ok());  // systemd paths are not ours to remove
  CHECK_FALSE(RemoveCgroups("/../../etc").ok());
}

TEST_CASE("probe: candidate order, kvm only with /dev/kvm") {
  CHECK(PlatformCandidates("kvm\nptrace\nsystrap\n", true) == V{"systrap", "kvm", "ptrace"});
  CHECK(PlatformCandidates("kvm\nptrace\n", false) == V{"ptrace"});
  CHECK(PlatformCandidates("", false) == V{"ptrace"});
  CHECK(BinaryIdentity("/nonexistent") == "");
}

TEST_CASE("probe: the flag names of `runsc flags` (2024's text), usage lines skipped") {
  auto names = ParseFlagNames("  -overlay\n    \tDEPRECATED: use --overlay2\n  -overlay2 value\n    \twrap mounts"
                              " (default root:self)\n  -platform string\n  -EXPERIMENTAL-xdp value\n");
  CHECK(names == V{"overlay", "overlay2", "platform", "EXPERIMENTAL-xdp"});
  ProbeResult r;
  r.flags = names;
  CHECK(r.HasFlag("overlay2"));
  CHECK_FALSE(r.HasFlag("overlay2 value"));
  CHECK(ParseFlagNames("").empty());
}

TEST_CASE("probe: verdict cached per binary identity; a missing runsc is a clear reason") {
  testing::TempDir d;
  auto missing = Probe("no-such-runsc-binary", d.path());
  CHECK_FALSE(missing.usable);
  CHECK(missing.error.find("not installed") != std::string::npos);
  auto log = d.path() / "calls.log";
  ::setenv("FAKE_RUNSC_LOG", log.c_str(), 1);
  testing::CallerNetns netns;  // the fake binds no socket: no private namespace (no root)
  auto first = Probe(testing::FakeRunsc(), d.path(), "", netns);
  CHECK(first.usable);
  CHECK(first.platform == "ptrace");
  auto calls = *fs::ReadFile(log);
  auto second = Probe(testing::FakeRunsc(), d.path(), "", netns);
  CHECK(second.usable);
  CHECK(*fs::ReadFile(log) == calls);  // no runsc call the second time
  CHECK(second.sandbox_uid == first.sandbox_uid);  // the sandbox's uid is part of the verdict
  ::unsetenv("FAKE_RUNSC_LOG");
}

TEST_CASE("client: runsc's logged error becomes the error text") {
  testing::TempDir d;
  Client c(Global{testing::FakeRunsc(), d.path() / "root", {}}, d.path() / "err.json");
  ::setenv("FAKE_RUNSC_FAIL", "create", 1);
  ::setenv("FAKE_RUNSC_ERR", "cannot read client sync file", 1);
  auto s = c.Create("c1", {.bundle = d.path()});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg == "runsc create: cannot read client sync file");
  ::setenv("FAKE_RUNSC_FAIL", "kill", 1);
  auto k = c.Kill("c1", 15, false);
  REQUIRE_FALSE(k.ok());
  CHECK(k.error().msg == "runsc kill: exit status 128: cannot read client sync file");
  ::unsetenv("FAKE_RUNSC_FAIL");
  ::unsetenv("FAKE_RUNSC_ERR");
  CHECK(c.Kill("c1", 15, false).ok());
  CHECK(*c.Ps("c1", true) == "[1]\n");
}

TEST_CASE("netstack: runsc sets up netstack unless told another network") {
  using V = std::vector<std::string>;
  CHECK(UsesNetstack(V{}));  // runsc's default
  CHECK(UsesNetstack(V{"--network=sandbox", "--platform=ptrace"}));
  CHECK_FALSE(UsesNetstack(V{"--network=host"}));
  CHECK_FALSE(UsesNetstack(V{"--network=none"}));
  CHECK_FALSE(UsesNetstack(V{"--network=sandbox", "--network=host"}));  // the last one wins
  CHECK(UsesNetstack(V{"--network=host", "--network=sandbox"}));
}
