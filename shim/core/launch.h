// Transitional: the exec path names a prepared program spawn::Launch. It is the one
// ProcessSpec of shim/core/process.h, started with process::Spawn; once the exec-path branch
// has landed, its users can say process::ProcessSpec and this header goes.
#pragma once

#include "shim/core/process.h"

namespace sandshim::spawn {

using Launch = process::ProcessSpec;

}  // namespace sandshim::spawn
