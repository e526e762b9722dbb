// A container whose files moved (a warm-pool member claimed by a session: its bundle, layer
// and workspace renamed) keeps working only if its record and journal name the new paths:
// exec loads the spec from the recorded bundle, delete replays the journal. RebaseRecord
// rewrites both, under the container's lock, with bundle::RebasePaths.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "shim/runtime/state_store.h"

namespace sandshim::runtime {

// moves: (from, to) path prefixes, applied in order to state.json and journal.json.
Status RebaseRecord(const StateStore& store, const std::string& id,
                    const std::vector<std::pair<std::string, std::string>>& moves);

}  // namespace sandshim::runtime
