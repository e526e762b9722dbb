// `events --stats`: one stats document; without --stats, a stats event every --interval
// seconds until the container stops, preceded by {"type":"oom","id":ID} whenever the
// container's OOM-kill count has risen (runc's oom event; the count is in the stats as
// data.memory.oom_kill where the backend knows it).
#include <unistd.h>

#include <iostream>

#include "shim/cli/verbs.h"

namespace sandshim::cli {
namespace {

uint64_t OomKills(const boost::json::value& stats) {
  const auto* o = stats.if_object();
  const auto* data = o && o->contains("data") ? o->at("data").if_object() : nullptr;
  const auto* mem = data && data->contains("memory") ? data->at("memory").if_object() : nullptr;
  if (!mem || !mem->contains("oom_kill")) return 0;
  return mem->at("oom_kill").to_number<uint64_t>();
}

}  // namespace

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
    uint64_t ooms_seen = 0;  // an OOM kill before we started watching is reported too
    for (;;) {
      auto st = c->Stats(a->id);
      if (!st) return a->stats ? ExitWith(Status(st.error())) : 0;
      if (!a->stats)
        if (uint64_t n = OomKills(*st); n > ooms_seen) {
          PrintJson(boost::json::value{{"type", "oom"}, {"id", a->id}});
          ooms_seen = n;
        }
      PrintJson(*st);
      if (a->stats) return 0;
      std::cout.flush();  // a stream: each event must reach a pipe reader as it happens
      ::sleep(static_cast<unsigned>(std::max(1, a->interval)));
    }
  });
  sub->add_flag("--stats", a->stats, "print statistics once and exit");
  sub->add_option("--interval", a->interval, "seconds between events");
  sub->add_option("id", a->id, "container id")->required();
}

}  // namespace sandshim::cli
