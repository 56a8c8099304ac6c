#include "workloads/shape_rules.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "workloads/operator_classes.h"

namespace torchscan::workloads {
namespace {

using Shape = std::vector<int64_t>;
using Shapes = std::optional<std::vector<Shape>>;

const Shape* TensorAt(const std::vector<OpArg>& args, size_t i) {
  return i < args.size() && args[i].kind == OpArg::Kind::kTensor ? &args[i].values : nullptr;
}

std::optional<int64_t> IntAt(const std::vector<OpArg>& args, size_t i) {
  if (i >= args.size() || (args[i].kind != OpArg::Kind::kInt && args[i].kind != OpArg::Kind::kBool)) {
    return std::nullopt;
  }
  return args[i].values.at(0);
}

const Shape* IntListAt(const std::vector<OpArg>& args, size_t i) {
  return i < args.size() && args[i].kind == OpArg::Kind::kIntList ? &args[i].values : nullptr;
}

Shapes One(Shape shape) { return std::vector<Shape>{std::move(shape)}; }

// A dimension index in [0, rank) (negative counts from the end), or nullopt.
std::optional<size_t> Dim(int64_t dim, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r) return std::nullopt;
  return static_cast<size_t>(dim);
}

std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {  // aligned on the right
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool Contains(const std::unordered_set<std::string_view>& set, std::string_view kind) { return set.count(kind) != 0; }

// The output has the first argument's shape.
const std::unordered_set<std::string_view>& SameShape() {
  // Tables of operator names: they read better packed than one name per line.
  // clang-format off
  static const auto* kinds = new std::unordered_set<std::string_view>{
      "aten::to_mkldnn", "aten::to_dense", "aten::contiguous", "aten::clone", "aten::detach", "aten::to",
      "aten::type_as", "aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout",
      "aten::relu", "aten::relu_", "aten::relu6", "aten::relu6_", "aten::sigmoid", "aten::sigmoid_",
      "aten::tanh", "aten::tanh_", "aten::gelu", "aten::gelu_", "aten::silu", "aten::silu_",
      "aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_", "aten::hardtanh",
      "aten::hardtanh_", "aten::leaky_relu", "aten::leaky_relu_", "aten::elu", "aten::elu_", "aten::mish",
      "aten::softplus", "aten::clamp", "aten::clamp_", "aten::clamp_min", "aten::clamp_min_",
      "aten::clamp_max", "aten::clamp_max_", "aten::neg", "aten::exp", "aten::sqrt", "aten::rsqrt",
      "aten::abs", "aten::batch_norm", "aten::layer_norm", "aten::group_norm", "aten::instance_norm",
      "aten::softmax", "aten::log_softmax", "aten::add_", "aten::sub_", "aten::mul_", "aten::div_",
      "prim::MKLDNNHardSwish", "prim::MKLDNNHardSwish_", "prim::MKLDNNHardSigmoid",
      "prim::MKLDNNHardSigmoid_", "prim::MKLDNNHardTanh", "prim::MKLDNNHardTanh_", "prim::MKLDNNClamp",
      "prim::MKLDNNClamp_", "prim::MKLDNNLayerNorm", "prim::MKLDNNLayerNorm_", "prim::MKLDNNScalarMul",
      "prim::MKLDNNScalarMul_",
  };
  // clang-format on
  return *kinds;
}

// Elementwise with broadcasting when the second argument is a tensor (a scalar keeps the shape).
const std::unordered_set<std::string_view>& Binary() {
  // clang-format off
  static const auto* kinds = new std::unordered_set<std::string_view>{
      "aten::add", "aten::sub", "aten::rsub", "aten::mul", "aten::div", "aten::pow", "aten::maximum",
      "aten::minimum", "aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge",
  };
  // clang-format on
  return *kinds;
}

Shapes Flatten(const Shape& in, const std::vector<OpArg>& args) {
  if (in.empty()) return One({1});
  const auto start = Dim(IntAt(args, 1).value_or(0), in.size());
  const auto end = Dim(IntAt(args, 2).value_or(-1), in.size());
  if (!start || !end || *start > *end) return std::nullopt;
  Shape out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(*start));
  int64_t merged = 1;
  for (size_t i = *start; i <= *end; ++i) merged *= in[i];
  out.push_back(merged);
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(*end) + 1, in.end());
  return One(std::move(out));
}

Shapes Reshape(const Shape& in, const Shape& target) {
  int64_t numel = 1;
  for (int64_t d : in) numel *= d;
  Shape out = target;
  int64_t known = 1;
  std::optional<size_t> inferred;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1 && !inferred) {
      inferred = i;
    } else if (out[i] < 0) {
      return std::nullopt;
    } else {
      known *= out[i];
    }
  }
  if (inferred) {
    if (known == 0 || numel % known != 0) return std::nullopt;
    out[*inferred] = numel / known;
  } else if (known != numel) {
    return std::nullopt;
  }
  return One(std::move(out));
}

Shapes Permute(const Shape& in, const Shape& dims) {
  if (dims.size() != in.size()) return std::nullopt;
  Shape out;
  std::vector<bool> used(in.size(), false);
  for (int64_t d : dims) {
    const auto dim = Dim(d, in.size());
    if (!dim || used[*dim]) return std::nullopt;
    used[*dim] = true;
    out.push_back(in[*dim]);
  }
  return One(std::move(out));
}

Shapes Transpose(const Shape& in, std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  const auto da = Dim(*a, in.size());
  const auto db = Dim(*b, in.size());
  if (!da || !db) return std::nullopt;
  Shape out = in;
  std::swap(out[*da], out[*db]);
  return One(std::move(out));
}

// The number of spatial dimensions in names such as "aten::max_pool2d" (0 when none).
size_t PoolDims(std::string_view kind) {
  for (size_t n = 1; n <= 3; ++n) {
    if (kind.find(std::to_string(n) + "d") != std::string_view::npos) return n;
  }
  return 0;
}

// An int[] argument expanded to n entries; an empty list gives `fallback` (stride = kernel).
std::optional<Shape> Expanded(const std::vector<OpArg>& args, size_t i, size_t n, const Shape* fallback) {
  const Shape* list = IntListAt(args, i);
  if (list == nullptr) return std::nullopt;
  if (list->empty() && fallback != nullptr) return *fallback;
  if (list->size() == n) return *list;
  if (list->size() == 1) return Shape(n, (*list)[0]);
  return std::nullopt;
}

// max_pool*d(self, kernel, stride, padding, dilation, ceil_mode) and avg_pool*d(self, kernel,
// stride, padding, ceil_mode, ...): out = (in + 2p - d(k - 1) - 1) / s + 1, rounded up with
// ceil_mode unless the last window would start in the right padding.
Shapes Pool(std::string_view kind, const Shape& in, const std::vector<OpArg>& args) {
  const size_t n = PoolDims(kind);
  if (n == 0 || in.size() < n + 1) return std::nullopt;
  const bool avg = kind.find("avg_pool") != std::string_view::npos;
  const auto kernel = Expanded(args, 1, n, nullptr);
  if (!kernel) return std::nullopt;
  const auto stride = Expanded(args, 2, n, &*kernel);
  const auto padding = Expanded(args, 3, n, nullptr);
  const Shape ones(n, 1);
  const auto dilation = avg ? std::optional<Shape>(ones) : Expanded(args, 4, n, nullptr);
  const bool ceil = IntAt(args, avg ? 4 : 5).value_or(0) != 0;
  if (!stride || !padding || !dilation) return std::nullopt;
  Shape out(in.begin(), in.end() - static_cast<std::ptrdiff_t>(n));
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = in[in.size() - n + i];
    const int64_t s = (*stride)[i];
    if (s <= 0) return std::nullopt;
    const int64_t span = size + 2 * (*padding)[i] - (*dilation)[i] * ((*kernel)[i] - 1) - 1;
    if (span < 0) return std::nullopt;
    int64_t o = (ceil ? span + s - 1 : span) / s + 1;
    if (ceil && (o - 1) * s >= size + (*padding)[i]) --o;
    out.push_back(o);
  }
  return One(std::move(out));
}

// adaptive_*_pool*d(self, output_size): the last n dimensions become output_size.
Shapes AdaptivePool(std::string_view kind, const Shape& in, const std::vector<OpArg>& args) {
  const size_t n = PoolDims(kind);
  if (n == 0 || in.size() < n + 1) return std::nullopt;
  const auto size = Expanded(args, 1, n, nullptr);
  if (!size) return std::nullopt;
  Shape out(in.begin(), in.end() - static_cast<std::ptrdiff_t>(n));
  out.insert(out.end(), size->begin(), size->end());
  if (kind.find("max_pool") != std::string_view::npos) return std::vector<Shape>{out, out};  // values, indices
  return One(std::move(out));
}

// mean / sum(self, dim[], keepdim, ...) or over everything (self[, dtype]).
Shapes Reduce(const Shape& in, const std::vector<OpArg>& args) {
  const Shape* dims = IntListAt(args, 1);
  if (dims == nullptr) {
    if (args.size() > 1 && args[1].kind != OpArg::Kind::kNone && args[1].kind != OpArg::Kind::kInt) {
      return std::nullopt;
    }
    return One({});
  }
  const bool keepdim = IntAt(args, 2).value_or(0) != 0;
  std::vector<bool> reduced(in.size(), dims->empty());  // an empty list reduces everything
  for (int64_t d : *dims) {
    const auto dim = Dim(d, in.size());
    if (!dim) return std::nullopt;
    reduced[*dim] = true;
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i]) {
      out.push_back(in[i]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return One(std::move(out));
}

Shapes Squeeze(const Shape& in, const std::vector<OpArg>& args) {
  Shape out;
  if (args.size() < 2) {
    for (int64_t d : in) {
      if (d != 1) out.push_back(d);
    }
    return One(std::move(out));
  }
  const auto d = IntAt(args, 1);
  if (!d) return std::nullopt;
  if (in.empty()) return One({});
  const auto dim = Dim(*d, in.size());
  if (!dim) return std::nullopt;
  out = in;
  if (out[*dim] == 1) out.erase(out.begin() + static_cast<std::ptrdiff_t>(*dim));
  return One(std::move(out));
}

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> OutputShapes(std::string_view kind, const std::vector<OpArg>& args) {
  if (ClassifyOperator(kind) == FlopClass::kFormula) {
    std::optional<Shape> out = FormulaOutputShape(kind, args);
    if (!out) return std::nullopt;
    return One(*std::move(out));
  }
  const Shape* self = TensorAt(args, 0);
  if (self == nullptr) return std::nullopt;
  const Shape& in = *self;
  if (Contains(SameShape(), kind)) return One(in);
  if (Contains(Binary(), kind)) {
    const Shape* other = TensorAt(args, 1);
    if (other == nullptr) {  // a scalar (Int, Bool or Other: see the header)
      if (args.size() < 2 || args[1].kind == OpArg::Kind::kNone) return std::nullopt;
      return One(in);
    }
    std::optional<Shape> out = Broadcast(in, *other);
    if (!out) return std::nullopt;
    return One(*std::move(out));
  }
  if (kind == "prim::BroadcastMKLDNNTensors") {
    const Shape* other = TensorAt(args, 1);
    if (other == nullptr || args.size() != 2) return std::nullopt;
    std::optional<Shape> out = Broadcast(in, *other);
    if (!out) return std::nullopt;
    return std::vector<Shape>{*out, *out};
  }
  if (kind == "aten::flatten") return Flatten(in, args);
  if (kind == "aten::reshape" || kind == "aten::view") {
    const Shape* target = IntListAt(args, 1);
    return target == nullptr ? std::nullopt : Reshape(in, *target);
  }
  if (kind == "aten::permute") {
    const Shape* dims = IntListAt(args, 1);
    return dims == nullptr ? std::nullopt : Permute(in, *dims);
  }
  if (kind == "aten::transpose") return Transpose(in, IntAt(args, 1), IntAt(args, 2));
  if (kind == "aten::t") {
    if (in.size() < 2) return One(in);
    return Transpose(in, 0, 1);
  }
  if (kind == "aten::unsqueeze") {
    const auto d = IntAt(args, 1);
    const auto dim = d ? Dim(*d, in.size() + 1) : std::nullopt;
    if (!dim) return std::nullopt;
    Shape out = in;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(*dim), 1);
    return One(std::move(out));
  }
  if (kind == "aten::squeeze") return Squeeze(in, args);
  if (kind == "aten::mean" || kind == "aten::sum") return Reduce(in, args);
  if (kind.find("adaptive_") != std::string_view::npos && kind.find("_pool") != std::string_view::npos) {
    return AdaptivePool(kind, in, args);
  }
  if (kind == "aten::max_pool1d" || kind == "aten::max_pool2d" || kind == "aten::max_pool3d" ||
      kind == "aten::mkldnn_max_pool2d" || kind == "aten::mkldnn_max_pool3d" || kind == "aten::avg_pool1d" ||
      kind == "aten::avg_pool2d" || kind == "aten::avg_pool3d") {
    return Pool(kind, in, args);
  }
  return std::nullopt;
}

}  // namespace torchscan::workloads
