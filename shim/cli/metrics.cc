// `metrics`: Prometheus text for a node-exporter textfile collector, e.g. from cron:
//   sandshim metrics > /var/lib/node_exporter/sandshim.prom.$$ && mv ... sandshim.prom
#include <iostream>

#include "shim/cli/session_common.h"
#include "shim/session/pool/pool.h"

namespace sandshim::cli {

static std::vector<session::PoolSample> PoolSamples(const GlobalOpts& g) {
  std::vector<session::PoolSample> out;
  auto opts = RuntimeOptions(g);
  if (!opts) return out;
  for (const auto& n : session::ListPools(opts->root))
    if (auto st = session::Pool(*opts, n).GetStatus()) out.push_back({n, st->def.size, st->ready, st->stats});
  return out;
}

void RegisterMetrics(Verbs& v) {
  v.Add("metrics", "print session metrics in the Prometheus text format", [&v] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    std::cout << session::PrometheusText(s->Samples());
    std::cout << session::PoolPrometheusText(PoolSamples(v.global));  // warm pools (docs/POOL.md)
    return 0;
  });
}

}  // namespace sandshim::cli
