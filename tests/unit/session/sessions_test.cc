// Sessions driven in-process: the session layer over the real Containers and gVisor backend,
// whose runsc is the fake (tests/fakes/fake-runsc.sh, the seam containers_test uses too). It
// needs no root (but for two cases: a gVisor session's base overlay is a mount): the control network namespaces (CAP_SYS_ADMIN) come from the CallerNetns
// keeper, which makes none (the fake runsc binds no socket to guard). What
// is covered here is the session's own logic: the record, the journal and its undo, stop and
// start, and a teardown past a journal it cannot read. What runsc does is the integration
// suites' (session_test.sh, real runsc).
#include <doctest/doctest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/session_spec.h"
#include "shim/core/fs.h"
#include "shim/core/unique_fd.h"
#include "shim/gvisor/gvisor_backend.h"
#include "shim/session/sessions.h"
#include "tests/unit/test_helpers.h"
#include "shim/cli/backends.h"
#include "tests/fakes/caller_netns.h"
#include "tests/unit/session/host_fixture.h"

using namespace sandshim;

namespace {

struct Fixture {
  testing::TempDir dir;
  pid_t init = 0;
  std::filesystem::path calls = dir.path() / "calls.log";
  std::filesystem::path root = dir.path() / "root";

  std::vector<pid_t> inits;
  testing::CallerNetns netns;

  // The fake runsc reports FAKE_RUNSC_PID as the sandbox; a stop kills it, so every sandbox
  // started gets a live one of its own.
  void NewInit() {
    init = ::fork();
    if (init == 0) {
      ::execl("/bin/sleep", "sleep", "60", nullptr);
      ::_exit(127);
    }
    inits.push_back(init);
    ::setenv("FAKE_RUNSC_PID", std::to_string(init).c_str(), 1);
  }

  Fixture() {
    NewInit();
    ::setenv("FAKE_RUNSC_LOG", calls.c_str(), 1);
    (void)fs::MkdirAll(dir.path() / "rootfs" / "bin");
    (void)fs::WriteFileAtomic(dir.path() / "rootfs" / "bin" / "sh", "#!/bin/sh\n", 0755);
    (void)fs::MkdirAll(dir.path() / "ws");
  }
  ~Fixture() {
    for (pid_t p : inits) {
      ::kill(p, SIGKILL);
      ::waitpid(p, nullptr, 0);
    }
    for (const char* v : {"FAKE_RUNSC_PID", "FAKE_RUNSC_LOG"}) ::unsetenv(v);
  }
  session::Sessions Make() {
    return session::Sessions(testing::FakeRunscOptions(root, dir.path(), netns));
  }
  bundle::SessionProfile Profile() {
    bundle::SessionProfile p;
    p.rootfs = (dir.path() / "rootfs").string();
    p.workspace = (dir.path() / "ws").string();
    return p;
  }
  std::string Calls() { return fs::ReadFile(calls).value_or(""); }
  std::string Rid(const std::string& id) { return runtime::GvisorBackend::RunscId(root, id); }
};

}  // namespace

// A gVisor session's base is seen through a host overlay (the cached base is never written,
// #34): making it needs root, so these two cases run as root only (ctest's `unit`).
TEST_CASE("sessions: create, stop, start and delete through the runtime, nothing left") {
  if (::geteuid() != 0) return;
  Fixture f;
  auto s = f.Make();
  auto made = s.Create("s1", "one", f.Profile());
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().msg));
  CHECK(made->backend == "gvisor");
  CHECK(made->container_id == "sess-s1");
  CHECK(s.Get("one")->status == "running");  // by name
  CHECK(f.Calls().find("create --bundle=") != std::string::npos);
  auto stopped = s.Stop("s1");
  REQUIRE_MESSAGE(stopped.ok(), (stopped.ok() ? "" : stopped.error().msg));
  CHECK(s.Get("s1")->status == "stopped");
  CHECK(f.Calls().find("delete --force " + f.Rid("sess-s1")) != std::string::npos);
  f.NewInit();
  auto started = s.Start("s1");
  REQUIRE_MESSAGE(started.ok(), (started.ok() ? "" : started.error().msg));
  CHECK(s.Get("s1")->status == "running");
  REQUIRE(s.Delete("one").ok());
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "s1"));
  CHECK_FALSE(fs::Exists(f.root / "sess-s1"));
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "@names" / "one"));
  CHECK(s.List().empty());
}

// Before: an unreadable session journal made `session delete` fail forever and gc skip the
// session in silence. The strict reader still stops a plain delete (record kept); --force and
// gc undo what can be read and what can be found (the container, the name, mounts, relays).
TEST_CASE("sessions: delete --force and gc go past an unreadable journal, a plain delete does not") {
  if (::geteuid() != 0) return;
  Fixture f;
  auto s = f.Make();
  REQUIRE(s.Create("s2", "two", f.Profile()).ok());
  auto journal = f.root / "@sessions" / "s2" / "journal.json";
  REQUIRE(fs::WriteFileAtomic(journal, R"([{"kind":"session-name","data":{"path":7}},{"kind":"from-the-future","data":{}}])").ok());
  auto plain = s.Delete("s2");
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.error().msg.find("[0].data.path") != std::string::npos);
  CHECK(fs::Exists(f.root / "@sessions" / "s2" / "session.json"));
  // gc leaves a live session whose journal it cannot read, and says so.
  auto rep = s.Gc(std::nullopt);
  REQUIRE(rep.errors.size() == 1);
  CHECK(rep.errors[0].find("session s2: ") == 0);
  CHECK(fs::Exists(f.root / "@sessions" / "s2" / "session.json"));
  REQUIRE(s.Delete("s2", /*force=*/true).ok());
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "s2"));
  CHECK_FALSE(fs::Exists(f.root / "sess-s2"));  // found by its id, not by the journal
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "@names" / "two"));
  CHECK(f.Calls().find("delete --force " + f.Rid("sess-s2")) != std::string::npos);

  // A half-made session (no record) with a garbled journal: gc removes it.
  f.NewInit();
  auto s3 = s.Create("s3", "", f.Profile());
  REQUIRE_MESSAGE(s3.ok(), (s3.ok() ? "" : s3.error().msg));
  REQUIRE(fs::WriteFileAtomic(f.root / "@sessions" / "s3" / "journal.json", "not json").ok());
  REQUIRE(::unlink((f.root / "@sessions" / "s3" / "session.json").c_str()) == 0);
  rep = s.Gc(std::nullopt);
  CHECK(rep.errors.empty());
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "s3"));
  CHECK_FALSE(fs::Exists(f.root / "sess-s3"));
}

// #35: pause and resume over the fake runsc (what a real checkpoint keeps is the `snapshot`
// suite's). The checkpoint probe asks the fake too: FAKE_RUNSC_STATE makes its restored
// sandbox read as running.
TEST_CASE("sessions: pause checkpoints into the session's snapshot dir, resume restores from it") {
  if (::geteuid() != 0) return;
  Fixture f;
  ::setenv("FAKE_RUNSC_STATE", R"({"status":"running"})", 1);
  auto s = f.Make();
  REQUIRE(s.Create("p1", "", f.Profile()).ok());
  auto paused = s.Pause("p1");
  REQUIRE_MESSAGE(paused.ok(), (paused.ok() ? "" : paused.error().msg));
  auto snap = f.root / "@sessions" / "p1" / "snapshot";
  CHECK(f.Calls().find("checkpoint --image-path=" + snap.string() + " " + f.Rid("sess-p1")) != std::string::npos);
  CHECK(s.Get("p1")->status == "paused");
  CHECK(fs::Exists(snap));
  CHECK_FALSE(fs::Exists(f.root / "sess-p1"));  // the runtime's container is gone with the sandbox
  auto exec = s.ForExec("p1");
  REQUIRE_FALSE(exec.ok());
  CHECK(exec.error().msg == "session p1 is paused (session resume p1)");
  CHECK_FALSE(s.Pause("p1").ok());
  f.NewInit();
  auto resumed = s.Resume("p1");
  REQUIRE_MESSAGE(resumed.ok(), (resumed.ok() ? "" : resumed.error().msg));
  CHECK(f.Calls().find("--image-path=" + snap.string() + " --detach " + f.Rid("sess-p1")) != std::string::npos);
  CHECK(s.Get("p1")->status == "running");
  CHECK_FALSE(fs::Exists(snap));
  auto again = s.Resume("p1");
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().msg == "session p1 is running, not paused: nothing to resume");
  REQUIRE(s.Delete("p1").ok());
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "p1"));
  ::unsetenv("FAKE_RUNSC_STATE");
}

TEST_CASE("sessions: where the runsc cannot restore, pause is refused up front and the session runs on") {
  if (::geteuid() != 0) return;
  Fixture f;
  auto s = f.Make();
  REQUIRE(s.Create("p2", "", f.Profile()).ok());
  auto paused = s.Pause("p2");  // the fake's restored sandbox has no state: the probe says no
  REQUIRE_FALSE(paused.ok());
  CHECK(paused.error().msg.find("session p2: cannot pause: this runsc cannot checkpoint and restore") == 0);
  CHECK(paused.error().msg.find('\n') == std::string::npos);
  CHECK(s.Get("p2")->status == "running");
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "p2" / "snapshot"));
  CHECK(f.Calls().find("checkpoint --image-path=" + (f.root / "@sessions").string()) == std::string::npos);
  REQUIRE(s.Delete("p2").ok());
  auto unknown = s.Pause("nope");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().msg == "session nope does not exist");
}

// A snapshot that died leaves .tmp-NAME in @snapshots: gc removes it, but not while a snapshot
// is being made (it holds the directory's flock shared, session_snapshot.cc).
TEST_CASE("sessions: gc removes a dead snapshot's .tmp- image, never a live one's") {
  if (::geteuid() != 0) return;
  Fixture f;
  auto s = f.Make();
  auto snaps = f.root / "@snapshots";
  REQUIRE(fs::MkdirAll(snaps / ".tmp-dead" / "image", 0700).ok());
  REQUIRE(fs::MkdirAll(snaps / "whole" / "image", 0700).ok());
  {
    UniqueFd live(::open(snaps.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(::flock(live.get(), LOCK_SH) == 0);
    auto rep = s.Gc(std::nullopt);
    CHECK(fs::Exists(snaps / ".tmp-dead"));  // a snapshot in flight may own it
    CHECK(rep.errors.empty());
  }
  auto rep = s.Gc(std::nullopt);
  CHECK_FALSE(fs::Exists(snaps / ".tmp-dead"));
  CHECK(fs::Exists(snaps / "whole"));  // a whole snapshot is never gc's
  REQUIRE(rep.removed.size() == 1);
  CHECK(rep.removed[0] == "snapshot .tmp-dead (a snapshot that did not finish)");
}
