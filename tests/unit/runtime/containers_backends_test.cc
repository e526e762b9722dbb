// The backend boundary: Containers drives whatever backends its Options' factory makes (the
// composition root is shim/cli/backends.cc) and asks them, never a backend type it knows,
// which journal steps they undo, what a forced teardown and gc remove, and whether they can
// checkpoint. Two recording fakes stand in for gVisor and native; no runsc, no root.
#include <doctest/doctest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bundle/default_spec.h"
#include "shim/core/fs.h"
#include "shim/runtime/containers.h"
#include "tests/unit/test_helpers.h"

namespace sandshim::runtime {
namespace {

struct Seen {
  std::vector<std::string> calls;  // "<backend> <what>"
  std::set<std::string> gc_ids;
};

// Creates a container by journaling a Process step of a pid that is not running.
class FakeBackend final : public Backend {
 public:
  FakeBackend(std::string name, Seen& seen) : name_(std::move(name)), seen_(seen) {}
  std::string_view Name() const override { return name_; }
  Availability Probe() override { return {name_ != "gvisor", name_ == "gvisor" ? "fake: no runsc" : ""}; }
  Status CheckpointSupport() override { return Note("checkpoint-support"); }
  bool Owns(const ContainerStep& s) const override {
    return name_ == "native" && std::holds_alternative<step::Process>(s);
  }
  Result<Created> Create(const CreateRequest&, ContainerJournal& j) override {
    TRY(Note("create"));
    TRY(j.Append(step::Process{.pid = 999999999, .start = 1}));
    return Created{};
  }
  Result<int> Run(const CreateRequest&, ContainerJournal&) override { return 0; }
  Status Start(const ContainerRecord&) override { return Note("start"); }
  Result<std::unique_ptr<proc::Running>> StartExec(const ContainerRecord&, const ExecRequest&, const ExecStdio&) override {
    return MakeError("fake", ENOTSUP);
  }
  Status Kill(const ContainerRecord&, int, bool) override { return Note("kill"); }
  Status Pause(const ContainerRecord&) override { return Ok(); }
  Status Resume(const ContainerRecord&) override { return Ok(); }
  Result<std::vector<pid_t>> Pids(const ContainerRecord&) override { return std::vector<pid_t>{}; }
  Result<std::string> PsTable(const ContainerRecord&) override { return std::string("PID\n"); }
  Result<boost::json::value> Stats(const ContainerRecord&) override { return boost::json::value{}; }
  Status Update(const ContainerRecord&, const boost::json::object&) override { return Ok(); }
  Status Undo(const ContainerStep& s) override { return Note(std::string("undo ") + std::string(KindOf(s))); }
  std::vector<ContainerStep> RecordedSteps(const ContainerRecord&, const std::filesystem::path&) override { return {}; }
  Status RemoveUnjournaled(const std::filesystem::path& dir) override {
    return Note("remove-unjournaled " + dir.filename().string());
  }
  void Gc(const std::set<std::string>& ids, GcReport&) override {
    (void)Note("gc");
    seen_.gc_ids = ids;
  }

 private:
  Status Note(const std::string& what) {
    seen_.calls.push_back(name_ + " " + what);
    return Ok();
  }
  std::string name_;
  Seen& seen_;
};

struct Fixture {
  testing::TempDir dir;
  Seen seen;
  Fixture() {
    (void)fs::MkdirAll(dir.path() / "bundle" / "rootfs");
    (void)fs::WriteFileAtomic(dir.path() / "bundle" / "config.json",
                              boost::json::serialize(bundle::DefaultSpec({"true"}, false)));
  }
  Containers Make() {
    Options o;
    o.root = dir.path() / "root";
    o.config.backend = "auto";
    o.make_backends = [this](const Options&) {
      std::vector<std::unique_ptr<Backend>> out;
      out.push_back(std::make_unique<FakeBackend>("gvisor", seen));
      out.push_back(std::make_unique<FakeBackend>("native", seen));
      return out;
    };
    return Containers(o);
  }
  CreateRequest Request(const std::string& id) {
    CreateRequest r;
    r.id = id;
    r.bundle = dir.path() / "bundle";
    r.spec = *bundle::LoadSpec(r.bundle);
    return r;
  }
  bool Saw(const std::string& call) const {
    return std::find(seen.calls.begin(), seen.calls.end(), call) != seen.calls.end();
  }
};

}  // namespace

TEST_CASE("backend boundary: auto asks the gVisor backend's probe, then places the container where it was told") {
  Fixture f;
  auto c = f.Make();
  auto choice = c.Choose(f.Request("a").spec);
  REQUIRE(choice.ok());
  CHECK(choice->backend == "native");  // the fake gVisor says it cannot run here
  CHECK(choice->reason.find("fake: no runsc") != std::string::npos);
  REQUIRE(c.Create(f.Request("a")).ok());
  CHECK(f.Saw("native create"));
  CHECK_FALSE(f.Saw("gvisor create"));
}

TEST_CASE("backend boundary: a journal step goes back to the backend that owns it; a forced delete asks every backend") {
  Fixture f;
  auto c = f.Make();
  REQUIRE(c.Create(f.Request("a")).ok());
  REQUIRE(c.Delete("a", /*force=*/false).ok());
  CHECK(f.Saw("native undo process"));
  CHECK_FALSE(f.Saw("gvisor undo process"));
  CHECK_FALSE(f.Saw("native remove-unjournaled a"));  // only a forced teardown
  REQUIRE(c.Create(f.Request("b")).ok());
  REQUIRE(c.Delete("b", /*force=*/true).ok());
  CHECK(f.Saw("gvisor remove-unjournaled b"));
  CHECK(f.Saw("native remove-unjournaled b"));
}

TEST_CASE("backend boundary: gc hands every backend the ids that still have a directory") {
  Fixture f;
  auto c = f.Make();
  REQUIRE(c.Create(f.Request("kept")).ok());
  c.Gc();
  CHECK(f.Saw("gvisor gc"));
  CHECK(f.Saw("native gc"));
  CHECK(f.seen.gc_ids == std::set<std::string>{"kept"});
  REQUIRE(c.Delete("kept", true).ok());
}

TEST_CASE("backend boundary: checkpoint support is the named backend's to say") {
  Fixture f;
  auto c = f.Make();
  CHECK(c.CheckpointSupport("gvisor").ok());
  CHECK(f.Saw("gvisor checkpoint-support"));
  auto none = c.CheckpointSupport("nosuch");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().err_no == ENOTSUP);
}

}  // namespace sandshim::runtime
