#include "workloads/operator_classes.h"

#include <unordered_set>

namespace torchscan::workloads {
namespace {

const std::unordered_set<std::string_view>& NotCountedOperators() {
  // Tables, grouped by kind: they read better packed than one name per line.
  // clang-format off
  static const auto* names = new std::unordered_set<std::string_view>{
      // views, copies, layout, creation
      "aten::as_strided", "aten::as_strided_", "aten::view", "aten::_reshape_alias", "aten::reshape",
      "aten::_unsafe_view", "aten::expand", "aten::expand_as", "aten::t", "aten::transpose",
      "aten::transpose_", "aten::permute", "aten::contiguous", "aten::clone", "aten::copy_",
      "aten::to", "aten::_to_copy", "aten::detach", "aten::detach_", "aten::alias", "aten::select",
      "aten::slice", "aten::narrow", "aten::squeeze", "aten::squeeze_", "aten::unsqueeze",
      "aten::unsqueeze_", "aten::flatten", "aten::unflatten", "aten::split", "aten::split_with_sizes",
      "aten::chunk", "aten::unbind", "aten::stack", "aten::cat", "aten::_cat", "aten::index",
      "aten::index_select", "aten::gather", "aten::embedding", "aten::empty", "aten::empty_like",
      "aten::empty_strided", "aten::zeros", "aten::zeros_like", "aten::ones", "aten::ones_like",
      "aten::full", "aten::full_like", "aten::fill_", "aten::zero_", "aten::resize_",
      "aten::resolve_conj", "aten::resolve_neg", "aten::lift", "aten::lift_fresh", "aten::repeat",
      "aten::tile", "aten::pad", "aten::constant_pad_nd", "aten::item", "aten::_local_scalar_dense",
      "aten::arange", "aten::eye", "aten::scalar_tensor", "aten::type_as", "aten::movedim",
      "aten::new_zeros", "aten::new_ones", "aten::new_empty", "aten::new_full", "aten::masked_fill",
      "aten::masked_fill_", "aten::where", "aten::_s_where", "aten::to_dense", "aten::to_mkldnn",
      "aten::_nested_tensor_from_mask", "aten::dropout", "aten::dropout_", "aten::feature_dropout",
      "aten::alpha_dropout", "aten::size", "aten::dim", "aten::numel", "aten::is_nonzero",
      "aten::result_type", "aten::_shape_as_tensor", "aten::set_", "aten::_has_compatible_shallow_copy_type",
      // elementwise arithmetic and comparisons
      "aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::rsub", "aten::mul", "aten::mul_",
      "aten::div", "aten::div_", "aten::neg", "aten::neg_", "aten::pow", "aten::pow_", "aten::sqrt",
      "aten::sqrt_", "aten::rsqrt", "aten::rsqrt_", "aten::exp", "aten::exp_", "aten::log", "aten::log_",
      "aten::abs", "aten::abs_", "aten::clamp", "aten::clamp_", "aten::clamp_min", "aten::clamp_min_",
      "aten::clamp_max", "aten::clamp_max_", "aten::reciprocal", "aten::sign", "aten::fmod",
      "aten::remainder", "aten::floor", "aten::ceil", "aten::round", "aten::eq", "aten::ne",
      "aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::logical_not", "aten::logical_and",
      "aten::logical_or", "aten::bitwise_not", "aten::__and__", "aten::__or__", "aten::erf",
      "aten::addcmul", "aten::addcdiv", "aten::lerp", "aten::maximum", "aten::minimum",
      "aten::square", "aten::sin", "aten::cos",
      // activations
      "aten::relu", "aten::relu_", "aten::gelu", "aten::gelu_", "aten::tanh", "aten::tanh_",
      "aten::sigmoid", "aten::sigmoid_", "aten::silu", "aten::silu_", "aten::hardtanh",
      "aten::hardtanh_", "aten::hardswish", "aten::hardswish_", "aten::hardsigmoid",
      "aten::hardsigmoid_", "aten::leaky_relu", "aten::leaky_relu_", "aten::elu", "aten::elu_",
      "aten::mish", "aten::softplus", "aten::threshold", "aten::threshold_", "aten::glu",
      "aten::log_sigmoid", "aten::prelu", "aten::_prelu_kernel", "aten::relu6", "aten::relu6_",
      // normalisation and softmax
      "aten::batch_norm", "aten::_batch_norm_impl_index", "aten::native_batch_norm",
      "aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit_no_training",
      "aten::layer_norm", "aten::native_layer_norm", "aten::group_norm", "aten::native_group_norm",
      "aten::instance_norm", "aten::softmax", "aten::_softmax", "aten::log_softmax",
      "aten::_log_softmax",
      // pooling and reductions
      "aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d", "aten::max_pool1d_with_indices",
      "aten::max_pool2d_with_indices", "aten::max_pool3d_with_indices", "aten::mkldnn_max_pool2d",
      "aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d", "aten::adaptive_avg_pool1d",
      "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d", "aten::_adaptive_avg_pool2d",
      "aten::_adaptive_avg_pool3d", "aten::mkldnn_adaptive_avg_pool2d", "aten::adaptive_max_pool1d",
      "aten::adaptive_max_pool2d", "aten::adaptive_max_pool3d", "aten::mean", "aten::sum",
      "aten::amax", "aten::amin", "aten::max", "aten::min", "aten::argmax", "aten::argmin",
      "aten::norm", "aten::var", "aten::std", "aten::var_mean", "aten::std_mean", "aten::cumsum",
      "aten::prod", "aten::all", "aten::any",
  };
  // clang-format on
  return *names;
}

}  // namespace

FlopClass ClassifyOperator(std::string_view name) {
  // clang-format off
  static const auto* formulas = new std::unordered_set<std::string_view>{
      "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm", "aten::matmul",
      "aten::linear", "aten::mkldnn_linear", "aten::dot", "aten::vdot", "aten::mv", "aten::addmv",
      "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_transpose1d", "aten::conv_transpose2d",
      "aten::conv_transpose3d", "aten::convolution", "aten::_convolution", "aten::_convolution_mode",
      "aten::mkldnn_convolution", "prim::mkldnn_convolution",
  };
  // clang-format on
  if (formulas->count(name) != 0) return FlopClass::kFormula;
  if (NotCountedOperators().count(name) != 0) return FlopClass::kNotCounted;
  return FlopClass::kUnknown;
}

}  // namespace torchscan::workloads
