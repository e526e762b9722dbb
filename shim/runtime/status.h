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
// The one guard every verb calls with the states it accepts (containers.cc). There is no
// separate transition table: a verb's precondition is not a transition (exec and ps change
// nothing, resume must refuse "created" although created -> running is legal), so a table
// beside these lists would be a second source of truth that no code consults.
// "cannot <action> container <id> in state <status>" unless s is one of ok; ESRCH for a
// stopped container (containerd reads "container not running" as finished), else EBUSY.
Status Require(std::string_view id, ContainerStatus s, std::string_view action,
               std::initializer_list<ContainerStatus> ok);

}  // namespace sandshim::runtime
