// `kill`: send a signal (name or number, default TERM) to the container's init or, with --all,
// to all its processes.
#include "shim/cli/verbs.h"
#include "shim/core/signals.h"

namespace sandshim::cli {

struct KillArgs {
  std::string id;
  std::string signal = "TERM";
  bool all = false;
};

void RegisterKill(Verbs& v) {
  auto a = std::make_shared<KillArgs>();
  auto* sub = v.Add("kill", "send a signal to a container", [&v, a] {
    auto sig = ParseSignal(a->signal);
    if (!sig) return ExitWith(Status(sig.error()));
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    auto s = c->Kill(a->id, *sig, a->all);
    return ExitWith(s ? s : Status(s.error().Wrap("kill " + a->id)));
  });
  sub->add_flag("-a,--all", a->all, "signal every process of the container");
  sub->add_option("id", a->id, "container id")->required();
  sub->add_option("signal", a->signal, "signal name or number")->capture_default_str();
}

}  // namespace sandshim::cli
