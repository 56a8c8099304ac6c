// Protobuf messages as JSON text and files: the protobuf JSON mapping with the proto field
// names (snake_case), every field printed (zeros included), NaN/Infinity written as the
// strings "NaN"/"Infinity". Used for reports and comparisons (report/report_json.h adds their
// validation), job files and records, the daemon's configuration.
//
// Parsing is strict and all-or-nothing: an unknown field, a wrong type or malformed JSON
// gives InvalidArgument naming the source and the field, and the output message is left
// untouched. File errors are io/file_io.h's (NotFound / PermissionDenied / Internal /
// InvalidArgument naming the path). Nothing here crashes on hostile input.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message.h>
#include "absl/status/status.h"

namespace torchscan {

// Pretty JSON (2-space indent) of any message. A negative zero is written as 0 (see
// ParseJsonStrict), so ParseJsonStrict(ToJson(m)) gives back every message m that
// ParseJsonStrict produced, bit for bit. `message` itself is left alone.
std::string ToJson(const google::protobuf::Message& message);

// WriteFileAtomic(path, ToJson(message)) (io/file_io.h).
absl::Status SaveJson(const google::protobuf::Message& message, const std::string& path, int mode = 0644);

// Strict JSON mapping parse of any message (job files, daemon configuration, job records):
// unknown fields, wrong types and malformed JSON give InvalidArgument "<source>: not a valid
// <Type> JSON file: <the parser's words, which name the field>". An unknown field is named
// with its path, the message that lacks it, the nearest valid name and all valid names:
// "job.json: not a valid JobSpec JSON file: options.minRunTime: MeasurementOptions has no
// field "minRunTime"; did you mean min_run_time_s? Its fields: intra_op_threads, ...".
// All or nothing: `out` is left untouched on error.
// Every zero is read as +0 in double and float fields: -0, -0.0 and -0e15 are the number
// zero (a tolerance, a time), and the protobuf parser alone keeps the sign of some of these
// spellings and not of others. Strings are kept byte for byte (JSON escapes such as \u0000
// included); which text a job may hold is spec/printable_text.h's rule, not the parser's.
absl::Status ParseJsonStrict(std::string_view json, const std::string& source, google::protobuf::Message* out);

// ReadFile (io/file_io.h) + ParseJsonStrict with the path as the source.
absl::Status LoadJsonStrict(const std::string& path, google::protobuf::Message* out);

}  // namespace torchscan
