#include "workloads/graph_scan.h"

#include <exception>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "workloads/flop_formulas.h"
#include "workloads/shape_rules.h"

namespace torchscan::workloads {
namespace {

using Shape = std::vector<int64_t>;
using torch::jit::Block;
using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;
using Runs = GraphComputeNode::Runs;

constexpr int kMaxCallDepth = 64;

// Where the nodes being scanned run.
struct Context {
  Runs runs = Runs::kOncePerForward;
  std::string where;
  int depth = 0;
};

// What the scan knows about a value: a constant, attribute or object, or a tensor's shape.
struct Known {
  std::optional<c10::IValue> value;
  std::optional<Shape> shape;
};

bool IsTensorType(const Value* v) {
  const c10::TypePtr& type = v->type();
  if (type->cast<c10::TensorType>()) return true;
  if (const auto optional = type->cast<c10::OptionalType>())
    return optional->getElementType()->cast<c10::TensorType>() != nullptr;
  return false;
}

std::optional<Shape> ConcreteSizes(const Value* v) {
  const auto tensor = v->type()->cast<c10::TensorType>();
  if (!tensor) return std::nullopt;
  const auto sizes = tensor->sizes().concrete_sizes();
  if (!sizes) return std::nullopt;
  return *sizes;
}

// The sizes of an XNNPACK prepacked context, through prepacked::unpack_prepacked_sizes_*:
// conv2d (weight sizes, bias sizes, stride, padding, dilation, groups), linear (weight, bias).
std::optional<std::vector<c10::IValue>> UnpackSizes(const std::string& op_name, const c10::IValue& context) {
  const auto op = c10::Dispatcher::singleton().findSchema({op_name, ""});
  if (!op || !context.isObject()) return std::nullopt;
  torch::jit::Stack stack{context};
  op->callBoxed(&stack);
  if (stack.size() != 1 || !stack[0].isTuple()) return std::nullopt;
  return stack[0].toTupleRef().elements().vec();
}

class Scanner {
 public:
  explicit Scanner(GraphCompute* out) : out_(out) {}

  // Scans `graph` with its inputs bound to `inputs`; returns what is known of its outputs.
  std::vector<Known> ScanGraph(const Graph& graph, const std::vector<Known>& inputs, const Context& ctx) {
    if (ctx.depth > kMaxCallDepth) throw std::runtime_error("calls nested deeper than 64 levels");
    for (size_t i = 0; i < graph.inputs().size() && i < inputs.size(); ++i) known_[graph.inputs()[i]] = inputs[i];
    ScanBlock(*graph.block(), ctx);
    std::vector<Known> outputs;
    for (const Value* v : graph.outputs()) outputs.push_back(Lookup(v));
    return outputs;
  }

 private:
  Known Lookup(const Value* v) const {
    const auto it = known_.find(v);
    if (it != known_.end()) return it->second;
    Known k;
    k.shape = ConcreteSizes(v);
    return k;
  }

  OpArg ArgOf(const Value* v) const {
    const Known k = Lookup(v);
    if (k.value) {
      const c10::IValue& iv = *k.value;
      if (iv.isTensor()) return iv.toTensor().defined() ? OpArg::Tensor(iv.toTensor().sizes().vec()) : OpArg::None();
      if (iv.isIntList()) return OpArg::IntList(iv.toIntVector());
      if (iv.isInt()) return OpArg::Int(iv.toInt());
      if (iv.isBool()) return OpArg::Bool(iv.toBool());
      if (iv.isString()) return OpArg::String(iv.toStringRef());
      if (iv.isNone()) return OpArg::None();
      return OpArg::Other();
    }
    if (k.shape) return OpArg::Tensor(*k.shape);
    return OpArg::Other();
  }

  // The first tensor argument whose shape is unknown, or nullptr.
  const Value* UnknownTensor(const Node& node) const {
    for (const Value* v : node.inputs()) {
      if (IsTensorType(v) && ArgOf(v).kind == OpArg::Kind::kOther) return v;
    }
    return nullptr;
  }

  void SetShapes(const Node& node, const std::optional<std::vector<Shape>>& shapes) {
    if (!shapes || shapes->size() != node.outputs().size()) return;
    for (size_t i = 0; i < shapes->size(); ++i) known_[node.outputs()[i]].shape = (*shapes)[i];
  }

  void SetValue(const Value* v, c10::IValue value) { known_[v].value = std::move(value); }

  void ScanBlock(const Block& block, const Context& ctx) {
    for (const Node* node : block.nodes()) ScanNode(*node, ctx);
  }

  Context Nested(const Context& ctx, Runs runs, const std::string& where) const {
    Context inner = ctx;
    if (ctx.runs == Runs::kOncePerForward) {  // the outermost reason wins
      inner.runs = runs;
      inner.where = where;
    }
    return inner;
  }

  void ScanCall(const Node& node, const Graph& callee, size_t first_argument, const Context& ctx) {
    std::vector<Known> inputs;
    for (size_t i = first_argument; i < node.inputs().size(); ++i) inputs.push_back(Lookup(node.inputs()[i]));
    Context inner = ctx;
    ++inner.depth;
    const std::vector<Known> outputs = ScanGraph(callee, inputs, inner);
    for (size_t i = 0; i < outputs.size() && i < node.outputs().size(); ++i) known_[node.outputs()[i]] = outputs[i];
  }

  void ScanNode(const Node& node, const Context& ctx) {
    const std::string kind = node.kind().toQualString();
    if (node.kind() == c10::prim::Constant) {
      if (auto value = torch::jit::toIValue(node.output())) SetValue(node.output(), *value);
      return;
    }
    if (node.kind() == c10::prim::ConstantMKLDNNTensor && node.hasAttribute(c10::attr::value)) {
      SetValue(node.output(), node.t(c10::attr::value));
      return;
    }
    if (node.kind() == c10::prim::GetAttr) {
      const Known object = Lookup(node.input());
      if (object.value && object.value->isObject()) {
        const auto& obj = object.value->toObjectRef();
        const std::string& name = node.s(c10::attr::name);
        if (obj.type()->hasAttribute(name)) SetValue(node.output(), obj.getAttr(name));
      }
      return;
    }
    if (node.kind() == c10::prim::ListConstruct) {
      std::vector<int64_t> ints;
      for (const Value* v : node.inputs()) {
        const OpArg arg = ArgOf(v);
        if (arg.kind != OpArg::Kind::kInt) return;
        ints.push_back(arg.values[0]);
      }
      SetValue(node.output(), c10::IValue(ints));
      return;
    }
    if (node.kind() == c10::aten::size && node.inputs().size() <= 2) {
      const OpArg self = ArgOf(node.inputs()[0]);
      if (self.kind != OpArg::Kind::kTensor) return;
      if (node.inputs().size() == 1) {
        SetValue(node.output(), c10::IValue(self.values));
      } else if (const OpArg dim = ArgOf(node.inputs()[1]); dim.kind == OpArg::Kind::kInt) {
        const int64_t rank = static_cast<int64_t>(self.values.size());
        const int64_t d = dim.values[0] < 0 ? dim.values[0] + rank : dim.values[0];
        if (d >= 0 && d < rank) SetValue(node.output(), c10::IValue(self.values[static_cast<size_t>(d)]));
      }
      return;
    }
    if (node.kind() == c10::prim::CallMethod) {
      const auto cls = node.inputs()[0]->type()->cast<c10::ClassType>();
      torch::jit::Function* fn = cls ? cls->findMethod(node.s(c10::attr::name)) : nullptr;
      if (fn != nullptr) ScanCall(node, *torch::jit::toGraphFunction(*fn).graph(), 0, ctx);
      return;
    }
    if (node.kind() == c10::prim::CallFunction) {
      const auto type = node.inputs()[0]->type()->cast<c10::FunctionType>();
      if (type && type->function() != nullptr) {
        ScanCall(node, *torch::jit::toGraphFunction(*type->function()).graph(), 1, ctx);
      }
      return;
    }
    if (node.kind() == c10::prim::fork && node.hasAttribute(c10::attr::Subgraph)) {
      ScanCall(node, *node.g(c10::attr::Subgraph), 0, Nested(ctx, Runs::kOnAnotherThread, "in a prim::fork subgraph"));
      return;
    }
    if (!node.blocks().empty()) {
      const Context inner = Nested(ctx, Runs::kConditionally, absl::StrCat("inside ", kind));
      for (const Block* sub : node.blocks()) ScanBlock(*sub, inner);
      return;
    }
    std::vector<OpArg> args;
    for (const Value* v : node.inputs()) args.push_back(ArgOf(v));
    const Value* unknown = UnknownTensor(node);
    if (IsComputeKind(kind)) Record(node, kind, args, unknown, ctx);
    if (unknown == nullptr && !IsPrepacked(kind)) SetShapes(node, OutputShapes(kind, args));
  }

  static bool IsPrepacked(const std::string& kind) {
    return kind == "prepacked::conv2d_clamp_run" || kind == "prepacked::linear_clamp_run";
  }

  // prepacked::conv2d_clamp_run(X, context) as conv2d(X, weight, bias, stride, padding, dilation,
  // groups); prepacked::linear_clamp_run(X, context) as linear(X, weight, bias). Sets the output
  // shape too. Returns the formula's name, or "" when the context does not give its sizes.
  std::string Unprepack(const Node& node, const std::string& kind, std::vector<OpArg>* args) {
    const Known context = Lookup(node.inputs()[1]);
    if (!context.value) return "";
    const bool conv = kind == "prepacked::conv2d_clamp_run";
    const auto sizes = UnpackSizes(
        conv ? "prepacked::unpack_prepacked_sizes_conv2d" : "prepacked::unpack_prepacked_sizes_linear", *context.value);
    if (!sizes || sizes->size() != (conv ? 6u : 2u) || !(*sizes)[0].isIntList()) return "";
    std::vector<OpArg> unpacked = {(*args)[0], OpArg::Tensor((*sizes)[0].toIntVector()),
                                   (*sizes)[1].isIntList() ? OpArg::Tensor((*sizes)[1].toIntVector()) : OpArg::None()};
    if (conv) {
      for (size_t i = 2; i < 5; ++i) {
        if (!(*sizes)[i].isIntList()) return "";
        unpacked.push_back(OpArg::IntList((*sizes)[i].toIntVector()));
      }
      if (!(*sizes)[5].isInt()) return "";
      unpacked.push_back(OpArg::Int((*sizes)[5].toInt()));
    }
    *args = std::move(unpacked);
    const std::string formula = conv ? "aten::conv2d" : "aten::linear";
    SetShapes(node, OutputShapes(formula, *args));
    return formula;
  }

  void Record(const Node& node, const std::string& kind, std::vector<OpArg> args, const Value* unknown,
              const Context& ctx) {
    GraphComputeNode entry;
    entry.kind = kind;
    const torch::jit::Operator* op = node.maybeOperator();
    entry.observable = op != nullptr && op->isC10Op();
    entry.runs = ctx.runs;
    entry.where = ctx.where;
    if (unknown != nullptr) {
      entry.detail = absl::StrCat("the shape of %", unknown->debugName(), " (from ",
                                  unknown->node()->kind().toQualString(), ") is not static");
      out_->nodes.push_back(std::move(entry));
      return;
    }
    std::string formula = kind;
    if (IsPrepacked(kind)) {
      formula = Unprepack(node, kind, &args);
      if (formula.empty()) {
        entry.detail = "its prepacked context does not give its sizes";
        out_->nodes.push_back(std::move(entry));
        return;
      }
    }
    std::vector<std::string> shapes;
    for (const OpArg& a : args) {
      if (a.kind == OpArg::Kind::kTensor) shapes.push_back(absl::StrCat("[", absl::StrJoin(a.values, ", "), "]"));
    }
    entry.flops = OperatorFlops(formula, args);
    entry.detail = entry.flops
                       ? absl::StrJoin(shapes, " ")
                       : absl::StrCat("arguments ", absl::StrJoin(shapes, " "), " with no FLOP formula that fits");
    out_->nodes.push_back(std::move(entry));
  }

  GraphCompute* out_;
  std::unordered_map<const Value*, Known> known_;
};

}  // namespace

GraphCompute ScanGraphCompute(const torch::jit::Module& module, const std::string& method,
                              const std::vector<std::vector<int64_t>>& input_shapes, int64_t forwards_per_call) {
  GraphCompute out;
  out.method = method;
  out.forwards_per_call = forwards_per_call;
  try {
    const auto found = module.find_method(method);
    if (!found) {
      out.error = absl::StrCat("the module has no method '", method, "'");
      return out;
    }
    std::vector<Known> inputs(1);
    inputs[0].value = module._ivalue();
    for (const Shape& shape : input_shapes) {
      Known k;
      k.shape = shape;
      inputs.push_back(std::move(k));
    }
    Scanner(&out).ScanGraph(*found->graph(), inputs, Context());
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace torchscan::workloads
