#include "torch_xla/csrc/rewrites/summed_dots.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/graph_walk.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;
using UseCounts = absl::flat_hash_map<const Node*, int64_t>;

// A term that equals dot_general(a, b) contracting a's dim `a_dim` with b's
// `b_dim`, so that the result is [a's free dim, b's free dim].
struct Product {
  Value a, b;
  int64_t a_dim = 0, b_dim = 0;
  const Node* dot = nullptr;  // its precision and preferred element type
};

// Products that can share one dot_general: the same contracting positions,
// operand type, precision and result type.
struct ProductKind {
  int64_t a_dim, b_dim;
  DType operand_dtype, result_dtype;
  std::string precision;
  bool operator==(const ProductKind& o) const {
    return a_dim == o.a_dim && b_dim == o.b_dim &&
           operand_dtype == o.operand_dtype &&
           result_dtype == o.result_dtype && precision == o.precision;
  }
};

UseCounts CountUses(const PostOrder& order, absl::Span<const Value> results) {
  UseCounts uses;
  for (const Node* node : order.nodes) {
    for (const Value& v : node->operands()) ++uses[v.node.get()];
  }
  for (const Value& r : results) ++uses[r.node.get()];
  return uses;
}

int64_t UsesOf(const UseCounts& uses, const Node* node) {
  auto it = uses.find(node);
  return it == uses.end() ? 0 : it->second;
}

// One contracting dim, no batch dims, rank-2 operands.
absl::StatusOr<bool> IsMatrixProduct(const Node& node) {
  if (node.kind() != OpKind::kDotGeneral || node.num_operands() != 2) {
    return false;
  }
  TXLA_ASSIGN_OR_RETURN(const Dims* lb,
                        node.GetOptionalAttr<Dims>("lhs_batch"));
  TXLA_ASSIGN_OR_RETURN(const Dims* lc,
                        node.GetOptionalAttr<Dims>("lhs_contract"));
  TXLA_ASSIGN_OR_RETURN(const Dims* rc,
                        node.GetOptionalAttr<Dims>("rhs_contract"));
  return (lb == nullptr || lb->empty()) && lc != nullptr &&
         lc->size() == 1 && rc != nullptr && rc->size() == 1 &&
         node.operand(0).shape().rank() == 2 &&
         node.operand(1).shape().rank() == 2;
}

// `term` as a product, looking through rank-2 transposes (a transposed
// product is the product of the swapped operands) and one float convert (a
// product computed in a wider type, e.g. bf16 operands to f32, rounded to
// the sum's type: the folded product is rounded once). Every node on the
// way must be used by the sum alone, or folding would compute it twice.
absl::StatusOr<std::optional<Product>> AsProduct(const Value& term,
                                                 const UseCounts& uses) {
  bool swapped = false, converted = false;
  const Node* node = term.node.get();
  while (UsesOf(uses, node) == 1) {
    if (node->kind() == OpKind::kTranspose && node->shape().rank() == 2) {
      TXLA_ASSIGN_OR_RETURN(const Dims* perm,
                            node->GetAttr<Dims>("permutation"));
      if (*perm == Dims{1, 0}) swapped = !swapped;
    } else if (node->kind() == OpKind::kConvert && !converted &&
               IsFloating(node->shape().dtype) &&
               IsFloating(node->operand(0).shape().dtype)) {
      converted = true;
    } else {
      break;
    }
    node = node->operand(0).node.get();
  }
  TXLA_ASSIGN_OR_RETURN(bool matrix_product, IsMatrixProduct(*node));
  if (!matrix_product || UsesOf(uses, node) != 1) {
    return std::optional<Product>();
  }
  Product p;
  p.dot = node;
  // Present, one dim each: IsMatrixProduct checked them.
  TXLA_ASSIGN_OR_RETURN(const Dims* lhs_contract,
                        node->GetAttr<Dims>("lhs_contract"));
  TXLA_ASSIGN_OR_RETURN(const Dims* rhs_contract,
                        node->GetAttr<Dims>("rhs_contract"));
  const int64_t lhs_dim = lhs_contract->front();
  const int64_t rhs_dim = rhs_contract->front();
  if (swapped) {
    p.a = node->operand(1), p.a_dim = rhs_dim;
    p.b = node->operand(0), p.b_dim = lhs_dim;
  } else {
    p.a = node->operand(0), p.a_dim = lhs_dim;
    p.b = node->operand(1), p.b_dim = rhs_dim;
  }
  return p;
}

absl::StatusOr<ProductKind> KindOf(const Product& p) {
  TXLA_ASSIGN_OR_RETURN(std::string precision,
                        p.dot->GetAttrOr<std::string>("precision", ""));
  return ProductKind{p.a_dim, p.b_dim, p.a.shape().dtype, p.dot->shape().dtype,
                     std::move(precision)};
}

// Whether the operand `v` of an add of shape `sum` is an inner add of the
// same tree: an add of that shape used there alone.
bool IsInnerAdd(const Value& v, const Shape& sum, const UseCounts& uses) {
  return v.node->kind() == OpKind::kAdd && UsesOf(uses, v.node.get()) == 1 &&
         v.shape() == sum;
}

// The terms of the add tree rooted at `root`, left to right (its inner adds
// opened).
std::vector<Value> TermsOf(const Node* root, const UseCounts& uses) {
  std::vector<Value> terms;
  std::vector<Value> stack = {root->operand(1), root->operand(0)};
  while (!stack.empty()) {
    Value v = std::move(stack.back());
    stack.pop_back();
    if (IsInnerAdd(v, root->shape(), uses)) {
      stack.push_back(v.node->operand(1));
      stack.push_back(v.node->operand(0));
    } else {
      terms.push_back(std::move(v));
    }
  }
  return terms;
}

class Folder {
 public:
  explicit Folder(const UseCounts& uses) : uses_(uses) {}

  // The value that stands for `v` in the folded graph.
  Value Resolve(const Value& v) const {
    auto it = rebuilt_.find(v.node.get());
    return it == rebuilt_.end() ? v : Value(it->second, v.index);
  }

  // Visits `node` after its operands: folds it if it is the root of a
  // foldable sum, else rebuilds it if an operand changed.
  absl::Status Visit(const Node* node, bool is_tree_root) {
    if (is_tree_root) {
      TXLA_ASSIGN_OR_RETURN(std::optional<Value> folded, FoldSum(node));
      if (folded.has_value()) {
        rebuilt_[node] = folded->node;
        return absl::OkStatus();
      }
    }
    bool changed = false;
    std::vector<Value> operands;
    operands.reserve(node->num_operands());
    for (const Value& v : node->operands()) {
      operands.push_back(Resolve(v));
      changed |= operands.back() != v;
    }
    if (changed) {
      rebuilt_[node] = NodeFactory::Create(node->kind(), std::move(operands),
                                           node->shapes(), node->attrs(),
                                           node->data());
    }
    return absl::OkStatus();
  }

 private:
  // The sum rooted at the add `root` with its foldable products folded, or
  // nothing when no group of products is worth folding. Its terms keep their
  // left-to-right order; a folded group takes its first member's place.
  absl::StatusOr<std::optional<Value>> FoldSum(const Node* root) {
    const std::vector<Value> terms = TermsOf(root, uses_);
    std::vector<std::optional<Product>> products;
    std::vector<int> group(terms.size(), -1);
    std::vector<ProductKind> kinds;
    std::vector<std::vector<int>> members;
    for (size_t t = 0; t < terms.size(); ++t) {
      std::optional<Product> product;
      if (terms[t].shape() == root->shape()) {
        TXLA_ASSIGN_OR_RETURN(product, AsProduct(terms[t], uses_));
      }
      products.push_back(std::move(product));
      if (!products.back().has_value()) continue;
      TXLA_ASSIGN_OR_RETURN(const ProductKind kind, KindOf(*products.back()));
      size_t g = 0;
      while (g < kinds.size() && !(kinds[g] == kind)) ++g;
      if (g == kinds.size()) {
        kinds.push_back(kind);
        members.emplace_back();
      }
      members[g].push_back(static_cast<int>(t));
      group[t] = static_cast<int>(g);
    }
    std::vector<bool> fold(members.size(), false);
    bool any = false;
    for (size_t g = 0; g < members.size(); ++g) {
      fold[g] = WorthFolding(members[g], products, root->shape());
      any |= fold[g];
    }
    if (!any) return std::optional<Value>();

    std::vector<Value> sum_terms;
    for (size_t t = 0; t < terms.size(); ++t) {
      const int g = group[t];
      if (g < 0 || !fold[g]) {
        sum_terms.push_back(Resolve(terms[t]));
      } else if (members[g].front() == static_cast<int>(t)) {
        TXLA_ASSIGN_OR_RETURN(Value folded, FoldGroup(members[g], products,
                                                     root->shape().dtype));
        sum_terms.push_back(std::move(folded));
      }
    }
    Value sum = sum_terms.front();
    for (size_t t = 1; t < sum_terms.size(); ++t) {
      TXLA_ASSIGN_OR_RETURN(NodePtr add,
                            MakeBinary(OpKind::kAdd, sum, sum_terms[t]));
      sum = Value(std::move(add));
    }
    return std::optional<Value>(std::move(sum));
  }

  // Two products or more whose operands, concatenated, are no larger than
  // the products that folding saves.
  static bool WorthFolding(const std::vector<int>& members,
                           const std::vector<std::optional<Product>>& products,
                           const Shape& result) {
    if (members.size() < 2) return false;
    int64_t operand_bytes = 0;
    for (int t : members) {
      operand_bytes += products[t]->a.shape().byte_size() +
                       products[t]->b.shape().byte_size();
    }
    const int64_t saved_bytes =
        static_cast<int64_t>(members.size() - 1) * result.byte_size();
    return operand_bytes <= saved_bytes;
  }

  // One product for the group, converted to `sum_dtype`.
  absl::StatusOr<Value> FoldGroup(
      const std::vector<int>& members,
      const std::vector<std::optional<Product>>& products, DType sum_dtype) {
    const Product& first = *products[members.front()];
    std::vector<Value> as, bs;
    for (int t : members) {
      as.push_back(Resolve(products[t]->a));
      bs.push_back(Resolve(products[t]->b));
    }
    TXLA_ASSIGN_OR_RETURN(
        NodePtr a, MakeNode(OpKind::kConcatenate, std::move(as),
                            Attrs().Set("dimension", first.a_dim)));
    TXLA_ASSIGN_OR_RETURN(
        NodePtr b, MakeNode(OpKind::kConcatenate, std::move(bs),
                            Attrs().Set("dimension", first.b_dim)));
    Attrs attrs = Attrs()
                      .Set("lhs_contract", Dims{first.a_dim})
                      .Set("rhs_contract", Dims{first.b_dim});
    TXLA_ASSIGN_OR_RETURN(const DType* dtype,
                          first.dot->GetOptionalAttr<DType>("dtype"));
    if (dtype != nullptr) attrs.Set("dtype", *dtype);
    TXLA_ASSIGN_OR_RETURN(
        const std::string* precision,
        first.dot->GetOptionalAttr<std::string>("precision"));
    if (precision != nullptr) {
      attrs.Set("precision", absl::string_view(*precision));
    }
    TXLA_ASSIGN_OR_RETURN(
        NodePtr dot, MakeNode(OpKind::kDotGeneral, {a, b}, std::move(attrs)));
    return MakeConvert(Value(std::move(dot)), sum_dtype);
  }

  const UseCounts& uses_;
  absl::flat_hash_map<const Node*, NodePtr> rebuilt_;
};

}  // namespace

absl::StatusOr<std::vector<Value>> FoldSummedDots(
    absl::Span<const Value> results) {
  const PostOrder order = ComputePostOrder(results);
  const UseCounts uses = CountUses(order, results);
  // Every rank-2 add that is not an inner add of another is a tree root.
  absl::flat_hash_set<const Node*> inner;
  for (const Node* node : order.nodes) {
    if (node->kind() != OpKind::kAdd) continue;
    for (const Value& v : node->operands()) {
      if (IsInnerAdd(v, node->shape(), uses)) inner.insert(v.node.get());
    }
  }
  Folder folder(uses);
  for (const Node* node : order.nodes) {
    const bool is_root = node->kind() == OpKind::kAdd &&
                         node->shape().rank() == 2 && inner.count(node) == 0;
    TXLA_RETURN_IF_ERROR(folder.Visit(node, is_root));
  }
  std::vector<Value> out;
  out.reserve(results.size());
  for (const Value& r : results) out.push_back(folder.Resolve(r));
  return out;
}

}  // namespace torch_xla
