#include "shim/session/pool/pool_stats.h"

#include <boost/json.hpp>
#include <sstream>

#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::session {
namespace json = boost::json;

static uint64_t U(const json::object& o, const char* k) {
  auto* v = o.if_contains(k);
  return v && v->is_int64() && v->as_int64() > 0 ? static_cast<uint64_t>(v->as_int64()) : 0;
}
static double D(const json::object& o, const char* k) {
  auto* v = o.if_contains(k);
  return v && v->is_number() ? v->to_number<double>() : 0;
}

PoolStats ReadPoolStats(const std::filesystem::path& file) {
  PoolStats s;
  auto text = fs::ReadFile(file);
  if (!text) return s;
  auto v = bundle::ParseJson(*text, "pool stats");
  if (!v || !v->is_object()) return s;
  const auto& o = v->as_object();
  s.claims = U(o, "claims");
  s.misses = U(o, "misses");
  s.members_made = U(o, "members_made");
  s.refills = U(o, "refills");
  s.last_refill_seconds = D(o, "last_refill_seconds");
  s.refill_seconds_total = D(o, "refill_seconds_total");
  return s;
}

Status WritePoolStats(const std::filesystem::path& file, const PoolStats& s) {
  json::object o{{"claims", s.claims},
                 {"misses", s.misses},
                 {"members_made", s.members_made},
                 {"refills", s.refills},
                 {"last_refill_seconds", s.last_refill_seconds},
                 {"refill_seconds_total", s.refill_seconds_total}};
  // Counters: losing the last update in an OS crash costs nothing, claim latency is the product.
  return fs::WriteFileAtomic(file, json::serialize(o), 0600, /*sync=*/false);
}

std::string PoolPrometheusText(const std::vector<PoolSample>& pools) {
  std::ostringstream out;
  auto family = [&](const char* name, const char* type, const char* help, auto value) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
    for (const auto& p : pools) out << name << "{pool=\"" << p.name << "\"} " << value(p) << "\n";
  };
  family("sandshim_pool_size", "gauge", "Members the pool keeps ready.", [](const PoolSample& p) { return p.size; });
  family("sandshim_pool_ready", "gauge", "Members ready to be claimed now.", [](const PoolSample& p) { return p.ready; });
  family("sandshim_pool_claims_total", "counter", "Sessions served by a pre-booted member.",
         [](const PoolSample& p) { return p.stats.claims; });
  family("sandshim_pool_misses_total", "counter", "Claims the pool could not serve (created cold).",
         [](const PoolSample& p) { return p.stats.misses; });
  family("sandshim_pool_members_made_total", "counter", "Members booted by refills.",
         [](const PoolSample& p) { return p.stats.members_made; });
  family("sandshim_pool_refill_seconds_total", "counter", "Time refills spent booting members.",
         [](const PoolSample& p) { return p.stats.refill_seconds_total; });
  family("sandshim_pool_last_refill_seconds", "gauge", "Duration of the last refill.",
         [](const PoolSample& p) { return p.stats.last_refill_seconds; });
  return out.str();
}

}  // namespace sandshim::session
