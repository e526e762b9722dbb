// The session layer's factories driven in-process as any user (session_create_test,
// pool/pool_claim_test, contexts/context_create_test): the real Containers and gVisor backend
// over the fake runsc (tests/fakes/fake-runsc.sh), the control namespaces from the caller
// (caller_netns.h), and the host effects through the recording Sys with real_files: links,
// renames and directories happen in the temp dir, mounts and ownership are only recorded.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "bundle/session_spec.h"
#include "shim/core/fs.h"
#include "shim/cli/backends.h"
#include "shim/runtime/containers.h"
#include "tests/fakes/caller_netns.h"
#include "tests/fakes/recording_sys.h"
#include "tests/unit/test_helpers.h"

namespace sandshim::testing {

// The options of a session layer over the fake runsc whose every host-side path is below
// scratch (the workspace guards' registry too: the real one is host-wide).
inline runtime::Options FakeRunscOptions(const std::filesystem::path& root, const std::filesystem::path& scratch,
                                         testing::CallerNetns& netns) {
  runtime::Options o;
  o.root = root;
  o.backend_flag = "gvisor";
  o.config.runsc = testing::FakeRunsc();
  o.config.cache_dir = scratch / "cache";
  o.config.audit_dir = scratch / "audit";
  o.config.workspace_guards = scratch / "guards";
  o.make_backends = sandshim::cli::Backends(netns);
  return o;
}

struct HostFixture {
  testing::TempDir dir;
  std::filesystem::path root = dir.path() / "root", ws = dir.path() / "ws", rootfs = dir.path() / "rootfs";
  std::filesystem::path runsc_log = dir.path() / "calls.log";
  testing::CallerNetns netns;
  testing::RecordingSys sys;
  pid_t init = 0;

  HostFixture() {
    sys.real_files = true;
    init = ::fork();
    if (init == 0) {
      ::execl("/bin/sleep", "sleep", "60", nullptr);
      ::_exit(127);
    }
    ::setenv("FAKE_RUNSC_PID", std::to_string(init).c_str(), 1);
    ::setenv("FAKE_RUNSC_LOG", runsc_log.c_str(), 1);
    (void)fs::MkdirAll(rootfs / "bin");
    (void)fs::WriteFileAtomic(rootfs / "bin" / "sh", "#!/bin/sh\n", 0755);
    (void)fs::MkdirAll(ws);
  }
  ~HostFixture() {
    ::kill(init, SIGKILL);
    ::waitpid(init, nullptr, 0);
    for (const char* v : {"FAKE_RUNSC_PID", "FAKE_RUNSC_LOG"}) ::unsetenv(v);
  }
  runtime::Options Options() {
    auto o = FakeRunscOptions(root, dir.path(), netns);
    o.host_sys = &sys;
    return o;
  }
  bundle::SessionProfile Profile() {
    bundle::SessionProfile p;
    p.rootfs = rootfs.string();
    p.workspace = ws.string();
    p.uid = ::geteuid();  // the workspace is the session user's: no idmapped bind
    p.gid = ::getegid();
    return p;
  }
  std::vector<std::string> JournalKinds(const std::string& id) {
    std::vector<std::string> out;
    auto text = fs::ReadFile(root / "@sessions" / id / "journal.json");
    if (!text) return out;
    auto entries = boost::json::parse(*text);  // (kept: a loop over the temporary's array would dangle)
    for (const auto& e : entries.as_array()) out.emplace_back(e.at("kind").as_string());
    return out;
  }
};


}  // namespace sandshim::testing
