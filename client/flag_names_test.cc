#include "client/flag_names.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

TEST(WithFlagNames, AddsTheFlagBesideTheField) {
  EXPECT_EQ(WithFlagNames("spec.options.min_run_time_s: 1e+300 s is above the limit of 86400 s"),
            "spec.options.min_run_time_s (--min-run-time): 1e+300 s is above the limit of 86400 s");
  EXPECT_EQ(WithFlagNames("spec.measure.workload.device: \"tpu\" is not a device of this daemon"),
            "spec.measure.workload.device (--device): \"tpu\" is not a device of this daemon");
  EXPECT_EQ(WithFlagNames("spec.compare.candidate.dtype: 7 is not one of float32"),
            "spec.compare.candidate.dtype (--candidate-dtype): 7 is not one of float32");
  EXPECT_EQ(WithFlagNames("measurement: model.torchscript.module_bytes are not a TorchScript module"),
            "measurement: model.torchscript.module_bytes (--torchscript) are not a TorchScript module");
  EXPECT_EQ(WithFlagNames("spec.measure.workload.inputs[0].generated.shape[1]: -128 is negative"),
            "spec.measure.workload.inputs[0].generated.shape[1] (--input/--input-file): -128 is negative");
}

// A compare's module is named by the flag of its side, wherever the side stands first.
TEST(WithFlagNames, ACompareSideNamesItsOwnFlag) {
  EXPECT_EQ(WithFlagNames("candidate: model.torchscript.module_bytes (/home/ann/m.pt) are not a TorchScript module"),
            "candidate: model.torchscript.module_bytes (--candidate) (/home/ann/m.pt) are not a TorchScript module");
  EXPECT_EQ(WithFlagNames("job job-000002 failed: baseline: model.torchscript.path: 'x' is not"),
            "job job-000002 failed: baseline: model.torchscript.path (--baseline): 'x' is not");
  // "the candidate: model.torchscript" inside a sentence is not a side's prefix.
  EXPECT_EQ(WithFlagNames("measurement: model.torchscript.module_bytes are not"),
            "measurement: model.torchscript.module_bytes (--torchscript) are not");
}

TEST(WithFlagNames, LeavesOtherTextAlone) {
  EXPECT_EQ(WithFlagNames("spec: 9 bytes exceed this daemon's max_upload_bytes 8"),
            "spec: 9 bytes exceed this daemon's max_upload_bytes 8");
  EXPECT_EQ(WithFlagNames("job job-000001 cancelled"), "job job-000001 cancelled");
  // Once per field; a field that already names its flag stays as it is.
  EXPECT_EQ(WithFlagNames("spec.label (--label): x; spec.label again"), "spec.label (--label): x; spec.label again");
  EXPECT_EQ(WithFlagNames("devices: cpu"), "devices: cpu");
  // Plain words are not fields.
  EXPECT_EQ(WithFlagNames("measurement: the inputs do not fit the model on device cpu"),
            "measurement: the inputs do not fit the model on device cpu");
}

TEST(WithFlagNames, SeveralFieldsEachGetTheirFlag) {
  EXPECT_EQ(WithFlagNames("spec.compare.check.declarative.rtol and spec.compare.check.declarative.atol."),
            "spec.compare.check.declarative.rtol (--rtol) and spec.compare.check.declarative.atol (--atol).");
}

// The worker's fix for inputs that do not fit names the spec's field; the CLI's reader gets the flags.
TEST(WithFlagNames, TheInputsFieldGetsTheInputFlags) {
  EXPECT_EQ(WithFlagNames("the method is forward(x: Tensor): it takes one input per argument, in that order, shaped "
                          "and typed as it expects (WorkloadSpec.inputs)"),
            "the method is forward(x: Tensor): it takes one input per argument, in that order, shaped and typed as "
            "it expects (WorkloadSpec.inputs (--input/--input-file))");
}

}  // namespace
}  // namespace torchscan
