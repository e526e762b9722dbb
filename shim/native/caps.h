// Capabilities with libcap: the bounding set is cut while we still hold CAP_SETPCAP, the
// user is switched with KEEPCAPS, then effective/permitted/inheritable and ambient are set.
#pragma once

#include "shim/native/plan.h"

namespace sandshim::native {

Status DropBounding(const CapSets& caps);
// setgroups/setresgid/setresuid keeping capabilities across the switch.
Status SwitchUser(const ProcessPlan& p);
Status ApplyCaps(const CapSets& caps);

}  // namespace sandshim::native
