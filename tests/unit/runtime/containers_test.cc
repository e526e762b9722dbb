// Containers driven end to end against the fake runsc: the lifecycle, the status guards, and
// the rollback that a failing create must run. No root needed: the control namespaces come
// from the CallerNetns keeper, which makes none (the fake binds no socket to guard).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/default_spec.h"
#include "shim/core/fs.h"
#include "shim/runtime/containers.h"
#include "shim/gvisor/gvisor_backend.h"
#include "shim/runtime/journal_steps.h"
#include "tests/unit/test_helpers.h"
#include "shim/cli/backends.h"
#include "tests/fakes/caller_netns.h"

using namespace sandshim;
using namespace sandshim::runtime;

namespace {

struct Fixture {
  testing::TempDir dir;
  pid_t init = 0;
  std::filesystem::path calls = dir.path() / "calls.log";
  testing::CallerNetns netns;

  Fixture() {
    init = ::fork();
    if (init == 0) {
      ::execl("/bin/sleep", "sleep", "60", nullptr);
      ::_exit(127);
    }
    ::setenv("FAKE_RUNSC_PID", std::to_string(init).c_str(), 1);
    ::setenv("FAKE_RUNSC_LOG", calls.c_str(), 1);
    (void)fs::MkdirAll(dir.path() / "bundle" / "rootfs" / "bin");
    (void)fs::WriteFileAtomic(dir.path() / "bundle" / "rootfs" / "bin" / "true", "#!/bin/sh\n", 0755);
    (void)fs::WriteFileAtomic(dir.path() / "bundle" / "config.json",
                              boost::json::serialize(bundle::DefaultSpec({"true"}, false)));
  }
  ~Fixture() {
    ::kill(init, SIGKILL);
    ::waitpid(init, nullptr, 0);
    for (const char* v : {"FAKE_RUNSC_PID", "FAKE_RUNSC_LOG", "FAKE_RUNSC_FAIL", "FAKE_RUNSC_ERR"}) ::unsetenv(v);
  }
  Containers Make() {
    Options o;
    o.root = dir.path() / "root";
    o.config.runsc = testing::FakeRunsc();
    o.config.cache_dir = dir.path() / "cache";
    o.make_backends = sandshim::cli::Backends(netns);
    return Containers(o);
  }
  CreateRequest Request(const std::string& id) {
    CreateRequest r;
    r.id = id;
    r.bundle = dir.path() / "bundle";
    r.spec = *bundle::LoadSpec(r.bundle);
    return r;
  }
  std::string Calls() { return fs::ReadFile(calls).value(); }
  std::string Rid(const std::string& id) { return GvisorBackend::RunscId(dir.path() / "root", id); }
};

}  // namespace

TEST_CASE("containers: create, start, exec guard, kill, delete") {
  Fixture f;
  auto c = f.Make();
  REQUIRE(c.Create(f.Request("c1")).ok());
  auto st = c.State("c1");
  REQUIRE(st.ok());
  CHECK(st->status == ContainerStatus::kCreated);
  CHECK(st->init.pid == f.init);
  CHECK(st->backend == "gvisor");
  CHECK(c.Create(f.Request("c1")).error().msg == "container c1 already exists");
  CHECK(c.Exec("c1", ExecRequest{}).error().msg.find("in state created") != std::string::npos);
  REQUIRE(c.Start("c1").ok());
  CHECK(c.State("c1")->status == ContainerStatus::kRunning);
  CHECK(c.Start("c1").error().msg == "cannot start container c1 in state running");
  REQUIRE(c.Kill("c1", SIGTERM, false).ok());
  CHECK(c.Delete("c1", false).error().msg.find("not stopped") != std::string::npos);
  REQUIRE(c.Delete("c1", true).ok());
  CHECK_FALSE(c.State("c1").ok());
  CHECK(c.List().empty());
  std::string calls = f.Calls();
  CHECK(calls.find("create --bundle=") != std::string::npos);
  CHECK(calls.find("--network=none") != std::string::npos);  // the default spec has an empty netns
  CHECK(calls.find("start " + f.Rid("c1")) != std::string::npos);
  CHECK(calls.find("kill " + f.Rid("c1") + " 15") != std::string::npos);
  CHECK(calls.find("delete --force " + f.Rid("c1")) != std::string::npos);
  CHECK(c.Delete("c1", false).error().msg == "container c1 does not exist");
  // runc: delete --force of a container that is gone succeeds; a bad id is still an error.
  CHECK(c.Delete("c1", true));
  CHECK_FALSE(c.Delete("../c1", true));
}

TEST_CASE("containers: a failed create rolls back and leaves no state") {
  Fixture f;
  auto c = f.Make();
  ::setenv("FAKE_RUNSC_FAIL", "create", 1);
  ::setenv("FAKE_RUNSC_ERR", "boom from runsc", 1);
  // runsc failed after writing its state file: the rollback must still ask runsc to delete.
  (void)fs::MkdirAll(f.dir.path() / "root" / "@runsc");
  (void)fs::WriteFileAtomic(f.dir.path() / "root" / "@runsc" / (f.Rid("c2") + "_sandbox:" + f.Rid("c2") + ".state"), "{}");
  auto s = c.Create(f.Request("c2"));
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg == "runsc create: boom from runsc");
  CHECK_FALSE(fs::Exists(f.dir.path() / "root" / "c2"));
  CHECK_FALSE(fs::Exists(f.dir.path() / "root" / "@runsc" / (f.Rid("c2") + "_sandbox:" + f.Rid("c2") + ".state")));
  CHECK(f.Calls().find("delete --force " + f.Rid("c2")) != std::string::npos);  // the rollback ran the journal
}

// Issue #16 P4: backends used to be built on first use with that caller's arguments. A create
// replaying a stale journal (what a crashed create leaves) built the gVisor backend for the
// undo with no platform, and the create that followed reused it: runsc got no --platform.
TEST_CASE("containers: re-creating an id after a crashed create keeps the probed platform") {
  Fixture f;
  auto c = f.Make();
  auto dir = f.dir.path() / "root" / "c3";
  REQUIRE(fs::MkdirAll(dir, 0700).ok());
  ContainerJournal stale(dir / "journal.json");
  REQUIRE(stale.Append(step::RunscContainer{.runsc_root = (f.dir.path() / "root" / "@runsc").string(),
                                            .id = f.Rid("c3")}).ok());
  // runsc's state file of that sandbox, so the undo asks runsc to delete it.
  REQUIRE(fs::MkdirAll(f.dir.path() / "root" / "@runsc").ok());
  REQUIRE(fs::WriteFileAtomic(f.dir.path() / "root" / "@runsc" / (f.Rid("c3") + "_sandbox:" + f.Rid("c3") + ".state"), "{}").ok());
  REQUIRE(c.Create(f.Request("c3")).ok());
  std::string create_line;
  for (std::string_view rest = f.Calls(); !rest.empty();) {
    auto line = rest.substr(0, rest.find('\n'));
    rest.remove_prefix(std::min(rest.size(), line.size() + 1));
    if (line.find(" create ") != std::string_view::npos) create_line = line;
  }
  CHECK(f.Calls().find("delete --force " + f.Rid("c3")) != std::string::npos);  // the stale journal was undone
  REQUIRE_FALSE(create_line.empty());
  CHECK(create_line.find("--platform=ptrace") != std::string::npos);
  CHECK(GvisorOf(c.State("c3")->backend_data).platform == "ptrace");
  REQUIRE(c.Delete("c3", true).ok());
}

TEST_CASE("containers: a dead init reads as stopped; delete needs no force then") {
  Fixture f;
  auto c = f.Make();
  REQUIRE(c.Create(f.Request("c3")).ok());
  REQUIRE(c.Start("c3").ok());
  ::kill(f.init, SIGKILL);
  ::waitpid(f.init, nullptr, 0);
  CHECK(c.State("c3")->status == ContainerStatus::kStopped);
  CHECK(c.Kill("c3", SIGTERM, false).error().msg.find("container not running") != std::string::npos);
  CHECK(c.Delete("c3", false).ok());
}

TEST_CASE("containers: gc removes a create whose creator died, and nothing the second time") {
  Fixture f;
  auto c = f.Make();
  // A record as a creator killed mid-create leaves it: status creating, owner gone.
  StateStore store(f.dir.path() / "root");
  {
    auto lock = store.Lock("dead", LockMode::kCreate);
    REQUIRE(lock.ok());
    ContainerRecord r;
    r.id = "dead";
    r.status = ContainerStatus::kCreating;
    r.owner = {999999, 1};
    REQUIRE(store.Save(*lock, r).ok());
    ContainerJournal j(store.Dir("dead") / "journal.json");
    REQUIRE(j.Append(step::RunscContainer{.runsc_root = (f.dir.path() / "root" / "@runsc").string(), .id = f.Rid("dead")}).ok());
    (void)fs::MkdirAll(f.dir.path() / "root" / "@runsc");
    (void)fs::WriteFileAtomic(f.dir.path() / "root" / "@runsc" / (f.Rid("dead") + "_sandbox:" + f.Rid("dead") + ".state"), "{}");
  }
  REQUIRE(c.Create(f.Request("alive")).ok());
  auto first = c.Gc();
  REQUIRE(first.removed.size() == 1);
  CHECK(first.removed[0].find("container dead") == 0);
  CHECK(first.errors.empty());
  CHECK(f.Calls().find("delete --force " + f.Rid("dead")) != std::string::npos);
  CHECK(c.Gc().removed.empty());
  CHECK(c.State("alive").ok());
  REQUIRE(c.Delete("alive", true).ok());
}

TEST_CASE("containers: a command missing from the rootfs fails create with runc's words") {
  Fixture f;
  auto c = f.Make();
  auto r = f.Request("nocmd");
  r.spec.process->args = {"no-such-command"};
  auto s = c.Create(r);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg == "exec: \"no-such-command\": executable file not found in $PATH");
  CHECK_FALSE(fs::Exists(f.dir.path() / "root" / "nocmd"));
  // runsc never ran for it (the probe's own sandboxes, under probe-* ids, may have).
  CHECK(f.Calls().find(f.Rid("nocmd")) == std::string::npos);
}

TEST_CASE("runsc ids: fixed length, distinct per root and id, stable") {
  auto a = GvisorBackend::RunscId("/run/a", "c1"), b = GvisorBackend::RunscId("/run/a", "c10");
  CHECK(a.size() == b.size());  // no id is a prefix of another (runsc matches ids by prefix)
  CHECK(a != b);
  CHECK(a != GvisorBackend::RunscId("/run/b", "c1"));
  CHECK(a == GvisorBackend::RunscId("/run/a", "c1"));
  CHECK(a.rfind("sshim-", 0) == 0);
}

// A journal that cannot be read (corrupt or mistyped) used to make every delete fail, --force
// and gc included, leaving the sandbox behind for good. The strict reader still stops a plain
// delete; --force and gc undo what they can read plus what the record names.
TEST_CASE("containers: delete --force goes past an unreadable journal, a plain delete does not") {
  Fixture f;
  auto c = f.Make();
  REQUIRE(c.Create(f.Request("j1")).ok());
  auto journal = f.dir.path() / "root" / "j1" / "journal.json";
  REQUIRE(fs::WriteFileAtomic(journal, R"([{"kind":"runsc-container","data":{"id":7}},{"kind":"no-such-step","data":{}}])").ok());
  auto plain = c.Delete("j1", false);
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.error().msg.find("[0].data.id") != std::string::npos);
  CHECK(fs::Exists(f.dir.path() / "root" / "j1" / "state.json"));  // kept: nothing forgotten
  REQUIRE(c.Delete("j1", true).ok());
  CHECK_FALSE(fs::Exists(f.dir.path() / "root" / "j1"));
  // The record named the sandbox: runsc was asked to destroy it although the journal could not say so.
  CHECK(f.Calls().find("delete --force " + f.Rid("j1")) != std::string::npos);

  // Not JSON at all: the same, and gc too.
  REQUIRE(c.Create(f.Request("j2")).ok());
  REQUIRE(fs::WriteFileAtomic(f.dir.path() / "root" / "j2" / "journal.json", "{not json").ok());
  REQUIRE(c.Delete("j2", true).ok());
  CHECK_FALSE(fs::Exists(f.dir.path() / "root" / "j2"));
  REQUIRE(fs::MkdirAll(f.dir.path() / "root" / "j3", 0700).ok());  // a create that died, journal garbled
  REQUIRE(fs::WriteFileAtomic(f.dir.path() / "root" / "j3" / ".lock", "").ok());
  REQUIRE(fs::WriteFileAtomic(f.dir.path() / "root" / "j3" / "journal.json", "[1]").ok());
  auto rep = c.Gc();
  CHECK(rep.errors.empty());
  CHECK_FALSE(fs::Exists(f.dir.path() / "root" / "j3"));
}

TEST_CASE("journal: salvage keeps the entries that decode and names the rest") {
  testing::TempDir d;
  auto file = d.path() / "journal.json";
  REQUIRE(fs::WriteFileAtomic(file, R"([{"kind":"dir","data":{"path":"/a"}},{"kind":"process","data":{"pid":"1"}},)"
                                    R"(7,{"kind":"file","data":{"path":"/b"}}])").ok());
  CHECK_FALSE(ContainerJournal::Load(file).ok());
  auto s = SalvageJournal<ContainerStep>(file);
  REQUIRE(s.entries.size() == 2);
  CHECK(std::get<step::Dir>(s.entries[0]).path == "/a");
  CHECK(std::get<step::File>(s.entries[1]).path == "/b");
  REQUIRE(s.unreadable.size() == 2);
  CHECK(s.unreadable[0].find("[1].data.pid") != std::string::npos);
  CHECK(s.unreadable[1].find("[2]") != std::string::npos);
  REQUIRE(fs::WriteFileAtomic(file, "garbage").ok());
  auto g = SalvageJournal<ContainerStep>(file);
  CHECK(g.entries.empty());
  CHECK(g.unreadable.size() == 1);
}
