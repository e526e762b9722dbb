// `metrics`: Prometheus text for a node-exporter textfile collector, e.g. from cron:
//   sandshim metrics > /var/lib/node_exporter/sandshim.prom.$$ && mv ... sandshim.prom
#include <iostream>

#include "shim/cli/session_common.h"

namespace sandshim::cli {

void RegisterMetrics(Verbs& v) {
  v.Add("metrics", "print session metrics in the Prometheus text format", [&v] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    std::cout << session::PrometheusText(s->Samples());
    return 0;
  });
}

}  // namespace sandshim::cli
