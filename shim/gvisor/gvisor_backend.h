// The gVisor backend: a runtime::Backend over runsc::Client. It applies sandshim's flag
// policy (network mode from the spec, the probed platform, NET_RAW as the spec grants),
// keeps runsc's state under <root>/@runsc ('@' cannot appear in a container id), journals the
// sandbox before creating it, and closes the gaps raw runsc leaves (leaked processes on failed
// create/start, 143 instead of 137 after SIGKILL, ids containing "detach").
#pragma once

#include <memory>
#include <set>

#include "shim/runtime/backend.h"
#include "shim/runtime/config.h"
#include "shim/gvisor/probed_runsc.h"
#include "shim/gvisor/spec_plan.h"
#include "shim/runsc/client.h"
#include "shim/runsc/control.h"
#include "shim/runsc/control_netns.h"

namespace sandshim::runtime {

// The per-container runsc bundle: PlanSpec (spec_plan.h) over this host's facts, written to
// RunscBundleDir(r.state_dir); in.bundle and in.out_dir are filled in here.
Result<SpecPlan> WriteRunscBundle(const CreateRequest& r, SpecPlanInput in);
inline std::filesystem::path RunscBundleDir(const std::filesystem::path& state_dir) { return state_dir / "bundle"; }
// True for a pod's app container placed in its pod sandbox's gVisor sandbox.
bool InPod(const ContainerRecord& c);

class GvisorBackend : public Backend {
 public:
  // The runsc probe (the platform new sandboxes get, which control protocol they speak) runs
  // only when a sandbox is made or a backend is chosen.
  // user_flags (--runsc-flag) come after the config's flags and a request's own, and win.
  // netns: who makes the control namespaces (control_netns.h).
  GvisorBackend(std::filesystem::path root, Config config, std::vector<std::string> user_flags, bool debug,
                runsc::ControlNetnsKeeper& netns = runsc::SystemControlNetns());
  std::string_view Name() const override { return "gvisor"; }
  // gvisor_gc.cc: the probe's verdict, checkpoint support, and what a forced teardown or gc
  // removes that no journal names (runsc sandboxes without a record, control namespaces).
  Availability Probe() override;
  Status CheckpointSupport() override;
  bool Owns(const ContainerStep& s) const override { return std::holds_alternative<step::RunscContainer>(s); }
  Status RemoveUnjournaled(const std::filesystem::path& state_dir) override;
  void Gc(const std::set<std::string>& ids, GcReport& report) override;
  Result<Created> Create(const CreateRequest& r, ContainerJournal& j) override;
  Result<int> Run(const CreateRequest& r, ContainerJournal& j) override;
  Status Start(const ContainerRecord& c) override;
  // gvisor_exec.cc: through the sandbox's control server when it can (no host process),
  // else a posix_spawned `runsc exec`; detached, a background `runsc exec`.
  Result<std::unique_ptr<proc::Running>> StartExec(const ContainerRecord& c, const ExecRequest& r,
                                                   const ExecStdio& stdio) override;
  Status Kill(const ContainerRecord& c, int signal, bool all) override;
  Status Pause(const ContainerRecord& c) override;
  Status Resume(const ContainerRecord& c) override;
  Status Checkpoint(const ContainerRecord& c, const std::filesystem::path& image) override;
  Result<std::vector<pid_t>> Pids(const ContainerRecord& c) override;
  Result<std::string> PsTable(const ContainerRecord& c) override;
  Result<size_t> ProcessCount(const ContainerRecord& c) override;
  Result<boost::json::value> Stats(const ContainerRecord& c) override;
  Status Update(const ContainerRecord& c, const boost::json::object& resources) override;
  Status Undo(const ContainerStep& s) override;
  std::vector<ContainerStep> RecordedSteps(const ContainerRecord& c, const std::filesystem::path& state_dir) override;

  static std::filesystem::path RunscRoot(const std::filesystem::path& root) { return root / "@runsc"; }
  // The id runsc knows a container by (pure; see the .cc for why it is not the id itself).
  static std::string RunscId(const std::filesystem::path& root, std::string_view id);

 private:
  Result<std::vector<std::string>> PrepareCreate(const CreateRequest& r, ContainerJournal& j, bool hooks_by_sandshim);
  runsc::Client ClientFor(const std::vector<std::string>& flags, const std::filesystem::path& state_dir,
                          const std::filesystem::path& netns) const;
  runsc::Client ClientFor(const ContainerRecord& c) const;
  std::filesystem::path NetnsOf(const ContainerRecord& c) const;
  struct ControlTarget {
    runsc::ControlAddress at;  // the control socket of the sandbox that serves c
    proc::ProcessId sandbox;
  };
  // Where the sandbox of this record (a sandbox's own container) listens, as recorded at create.
  runsc::ControlAddress ControlAddressOf(const ContainerRecord& sandbox) const;
  std::optional<ControlTarget> ControlTargetOf(const ContainerRecord& c) const;
  Result<std::unique_ptr<proc::Running>> ExecThroughControl(const ContainerRecord& c, const ExecRequest& r,
                                                            const ExecStdio& stdio);
  Result<std::unique_ptr<proc::Running>> ExecThroughRunsc(const ContainerRecord& c, const ExecRequest& r,
                                                          const ExecStdio& stdio);
  Result<std::unique_ptr<proc::Running>> ExecDetached(const ContainerRecord& c, const ExecRequest& r,
                                                      const ExecStdio& stdio);
  // Kubernetes pods (gvisor_pod.cc): an app container runs in its pod sandbox's gVisor sandbox.
  Result<Created> CreateInPod(const CreateRequest& r, ContainerJournal& j, const std::string& sandbox_id);
  Status StartInPod(const ContainerRecord& c);
  Status KillInPod(const ContainerRecord& c, int signal, bool all);

  std::filesystem::path root_;
  Config config_;
  std::vector<std::string> user_flags_;
  std::shared_ptr<ProbedRunsc> probe_;
  bool debug_;
  runsc::ControlNetnsKeeper& netns_;
};

}  // namespace sandshim::runtime
