#include "workloads/flop_formulas.h"

#include <algorithm>
#include <limits>

namespace torchscan::workloads {
namespace {

using Shape = std::vector<int64_t>;

// Saturating arithmetic: any overflow or negative factor makes the whole count unknown.
class Product {
 public:
  Product& operator*=(int64_t factor) {
    if (!valid_ || factor < 0) {
      valid_ = false;
    } else if (factor != 0 && value_ > std::numeric_limits<int64_t>::max() / factor) {
      valid_ = false;
    } else {
      value_ *= factor;
    }
    return *this;
  }
  std::optional<int64_t> get() const { return valid_ ? std::optional<int64_t>(value_) : std::nullopt; }

 private:
  int64_t value_ = 1;
  bool valid_ = true;
};

const OpArg* Arg(const std::vector<OpArg>& args, size_t i) { return i < args.size() ? &args[i] : nullptr; }

const Shape* TensorArg(const std::vector<OpArg>& args, size_t i) {
  const OpArg* a = Arg(args, i);
  return a != nullptr && a->kind == OpArg::Kind::kTensor ? &a->values : nullptr;
}

std::optional<int64_t> IntArg(const std::vector<OpArg>& args, size_t i) {
  const OpArg* a = Arg(args, i);
  if (a == nullptr || (a->kind != OpArg::Kind::kInt && a->kind != OpArg::Kind::kBool)) return std::nullopt;
  return a->values.at(0);
}

// An int[] argument expanded to `n` entries (LibTorch accepts one value for all dims).
std::optional<Shape> IntListArg(const std::vector<OpArg>& args, size_t i, size_t n) {
  const OpArg* a = Arg(args, i);
  if (a == nullptr || a->kind != OpArg::Kind::kIntList) return std::nullopt;
  if (a->values.size() == n) return a->values;
  if (a->values.size() == 1) return Shape(n, a->values[0]);
  return std::nullopt;
}

std::optional<int64_t> Times2(Product p) { return (p *= 2).get(); }

// ---------------------------------------------------------------- matrix products

// 2*n*k*m for [n,k] x [k,m].
std::optional<int64_t> MatrixProduct(const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || a->size() != 2 || b->size() != 2 || (*a)[1] != (*b)[0]) {
    return std::nullopt;
  }
  Product p;
  p *= (*a)[0];
  p *= (*a)[1];
  p *= (*b)[1];
  return Times2(p);
}

// 2*B*n*k*m for [B,n,k] x [B,k,m].
std::optional<int64_t> BatchedProduct(const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || a->size() != 3 || b->size() != 3 || (*a)[0] != (*b)[0] || (*a)[2] != (*b)[1]) {
    return std::nullopt;
  }
  Product p;
  p *= (*a)[0];
  p *= (*a)[1];
  p *= (*a)[2];
  p *= (*b)[2];
  return Times2(p);
}

std::optional<int64_t> MatrixVector(const Shape* m, const Shape* v) {
  if (m == nullptr || v == nullptr || m->size() != 2 || v->size() != 1 || (*m)[1] != (*v)[0]) {
    return std::nullopt;
  }
  Product p;
  p *= (*m)[0];
  p *= (*m)[1];
  return Times2(p);
}

std::optional<int64_t> Dot(const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || a->size() != 1 || b->size() != 1 || (*a)[0] != (*b)[0]) {
    return std::nullopt;
  }
  Product p;
  p *= (*a)[0];
  return Times2(p);
}

// torch.matmul semantics: 1-D operands are promoted to matrices, batch dimensions broadcast.
std::optional<int64_t> Matmul(const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || a->empty() || b->empty()) return std::nullopt;
  if (a->size() == 1 && b->size() == 1) return Dot(a, b);
  Shape lhs = a->size() == 1 ? Shape{1, (*a)[0]} : *a;
  Shape rhs = b->size() == 1 ? Shape{(*b)[0], 1} : *b;
  const int64_t n = lhs[lhs.size() - 2];
  const int64_t k = lhs[lhs.size() - 1];
  const int64_t m = rhs[rhs.size() - 1];
  if (rhs[rhs.size() - 2] != k) return std::nullopt;
  Product p;
  const size_t batch_a = lhs.size() - 2;
  const size_t batch_b = rhs.size() - 2;
  const size_t batch = std::max(batch_a, batch_b);
  for (size_t i = 0; i < batch; ++i) {  // broadcast, aligned on the right
    const int64_t da = i < batch - batch_a ? 1 : lhs[i - (batch - batch_a)];
    const int64_t db = i < batch - batch_b ? 1 : rhs[i - (batch - batch_b)];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    p *= da == 1 ? db : da;
  }
  p *= n;
  p *= k;
  p *= m;
  return Times2(p);
}

// F.linear: input [..., k], weight [m, k] (or [k]): 2 * prod(input[:-1]) * k * m.
std::optional<int64_t> Linear(const Shape* input, const Shape* weight) {
  if (input == nullptr || weight == nullptr || input->empty() || weight->empty() || weight->size() > 2) {
    return std::nullopt;
  }
  const int64_t k = input->back();
  if (weight->back() != k) return std::nullopt;
  Product p;
  for (size_t i = 0; i + 1 < input->size(); ++i) p *= (*input)[i];
  p *= k;
  p *= weight->size() == 2 ? (*weight)[0] : 1;
  return Times2(p);
}

// ---------------------------------------------------------------- convolutions

struct ConvArgs {
  const Shape* input = nullptr;
  const Shape* weight = nullptr;
  std::optional<Shape> stride, padding, dilation, output_padding;
  std::string padding_mode;  // "same" / "valid" when padding was given as a string
  bool transposed = false;
  std::optional<int64_t> groups;
};

// The checked layout of a convolution's input: [N, C_in, spatial...] or unbatched [C_in, spatial...].
struct ConvInput {
  size_t spatial = 0;  // number of spatial dimensions (from the weight)
  int64_t batch = 1;
  bool batched = false;
  size_t first_spatial = 1;  // index of the first spatial dimension in the input
  int64_t in_channels = 0;
  int64_t groups = 1;
};

std::optional<ConvInput> CheckConvInput(const ConvArgs& c) {
  if (c.input == nullptr || c.weight == nullptr || c.weight->size() < 3) return std::nullopt;
  ConvInput in;
  in.spatial = c.weight->size() - 2;
  const Shape& shape = *c.input;
  if (shape.size() == in.spatial + 2) {
    in.batch = shape[0];
    in.batched = true;
    in.first_spatial = 2;
  } else if (shape.size() != in.spatial + 1) {
    return std::nullopt;
  }
  in.in_channels = shape[in.first_spatial - 1];
  in.groups = c.groups.value_or(1);
  if (in.groups <= 0 || !c.stride || !c.dilation || c.stride->size() != in.spatial ||
      c.dilation->size() != in.spatial) {
    return std::nullopt;
  }
  const Shape& w = *c.weight;
  if (c.transposed ? w[0] != in.in_channels : w[1] * in.groups != in.in_channels) return std::nullopt;
  return in;
}

// Output positions per spatial dimension of a (not transposed) convolution.
std::optional<Shape> ForwardOutputSpatial(const ConvArgs& c, const ConvInput& in) {
  Shape padding(in.spatial, 0);
  if (c.padding_mode.empty()) {
    if (!c.padding || c.padding->size() != in.spatial) return std::nullopt;
    padding = *c.padding;
  } else if (c.padding_mode != "valid" && c.padding_mode != "same") {
    return std::nullopt;
  }
  Shape out(in.spatial);
  for (size_t i = 0; i < in.spatial; ++i) {
    const int64_t size = (*c.input)[in.first_spatial + i];
    const int64_t s = (*c.stride)[i];
    const int64_t d = (*c.dilation)[i];
    if (s <= 0 || d <= 0) return std::nullopt;
    if (c.padding_mode == "same") {
      if (s != 1) return std::nullopt;  // LibTorch refuses "same" with strides
      out[i] = size;
    } else {
      const int64_t span = size + 2 * padding[i] - d * ((*c.weight)[2 + i] - 1) - 1;
      out[i] = span < 0 ? 0 : span / s + 1;
    }
    if (out[i] <= 0) return std::nullopt;
  }
  return out;
}

std::optional<int64_t> Convolution(const ConvArgs& c) {
  const std::optional<ConvInput> in = CheckConvInput(c);
  if (!in) return std::nullopt;
  const Shape& w = *c.weight;
  Product p;
  p *= 2;
  p *= in->batch;
  if (c.transposed) {
    // weight [C_in, C_out/groups, k...]: every input position feeds C_out/groups * kernel.
    p *= in->in_channels;
    for (size_t i = 0; i < in->spatial; ++i) p *= (*c.input)[in->first_spatial + i];
    p *= w[1];
  } else {
    // weight [C_out, C_in/groups, k...]: every output position reads C_in/groups * kernel.
    const std::optional<Shape> out = ForwardOutputSpatial(c, *in);
    if (!out) return std::nullopt;
    p *= w[0];
    for (int64_t o : *out) p *= o;
    p *= w[1];
  }
  for (size_t i = 0; i < in->spatial; ++i) p *= w[2 + i];
  return p.get();
}

// [N, C_out, out...] (or [C_out, out...] unbatched). Transposed: out = (in - 1) * stride -
// 2 * padding + dilation * (kernel - 1) + output_padding + 1, C_out = weight[1] * groups.
std::optional<Shape> ConvolutionOutput(const ConvArgs& c) {
  const std::optional<ConvInput> in = CheckConvInput(c);
  if (!in) return std::nullopt;
  const Shape& w = *c.weight;
  Shape out;
  if (in->batched) out.push_back(in->batch);
  if (!c.transposed) {
    const std::optional<Shape> spatial = ForwardOutputSpatial(c, *in);
    if (!spatial) return std::nullopt;
    out.push_back(w[0]);
    out.insert(out.end(), spatial->begin(), spatial->end());
    return out;
  }
  const Shape zeros(in->spatial, 0);
  const Shape& output_padding = c.output_padding.value_or(zeros);
  if (!c.padding_mode.empty() || !c.padding || c.padding->size() != in->spatial ||
      output_padding.size() != in->spatial) {
    return std::nullopt;
  }
  out.push_back(w[1] * in->groups);
  for (size_t i = 0; i < in->spatial; ++i) {
    const int64_t size = ((*c.input)[in->first_spatial + i] - 1) * (*c.stride)[i] - 2 * (*c.padding)[i] +
                         (*c.dilation)[i] * (w[2 + i] - 1) + output_padding[i] + 1;
    if (size <= 0) return std::nullopt;
    out.push_back(size);
  }
  return out;
}

size_t SpatialDims(const std::vector<OpArg>& args) {
  const Shape* w = TensorArg(args, 1);
  return w != nullptr && w->size() >= 3 ? w->size() - 2 : 0;
}

// The input and weight of a convolution call (its first two arguments); the rest unset.
ConvArgs ConvTensors(const std::vector<OpArg>& args) {
  ConvArgs c;
  c.input = TensorArg(args, 0);
  c.weight = TensorArg(args, 1);
  return c;
}

// Padding given as int[] or, for conv*d.padding / _convolution_mode, as "same"/"valid".
void ReadPadding(const std::vector<OpArg>& args, size_t i, size_t spatial, ConvArgs* c) {
  const OpArg* a = Arg(args, i);
  if (a != nullptr && a->kind == OpArg::Kind::kString) {
    c->padding_mode = a->text;
  } else {
    c->padding = IntListArg(args, i, spatial);
  }
}

// conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups), also _convolution_mode
// and prim::mkldnn_convolution (the frozen graph's operator keeps this order).
ConvArgs ConvNd(const std::vector<OpArg>& args) {
  const size_t n = SpatialDims(args);
  ConvArgs c = ConvTensors(args);
  c.stride = IntListArg(args, 3, n);
  ReadPadding(args, 4, n, &c);
  c.dilation = IntListArg(args, 5, n);
  c.groups = IntArg(args, 6);
  return c;
}

// convolution / _convolution(input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups, ...). nullopt without the transposed flag.
std::optional<ConvArgs> GenericConvolution(const std::vector<OpArg>& args) {
  const size_t n = SpatialDims(args);
  ConvArgs c = ConvTensors(args);
  c.stride = IntListArg(args, 3, n);
  ReadPadding(args, 4, n, &c);
  c.dilation = IntListArg(args, 5, n);
  const auto transposed = IntArg(args, 6);
  if (!transposed) return std::nullopt;
  c.transposed = *transposed != 0;
  c.output_padding = IntListArg(args, 7, n);
  c.groups = IntArg(args, 8);
  return c;
}

// conv_transpose1d/2d/3d(input, weight, bias, stride, padding, output_padding, groups, dilation).
ConvArgs ConvTranspose(const std::vector<OpArg>& args) {
  const size_t n = SpatialDims(args);
  ConvArgs c = ConvTensors(args);
  c.stride = IntListArg(args, 3, n);
  c.padding = IntListArg(args, 4, n);
  c.output_padding = IntListArg(args, 5, n);
  c.groups = IntArg(args, 6);
  c.dilation = IntListArg(args, 7, n);
  c.transposed = true;
  return c;
}

// aten::mkldnn_convolution(input, weight, bias, padding, stride, dilation, groups).
ConvArgs MkldnnConvolution(const std::vector<OpArg>& args) {
  const size_t n = SpatialDims(args);
  ConvArgs c = ConvTensors(args);
  c.padding = IntListArg(args, 3, n);
  c.stride = IntListArg(args, 4, n);
  c.dilation = IntListArg(args, 5, n);
  c.groups = IntArg(args, 6);
  return c;
}

// The convolution arguments of `name`'s call; nullopt for other operators.
std::optional<ConvArgs> ConvolutionCall(std::string_view name, const std::vector<OpArg>& args) {
  if (name == "aten::conv1d" || name == "aten::conv2d" || name == "aten::conv3d" || name == "aten::_convolution_mode" ||
      name == "prim::mkldnn_convolution") {
    return ConvNd(args);
  }
  if (name == "aten::convolution" || name == "aten::_convolution") {
    std::optional<ConvArgs> c = GenericConvolution(args);
    if (!c) return ConvArgs{};  // a convolution whose arguments do not fit
    return c;
  }
  if (name == "aten::conv_transpose1d" || name == "aten::conv_transpose2d" || name == "aten::conv_transpose3d") {
    return ConvTranspose(args);
  }
  if (name == "aten::mkldnn_convolution") return MkldnnConvolution(args);
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> OperatorFlops(std::string_view name, const std::vector<OpArg>& args) {
  if (name == "aten::mm") return MatrixProduct(TensorArg(args, 0), TensorArg(args, 1));
  if (name == "aten::addmm") return MatrixProduct(TensorArg(args, 1), TensorArg(args, 2));
  if (name == "aten::bmm") return BatchedProduct(TensorArg(args, 0), TensorArg(args, 1));
  if (name == "aten::baddbmm" || name == "aten::addbmm") {
    return BatchedProduct(TensorArg(args, 1), TensorArg(args, 2));
  }
  if (name == "aten::matmul") return Matmul(TensorArg(args, 0), TensorArg(args, 1));
  if (name == "aten::linear" || name == "aten::mkldnn_linear") return Linear(TensorArg(args, 0), TensorArg(args, 1));
  if (name == "aten::dot" || name == "aten::vdot") return Dot(TensorArg(args, 0), TensorArg(args, 1));
  if (name == "aten::mv") return MatrixVector(TensorArg(args, 0), TensorArg(args, 1));
  if (name == "aten::addmv") return MatrixVector(TensorArg(args, 1), TensorArg(args, 2));
  if (const std::optional<ConvArgs> conv = ConvolutionCall(name, args)) return Convolution(*conv);
  return std::nullopt;
}

std::optional<std::vector<int64_t>> FormulaOutputShape(std::string_view name, const std::vector<OpArg>& args) {
  if (OperatorFlops(name, args) == std::nullopt) return std::nullopt;  // also checks the arguments
  const Shape* a = TensorArg(args, 0);
  const Shape* b = TensorArg(args, 1);
  if (name == "aten::mm") return Shape{(*a)[0], (*b)[1]};
  const Shape* c = TensorArg(args, 2);
  if (name == "aten::addmm") return Shape{(*b)[0], (*c)[1]};
  if (name == "aten::bmm") return Shape{(*a)[0], (*a)[1], (*b)[2]};
  if (name == "aten::baddbmm") return Shape{(*b)[0], (*b)[1], (*c)[2]};
  if (name == "aten::addbmm") return Shape{(*b)[1], (*c)[2]};
  if (name == "aten::dot" || name == "aten::vdot") return Shape{};
  if (name == "aten::mv") return Shape{(*a)[0]};
  if (name == "aten::addmv") return Shape{(*b)[0]};
  if (name == "aten::linear" || name == "aten::mkldnn_linear") {
    Shape out(a->begin(), a->end() - 1);
    if (b->size() == 2) out.push_back((*b)[0]);
    return out;
  }
  if (name == "aten::matmul") {
    if (a->size() == 1 && b->size() == 1) return Shape{};
    const Shape lhs = a->size() == 1 ? Shape{1, (*a)[0]} : *a;
    const Shape rhs = b->size() == 1 ? Shape{(*b)[0], 1} : *b;
    const size_t batch = std::max(lhs.size(), rhs.size()) - 2;
    Shape out;
    for (size_t i = 0; i < batch; ++i) {  // broadcast, aligned on the right (checked by Matmul)
      const size_t from_end = batch - i;  // position counted from the matrix dimensions
      const int64_t da = from_end <= lhs.size() - 2 ? lhs[lhs.size() - 2 - from_end] : 1;
      const int64_t db = from_end <= rhs.size() - 2 ? rhs[rhs.size() - 2 - from_end] : 1;
      out.push_back(da == 1 ? db : da);
    }
    if (a->size() != 1) out.push_back(lhs[lhs.size() - 2]);
    if (b->size() != 1) out.push_back(rhs.back());
    return out;
  }
  if (const std::optional<ConvArgs> conv = ConvolutionCall(name, args)) return ConvolutionOutput(*conv);
  return std::nullopt;
}

}  // namespace torchscan::workloads
