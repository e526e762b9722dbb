#include "shim/session/record.h"

#include <array>
#include <utility>

#include "bundle/json_field.h"

namespace sandshim::session {
namespace json = boost::json;

// One table per enum: the names are what session.json has always held.
template <class E, size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;
constexpr Names<SessionState, 2> kStates{{{SessionState::kRunning, "running"}, {SessionState::kStopped, "stopped"}}};
constexpr Names<NetworkMode, 3> kNetworks{
    {{NetworkMode::kNone, "none"}, {NetworkMode::kProxy, "proxy"}, {NetworkMode::kHost, "host"}}};
constexpr Names<LayerKind, 3> kLayers{
    {{LayerKind::kNone, ""}, {LayerKind::kOverlayfs, "overlayfs"}, {LayerKind::kGvisorOverlay, "gvisor-overlay"}}};

template <class E, size_t N>
static std::string_view NameIn(const Names<E, N>& names, E e) {
  for (const auto& [v, n] : names)
    if (v == e) return n;
  return "?";
}

template <class E, size_t N>
static std::optional<E> ParseIn(const Names<E, N>& names, std::string_view s) {
  for (const auto& [v, n] : names)
    if (n == s) return v;
  return std::nullopt;
}

std::string_view Name(SessionState s) { return NameIn(kStates, s); }
std::string_view Name(NetworkMode m) { return NameIn(kNetworks, m); }
std::string_view Name(LayerKind k) { return NameIn(kLayers, k); }
std::optional<SessionState> ParseSessionState(std::string_view s) { return ParseIn(kStates, s); }
std::optional<NetworkMode> ParseNetworkMode(std::string_view s) { return ParseIn(kNetworks, s); }
std::optional<LayerKind> ParseLayerKind(std::string_view s) { return ParseIn(kLayers, s); }

json::object RecordToJson(const SessionRecord& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"container_id", r.container_id},
          {"backend", r.backend},
          {"workspace", r.workspace},
          {"rootfs", r.rootfs},
          {"audit", r.audit},
          {"created", r.created},
          {"last_used", r.last_used},
          {"state", Name(r.state)},
          {"layer", Name(r.layer)},
          {"profile", r.profile},
          {"network", Name(r.network)},
          {"relay_args", json::value_from(r.relay_args)},
          {"execs", r.execs},
          {"exec_failures", r.exec_failures},
          {"exec_timeouts", r.exec_timeouts},
          {"exec_seconds", r.exec_seconds},
          {"id_base", r.id_base}};
}

// An enum field by name; absent reads as `def` (records written before the field existed).
template <class E>
static Result<E> EnumField(const bundle::Fields& f, std::string_view key, std::optional<E> (*parse)(std::string_view),
                           E def) {
  auto s = TRY(f.String(key));
  if (!s) return def;
  auto e = parse(*s);
  if (!e) return f.Wrong(key, "unknown value \"" + *s + "\"");
  return *e;
}

static Status ReadCounters(const bundle::Fields& f, SessionRecord& r) {
  r.id_base = TRY(f.NumberOr<uint64_t>("id_base", 0));
  r.execs = TRY(f.NumberOr<uint64_t>("execs", 0));
  r.exec_failures = TRY(f.NumberOr<uint64_t>("exec_failures", 0));
  r.exec_timeouts = TRY(f.NumberOr<uint64_t>("exec_timeouts", 0));
  if (const auto* s = f.raw().if_contains("exec_seconds"); s && !s->is_null()) {
    if (!s->is_number()) return f.Wrong("exec_seconds", "not a number");
    r.exec_seconds = s->to_number<double>();
  }
  return Ok();
}

Result<SessionRecord> RecordFromJson(const json::value& v) {
  if (!v.is_object()) return MakeError("session record is not a JSON object", EINVAL);
  bundle::Fields f(v.as_object(), "session.json");
  SessionRecord r;
  r.id = TRY(f.StringOr("id"));
  if (r.id.empty()) return MakeError("session record has no id", EINVAL);
  for (auto [key, dst] : {std::pair{"name", &r.name}, {"container_id", &r.container_id}, {"backend", &r.backend},
                          {"workspace", &r.workspace}, {"rootfs", &r.rootfs}, {"audit", &r.audit},
                          {"created", &r.created}, {"last_used", &r.last_used}})
    *dst = TRY(f.StringOr(key));
  r.state = TRY(EnumField(f, "state", ParseSessionState, SessionState::kRunning));
  r.layer = TRY(EnumField(f, "layer", ParseLayerKind, LayerKind::kNone));
  r.network = TRY(EnumField(f, "network", ParseNetworkMode, NetworkMode::kNone));
  if (auto p = TRY(f.Object("profile"))) r.profile = p->raw();
  r.relay_args = TRY(f.Strings("relay_args"));
  TRY(ReadCounters(f, r));
  return r;
}

}  // namespace sandshim::session
