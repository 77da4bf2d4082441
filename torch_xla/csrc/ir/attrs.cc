#include "torch_xla/csrc/ir/attrs.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/subgraph.h"

namespace torch_xla {
namespace {

// Shortest decimal form that reads back as the same double.
std::string DoubleToString(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

struct TypeNameVisitor {
  absl::string_view operator()(int64_t) const { return "int64"; }
  absl::string_view operator()(double) const { return "double"; }
  absl::string_view operator()(bool) const { return "bool"; }
  absl::string_view operator()(const std::vector<int64_t>&) const {
    return "int64[]";
  }
  absl::string_view operator()(DType) const { return "dtype"; }
  absl::string_view operator()(const std::string&) const { return "string"; }
  absl::string_view operator()(const SubGraphPtr&) const { return "subgraph"; }
};

struct ToStringVisitor {
  std::string operator()(int64_t v) const { return absl::StrCat(v); }
  std::string operator()(double v) const { return DoubleToString(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(const std::vector<int64_t>& v) const {
    return absl::StrCat("[", absl::StrJoin(v, ","), "]");
  }
  std::string operator()(DType v) const { return std::string(DTypeName(v)); }
  std::string operator()(const std::string& v) const { return v; }
  std::string operator()(const SubGraphPtr& v) const {
    if (v == nullptr) return "subgraph(null)";
    return absl::StrCat("subgraph(", v->parameters().size(), " -> ",
                        v->results().size(), ")");
  }
};

}  // namespace

absl::string_view AttrTypeName(const AttrValue& value) {
  return std::visit(TypeNameVisitor(), value);
}

template <typename T>
absl::string_view AttrTypeName() {
  return TypeNameVisitor()(T());
}
template absl::string_view AttrTypeName<int64_t>();
template absl::string_view AttrTypeName<double>();
template absl::string_view AttrTypeName<bool>();
template absl::string_view AttrTypeName<std::vector<int64_t>>();
template absl::string_view AttrTypeName<DType>();
template absl::string_view AttrTypeName<std::string>();
template absl::string_view AttrTypeName<SubGraphPtr>();

std::string AttrValueToString(const AttrValue& value) {
  return std::visit(ToStringVisitor(), value);
}

const AttrValue* Attrs::Find(absl::string_view name) const {
  for (const Attr& attr : items_) {
    if (attr.name == name) return &attr.value;
  }
  return nullptr;
}

std::string Attrs::ToString() const {
  std::string out;
  for (const Attr& attr : items_) {
    absl::StrAppend(&out, ", ", attr.name, "=", AttrValueToString(attr.value));
  }
  return out;
}

}  // namespace torch_xla
