// A claimed pool member's files, rewritten for the session's place (Pool::ClaimMember, step 3).
// Which files: every file of the session layout that records host paths and that the claim
// does not write afresh (ClaimRebased(), store/layout.h), so a file that starts recording a
// path is rebased by being declared so in the layout, not by someone remembering this list.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "shim/core/result.h"

namespace sandshim::session {

// Where a claim moves a member: its directory, and its workspace.
struct MemberMove {
  std::string member_dir, session_dir, workspace_from, workspace_to;
};

// Each file below member_dir that ClaimRebased() names: every path under member_dir (or the
// member's workspace) made the session's. The spec also gets env (overriding its values) and,
// when cwd is not empty, that cwd. A file that is missing is skipped (sessions made before it).
Status RebaseMemberFiles(const std::filesystem::path& member_dir, const MemberMove& move,
                         const std::map<std::string, std::string>& env, const std::string& cwd);

}  // namespace sandshim::session
