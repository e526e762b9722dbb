// Named crash points for fault-injection tests: with SANDSHIM_FAULT=<name> in the
// environment, sandshim SIGKILLs itself when it reaches that point, exactly as a crash or
// an OOM kill would stop it. Tests then prove that gc (or the next delete) leaves nothing
// behind. Costs one getenv per point when unset.
#pragma once

#include <string_view>

namespace sandshim::fault {

void Point(std::string_view name);
// Every point compiled into sandshim, for tests to iterate over.
inline constexpr std::string_view kPoints[] = {
    "create.after-record",   "create.after-journal", "create.after-backend", "start.before-backend",
    "start.after-backend",   "delete.before-replay", "delete.after-replay",  "run.after-journal",
    "exec.before-backend",   "kill.before-backend",  "gc.before-replay",
    // sessions
    "session.create.after-dir", "session.create.after-journal", "session.create.after-netns",
    "session.create.after-link", "session.create.after-relay", "session.create.after-secrets", "session.create.after-container",
    "session.exec.before-backend", "session.delete.before-replay", "session.delete.after-replay", "session.gc.before-replay",
    // credential contexts
    "session.context.after-journal", "session.context.after-container", "session.context.rm.after-record",
    // spare context containers (context_spare.h): the refill's, then a claim's
    "session.context.spare.after-journal", "session.context.spare.after-container", "session.context.claim.after-adopt",
};

}  // namespace sandshim::fault
