#include "rootfs-builder/image_config.h"

#include "bundle/spec.h"

namespace sandshim::rootfs {

namespace json = boost::json;

static json::array Strings(const std::vector<std::string>& v) { return json::array(v.begin(), v.end()); }

Result<ImageConfig> ParseImageConfig(std::string_view json_text) {
  auto v = TRY(bundle::ParseJson(json_text, "image config"));
  if (!v.is_object()) return MakeError("image config: not a JSON object", EINVAL);
  ImageConfig c;
  const json::object* cfg = bundle::GetObject(v.get_object(), "config");
  if (!cfg) return c;
  c.env = bundle::GetStrings(*cfg, "Env");
  c.entrypoint = bundle::GetStrings(*cfg, "Entrypoint");
  c.cmd = bundle::GetStrings(*cfg, "Cmd");
  c.working_dir = bundle::GetString(*cfg, "WorkingDir");
  c.user = bundle::GetString(*cfg, "User");
  return c;
}

json::object ToJson(const ImageConfig& c) {
  return {{"env", Strings(c.env)},         {"entrypoint", Strings(c.entrypoint)}, {"cmd", Strings(c.cmd)},
          {"working_dir", c.working_dir}, {"user", c.user}};
}

ImageConfig ImageConfigFromJson(const json::object& o) {
  return {bundle::GetStrings(o, "env"), bundle::GetStrings(o, "entrypoint"), bundle::GetStrings(o, "cmd"),
          bundle::GetString(o, "working_dir"), bundle::GetString(o, "user")};
}

}  // namespace sandshim::rootfs
