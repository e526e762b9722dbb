// Kubernetes pods on gVisor: the CRI annotations read and rewritten (runsc/pod.h), and the
// exit code a pod container's waiter reports (gvisor/pod_waiter.h).
#include <doctest/doctest.h>
#include <signal.h>

#include "shim/runsc/pod.h"
#include "shim/gvisor/pod_waiter.h"

using namespace sandshim;
namespace json = boost::json;

TEST_CASE("CRI annotations: the pause container is the pod's sandbox") {
  auto info = runsc::PodInfoOf({{"io.kubernetes.cri.container-type", "sandbox"},
                                {"io.kubernetes.cri.sandbox-id", "abc"}});
  CHECK(info.role == runsc::PodRole::kSandbox);
  CHECK(info.sandbox_id == "abc");
}

TEST_CASE("CRI annotations: an app container names the sandbox it joins") {
  auto info = runsc::PodInfoOf({{"io.kubernetes.cri.container-type", "container"},
                                {"io.kubernetes.cri.sandbox-id", "abc"}});
  CHECK(info.role == runsc::PodRole::kContainer);
  CHECK(info.sandbox_id == "abc");
}

TEST_CASE("CRI-O's annotation names are read too") {
  auto info = runsc::PodInfoOf({{"io.kubernetes.cri-o.ContainerType", "container"},
                                {"io.kubernetes.cri-o.SandboxID", "xyz"}});
  CHECK(info.role == runsc::PodRole::kContainer);
  CHECK(info.sandbox_id == "xyz");
}

TEST_CASE("no pod annotations, or a container without a sandbox id: not a pod member") {
  CHECK(runsc::PodInfoOf({}).role == runsc::PodRole::kNone);
  CHECK(runsc::PodInfoOf({{"io.kubernetes.cri.container-type", "container"}}).role == runsc::PodRole::kNone);
}

TEST_CASE("the sandbox id annotation is rewritten to runsc's id, other annotations kept") {
  json::object doc{{"annotations", json::object{{"io.kubernetes.cri.sandbox-id", "abc"},
                                                {"io.kubernetes.cri.container-type", "container"},
                                                {"other", "x"}}}};
  runsc::RewriteSandboxId(doc, "sshim-0123456789abcdef");
  auto& a = doc["annotations"].as_object();
  CHECK(a["io.kubernetes.cri.sandbox-id"].as_string() == "sshim-0123456789abcdef");
  CHECK(a["io.kubernetes.cri.container-type"].as_string() == "container");
  CHECK(a["other"].as_string() == "x");
  CHECK_FALSE(a.contains("io.kubernetes.cri-o.SandboxID"));  // not added where absent
}

TEST_CASE("a pod container's PID namespace path is dropped: it gets its own, other namespaces kept") {
  json::object doc{{"linux", json::object{{"namespaces", json::array{
                                               json::object{{"type", "pid"}, {"path", "/proc/42/ns/pid"}},
                                               json::object{{"type", "network"}, {"path", "/proc/42/ns/net"}},
                                           }}}}};
  runsc::UnsharePidNamespace(doc);
  auto& nss = doc["linux"].as_object()["namespaces"].as_array();
  REQUIRE(nss.size() == 2);
  CHECK(nss[0].as_object()["type"].as_string() == "pid");
  CHECK_FALSE(nss[0].as_object().contains("path"));
  CHECK(nss[1].as_object()["path"].as_string() == "/proc/42/ns/net");
}

TEST_CASE("a waiter exits as the shim reports a host process: code, or 128+signal") {
  CHECK(runtime::pod::ExitCodeOf(3u << 8) == 3);
  CHECK(runtime::pod::ExitCodeOf(0) == 0);
  CHECK(runtime::pod::ExitCodeOf(SIGKILL) == 137);
  CHECK(runtime::pod::ExitCodeOf(SIGTERM) == 143);
}
