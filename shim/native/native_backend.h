// The native backend: a runtime::Backend over shim/native (namespaces, pivot_root, seccomp,
// capabilities, cgroups). Used when asked for, or by `auto` when gVisor cannot run here.
#pragma once

#include "shim/runtime/backend.h"

namespace sandshim::runtime {

class NativeBackend : public Backend {
 public:
  explicit NativeBackend(std::filesystem::path root) : root_(std::move(root)) {}
  std::string_view Name() const override { return "native"; }
  Result<Created> Create(const CreateRequest& r, ContainerJournal& j) override;
  Result<int> Run(const CreateRequest& r, ContainerJournal& j) override;
  Status Start(const ContainerRecord& c) override;
  // native_exec.cc: a child of ours enters the container (setns) and waits for the command
  // there; detached, the command alone.
  Result<std::unique_ptr<proc::Running>> StartExec(const ContainerRecord& c, const ExecRequest& r,
                                                   const ExecStdio& stdio) override;
  Status Kill(const ContainerRecord& c, int signal, bool all) override;
  Status Pause(const ContainerRecord& c) override;
  Status Resume(const ContainerRecord& c) override;
  Result<std::vector<pid_t>> Pids(const ContainerRecord& c) override;
  Result<std::string> PsTable(const ContainerRecord& c) override;
  Result<boost::json::value> Stats(const ContainerRecord& c) override;
  Status Update(const ContainerRecord& c, const boost::json::object& resources) override;
  bool Owns(const ContainerStep& s) const override {
    return std::holds_alternative<step::NativeContainer>(s) || std::holds_alternative<step::Process>(s);
  }
  Status Undo(const ContainerStep& s) override;
  std::vector<ContainerStep> RecordedSteps(const ContainerRecord& c, const std::filesystem::path& state_dir) override;

 private:
  // exec_at_once: `run`'s create, whose init execs the process right after READY (no
  // exec.fifo, no start).
  Result<Created> CreateContainer(const CreateRequest& r, ContainerJournal& j, bool exec_at_once);
  std::filesystem::path root_;
};

}  // namespace sandshim::runtime
