// The gVisor spec plan (shim/gvisor/spec_plan.h): every edit sandshim makes to the spec runsc
// gets, from a spec and facts about the host given here, no runsc, no root.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include <boost/json.hpp>

#include "bundle/spec.h"
#include "shim/gvisor/spec_plan.h"

namespace sandshim::runtime {
namespace {
namespace json = boost::json;

bundle::Spec Parse(const std::string& body) {
  return *bundle::ParseSpec(R"({"ociVersion":"1.0.2","root":{"path":"rootfs"},"process":{"args":["a"],"cwd":"/"})" +
                            body + "}");
}

const json::array& Mounts(const SpecPlan& p) { return p.doc.at("mounts").as_array(); }

bool HasMountAt(const SpecPlan& p, std::string_view dest) {
  if (!p.doc.contains("mounts")) return false;
  for (const auto& m : Mounts(p))
    if (m.as_object().at("destination").as_string() == dest) return true;
  return false;
}

SpecPlanInput Input(std::vector<std::string> flags = {"--network=sandbox"}) {
  return {.bundle = "/b", .out_dir = "/state/c/bundle", .flags = std::move(flags), .host_netns = "/proc/7/fd/3"};
}

}  // namespace

TEST_CASE("spec plan: root made absolute, the caller's spec left as it was") {
  auto spec = Parse("");
  auto plan = PlanSpec(spec, Input(), {});
  CHECK(plan.doc.at("root").as_object().at("path").as_string() == "/b/rootfs");
  CHECK(spec.doc.at("root").as_object().at("path").as_string() == "rootfs");
  CHECK(plan.blkio_weights.empty());
  CHECK(plan.needs_mask_sources);  // the Sentry's devices are masked in every spec (below)
}

TEST_CASE("spec plan: the image's own /tmp is bound only when it is a directory and no overlay keeps writes") {
  auto spec = Parse("");
  SpecFacts dir{.image_tmp_is_dir = true};
  CHECK(HasMountAt(PlanSpec(spec, Input(), dir), "/tmp"));
  CHECK_FALSE(HasMountAt(PlanSpec(spec, Input(), {}), "/tmp"));  // a symlink the image planted, or none
  CHECK_FALSE(HasMountAt(PlanSpec(spec, Input({"--overlay2=root:memory"}), dir), "/tmp"));
  CHECK(HasMountAt(PlanSpec(spec, Input({"--overlay2=none"}), dir), "/tmp"));
  auto own = Parse(R"(,"mounts":[{"destination":"/tmp","type":"tmpfs","source":"tmpfs"}])");
  CHECK(Mounts(PlanSpec(own, Input(), dir)).size() == 3);  // the spec's own /tmp wins (+ 2 device masks)
  CHECK(Mounts(PlanSpec(own, Input(), dir))[0].as_object().at("type").as_string() == "tmpfs");
}

TEST_CASE("spec plan: --network=host without a namespace joins sandshim's by path") {
  auto none = PlanSpec(Parse(""), Input({"--network=host"}), {});
  auto nss = none.doc.at("linux").as_object().at("namespaces").as_array();
  REQUIRE(nss.size() == 1);
  CHECK(nss[0] == json::object{{"type", "network"}, {"path", "/proc/7/fd/3"}});
  // A namespace of its own, or netstack: nothing added.
  auto own = PlanSpec(Parse(R"(,"linux":{"namespaces":[{"type":"network"}]})"), Input({"--network=host"}), {});
  CHECK(own.doc.at("linux").as_object().at("namespaces").as_array().size() == 1);
  CHECK_FALSE(PlanSpec(Parse(""), Input(), {}).doc.contains("linux"));
}

TEST_CASE("spec plan: relative bind sources that exist in the bundle become absolute") {
  auto spec = Parse(R"(,"mounts":[{"destination":"/a","type":"bind","source":"data"},
    {"destination":"/b","type":"bind","source":"missing"},{"destination":"/c","type":"bind","source":"/abs"}])");
  SpecFacts f{.in_bundle = [](const std::string& rel) { return rel == "data"; }};
  auto m = Mounts(PlanSpec(spec, Input(), f));
  CHECK(m[0].as_object().at("source").as_string() == "/b/data");
  CHECK(m[1].as_object().at("source").as_string() == "missing");
  CHECK(m[2].as_object().at("source").as_string() == "/abs");
}

TEST_CASE("spec plan: blockIO weights taken out only when sandshim writes them (create)") {
  auto spec = Parse(R"(,"linux":{"resources":{"blockIO":{"weight":300}}})");
  auto in = Input();
  in.take_blkio_weights = true;
  auto create = PlanSpec(spec, in, {});
  CHECK(json::serialize(create.blkio_weights) == R"({"weight":300})");
  CHECK_FALSE(create.doc.at("linux").as_object().at("resources").as_object().at("blockIO").as_object().contains("weight"));
  auto run = PlanSpec(spec, Input(), {});
  CHECK(run.blkio_weights.empty());
  CHECK(run.doc.at("linux").as_object().at("resources").as_object().at("blockIO").as_object().contains("weight"));
}

TEST_CASE("spec plan: runsc's fix-ups and the runtime-side hooks sandshim runs") {
  auto spec = Parse(R"(,"linux":{"resources":{"pids":{"limit":20}}},
    "hooks":{"prestart":[{"path":"/p"}],"poststop":[{"path":"/s"}],"createContainer":[{"path":"/c"}]})");
  auto in = Input();
  in.hooks_by_sandshim = true;
  auto plan = PlanSpec(spec, in, {});
  const auto& rl = plan.doc.at("process").as_object().at("rlimits").as_array();
  CHECK(rl.back().as_object().at("type").as_string() == "RLIMIT_NPROC");  // the pids limit, inside
  const auto& hooks = plan.doc.at("hooks").as_object();
  CHECK_FALSE(hooks.contains("prestart"));
  CHECK_FALSE(hooks.contains("poststop"));
  CHECK(hooks.contains("createContainer"));  // runs inside the container: runsc keeps it
  CHECK(PlanSpec(spec, Input(), {}).doc.at("hooks").as_object().contains("prestart"));  // `runsc run` keeps them
}

TEST_CASE("spec plan: masked and read-only paths become mounts after the spec's own, with their sources asked for") {
  auto spec = Parse(R"(,"mounts":[{"destination":"/data","type":"bind","source":"/host/data"}],
    "linux":{"maskedPaths":["/etc/secret","/gone"],"readonlyPaths":["/data"]})");
  std::map<std::string, HostPath> host{{"/etc/secret", {HostPath::Kind::kFile, "/r/etc/secret"}},
                                       {"/data", {HostPath::Kind::kDir, "/host/data"}}};
  SpecFacts f{.lookup = [host](const std::string& p) { return host.contains(p) ? host.at(p) : HostPath{}; }};
  auto plan = PlanSpec(spec, Input(), f);
  REQUIRE(Mounts(plan).size() == 5);  // + the Sentry's two devices (next case)
  CHECK(plan.needs_mask_sources);
  CHECK(Mounts(plan)[1].as_object().at("destination").as_string() == "/data");  // read-only first
  CHECK(Mounts(plan)[1].as_object().at("source").as_string() == "/host/data");
  CHECK(Mounts(plan)[2].as_object().at("source").as_string() == "/state/c/bundle/masked-file");
}

TEST_CASE("spec plan: the Sentry's /dev/fuse and /dev/net/tun are masked unless the spec lists or mounts them") {
  auto plain = PlanSpec(Parse(R"(,"mounts":[{"destination":"/dev","type":"tmpfs","source":"tmpfs"}])"), Input(), {});
  CHECK(plain.needs_mask_sources);
  CHECK(HasMountAt(plain, "/dev/fuse"));
  CHECK(HasMountAt(plain, "/dev/net/tun"));
  for (const auto& m : Mounts(plain))
    if (m.as_object().at("destination").as_string() == "/dev/fuse")
      CHECK(m.as_object().at("source").as_string() == "/state/c/bundle/masked-file");
  // docker run --device /dev/fuse (a devices entry); a bind at /dev/net (the spec's own)
  auto asked = PlanSpec(Parse(R"(,"mounts":[{"destination":"/dev/net/","type":"bind","source":"/h/net"}],
    "linux":{"devices":[{"path":"/dev/fuse","type":"c","major":10,"minor":229}]})"), Input(), {});
  CHECK_FALSE(HasMountAt(asked, "/dev/fuse"));
  CHECK_FALSE(HasMountAt(asked, "/dev/net/tun"));
  // the host's /dev bound whole (-v /dev:/dev): its nodes are what was asked for
  auto host_dev = PlanSpec(Parse(R"(,"mounts":[{"destination":"/dev","type":"none","source":"/dev","options":["rbind"]}])"),
                           Input(), {});
  CHECK_FALSE(HasMountAt(host_dev, "/dev/fuse"));
}

TEST_CASE("spec plan: a pod's app container names its sandbox by runsc id and gets a pid namespace of its own") {
  auto spec = Parse(R"(,"annotations":{"io.kubernetes.cri.container-type":"container",
    "io.kubernetes.cri.sandbox-id":"pause1"},"linux":{"namespaces":[{"type":"pid","path":"/proc/9/ns/pid"}]})");
  auto in = Input();
  in.pod_sandbox_runsc_id = "sshim-0123";
  auto plan = PlanSpec(spec, in, {});
  CHECK(plan.doc.at("annotations").as_object().at("io.kubernetes.cri.sandbox-id").as_string() == "sshim-0123");
  CHECK_FALSE(plan.doc.at("linux").as_object().at("namespaces").as_array()[0].as_object().contains("path"));
  CHECK(PlanSpec(spec, Input(), {}).doc.at("annotations").as_object().at("io.kubernetes.cri.sandbox-id").as_string() ==
        "pause1");
}

}  // namespace sandshim::runtime
