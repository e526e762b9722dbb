// What sandshim remembers about a session (<root>/@sessions/<id>/session.json, mode 0600):
// identity, the backend it actually got, its profile without environment values, and the
// counters that `inspect` and `metrics` report. Pure conversion to and from JSON, read
// strictly: a field of the wrong type or an unknown state/network/layer name is an error
// naming it ("session.json: execs: must not be negative"), never a default.
#pragma once

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

// What we last made the session (its container's live status is SessionRecord::status).
// paused: no sandbox; its checkpoint is <dir>/snapshot (session_pause.cc).
enum class SessionState { kRunning, kStopped, kPaused };
// none: a private, empty network namespace; proxy: only the egress proxy through a relay;
// host: the host's network (explicit opt-in).
enum class NetworkMode { kNone, kProxy, kHost };
// The session's writable layer: none (read-only root), a native overlayfs in the session
// directory, or gVisor's in-sandbox overlay (--overlay2=root:memory).
enum class LayerKind { kNone, kOverlayfs, kGvisorOverlay };

std::string_view Name(SessionState s);
std::string_view Name(NetworkMode m);
std::string_view Name(LayerKind k);
std::optional<SessionState> ParseSessionState(std::string_view s);
std::optional<NetworkMode> ParseNetworkMode(std::string_view s);
std::optional<LayerKind> ParseLayerKind(std::string_view s);

struct SessionRecord {
  std::string id, name, container_id, backend, workspace, rootfs, audit;
  std::string created, last_used;  // RFC 3339
  SessionState state = SessionState::kRunning;
  LayerKind layer = LayerKind::kNone;
  boost::json::object profile;     // bundle::ProfileSummary
  NetworkMode network = NetworkMode::kNone;
  std::vector<std::string> relay_args;  // proxy mode: the relay's `sandshim proxy` flags, to restart it
  // Native with a user namespace (M11): the host ids container 0.. maps to; 0: none.
  uint64_t id_base = 0;
  uint64_t execs = 0, exec_failures = 0, exec_timeouts = 0;
  double exec_seconds = 0;
  // Not stored (not in the description below): the container's live status ("running",
  // "stopped", "gone"), or "paused".
  std::string status;
};
// What session.json holds: these members, under their own names.
BOOST_DESCRIBE_STRUCT(SessionRecord, (),
                      (id, name, container_id, backend, workspace, rootfs, audit, created, last_used, state, layer,
                       profile, network, relay_args, id_base, execs, exec_failures, exec_timeouts, exec_seconds))

boost::json::object RecordToJson(const SessionRecord& r);
Result<SessionRecord> RecordFromJson(const boost::json::value& v);

// What a wing below Sessions asks of it: a session's record, with its live status, by id or
// name (Sessions::Get). Credential contexts hold this, not Sessions, so the dependency points
// one way (Sessions -> Contexts).
class SessionLookup {
 public:
  virtual Result<SessionRecord> Get(const std::string& ref) = 0;

 protected:
  ~SessionLookup() = default;
};

}  // namespace sandshim::session
