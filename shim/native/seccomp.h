// The spec's seccomp profile, loaded with libseccomp. Docker's default profile (argument
// conditions, errnoRet, several conditions on one argument) must load and behave.
#pragma once

#include "shim/native/plan.h"

namespace sandshim::native {

Status LoadSeccomp(const SeccompPlan& plan);

}  // namespace sandshim::native
