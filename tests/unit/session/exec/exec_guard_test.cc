// The exec guard's side of a session's spec (#33): /.sshim a read-only skeleton of mount
// points before the guard's bind (policy red team F12: root renamed /.sshim and put its own
// guard there), and every program bound below /.sshim has its mount point in the skeleton.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <string>

#include "bundle/session_spec.h"
#include "shim/session/contexts/ctx_helper.h"
#include "shim/session/contexts/trusted_context.h"
#include "shim/session/exec/exec_guard.h"
#include "shim/session/store/layout.h"
#include "tests/unit/test_helpers.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

bool InSkeleton(std::string_view path) {
  std::string prefix = std::string(kToolsDir) + "/";
  if (path.substr(0, prefix.size()) != prefix) return false;
  auto name = path.substr(prefix.size());
  return std::find(std::begin(kToolsSkeletonFiles), std::end(kToolsSkeletonFiles), name) != std::end(kToolsSkeletonFiles) ||
         std::find(std::begin(kToolsSkeletonDirs), std::end(kToolsSkeletonDirs), name) != std::end(kToolsSkeletonDirs);
}

}  // namespace

TEST_CASE("exec guard: every bind below /.sshim has its mount point in the skeleton") {
  for (std::string_view p : {std::string_view(kGuardPath), std::string_view(kCtxHelperPath), std::string_view(kCtxRunPath),
                             std::string_view(kTrustedDir)})
    CHECK_MESSAGE(InSkeleton(p), p);
  CHECK_FALSE(InSkeleton("/.sshim/other"));  // control: a name the skeleton lacks is seen
}

TEST_CASE("exec guard: /.sshim is bound read-only from the skeleton before the guard") {
  testing::TempDir dir;
  bundle::SessionProfile p;
  p.rootfs = "/rootfs";
  p.workspace = "/ws";
  p.command_policy_json = R"J({"permissions": {"deny": ["shell(curl:*)"]}})J";
  auto spec = bundle::SessionSpec(p).value();
  REQUIRE(AddExecGuard(spec, p, dir.path()).ok());
  const auto& mounts = spec.at("mounts").as_array();
  auto at = [&](std::string_view dest) {
    return std::find_if(mounts.begin(), mounts.end(), [&](const json::value& m) { return m.at("destination").as_string() == dest; });
  };
  auto tools = at(kToolsDir), guard = at(kGuardPath);
  REQUIRE(tools != mounts.end());
  REQUIRE(guard != mounts.end());
  CHECK(tools < guard);
  const auto& opts = tools->at("options").as_array();
  CHECK(std::find(opts.begin(), opts.end(), json::value("ro")) != opts.end());
  std::filesystem::path skel(std::string(tools->at("source").as_string()));
  CHECK(skel == dir.path() / layout::kToolsSkeleton);
  struct stat st;
  for (auto name : kToolsSkeletonFiles) CHECK((::lstat((skel / name).c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0));
  for (auto name : kToolsSkeletonDirs) CHECK((::lstat((skel / name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)));
  REQUIRE(AddExecGuard(spec, p, dir.path()).ok());  // a second create over the same directory (a pool member's)
}

TEST_CASE("exec guard: no policy, no guard and no skeleton bind") {
  testing::TempDir dir;
  bundle::SessionProfile p;
  p.rootfs = "/rootfs";
  p.workspace = "/ws";
  auto spec = bundle::SessionSpec(p).value();
  REQUIRE(AddExecGuard(spec, p, dir.path()).ok());
  for (const auto& m : spec.at("mounts").as_array()) CHECK(m.at("destination") != kToolsDir);
}

}  // namespace sandshim::session
