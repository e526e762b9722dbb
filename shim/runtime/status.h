// The container lifecycle as an explicit state machine (runsc's requireStatus, youki's
// can_start). Every verb checks the live status before acting; a wrong state is a clean
// user-facing error, not an assertion.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::runtime {

enum class ContainerStatus { kCreating, kCreated, kRunning, kPaused, kStopped };

std::string_view StatusName(ContainerStatus s);
std::optional<ContainerStatus> ParseStatus(std::string_view s);
// Transitions a verb may cause. Everything may become stopped (the init can die any time).
bool CanTransition(ContainerStatus from, ContainerStatus to);
// "cannot <action> container <id> in state <status>" unless s is one of ok.
Status Require(std::string_view id, ContainerStatus s, std::string_view action,
               std::initializer_list<ContainerStatus> ok);

}  // namespace sandshim::runtime
