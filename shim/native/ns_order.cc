#include "shim/native/ns_order.h"

#include <sched.h>

namespace sandshim::native {

bool JoinedAroundClone(const LaunchPlan& plan, int flag) {
  if (flag == CLONE_NEWPID) return true;
  if (!(plan.clone_flags & CLONE_NEWUSER)) return false;
  return flag == CLONE_NEWNET || flag == CLONE_NEWIPC || flag == CLONE_NEWUTS;
}

}  // namespace sandshim::native
