// `events --stats`: one stats document; without --stats, a stats event every --interval
// seconds until the container stops.
#include <unistd.h>

#include "shim/cli/verbs.h"

namespace sandshim::cli {

struct EventsArgs {
  std::string id;
  bool stats = false;
  int interval = 5;
};

void RegisterEvents(Verbs& v) {
  auto a = std::make_shared<EventsArgs>();
  auto* sub = v.Add("events", "print container events and resource statistics", [&v, a] {
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    for (;;) {
      auto st = c->Stats(a->id);
      if (!st) return a->stats ? ExitWith(Status(st.error())) : 0;
      PrintJson(*st);
      if (a->stats) return 0;
      ::sleep(static_cast<unsigned>(std::max(1, a->interval)));
    }
  });
  sub->add_flag("--stats", a->stats, "print statistics once and exit");
  sub->add_option("--interval", a->interval, "seconds between events");
  sub->add_option("id", a->id, "container id")->required();
}

}  // namespace sandshim::cli
