// Review M11: a native session runs in a user namespace of its own, container ids 0..65535
// mapped to a range of host ids no other session uses (IdBase), so root inside is not root
// outside and no session process is a real host uid (1000 is the first login on Debian).
// The files keep the ids the platform expects: the shared base and the workspace are seen
// through idmapped mounts (mount_setattr MOUNT_ATTR_IDMAP), so on-disk uid 1000 is the
// container's 1000 and what the sandbox writes to the workspace lands on disk as 1000.
// overlayfs refuses an idmap on the overlay itself but takes an idmapped lower layer: the
// upper layer then holds the mapped ids (copy-up keeps them), which is the session's own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::session {

inline constexpr uint32_t kIdRangeSize = 65536;
// Far above the ranges /etc/subuid tools hand out (100000 + n * 65536), below 2^32 - 1.
inline constexpr uint32_t kIdRangeBase = 0x10000000;
inline constexpr uint32_t kIdSlots = 4096;
// Slots are host-wide, not per state root: two roots' sessions must never share host ids
// (review N12). A slot's owner is RootTag(root) + "-" + session id (IdOwner).
inline constexpr const char* kHostIdRanges = "/run/sandshim/@idranges";
std::string IdOwner(const std::filesystem::path& root, const std::string& session);
// The host id that container id 0 maps to in a slot (pure).
inline uint32_t IdBase(uint32_t slot) { return kIdRangeBase + slot * kIdRangeSize; }

// Claims the lowest free slot in dir: one file per slot, which names the session, made by
// link(2) of a file already holding the name (so two creates never take the same range and
// no slot file is ever seen empty). The caller journals {dir, session} *before* claiming:
// ReleaseIdSlots undoes it whatever slot a crash left claimed.
Result<uint32_t> ClaimIdSlot(const std::filesystem::path& dir, const std::string& session);
std::filesystem::path IdSlotFile(const std::filesystem::path& dir, uint32_t slot);
// Removes every slot of dir naming session, and a claim it left half-made. Idempotent.
Status ReleaseIdSlots(const std::filesystem::path& dir, const std::string& session);

// A user namespace mapping 0..65535 to base.. (uid and gid), held by its fd only.
Result<UniqueFd> MappingNamespace(uint32_t base);

// #35, a workspace that just works: the workspace is seen through a map in which its owner
// is the session's user, so that user may write it whoever made it on the host, and what it
// writes lands on disk as the owner. One extent of a uid_map/gid_map line.
struct IdExtent {
  uint32_t inside, outside, count;
  bool operator==(const IdExtent&) const = default;
};
// On-disk ids [0, size) seen as base + id, except owner seen as base + user and user as
// base + owner (a swap: every id keeps a distinct meaning, and the gofer, which creates a
// file as root before it chowns it, can still create). An owner at or above size is mapped
// alone, to base + user, and on-disk user is then left unmapped. Pure; unit-tested.
std::vector<IdExtent> OwnerAsUserMap(uint32_t owner, uint32_t user, uint32_t base, uint32_t size);
// The same namespace from explicit maps.
Result<UniqueFd> MappingNamespace(const std::vector<IdExtent>& uids, const std::vector<IdExtent>& gids);
// src seen through the mapping of userns_fd, attached at target (made if missing).
Status IdmappedBind(const std::filesystem::path& src, const std::filesystem::path& target, int userns_fd);

}  // namespace sandshim::session
