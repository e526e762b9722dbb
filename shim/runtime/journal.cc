#include "shim/runtime/journal.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::runtime {

namespace json = boost::json;

Result<std::vector<RawStep>> LoadRawSteps(const std::filesystem::path& file) {
  std::vector<RawStep> out;
  auto text = fs::ReadFile(file);
  if (!text || text->empty()) return out;  // nothing journaled yet
  std::string doc = "journal " + file.string();
  auto v = TRY(bundle::ParseJson(*text, doc));
  if (!v.is_array()) return MakeError(doc + ": not an array", EINVAL);
  const auto& arr = v.get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    std::string at = "[" + std::to_string(i) + "]";
    if (!arr[i].is_object()) return bundle::FieldError(doc, at, "not an object");
    bundle::Fields f(arr[i].get_object(), doc, at);
    RawStep step{TRY(f.StringOr("kind")), {}};
    if (step.kind.empty()) return f.Wrong("kind", "missing");
    if (auto d = TRY(f.Object("data"))) step.data = d->raw();
    out.push_back(std::move(step));
  }
  return out;
}

Status WriteRawSteps(const std::filesystem::path& file, const std::vector<RawStep>& steps, bool durable) {
  json::array arr;
  for (const auto& x : steps) arr.push_back(json::object{{"kind", x.kind}, {"data", x.data}});
  return fs::WriteFileAtomic(file, json::serialize(arr), 0600, durable);
}

}  // namespace sandshim::runtime
