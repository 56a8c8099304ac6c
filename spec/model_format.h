// The model formats a WorkloadSpec can name (proto/workload.proto ModelSpec's `source`), one
// interface with a registry: each format states its own rules and where its file is, so that
// the client, the daemon and the worker validate, upload, strip and name a model without
// knowing which formats exist. Built-ins, TorchScript modules and AOTInductor packages are
// the entries; adding a format is one implementation file plus one registry line in
// spec/model_formats.cc (and its builder in workloads/, which the worker looks up by the same
// source case). No LibTorch: the builders live in //workloads.
#pragma once

#include <optional>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "proto/workload.pb.h"

namespace torchscan::spec {

// The file a model is loaded from, read from its spec: a path on the daemon's machine, or
// bytes sent with the job, and the name the bytes came from.
struct ModelFileView {
  std::string field;              // "model.torchscript": where the file's fields are
  std::string bytes_field;        // "module_bytes", "package_bytes"
  absl::string_view path;         // "" when sent as bytes
  absl::string_view bytes;        // "" when given as a path
  absl::string_view source_name;  // informational
  bool sent_as_bytes = false;     // the source is the bytes field
};

class ModelFormat {
 public:
  virtual ~ModelFormat() = default;

  // The ModelSpec field ("builtin", "torchscript", "aot_inductor") and what users call it
  // ("a built-in model", "a TorchScript module", "an AOTInductor package").
  virtual std::string field() const = 0;
  virtual std::string noun() const = 0;

  // The format's rules on the whole workload `w` (whose model is of this format): its own
  // message, and the workload fields it takes or refuses, each error naming `where` + the field
  // ("spec.measure.workload.freeze: ..."). The workload's own rules (inputs, metadata) are
  // spec/job_spec.h ValidateWorkloadFields's.
  virtual absl::Status Validate(const std::string& where, const v1::WorkloadSpec& w) const = 0;

  // Its file, for the formats loaded from one; nullopt for built-ins.
  virtual std::optional<ModelFileView> File(const v1::ModelSpec&) const { return std::nullopt; }
  // The same model with the file's bytes, or the informational source name, left out (a
  // report or a key keeps neither). No-ops for built-ins.
  virtual void ClearBytes(v1::ModelSpec*) const {}
  virtual void ClearSourceName(v1::ModelSpec*) const {}
  // Points `model` at a file: the daemon opens `path`, or `bytes` named `source_name` travel
  // with the job. No-ops for built-ins.
  virtual void SetPath(const std::string& /*path*/, v1::ModelSpec*) const {}
  virtual void SetBytes(std::string /*bytes*/, const std::string& /*source_name*/, v1::ModelSpec*) const {}
};

// The format of `model`, or nullptr when its source is not set.
const ModelFormat* FindModelFormat(const v1::ModelSpec& model);
const ModelFormat* FindModelFormat(v1::ModelSpec::SourceCase source);
// Every format, in the order the registry lists them (for messages: "set builtin, torchscript
// or aot_inductor").
std::vector<const ModelFormat*> ModelFormats();
// "builtin (linear, resnet18, bert), torchscript or aot_inductor": the choices, for errors.
std::string ModelFormatChoices();

// A TorchScript module's own message (a model's, or a compare's check module): a source,
// paths no longer than a path, module_bytes not empty; errors name `field`.
absl::Status ValidateTorchScriptFile(const std::string& field, const v1::TorchScriptSpec& ts);

// The formats' implementations, for the registry (spec/model_formats.cc).
const ModelFormat& BuiltinFormat();
const ModelFormat& TorchScriptFormat();
const ModelFormat& AotInductorFormat();

}  // namespace torchscan::spec
