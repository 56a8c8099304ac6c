// The rule for the text fields of a job: every string field (label, workload and input
// names, paths, methods, devices, work units, metadata keys and values, and any string
// field added later) is printable text. Unicode control characters (category Cc:
// U+0000-U+001F, U+007F and U+0080-U+009F, tab and newline included) are refused, naming
// the field, and so is a field longer than kMaxJobTextBytes (proto/spec_limits.h: PATH_MAX,
// room for any path). Bytes fields (module_bytes) are binary and not looked at.
//
// Why a length limit: a job's text is kept in the daemon's memory and sent with every job
// listing, so a megabyte label from one user would slow every `jobs list` of every other.
//
// Why refuse rather than keep: these fields are shown on one line in listings, reports and
// error messages, and pass to C APIs. A NUL cuts a C string (a label "a\0b" lists as "a", a
// path "a\0b" opens "a"), and an escape sequence in a label would drive the terminal of
// everyone who lists a shared daemon's jobs. No job needs them, so a clear error is kinder
// than text that silently changes on the way.
//
// Both the client's job-file loader and the daemon's ValidateJobSpec apply it, so a job file
// and a job submitted over gRPC meet the same rule.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message.h>
#include "absl/status/status.h"
#include "proto/spec_limits.h"

namespace torchscan::spec {

// OK, or InvalidArgument "<prefix>.<field path>: holds control character U+XXXX at byte N;
// ..." for the first control character found, or "<path>: holds N bytes, more than the
// <kMaxJobTextBytes> ..." for the first field over kMaxJobTextBytes (in field-number order;
// map entries in the map's order). The field path uses the JSON names: "spec.label",
// "spec.measure.workload.inputs[1].name", "spec.x.input_metadata[\"key\"]" for a map value,
// "spec.x.input_metadata" (saying "a key") for a map key. An empty prefix gives paths
// without it ("label: ..."). The value itself is not echoed (it may be long or hostile).
absl::Status RequirePrintableText(const google::protobuf::Message& message, const std::string& prefix);

// A job's own text (a worker's phase line, the error it died with), as the daemon keeps and
// shows it to every user: what is not printable UTF-8 is spelled out, so that it can neither
// break a record (a proto3 string must be UTF-8: one invalid byte failed every `jobs list`) nor
// drive anyone's terminal. Each byte outside a valid UTF-8 sequence and each control
// character (C0, DEL, C1; tab and newline too: a record's text is one line) becomes "\xNN"
// (a C1 character "\u00NN"); the rest is kept. Longer than `max_bytes`: cut at a character
// boundary, with "..." (3 bytes, within max_bytes, which must be at least 3).
std::string PrintableLine(std::string_view text, size_t max_bytes);

}  // namespace torchscan::spec
