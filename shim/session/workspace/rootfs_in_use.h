// Which base rootfs directories sessions use: what `rootfs list/rm/gc` must keep. Read from
// the session records with the session layer's own reader, so the record format has one
// reader (the CLI had a private one).
#pragma once

#include <filesystem>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

// The rootfs of every session under <root>/@sessions and every warm-pool member. A directory without session.json (a
// create in progress or half undone) uses none yet; a record that cannot be read is an error
// naming it, because guessing "unused" would let gc delete a live session's root.
Result<std::vector<std::filesystem::path>> RootfsInUse(const std::filesystem::path& root);

}  // namespace sandshim::session
