// The steps a container's journal records (journal.h), one described struct each. Member
// names are the JSON keys on disk; kKind is the entry's "kind". Adding a member is compatible
// (an older entry reads it as its default); renaming one or a kind is not.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bundle/described.h"
#include "shim/runtime/journal.h"

namespace sandshim::runtime::step {

// A runsc container (gVisor): destroyed through runsc, its control namespace hold released,
// poststop hooks run when sandshim ran the hooks (container_id set).
struct RunscContainer {
  static constexpr std::string_view kKind = "runsc-container";
  std::string runsc_root, id, bundle, runsc_bundle, cgroups_path, control_netns;
  std::vector<std::string> flags;
  std::string container_id;
};
BOOST_DESCRIBE_STRUCT(RunscContainer, (),
                      (runsc_root, id, bundle, runsc_bundle, cgroups_path, control_netns, flags, container_id))

// A native container: its cgroups (and every process left in them) destroyed, poststop run.
struct NativeContainer {
  static constexpr std::string_view kKind = "native-container";
  std::string id;
  std::vector<std::string> cgroups;
  std::string bundle;
};
BOOST_DESCRIBE_STRUCT(NativeContainer, (), (id, cgroups, bundle))

// A process by pid and start time (a recycled pid is not it): killed if still alive.
struct Process {
  static constexpr std::string_view kKind = "process";
  int64_t pid = 0;
  uint64_t start = 0;
};
BOOST_DESCRIBE_STRUCT(Process, (), (pid, start))

struct File {
  static constexpr std::string_view kKind = "file";
  std::string path;
};
BOOST_DESCRIBE_STRUCT(File, (), (path))

struct Dir {
  static constexpr std::string_view kKind = "dir";
  std::string path;
};
BOOST_DESCRIBE_STRUCT(Dir, (), (path))

}  // namespace sandshim::runtime::step

namespace sandshim::runtime {

using ContainerStep = std::variant<step::RunscContainer, step::NativeContainer, step::Process, step::File, step::Dir>;
using ContainerJournal = TypedJournal<ContainerStep>;

}  // namespace sandshim::runtime
