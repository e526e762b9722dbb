#include "shim/session/store/layout.h"

#include <array>

namespace sandshim::session {
namespace {

using namespace layout;

constexpr std::array kSessionEntries{
    kRecord,     kJournal,      kLock,        kBundle,       kBundleConfig, kSources,        kLastUsed,
    kExecPolicy, kApprovals,    kShellState,  kRelayCgroups, kNetns,        kRelayNetns,     kRelayPid,
    kRelayLog,   kEgressPolicy, kEgressContexts, kSecretsDir, kSecretRules, kSecretSocket,   kCaKey,
    kCaCert,     kTrust,        kContexts,    kSpares,       kSpareDepth,   kSnapshot,       kRootfs,
    kLayer,      kMountpoints,  kBaseId,      kWorkspaceId,  kWsroot,       kWsrootWs,       kMemberMarker,
    kMemberRecord, kLinkWorkspaceLog, kToolsSkeleton,
};

constexpr std::array kContextEntries{
    kContextRecord, kContextSecrets, kContextSocket, kContextHome, kContextPathKey, kSpareReady,
    kBundle,        kBundleConfig,   kRootfs,        kLayer,       kRelayCgroups,
};

constexpr std::array kPoolEntries{kPoolDef, kPoolProfile, kLock, kPoolFillLock, kPoolMembers, kPoolClaims,
                                  kPoolStats, kPoolWorkspaces};

constexpr std::array kSnapshotEntries{kSnapshotImage, kSnapshotMeta};

constexpr std::array kOverlayEntries{kUpper, kWork};

}  // namespace

std::span<const LayoutEntry> SessionEntries() { return kSessionEntries; }
std::span<const LayoutEntry> ContextEntries() { return kContextEntries; }
std::span<const LayoutEntry> PoolEntries() { return kPoolEntries; }
std::span<const LayoutEntry> SnapshotEntries() { return kSnapshotEntries; }
std::span<const LayoutEntry> OverlayEntries() { return kOverlayEntries; }

std::vector<LayoutEntry> ClaimRebased() {
  std::vector<LayoutEntry> out;
  for (const auto& e : kSessionEntries)
    if (e.paths == HostPaths::kRebase) out.push_back(e);
  return out;
}

std::filesystem::path SessionLayout::shell_state(std::string_view context) const {
  if (context.empty() || context == "default") return *this / kShellState;
  return dir_ / ("shell-state." + std::string(context) + ".json");
}

}  // namespace sandshim::session
