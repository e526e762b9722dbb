#include "shim/runtime/journal.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::runtime {

namespace json = boost::json;

// The file's entries as JSON values (a missing or empty file: none).
static Result<json::array> LoadEntries(const std::filesystem::path& file, const std::string& doc) {
  auto text = fs::ReadFile(file);
  if (!text || text->empty()) return json::array{};  // nothing journaled yet
  auto v = TRY(bundle::ParseJson(*text, doc));
  if (!v.is_array()) return MakeError(doc + ": not an array", EINVAL);
  return std::move(v.get_array());
}

static Result<RawStep> ReadRawStep(const json::value& v, const std::string& doc, const std::string& at) {
  if (!v.is_object()) return bundle::FieldError(doc, at, "not an object");
  bundle::Fields f(v.get_object(), doc, at);
  RawStep step{TRY(f.StringOr("kind")), {}};
  if (step.kind.empty()) return f.Wrong("kind", "missing");
  if (auto d = TRY(f.Object("data"))) step.data = d->raw();
  return step;
}

Result<std::vector<RawStep>> LoadRawSteps(const std::filesystem::path& file) {
  std::string doc = "journal " + file.string();
  std::vector<RawStep> out;
  auto arr = TRY(LoadEntries(file, doc));
  for (size_t i = 0; i < arr.size(); ++i) out.push_back(TRY(ReadRawStep(arr[i], doc, "[" + std::to_string(i) + "]")));
  return out;
}

std::vector<Result<RawStep>> SalvageRawSteps(const std::filesystem::path& file) {
  std::string doc = "journal " + file.string();
  std::vector<Result<RawStep>> out;
  auto arr = LoadEntries(file, doc);
  if (!arr) {
    out.emplace_back(arr.error());
    return out;
  }
  for (size_t i = 0; i < arr->size(); ++i) out.push_back(ReadRawStep((*arr)[i], doc, "[" + std::to_string(i) + "]"));
  return out;
}

Status WriteRawSteps(const std::filesystem::path& file, const std::vector<RawStep>& steps, bool durable) {
  json::array arr;
  for (const auto& x : steps) arr.push_back(json::object{{"kind", x.kind}, {"data", x.data}});
  return fs::WriteFileAtomic(file, json::serialize(arr), 0600, durable);
}

}  // namespace sandshim::runtime
