// `session delete ID...`: stop the sandbox and remove everything of the session; the
// workspace on the host is left as it is. --force goes on past a journal or record it cannot
// read, with a warning, removing what it finds (session_salvage.cc).
#include "shim/cli/session_common.h"

namespace sandshim::cli {

void RegisterSessionDelete(Verbs& v, CLI::App* parent) {
  auto refs = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto force = std::make_shared<bool>(false);
  auto* sub = v.Add("delete", "delete sessions", [&v, refs, json, force] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    int rc = 0;
    boost::json::array deleted;
    for (const auto& ref : *refs) {
      if (auto d = s->Delete(ref, *force); !d) rc = ExitWith(Status(d.error().Wrap("session delete " + ref)));
      else deleted.emplace_back(ref);
    }
    if (*json) PrintJson(boost::json::object{{"deleted", deleted}});
    return rc;
  }, parent);
  sub->add_option("session", *refs, "session ids or names")->required();
  sub->add_flag("--json", *json, "print {\"deleted\": [...]}");
  sub->add_flag("-f,--force", *force, "go on past a journal or record that cannot be read (with a warning)");
}

}  // namespace sandshim::cli
