// The on-disk layout of a state root's sessions, named once (#30, "one owner of the layout").
//
//   <root>/@sessions/<id>/            a session directory (SessionLayout)
//   <root>/@sessions/<id>/contexts/<name>/, spares/<spare id>/   a context directory (ContextLayout)
//   <root>/@sessions/@names/<name>    a session's name: a symlink to its id
//   <root>/@pool/<pool>/members/<m>/  a pool member: a session directory plus its own files
//   <root>/@snapshots/<name>/         a named snapshot (image/, snapshot.json)
//
// Every file and directory is an Entry here, with the mode its writer gives it and what its
// host paths mean to a pool claim, which moves a member's directory (and its workspace) to
// the session's place: a file that records such a path is rebased by the claim unless it
// says the claim writes it afresh. Pool::ClaimMember rebases exactly ClaimRebased(), so a
// new file that records a path is rebased by being listed here (layout_test.cc holds it).
// Code names a file through a layout's accessor, never by a string literal of its own.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sandshim::session {

// What the host paths a file records mean when a pool claim moves the directory.
enum class HostPaths : unsigned char {
  kNone,       // no path below the directory or its workspace
  kRebase,     // records them: the claim rewrites them by string (Pool::ClaimMember)
  kRewritten,  // records them: the claim writes the file afresh, never rebased
  kRemoved,    // records the member's: a member's own file, which the claim's commit removes
};

struct LayoutEntry {
  std::string_view rel;  // below the directory the layout names
  bool dir;              // a directory (or a mount point made as one)
  mode_t mode;           // what its writer creates it with
  HostPaths paths;
  std::string_view writer;  // who writes it (why it exists)
};

namespace layout {

// ---- the state root ----
inline constexpr std::string_view kSessions = "@sessions";   // below <root>
inline constexpr std::string_view kNames = "@names";         // below <root>/@sessions
inline constexpr std::string_view kSnapshots = "@snapshots"; // below <root>
inline constexpr std::string_view kPools = "@pool";          // below <root>
inline constexpr std::string_view kOldIdRanges = "@idranges"; // below <root>: before N12 (salvage only)
inline constexpr std::string_view kWorkspaceGuards = "@workspace-guards";  // below <root> (workspace_guard.h)

// ---- a session directory ----
inline constexpr LayoutEntry kRecord{"session.json", false, 0600, HostPaths::kRewritten,
                                     "Sessions::Save; a pool claim writes the member's afresh"};
inline constexpr LayoutEntry kJournal{"journal.json", false, 0600, HostPaths::kRebase,
                                      "SessionJournal: the session's steps, undone by Teardown"};
inline constexpr LayoutEntry kLock{".lock", false, 0600, HostPaths::kNone, "runtime::StateStore::Lock"};
inline constexpr LayoutEntry kBundle{"bundle", true, 0700, HostPaths::kNone, "Sessions::Create: the OCI bundle"};
inline constexpr LayoutEntry kBundleConfig{"bundle/config.json", false, 0600, HostPaths::kRebase,
                                           "Sessions::Create: the spec (holds --env values)"};
inline constexpr LayoutEntry kSources{"sources.json", false, 0600, HostPaths::kRebase,
                                      "Sessions::Create: bind sources pinned by identity"};
inline constexpr LayoutEntry kLastUsed{"last-used", false, 0600, HostPaths::kNone, "Sessions::MarkUsed: its mtime"};
inline constexpr LayoutEntry kExecPolicy{"policy.json", false, 0600, HostPaths::kNone, "WriteExecPolicy (#19)"};
inline constexpr LayoutEntry kApprovals{"approvals.json", false, 0600, HostPaths::kNone, "session_policy.cc"};
inline constexpr LayoutEntry kShellState{"shell-state.json", false, 0600, HostPaths::kNone,
                                         "exec/shell_state.cc (a context's: shell-state.<name>.json)"};
inline constexpr LayoutEntry kRelayCgroups{"relay-cgroups", false, 0600, HostPaths::kNone,
                                           "ChargeRelay: the relay's cgroups (host cgroupfs paths)"};
inline constexpr LayoutEntry kNetns{"netns", false, 0444, HostPaths::kNone, "SetUpProxyNetwork: the sandbox's netns"};
inline constexpr LayoutEntry kRelayNetns{"relay.netns", false, 0444, HostPaths::kNone, "SetUpProxyNetwork"};
inline constexpr LayoutEntry kRelayPid{"relay.pid", false, 0644, HostPaths::kNone, "the relay itself"};
inline constexpr LayoutEntry kRelayLog{"relay.log", false, 0600, HostPaths::kNone, "the relay's stderr"};
inline constexpr LayoutEntry kEgressPolicy{"egress-policy.json", false, 0600, HostPaths::kNone,
                                           "SetUpProxyNetwork, BindClaimEgress"};
inline constexpr LayoutEntry kEgressContexts{"egress-contexts.json", false, 0600, HostPaths::kNone,
                                             "SetUpProxyNetwork (empty), AddContextEgress: names, tokens, keys"};
inline constexpr LayoutEntry kSecretsDir{"secrets", true, 0700, HostPaths::kNone, "WriteSecretFiles"};
inline constexpr LayoutEntry kSecretRules{"secrets/rules.json", false, 0600, HostPaths::kNone, "WriteSecretFiles"};
inline constexpr LayoutEntry kSecretSocket{"secrets/control.sock", false, 0600, HostPaths::kNone, "the relay"};
inline constexpr LayoutEntry kCaKey{"secrets/ca.key", false, 0600, HostPaths::kNone, "WriteSecretFiles"};
inline constexpr LayoutEntry kCaCert{"secrets/ca.crt", false, 0644, HostPaths::kNone, "WriteSecretFiles"};
inline constexpr LayoutEntry kTrust{"trust.crt", false, 0644, HostPaths::kNone, "WriteSecretFiles"};
inline constexpr LayoutEntry kContexts{"contexts", true, 0700, HostPaths::kNone, "Contexts: one directory each"};
inline constexpr LayoutEntry kSpares{"spares", true, 0700, HostPaths::kNone, "context_spare.cc"};
inline constexpr LayoutEntry kSpareDepth{"spares/depth", false, 0600, HostPaths::kNone, "context_spare.cc"};
inline constexpr LayoutEntry kSnapshot{"snapshot", true, 0700, HostPaths::kNone, "session_pause.cc: the checkpoint"};
inline constexpr LayoutEntry kRootfs{"rootfs", true, 0755, HostPaths::kNone, "Sessions::Create: the live root (a mount)"};
inline constexpr LayoutEntry kLayer{"layer", true, 0700, HostPaths::kNone, "MountNativeLayer: a tmpfs"};
inline constexpr LayoutEntry kMountpoints{"mountpoints", true, 0755, HostPaths::kNone, "Sessions::Create (gVisor)"};
inline constexpr LayoutEntry kBaseId{"base-id", true, 0755, HostPaths::kNone, "SetUpIdmap: the idmapped base"};
inline constexpr LayoutEntry kWorkspaceId{"workspace-id", true, 0755, HostPaths::kNone, "BindWorkspaceAsUser"};
inline constexpr LayoutEntry kWsroot{"wsroot", true, 0755, HostPaths::kNone, "Sessions::Create: a member's shared parent"};
inline constexpr LayoutEntry kWsrootWs{"wsroot/ws", true, 0755, HostPaths::kNone, "a claim's workspace bind"};
// A pool member's own, beside its session's files (gone once claimed).
inline constexpr LayoutEntry kMemberMarker{"pool-member.json", false, 0600, HostPaths::kRemoved,
                                           "Pool::MakeMember: its pool, generation and own workspace"};
inline constexpr LayoutEntry kMemberRecord{"member-record.json", false, 0600, HostPaths::kRemoved,
                                           "Pool::ClaimMember: session.json set aside mid-claim (RecoverClaim)"};
inline constexpr LayoutEntry kLinkWorkspaceLog{"link-workspace.log", false, 0600, HostPaths::kNone,
                                               "Pool::LinkSharedWorkspace"};
inline constexpr LayoutEntry kToolsSkeleton{"sshim", true, 0755, HostPaths::kNone,
                                            "AddExecGuard: /.sshim's read-only mount points (exec_guard.h)"};

// ---- a context directory (contexts/<name>/, spares/<id>/) ----
inline constexpr LayoutEntry kContextRecord{"context.json", false, 0600, HostPaths::kNone, "context_record.cc"};
inline constexpr LayoutEntry kContextSecrets{"secrets.json", false, 0600, HostPaths::kNone, "Contexts::CreateLocked"};
inline constexpr LayoutEntry kContextSocket{"secrets.sock", false, 0600, HostPaths::kNone, "the context's broker"};
inline constexpr LayoutEntry kContextHome{"home", true, 0700, HostPaths::kNone, "MakeHomeDir"};
inline constexpr LayoutEntry kContextPathKey{"path", false, 0600, HostPaths::kNone, "the context's token file"};
inline constexpr LayoutEntry kSpareReady{"ready", false, 0600, HostPaths::kNone, "a spare, once it runs"};
// bundle, bundle/config.json, rootfs, layer, relay-cgroups: as a session's (the same entries).

// ---- a pool directory (@pool/<name>/) and a snapshot (@snapshots/<name>/) ----
inline constexpr LayoutEntry kPoolDef{"pool.json", false, 0600, HostPaths::kNone, "Pool::Define"};
inline constexpr LayoutEntry kPoolProfile{"profile.json", false, 0600, HostPaths::kNone, "Pool::Define"};
inline constexpr LayoutEntry kPoolFillLock{".fill.lock", false, 0600, HostPaths::kNone, "Pool::Fill"};
inline constexpr LayoutEntry kPoolMembers{"members", true, 0700, HostPaths::kNone, "Pool::Fill"};
inline constexpr LayoutEntry kPoolClaims{"claims", true, 0700, HostPaths::kNone, "Pool::Claim: the intents"};
inline constexpr LayoutEntry kPoolStats{"stats.json", false, 0600, HostPaths::kNone, "WritePoolStats"};
inline constexpr LayoutEntry kPoolWorkspaces{"workspaces", true, 0700, HostPaths::kNone, "the default workspace parent"};
inline constexpr LayoutEntry kSnapshotImage{"image", true, 0700, HostPaths::kNone, "Sessions::Snapshot"};
inline constexpr LayoutEntry kSnapshotMeta{"snapshot.json", false, 0600, HostPaths::kNone, "Sessions::Snapshot"};

// ---- an overlay's store (a session's layer/ or mountpoints/, a context's layer/) ----
inline constexpr LayoutEntry kUpper{"upper", true, 0755, HostPaths::kNone, "MountLayer: the writable layer"};
inline constexpr LayoutEntry kWork{"work", true, 0700, HostPaths::kNone, "MountLayer: overlayfs's workdir"};

}  // namespace layout

// Every entry of each kind of directory, for the tests and for ClaimRebased.
std::span<const LayoutEntry> SessionEntries();  // a pool member's own included
std::span<const LayoutEntry> ContextEntries();
std::span<const LayoutEntry> PoolEntries();
std::span<const LayoutEntry> SnapshotEntries();
std::span<const LayoutEntry> OverlayEntries();
// What a pool claim rebases: every session entry that records paths and is not written afresh.
std::vector<LayoutEntry> ClaimRebased();

// dir / layout::kJournal: the entry's path below any directory of its kind.
inline std::filesystem::path operator/(const std::filesystem::path& dir, const LayoutEntry& e) { return dir / e.rel; }

// A directory's paths, by entry: `dir / layout::kJournal` or an accessor.
class DirLayout {
 public:
  explicit DirLayout(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path operator/(const LayoutEntry& e) const { return dir_ / e; }
  std::filesystem::path bundle() const { return *this / layout::kBundle; }
  std::filesystem::path bundle_config() const { return *this / layout::kBundleConfig; }
  std::filesystem::path journal() const { return *this / layout::kJournal; }
  std::filesystem::path rootfs() const { return *this / layout::kRootfs; }
  std::filesystem::path layer() const { return *this / layout::kLayer; }
  std::filesystem::path relay_cgroups() const { return *this / layout::kRelayCgroups; }

 protected:
  std::filesystem::path dir_;
};

// <root>/@sessions/<id>/ (or a pool member's directory).
class SessionLayout : public DirLayout {
 public:
  using DirLayout::DirLayout;
  std::filesystem::path record() const { return *this / layout::kRecord; }
  std::filesystem::path sources() const { return *this / layout::kSources; }
  std::filesystem::path last_used() const { return *this / layout::kLastUsed; }
  std::filesystem::path exec_policy() const { return *this / layout::kExecPolicy; }
  std::filesystem::path approvals() const { return *this / layout::kApprovals; }
  std::filesystem::path netns() const { return *this / layout::kNetns; }
  std::filesystem::path contexts() const { return *this / layout::kContexts; }
  std::filesystem::path context(std::string_view name) const { return contexts() / name; }
  std::filesystem::path spares() const { return *this / layout::kSpares; }
  std::filesystem::path snapshot() const { return *this / layout::kSnapshot; }
  std::filesystem::path base_id() const { return *this / layout::kBaseId; }
  std::filesystem::path workspace_id() const { return *this / layout::kWorkspaceId; }
  std::filesystem::path wsroot() const { return *this / layout::kWsroot; }
  std::filesystem::path member_marker() const { return *this / layout::kMemberMarker; }
  std::filesystem::path member_record() const { return *this / layout::kMemberRecord; }
  // shell-state.json, or a credential context's shell-state.<context>.json.
  std::filesystem::path shell_state(std::string_view context) const;
};

// contexts/<name>/ or spares/<id>/ of a session.
class ContextLayout : public DirLayout {
 public:
  using DirLayout::DirLayout;
  std::filesystem::path record() const { return *this / layout::kContextRecord; }
  std::filesystem::path secrets() const { return *this / layout::kContextSecrets; }
  std::filesystem::path socket() const { return *this / layout::kContextSocket; }
  std::filesystem::path home() const { return *this / layout::kContextHome; }
};

// The state root's top-level directories.
class RootLayout {
 public:
  explicit RootLayout(std::filesystem::path root) : root_(std::move(root)) {}
  std::filesystem::path sessions() const { return root_ / layout::kSessions; }
  std::filesystem::path session(std::string_view id) const { return sessions() / id; }
  std::filesystem::path names() const { return sessions() / layout::kNames; }
  std::filesystem::path snapshots() const { return root_ / layout::kSnapshots; }
  std::filesystem::path pools() const { return root_ / layout::kPools; }
  std::filesystem::path pool(std::string_view name) const { return pools() / name; }
  std::filesystem::path workspace_guards() const { return root_ / layout::kWorkspaceGuards; }

 private:
  std::filesystem::path root_;
};

}  // namespace sandshim::session
