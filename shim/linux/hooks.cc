#include "shim/linux/hooks.h"

#include <chrono>

#include "shim/core/log.h"
#include "shim/core/process_run.h"

namespace sandshim::native {

std::vector<Hook> HooksOf(const boost::json::object& spec_doc, std::string_view kind) {
  std::vector<Hook> out;
  const auto* hooks = bundle::GetObject(spec_doc, "hooks");
  const auto* list = hooks ? bundle::GetArray(*hooks, kind) : nullptr;
  if (!list) return out;
  for (const auto& v : *list) {
    if (!v.is_object()) continue;
    const auto& h = v.get_object();
    Hook hook{bundle::GetString(h, "path"), bundle::GetStrings(h, "args"), bundle::GetStrings(h, "env"), 0};
    if (hook.args.empty()) hook.args.push_back(hook.path);
    if (auto it = h.find("timeout"); it != h.end() && it->value().is_number()) hook.timeout = it->value().to_number<int>();
    out.push_back(std::move(hook));
  }
  return out;
}

Status RunHook(const Hook& h, const std::string& state) {
  // Our stdout and stderr, our privileges; the state on stdin, its own env, exactly; every
  // signal (not the ones `run` holds until its forwarder is in place: HeldSignals).
  sigset_t none;
  sigemptyset(&none);
  auto o = TRY_CTX(process::Run({.argv = h.args,
                                 .capture = false,
                                 .input = state,
                                 .timeout = std::chrono::seconds(h.timeout > 0 ? h.timeout : 120),
                                 .env = h.env,
                                 .exe = h.path,
                                 .sigmask = none}),
                   "hook " + h.path);
  if (o.timed_out) return MakeError("hook " + h.path + " timed out", ETIMEDOUT);
  if (!o.Success()) return MakeError("hook " + h.path + " failed: status " + std::to_string(o.Status()), EIO);
  return Ok();
}

Status RunHooks(const std::vector<Hook>& hooks, std::string_view kind, const std::string& state_json) {
  for (const auto& h : hooks) TRY_CTX(RunHook(h, state_json), std::string(kind) + " hook");
  return Ok();
}

std::vector<std::string> RunHooksWarn(const std::vector<Hook>& hooks, std::string_view kind, const std::string& state_json) {
  std::vector<std::string> failed;
  for (const auto& h : hooks)
    if (auto s = RunHook(h, state_json); !s) failed.push_back(std::string(kind) + " hook: " + s.error().msg);
  return failed;
}

std::string LifecycleState(const bundle::Spec& spec, std::string_view kind, const std::string& base_state) {
  boost::json::object o;
  boost::system::error_code ec;
  auto v = boost::json::parse(base_state, ec);
  if (!ec && v.is_object()) o = std::move(v.as_object());
  o["status"] = kind == "prestart"        ? "created"
                : kind == "createRuntime" ? "creating"
                : kind == "poststart"     ? "running"
                                          : "stopped";
  if (kind == "poststop") o["pid"] = 0;
  o.erase("annotations");
  if (!spec.annotations.empty()) {
    boost::json::object a;
    for (const auto& [k, val] : spec.annotations) a[k] = val;
    o["annotations"] = std::move(a);
  }
  return boost::json::serialize(o);
}

Status RunLifecycleHooks(const bundle::Spec& spec, std::string_view kind, const std::string& base_state) {
  auto hooks = HooksOf(spec.doc, kind);
  if (hooks.empty()) return Ok();
  auto state = LifecycleState(spec, kind, base_state);
  if (kind != "poststart" && kind != "poststop") return RunHooks(hooks, kind, state);
  for (const auto& m : RunHooksWarn(hooks, kind, state)) log::Warn(m);
  return Ok();
}

std::string StateWith(const std::string& base_state, std::string_view status, pid_t pid) {
  boost::json::object o;
  boost::system::error_code ec;
  auto v = boost::json::parse(base_state, ec);
  if (!ec && v.is_object()) o = std::move(v.as_object());
  o["status"] = status;
  o["pid"] = pid;
  return boost::json::serialize(o);
}

}  // namespace sandshim::native
