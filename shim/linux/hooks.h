// OCI hooks: each runs with the container's state JSON on stdin, its own env and a timeout.
// Where and when (runtime-spec config.md#posix-platform-hooks):
//   prestart, createRuntime  runtime namespace, during create (docker's networking is a
//                            prestart hook, libnetwork-setkey, so a failing one fails create)
//   createContainer          container namespaces, after the mounts, before pivot_root
//                            (the path resolves in the runtime's view of the filesystem)
//   startContainer           in the container, after `start`, right before the user
//                            process's execve and after its finalisation (rlimits, caps,
//                            user, no_new_privs, seccomp), as runc runs them: a hook from
//                            the image gets no more privilege than the process itself
//   poststart, poststop      runtime namespace, after start / after delete; a failure is
//                            logged as a warning and the next hooks still run
// The container-side ones run in the init (init.cc), from the plan; the state they read
// has the pid and status as the container sees them, as runc gives them.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "bundle/spec.h"

namespace sandshim::native {

struct Hook {
  std::string path;
  std::vector<std::string> args, env;  // args[0] defaults to path
  int timeout = 0;                     // seconds; 0 = our default (120)
};

// The spec's hooks of one kind, in order (pure).
std::vector<Hook> HooksOf(const boost::json::object& spec_doc, std::string_view kind);
// Runs one hook to completion; fails on a non-zero exit or a timeout.
Status RunHook(const Hook& h, const std::string& state_json);
Status RunHooks(const std::vector<Hook>& hooks, std::string_view kind, const std::string& state_json);
// poststart and poststop: the spec says a failure is a warning and the remaining hooks still
// run. Runs every hook; returns one message per failed hook (the caller logs them).
std::vector<std::string> RunHooksWarn(const std::vector<Hook>& hooks, std::string_view kind, const std::string& state_json);
// The one runner of the runtime-side kinds, for both backends (runc's semantics):
// prestart and createRuntime stop at the first failure and fail the call; poststart and
// poststop run every hook, log each failure as a warning, and succeed. The state each hook
// reads is base_state with the kind's status (prestart "created", createRuntime "creating",
// poststart "running", poststop "stopped") and the config's own annotations (never ours).
Status RunLifecycleHooks(const bundle::Spec& spec, std::string_view kind, const std::string& base_state);
// base_state as the hooks of kind read it (pure): the status above, spec's annotations.
std::string LifecycleState(const bundle::Spec& spec, std::string_view kind, const std::string& base_state);
// base_state (OCI state JSON) with status and pid replaced.
std::string StateWith(const std::string& base_state, std::string_view status, pid_t pid);

}  // namespace sandshim::native
