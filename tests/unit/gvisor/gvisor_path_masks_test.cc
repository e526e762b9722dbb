#include <doctest/doctest.h>

#include <map>

#include "bundle/spec.h"
#include "shim/gvisor/gvisor_path_masks.h"

namespace sandshim::runtime {
namespace {

using Kind = HostPath::Kind;

bundle::Spec SpecWithPaths(const std::string& masked, const std::string& readonly) {
  return *bundle::ParseSpec(R"({"ociVersion":"1.0.2","root":{"path":"r"},"process":{"args":["a"],"cwd":"/"},
    "linux":{"maskedPaths":[)" + masked + R"(],"readonlyPaths":[)" + readonly + "]}}");
}

HostLookup Fake(std::map<std::string, HostPath> m) {
  return [m](const std::string& p) { return m.contains(p) ? m.at(p) : HostPath{}; };
}

std::string Describe(const boost::json::object& m) {
  return std::string(m.at("destination").as_string()) + " <- " + std::string(m.at("source").as_string()) + " " +
         boost::json::serialize(m.at("options"));
}

}  // namespace

TEST_CASE("path masks: read-only first, masked by kind, /proc /sys and missing paths left alone") {
  auto spec = SpecWithPaths(R"("/etc/secret","/data/dir","/proc/kcore","/sys/firmware","/gone")",
                            R"("/data","/proc/sys")");
  auto lookup = Fake({{"/etc/secret", {Kind::kFile, "/b/r/etc/secret"}},
                      {"/data/dir", {Kind::kDir, "/b/r/data/dir"}},
                      {"/data", {Kind::kDir, "/b/r/data"}},
                      {"/proc/kcore", {Kind::kFile, "/x"}}});
  auto mounts = PathMaskMounts(spec, lookup, "/s/file", "/s/dir");
  REQUIRE(mounts.size() == 3);
  CHECK(Describe(mounts[0]) == R"(/data <- /b/r/data ["rbind","ro"])");
  CHECK(Describe(mounts[1]) == R"(/etc/secret <- /s/file ["rbind","ro"])");
  CHECK(Describe(mounts[2]) == R"(/data/dir <- /s/dir ["rbind","ro"])");
  CHECK(mounts[0].at("type") == "bind");
}

TEST_CASE("path masks: a path nobody can look into before start is skipped, root never masked") {
  auto spec = SpecWithPaths(R"("/tmpfs/x","/","//etc/./secret/")", "");
  auto lookup = Fake({{"/tmpfs/x", {Kind::kUnknown, ""}}, {"/etc/secret", {Kind::kFile, "/b/r/etc/secret"}}});
  auto mounts = PathMaskMounts(spec, lookup, "/s/file", "/s/dir");
  REQUIRE(mounts.size() == 1);
  CHECK(Describe(mounts[0]) == R"(/etc/secret <- /s/file ["rbind","ro"])");
}

}  // namespace sandshim::runtime
