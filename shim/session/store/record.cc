#include "shim/session/store/record.h"

#include <array>
#include <utility>

#include "bundle/described.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

// One table per enum: the names are what session.json has always held.
template <class E, size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;
constexpr Names<SessionState, 3> kStates{
    {{SessionState::kRunning, "running"}, {SessionState::kStopped, "stopped"}, {SessionState::kPaused, "paused"}}};
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

// The enums in session.json: by name (JSON conversion and the described-struct reader find
// these by argument-dependent lookup).
template <class E>
static void FromEnum(json::value& v, E e) {
  v = Name(e);
}
void tag_invoke(const json::value_from_tag&, json::value& v, SessionState e) { FromEnum(v, e); }
void tag_invoke(const json::value_from_tag&, json::value& v, NetworkMode e) { FromEnum(v, e); }
void tag_invoke(const json::value_from_tag&, json::value& v, LayerKind e) { FromEnum(v, e); }

// An empty or absent name keeps the default (older records); an unknown one is an error.
template <class E>
static Status ReadEnum(const bundle::Fields& f, const char* key, E& dst, std::optional<E> (*parse)(std::string_view)) {
  auto s = TRY(f.String(key));
  if (!s || s->empty()) return Ok();
  auto e = parse(*s);
  if (!e) return f.Wrong(key, "unknown value \"" + *s + "\"");
  dst = *e;
  return Ok();
}
Status ReadMember(const bundle::Fields& f, const char* key, SessionState& dst) {
  return ReadEnum(f, key, dst, ParseSessionState);
}
Status ReadMember(const bundle::Fields& f, const char* key, NetworkMode& dst) {
  return ReadEnum(f, key, dst, ParseNetworkMode);
}
Status ReadMember(const bundle::Fields& f, const char* key, LayerKind& dst) { return ReadEnum(f, key, dst, ParseLayerKind); }

json::object RecordToJson(const SessionRecord& r) { return bundle::WriteDescribed(r); }

Result<SessionRecord> RecordFromJson(const json::value& v) {
  if (!v.is_object()) return MakeError("session record is not a JSON object", EINVAL);
  auto r = TRY(bundle::ReadDescribed<SessionRecord>(bundle::Fields(v.as_object(), std::string(layout::kRecord.rel))));
  if (r.id.empty()) return MakeError("session record has no id", EINVAL);
  return r;
}

}  // namespace sandshim::session
