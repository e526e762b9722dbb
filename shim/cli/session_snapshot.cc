// `session snapshot ID NAME`: the session's sandbox saved as the snapshot NAME (a pause and a
// resume), for `session create --from-snapshot NAME`; `session snapshot --rm NAME` deletes it;
// `session snapshot --list [--json]` lists them.
#include <iostream>

#include "shim/cli/session_common.h"
#include "shim/session/pool/pool.h"

namespace sandshim::cli {

void RegisterSessionSnapshot(Verbs& v, CLI::App* parent) {
  auto args = std::make_shared<std::vector<std::string>>();
  auto rm = std::make_shared<bool>(false), list = std::make_shared<bool>(false), as_json = std::make_shared<bool>(false);
  auto* sub = v.Add("snapshot", "save a gVisor session's sandbox as a named snapshot, for create --from-snapshot",
                    [&v, args, rm, list, as_json] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    if (*list) {
      if (!args->empty()) return ExitWith(Status(MakeError("session snapshot --list: no arguments", EINVAL)));
      auto all = s->ListSnapshots();
      if (*as_json) {
        PrintJson(all);
        return 0;
      }
      for (const auto& e : all) {
        const auto* source = e.as_object().if_contains("source");
        std::cout << e.at("name").as_string().c_str() << "\t" << (source && source->is_string() ? source->as_string().c_str() : "")
                  << "\t" << e.at("bytes").as_int64() << "\n";
      }
      return 0;
    }
    if (*rm) {
      if (args->size() != 1) return ExitWith(Status(MakeError("session snapshot --rm: one snapshot name", EINVAL)));
      auto gone = session::RemoveUnpooledSnapshot(*s, v.global.root, args->front());
      return gone ? 0 : ExitWith(Status(gone.error().Wrap("session snapshot --rm " + args->front())));
    }
    if (args->size() != 2) return ExitWith(Status(MakeError("session snapshot: a session and a snapshot name", EINVAL)));
    auto r = s->Snapshot((*args)[0], (*args)[1]);
    if (!r) return ExitWith(Status(r.error().Wrap("session snapshot " + (*args)[0])));
    std::cout << (*args)[1] << "\t" << r->id << "\t" << r->status << "\n";
    return 0;
  }, parent);
  sub->add_option("args", *args, "SESSION NAME (or NAME with --rm)");
  sub->add_flag("--rm", *rm, "delete the snapshot NAME");
  sub->add_flag("--list", *list, "list the snapshots: NAME, SOURCE, BYTES");
  sub->add_flag("--json", *as_json, "with --list: a JSON array");
}

}  // namespace sandshim::cli
