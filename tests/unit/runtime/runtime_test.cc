#include <doctest/doctest.h>

#include "shim/core/fs.h"
#include "shim/runtime/backend_select.h"
#include "shim/runtime/config.h"
#include "shim/runtime/journal_steps.h"
#include "shim/runtime/oci_state.h"
#include "shim/runtime/state_store.h"
#include "shim/runtime/status.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::runtime;
using S = ContainerStatus;

TEST_CASE("status: every status name parses back to itself; unknown names do not parse") {
  for (auto s : {S::kCreating, S::kCreated, S::kRunning, S::kPaused, S::kStopped})
    CHECK(ParseStatus(StatusName(s)) == s);
  CHECK_FALSE(ParseStatus("exited").has_value());
  CHECK_FALSE(ParseStatus("").has_value());
}

TEST_CASE("status: Require names the action, id and state, with the errno clients act on") {
  CHECK(Require("c1", S::kCreated, "start", {S::kCreated}).ok());
  CHECK(Require("c1", S::kPaused, "kill", {S::kCreated, S::kRunning, S::kPaused}).ok());
  auto e = Require("c1", S::kRunning, "start", {S::kCreated});
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().msg == "cannot start container c1 in state running");
  CHECK(e.error().err_no == EBUSY);
  auto stopped = Require("c1", S::kStopped, "kill", {S::kRunning});
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error().msg == "cannot kill container c1 in state stopped: container not running");
  CHECK(stopped.error().err_no == ESRCH);
  CHECK_FALSE(Require("c1", S::kCreated, "resume", {S::kPaused}).ok());  // legal as a transition, not as resume
  CHECK_FALSE(Require("c1", S::kCreating, "exec into", {}).ok());        // an empty list accepts nothing
}

TEST_CASE("state store: lock, save, load, list, erase") {
  testing::TempDir d;
  StateStore store(d.path() / "root");
  auto missing = store.Lock("nope");
  REQUIRE_FALSE(missing.ok());  // else .error() would throw, a confusing failure
  CHECK(missing.error().msg == "container nope does not exist");
  CHECK_FALSE(store.Lock("../x", LockMode::kCreate).ok());
  auto lock = store.Lock("c1", LockMode::kCreate);
  REQUIRE(lock.ok());
  ContainerRecord r;
  r.id = "c1";
  r.backend = "gvisor";
  r.status = S::kCreated;
  r.init = proc::Self();
  r.annotations["a"] = "b";
  r.backend_data = GvisorData{.flags = {"--network=none"}};
  REQUIRE(store.Save(*lock, r).ok());
  auto back = store.Load("c1");
  REQUIRE(back.ok());
  CHECK(back->backend == "gvisor");
  CHECK(back->init.pid == r.init.pid);
  CHECK(back->init.start == r.init.start);
  CHECK(back->annotations.at("a") == "b");
  CHECK(LiveStatus(*back) == S::kCreated);
  CHECK(GvisorOf(back->backend_data).flags == std::vector<std::string>{"--network=none"});
  CHECK(store.List() == std::vector<std::string>{"c1"});
  // Another locker must not get in while we hold it.
  CHECK_FALSE(store.TryLock("c1").ok());
  REQUIRE(store.Erase(*lock).ok());
  CHECK(store.List().empty());
  CHECK_FALSE(store.Load("c1").ok());
}

TEST_CASE("state store: a recycled pid reads as stopped; a dead creator too") {
  ContainerRecord r;
  r.status = S::kRunning;
  r.init = proc::Self();
  CHECK(LiveStatus(r) == S::kRunning);
  r.init.start += 1;
  CHECK(LiveStatus(r) == S::kStopped);
  r.status = S::kCreating;
  r.owner = {999999999, 1};
  CHECK(LiveStatus(r) == S::kStopped);
  r.owner = proc::Self();
  CHECK(LiveStatus(r) == S::kCreating);
}

TEST_CASE("journal: durable appends, backwards replay, every step runs, errors joined") {
  testing::TempDir d;
  ContainerJournal j(d.path() / "journal.json");
  REQUIRE(j.Append(step::Dir{"/a"}).ok());
  REQUIRE(j.Append(step::RunscContainer{.id = "x"}).ok());
  REQUIRE(j.Append(step::File{"/b"}).ok());
  auto back = ContainerJournal::Load(d.path() / "journal.json");
  REQUIRE(back.ok());
  REQUIRE(back->entries().size() == 3);
  CHECK(std::get<step::RunscContainer>(back->entries()[1]).id == "x");
  std::vector<std::string> order;
  auto s = Replay(back->entries(), [&](const ContainerStep& e) -> Status {
    order.emplace_back(KindOf(e));
    if (std::holds_alternative<step::RunscContainer>(e)) return MakeError("boom", EIO);
    return Ok();
  });
  CHECK(order == std::vector<std::string>{"file", "runsc-container", "dir"});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg == "undo runsc-container: boom");
  auto empty = ContainerJournal::Load(d.path() / "none.json");
  REQUIRE(empty.ok());
  CHECK(empty->entries().empty());
  // Not durable: still there for the next process; an empty file (a non-durable write cut
  // by an OS crash) is an empty journal.
  ContainerJournal v(d.path() / "volatile.json", /*durable=*/false);
  REQUIRE(v.Append(step::Process{.pid = 1}).ok());
  CHECK(ContainerJournal::Load(d.path() / "volatile.json")->entries().size() == 1);
  REQUIRE(fs::WriteFileAtomic(d.path() / "cut.json", "", 0644, false).ok());
  auto cut = ContainerJournal::Load(d.path() / "cut.json");
  REQUIRE(cut.ok());
  CHECK(cut->entries().empty());
}

// Issue #16: a container journal as the previous sandshim (kind strings + JSON objects) wrote
// it, byte for byte; gc's runsc entry carried only runsc_root and id.
TEST_CASE("journal: a container journal in the old format loads, each step typed") {
  testing::TempDir d;
  const char* old = R"([{"kind":"runsc-container","data":{"runsc_root":"/run/s/@runsc","id":"r-1","bundle":"/b",)"
                    R"("runsc_bundle":"/run/s/c/bundle","cgroups_path":"","control_netns":"/run/s/@netns",)"
                    R"("flags":["--network=none"],"container_id":"c"}},)"
                    R"({"kind":"native-container","data":{"id":"n","cgroups":["/sys/fs/cgroup/x"],"bundle":"/b2"}},)"
                    R"({"kind":"process","data":{"pid":4242,"start":99}},)"
                    R"({"kind":"runsc-container","data":{"runsc_root":"/r","id":"gc-only"}},)"
                    R"({"kind":"file","data":{"path":"/f"}},{"kind":"dir","data":{"path":"/d"}}])";
  REQUIRE(fs::WriteFileAtomic(d.path() / "journal.json", old, 0600).ok());
  auto j = ContainerJournal::Load(d.path() / "journal.json");
  REQUIRE(j.ok());
  REQUIRE(j->entries().size() == 6);
  const auto& r = std::get<step::RunscContainer>(j->entries()[0]);
  CHECK(r.runsc_bundle == "/run/s/c/bundle");
  CHECK(r.flags == std::vector<std::string>{"--network=none"});
  CHECK(r.container_id == "c");
  CHECK(std::get<step::NativeContainer>(j->entries()[1]).cgroups == std::vector<std::string>{"/sys/fs/cgroup/x"});
  CHECK(std::get<step::Process>(j->entries()[2]).start == 99);
  CHECK(std::get<step::RunscContainer>(j->entries()[3]).container_id.empty());
  CHECK(std::get<step::Dir>(j->entries()[5]).path == "/d");
  // Appending keeps the format: what this binary writes, the previous one read.
  REQUIRE(j->Append(step::Dir{"/e"}).ok());
  auto text = fs::ReadFile(d.path() / "journal.json");
  REQUIRE(text.ok());
  CHECK(text->find(R"({"kind":"dir","data":{"path":"/e"}})") != std::string::npos);
}

TEST_CASE("journal: an unknown kind or a mistyped member is an error naming it, not a skipped step") {
  testing::TempDir d;
  REQUIRE(fs::WriteFileAtomic(d.path() / "j1.json", R"([{"kind":"dir","data":{"path":"/a"}},{"kind":"tunnel","data":{}}])", 0600).ok());
  auto unknown = ContainerJournal::Load(d.path() / "j1.json");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().msg.find("[1].kind") != std::string::npos);
  CHECK(unknown.error().msg.find("unknown journal step \"tunnel\"") != std::string::npos);
  REQUIRE(fs::WriteFileAtomic(d.path() / "j2.json", R"([{"kind":"process","data":{"pid":"12"}}])", 0600).ok());
  auto mistyped = ContainerJournal::Load(d.path() / "j2.json");
  REQUIRE_FALSE(mistyped.ok());
  CHECK(mistyped.error().msg.find("[0].data.pid") != std::string::npos);
  REQUIRE(fs::WriteFileAtomic(d.path() / "j3.json", R"([{"kind":"dir","data":{"path":"/a"}},7])", 0600).ok());
  auto not_object = ContainerJournal::Load(d.path() / "j3.json");
  REQUIRE_FALSE(not_object.ok());
  CHECK(not_object.error().msg.find("[1]: not an object") != std::string::npos);
}

TEST_CASE("record: durable round-trips and defaults to true") {
  ContainerRecord r;
  r.id = "x";
  r.backend = "native";
  r.durable = false;
  CHECK_FALSE(RecordFromJson(boost::json::serialize(ToJson(r)))->durable);
  auto old = ToJson(r);
  old.erase("durable");
  CHECK(RecordFromJson(boost::json::serialize(old))->durable);
}

// What the session layer may know of a backend comes from here, never from comparing names.
TEST_CASE("backend traits: the choice carries what the layers above need") {
  SelectInput in{.config = "auto", .gvisor_usable = false, .gvisor_problem = "no runsc", .native_available = true};
  auto native = SelectBackend(in);
  REQUIRE(native.ok());
  CHECK(native->traits.runs_sealed);
  CHECK(native->traits.idmapped_sessions);
  CHECK_FALSE(native->traits.memory_limited_inside);
  CHECK(native->traits.writable_layer == "overlayfs");
  CHECK(native->traits.state_dies_with_kernel);
  in.gvisor_usable = true;
  auto gvisor = SelectBackend(in);
  REQUIRE(gvisor.ok());
  CHECK_FALSE(gvisor->traits.runs_sealed);
  CHECK(gvisor->traits.memory_limited_inside);
  CHECK(gvisor->traits.writable_layer == "gvisor-overlay");
  CHECK_FALSE(gvisor->traits.state_dies_with_kernel);  // runsc's state files outlive a crash
  CHECK(TraitsOf("gvisor").memory_limited_inside);
  CHECK_FALSE(TraitsOf("unknown").runs_sealed);
}

TEST_CASE("backend selection: precedence and fail-closed") {
  SelectInput in;
  in.config = "auto";
  in.gvisor_usable = true;
  CHECK(SelectBackend(in)->backend == "gvisor");
  in.gvisor_usable = false;
  in.gvisor_problem = "runsc not installed";
  auto none = SelectBackend(in);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().msg.find("runsc not installed") != std::string::npos);
  in.native_available = true;
  auto fb = SelectBackend(in);
  REQUIRE(fb.ok());
  CHECK(fb->backend == "native");
  CHECK(fb->fallback);
  in.flag = "gvisor";
  auto refuse = SelectBackend(in);
  REQUIRE_FALSE(refuse.ok());
  CHECK(refuse.error().msg.find("refusing to fall back") != std::string::npos);
  // An annotation cannot weaken an operator's explicit choice.
  in = SelectInput{.flag = "", .config = "gvisor", .annotation = "native", .gvisor_usable = true, .native_available = true};
  CHECK(SelectBackend(in)->backend == "gvisor");
  // Under auto, an annotation may only ask for more isolation...
  in.config = "auto";
  CHECK(SelectBackend(in)->backend == "gvisor");
  CHECK(SelectBackend(in)->reason.find("allow_annotation_downgrade") != std::string::npos);
  // ...unless the operator allows downgrades.
  in.annotation_may_downgrade = true;
  CHECK(SelectBackend(in)->backend == "native");
  in.annotation_may_downgrade = false;
  in.annotation = "bogus";
  CHECK_FALSE(SelectBackend(in).ok());
}

TEST_CASE("backend selection: a platform the config forces is a gVisor choice: auto fails closed") {
  SelectInput in{.config = "auto", .gvisor_usable = false, .gvisor_problem = "ptrace: exit status 2",
                 .gvisor_forced_platform = "ptrace", .native_available = true};
  auto refused = SelectBackend(in);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().msg.find("\"ptrace\" the config forces") != std::string::npos);
  CHECK(refused.error().msg.find("refusing to fall back") != std::string::npos);
  in.flag = "native";  // an explicit native choice still stands
  CHECK(SelectBackend(in)->backend == "native");
  in.flag = "";
  in.gvisor_usable = true;
  CHECK(SelectBackend(in)->backend == "gvisor");
  in.gvisor_usable = false;
  in.gvisor_forced_platform = "";  // sandshim chooses: auto may fall back, and says so
  CHECK(SelectBackend(in)->fallback);
}

TEST_CASE("backend selection: the annotation table (only more isolation, unless allowed)") {
  struct Row { const char *flag, *config, *annotation; bool gvisor_ok, allow; const char* want; };
  const Row rows[] = {
      {"", "auto", "native", true, false, "gvisor"},     // downgrade ignored
      {"", "auto", "native", true, true, "native"},      // operator opted in
      {"", "auto", "native", false, false, "native"},    // auto falls back anyway
      {"", "auto", "gvisor", true, false, "gvisor"},     // upgrade honoured
      {"", "native", "gvisor", true, false, "native"},   // an explicit choice wins
      {"native", "auto", "gvisor", true, false, "native"},
      {"gvisor", "auto", "native", true, true, "gvisor"},
      {"", "", "native", true, false, "gvisor"},
      {"", "auto", "auto", true, false, "gvisor"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.annotation);
    SelectInput in{.flag = r.flag, .config = r.config, .annotation = r.annotation,
                   .annotation_may_downgrade = r.allow, .gvisor_usable = r.gvisor_ok, .native_available = true};
    auto c = SelectBackend(in);
    REQUIRE(c.ok());
    CHECK(c->backend == r.want);
  }
  SelectInput up{.config = "auto", .annotation = "gvisor", .gvisor_usable = false, .native_available = true};
  CHECK_FALSE(SelectBackend(up).ok());  // asked for gVisor where it cannot run: fail closed
  CHECK(ParseConfig(R"({"allow_annotation_downgrade":true})")->allow_annotation_downgrade);
  CHECK_FALSE(ParseConfig("{}")->allow_annotation_downgrade);
  CHECK_FALSE(ParseConfig(R"({"allow_annotation_downgrade":"yes"})").ok());
}

TEST_CASE("config: defaults, overrides, bad backend refused") {
  auto c = ParseConfig(R"({"backend":"gvisor","runsc_flags":["--network=none"],"cache_dir":"/tmp/c"})");
  REQUIRE(c.ok());
  CHECK(c->backend == "gvisor");
  CHECK(c->runsc_flags.size() == 1);
  CHECK(c->cache_dir == "/tmp/c");
  // The workspace guards' registry is host-wide by default, and a string when given.
  CHECK(c->workspace_guards == "/run/sandshim/@workspace-guards");
  CHECK(ParseConfig(R"({"workspace_guards":"/tmp/g"})")->workspace_guards == "/tmp/g");
  CHECK_FALSE(ParseConfig(R"({"workspace_guards":5})").ok());
  CHECK_FALSE(ParseConfig(R"({"backend":"vm"})").ok());
  CHECK_FALSE(ParseConfig("nope").ok());
  auto missing = LoadConfig("/nonexistent/config.json");
  REQUIRE(missing.ok());
  CHECK(missing->backend == "auto");
}

TEST_CASE("oci state: runc's fields; stopped reports pid 0; isolation in annotations") {
  ContainerRecord r;
  r.id = "c";
  r.status = S::kStopped;
  r.init = {1234, 1};
  r.bundle = "/b";
  r.backend_data = GvisorData{.platform = "ptrace"};
  auto o = OciState(r);
  CHECK(o["pid"].as_int64() == 0);
  CHECK(o["status"].as_string() == "stopped");
  CHECK(o["annotations"].as_object()["dev.sandshim.runsc.platform"].as_string() == "ptrace");
  r.status = S::kRunning;
  CHECK(OciState(r)["pid"].as_int64() == 1234);
  // The backend it really got wins over the one the spec's annotation asked for.
  r.annotations["dev.sandshim.backend"] = "auto";
  r.backend = "native";
  CHECK(OciState(r)["annotations"].as_object()["dev.sandshim.backend"].as_string() == "native");
}

TEST_CASE("record: backend data is typed per backend; a mistyped field is an error naming it") {
  ContainerRecord r;
  r.id = "n";
  r.backend = "native";
  r.status = S::kCreated;
  r.backend_data = NativeData{{"/sys/fs/cgroup/memory/x"}, "/r/n/exec.fifo", "_ses.n"};
  auto back = RecordFromJson(boost::json::serialize(ToJson(r)));
  REQUIRE(back.ok());
  CHECK(NativeOf(back->backend_data).fifo == "/r/n/exec.fifo");
  CHECK(NativeOf(back->backend_data).cgroups.size() == 1);
  CHECK(GvisorOf(back->backend_data).flags.empty());  // another backend's view is empty
  auto bad = ToJson(r);
  bad["backend_data"].as_object()["cgroups"] = boost::json::array{7};
  auto e = RecordFromJson(boost::json::serialize(bad));
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().msg == "state.json: backend_data.cgroups[0]: not a string");
  // Before: a string pid read as 0 (and a kill would have gone to pid 0: the caller's group).
  auto pid = ToJson(r);
  pid["init"].as_object()["pid"] = "1234";
  CHECK(RecordFromJson(boost::json::serialize(pid)).error().msg == "state.json: init.pid: not a number");
}

// Issue #16 item 2: ContainerRecord is a described struct; every member round-trips and each
// mistyped one is an error naming it.
TEST_CASE("record: described members round-trip; a mistyped one names itself") {
  ContainerRecord r;
  r.id = "c";
  r.backend = "gvisor";
  r.bundle = "/b";
  r.rootfs = "/b/rootfs";
  r.status = S::kRunning;
  r.init = {4242, 77};
  r.owner = {99, 5};
  r.created = "2026-11-24T06:00:00Z";
  r.annotations = {{"a", "1"}};
  r.durable = false;
  r.backend_data = GvisorData{};
  auto text = boost::json::serialize(ToJson(r));
  auto back = RecordFromJson(text);
  REQUIRE(back.ok());
  CHECK(back->id == "c");
  CHECK(back->bundle == "/b");
  CHECK(back->rootfs == "/b/rootfs");
  CHECK(back->status == S::kRunning);
  CHECK(back->init.pid == 4242);
  CHECK(back->init.start == 77);
  CHECK(back->owner.start == 5);
  CHECK(back->created == r.created);
  CHECK(back->annotations == r.annotations);
  CHECK_FALSE(back->durable);
  // The format older binaries wrote and read: paths as strings, status by name, pids as objects.
  auto j = boost::json::parse(text).as_object();
  CHECK(j["bundle"] == "/b");
  CHECK(j["status"] == "running");
  CHECK(j["init"] == boost::json::object{{"pid", 4242}, {"start", 77}});
  struct Case {
    const char* key;
    boost::json::value v;
    const char* msg;
  };
  for (const auto& c : std::vector<Case>{{"bundle", 7, "state.json: bundle: not a string"},
                                         {"durable", "yes", "state.json: durable: not a boolean"},
                                         {"status", "sleeping", "state.json: status: unknown status \"sleeping\""},
                                         {"annotations", boost::json::object{{"k", 1}}, "state.json: annotations.k: not a string"},
                                         {"owner", boost::json::object{{"start", -1}}, "state.json: owner.start"}}) {
    auto bad = j;
    bad[c.key] = c.v;
    auto e = RecordFromJson(boost::json::serialize(bad));
    REQUIRE_FALSE(e.ok());
    CHECK_MESSAGE(e.error().msg.find(c.msg) == 0, e.error().msg);
  }
  auto none = j;
  none.erase("status");
  CHECK(RecordFromJson(boost::json::serialize(none)).error().msg == "state.json: status: missing");
}
