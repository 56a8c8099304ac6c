#include "daemon/wire_text.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include "proto/service.pb.h"

namespace torchscan::daemon {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

const std::string kNotUtf8 = "ab\xff\xfe";  // 0xFF never occurs in UTF-8

// CheckWireText over `wire`, handed over in `block`-byte pieces (a gRPC buffer comes in slices).
absl::Status Check(const Descriptor& type, const std::string& wire, int block = -1) {
  google::protobuf::io::ArrayInputStream stream(wire.data(), static_cast<int>(wire.size()), block);
  return CheckWireText(type, &stream, static_cast<int64_t>(wire.size()));
}

// protobuf's own verdict on `wire` (it logs why it refused; the silencer keeps test output clean).
bool Parses(const Message& prototype, const std::string& wire) {
  google::protobuf::LogSilencer quiet;
  std::unique_ptr<Message> message(prototype.New());
  return message->ParseFromString(wire);
}

// Serialized `message` (invalid UTF-8 in a string field is written as it is; protobuf logs it).
std::string Wire(const Message& message) {
  google::protobuf::LogSilencer quiet;
  return message.SerializeAsString();
}

v1::SubmitRequest RichRequest() {
  v1::SubmitRequest request;
  v1::JobSpec* spec = request.mutable_spec();
  spec->set_label("résumé ✓ nightly");
  v1::CompareJob* compare = spec->mutable_compare();
  v1::TorchScriptSpec* module = compare->mutable_baseline()->mutable_model()->mutable_torchscript();
  module->set_module_bytes(std::string("PK\x03\x04\xff\xfe\x00\x80", 8));  // bytes: not text, never checked
  module->set_source_name("/home/ann/mlp.pt");
  v1::InputSpec* input = compare->mutable_baseline()->add_inputs();
  input->set_name("x");
  input->mutable_generated()->add_shape(32);
  input->mutable_generated()->add_shape(128);
  compare->mutable_baseline()->add_inputs()->set_tensor_file("/data/ids.pt");
  (*compare->mutable_baseline()->mutable_input_metadata())["dataset_revision"] = "v3";
  compare->mutable_candidate()->mutable_model()->set_builtin(v1::ModelSpec::resnet18);
  compare->mutable_candidate()->set_device("cpu");
  compare->mutable_check()->mutable_declarative()->set_rtol(1e-4);
  compare->set_rounds(3);
  spec->mutable_options()->set_min_run_time_s(0.5);
  return request;
}

// One string field reachable from a message type: how to set it, and the path the error names.
struct StringField {
  std::string path;                           // as CheckWireText names it
  std::vector<const FieldDescriptor*> chain;  // message fields down to the string (or map) field
  enum { kPlain, kMapKey, kMapValue } where = kPlain;
};

// Every string field of `type` and the messages below it (the schema has no cycles; `depth` guards).
void CollectStringFields(const Descriptor& type, const std::string& path, std::vector<const FieldDescriptor*> chain,
                         std::vector<StringField>* out, int depth = 0) {
  ASSERT_LT(depth, 20) << "the schema below " << path << " nests too deep for this test";
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor* field = type.field(i);
    std::string field_path = path.empty() ? field->name() : path + "." + field->name();
    std::vector<const FieldDescriptor*> field_chain = chain;
    field_chain.push_back(field);
    if (field->is_map()) {
      const FieldDescriptor* key = field->message_type()->map_key();
      const FieldDescriptor* value = field->message_type()->map_value();
      if (key->type() == FieldDescriptor::TYPE_STRING) out->push_back({field_path, field_chain, StringField::kMapKey});
      if (value->type() == FieldDescriptor::TYPE_STRING)
        out->push_back({field_path + "[\"k\"]", field_chain, StringField::kMapValue});
      continue;
    }
    if (field->is_repeated()) field_path += "[0]";
    if (field->type() == FieldDescriptor::TYPE_STRING) out->push_back({field_path, field_chain});
    if (field->type() == FieldDescriptor::TYPE_MESSAGE)
      CollectStringFields(*field->message_type(), field_path, field_chain, out, depth + 1);
  }
}

// A message of `prototype`'s type whose only text is `text` in `target` (valid text elsewhere).
std::unique_ptr<Message> WithText(const Message& prototype, const StringField& target, const std::string& text) {
  std::unique_ptr<Message> root(prototype.New());
  Message* message = root.get();
  for (size_t i = 0; i + 1 < target.chain.size(); ++i) {
    const FieldDescriptor* f = target.chain[i];
    message = f->is_repeated() ? message->GetReflection()->AddMessage(message, f)
                               : message->GetReflection()->MutableMessage(message, f);
  }
  const FieldDescriptor* last = target.chain.back();
  if (target.where == StringField::kPlain) {
    if (last->is_repeated()) message->GetReflection()->AddString(message, last, text);
    else message->GetReflection()->SetString(message, last, text);
    return root;
  }
  Message* entry = message->GetReflection()->AddMessage(message, last);
  const bool key = target.where == StringField::kMapKey;
  entry->GetReflection()->SetString(entry, entry->GetDescriptor()->map_key(), key ? text : "k");
  entry->GetReflection()->SetString(entry, entry->GetDescriptor()->map_value(), key ? "v" : text);
  return root;
}

TEST(WireText, AValidRequestPassesWithBinaryBytesFieldsAndUnicodeText) {
  const std::string wire = RichRequest().SerializeAsString();
  ASSERT_TRUE(Parses(v1::SubmitRequest(), wire));
  EXPECT_TRUE(Check(*v1::SubmitRequest::descriptor(), wire).ok()) << Check(*v1::SubmitRequest::descriptor(), wire);
  EXPECT_TRUE(Check(*v1::SubmitRequest::descriptor(), wire, 1).ok());  // one byte per piece
  EXPECT_TRUE(Check(*v1::SubmitRequest::descriptor(), "").ok());       // an empty message is valid
}

TEST(WireText, EveryStringFieldOfASubmitRequestIsNamedWhenItIsNotUtf8) {
  std::vector<StringField> fields;
  CollectStringFields(*v1::SubmitRequest::descriptor(), "", {}, &fields);
  std::set<std::string> paths;
  for (const StringField& f : fields) paths.insert(f.path);
  // The walk of the schema found the fields a hostile caller reaches first (and every other one).
  for (const char* expected : {"spec.label", "spec.measure.workload.device", "spec.measure.workload.inputs[0].name",
                               "spec.measure.workload.model.torchscript.path",
                               "spec.compare.check.torchscript.source_name", "spec.measure.workload.input_metadata",
                               "spec.measure.workload.input_metadata[\"k\"]", "spec.compare.candidate.work_unit"})
    EXPECT_EQ(paths.count(expected), 1u) << expected;
  ASSERT_GE(fields.size(), 8u);

  for (const StringField& f : fields) {
    SCOPED_TRACE(f.path);
    const std::string good = Wire(*WithText(v1::SubmitRequest(), f, "fine ✓"));
    EXPECT_TRUE(Parses(v1::SubmitRequest(), good));
    EXPECT_TRUE(Check(*v1::SubmitRequest::descriptor(), good).ok());

    const std::string bad = Wire(*WithText(v1::SubmitRequest(), f, kNotUtf8));
    EXPECT_FALSE(Parses(v1::SubmitRequest(), bad)) << "protobuf accepts it: not a case the check must find";
    const absl::Status s = Check(*v1::SubmitRequest::descriptor(), bad, 3);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    const std::string expected = f.where == StringField::kMapKey ? f.path + ": a key is not UTF-8 (4 bytes); "
                                                                 : f.path + ": is not UTF-8 (4 bytes); ";
    EXPECT_EQ(s.message().find(expected), 0u) << s;
    EXPECT_EQ(s.message().find("\xff"), std::string::npos) << "the text is echoed";
  }
}

TEST(WireText, JobIdsAreNamedToo) {
  v1::JobRequest request;
  request.set_id("job-\xc3");  // a two-byte sequence cut short
  const absl::Status s = Check(*v1::JobRequest::descriptor(), Wire(request));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().find("id: is not UTF-8 (5 bytes); "), 0u) << s;
}

TEST(WireText, TheIndexOfARepeatedElementIsCountedPerField) {
  v1::SubmitRequest request;
  v1::WorkloadSpec* w = request.mutable_spec()->mutable_measure()->mutable_workload();
  w->add_inputs()->set_name("a");
  w->add_inputs()->set_name("b");
  w->add_inputs()->set_name(kNotUtf8);
  const absl::Status s = Check(*v1::SubmitRequest::descriptor(), Wire(request));
  EXPECT_EQ(s.message().find("spec.measure.workload.inputs[2].name: is not UTF-8"), 0u) << s;
}

TEST(WireText, UnknownFieldsAndFieldsOfAnotherWireTypeAreNotLookedInto) {
  // Field 99 (unknown to SubmitRequest) holding non-UTF-8 bytes: the parser keeps it as bytes.
  std::string wire = RichRequest().SerializeAsString() + std::string("\x9a\x06\x02\xff\xfe", 5);
  ASSERT_TRUE(Parses(v1::SubmitRequest(), wire));
  EXPECT_TRUE(Check(*v1::SubmitRequest::descriptor(), wire).ok());
  // JobSpec.label (field 1) sent as a varint: an unknown field to the parser, not text.
  const std::string label_as_number = std::string("\x0a\x02\x08\x07", 4);  // spec { 1: 7 }
  ASSERT_TRUE(Parses(v1::SubmitRequest(), label_as_number));
  EXPECT_TRUE(Check(*v1::SubmitRequest::descriptor(), label_as_number).ok());
}

TEST(WireText, MalformedEncodingsNameTheMessageAndTheByte) {
  const Descriptor& type = *v1::SubmitRequest::descriptor();
  struct Case {
    std::string name, wire, starts;
  };
  const std::vector<Case> cases = {
      {"a string cut short",
       std::string("\x0a\x05\x0a\x09"
                   "abc",
                   7),
       "spec: malformed protobuf at byte 2 of the request (a length of 9 bytes runs past the end of its message)"},
      {"a message longer than the request", std::string("\x0a\x7f\x0a\x01x", 5),
       "request: malformed protobuf at byte 0 of the request (a length of 127 bytes runs past the end"},
      {"field number 0", std::string("\x02\x00", 2),
       "request: malformed protobuf at byte 0 of the request (field number 0)"},
      {"a zero tag byte", std::string("\x00", 1),
       "request: malformed protobuf at byte 0 of the request (a field tag is cut short, zero or longer than 5 bytes)"},
      // The fuzzer's find: CodedInputStream reads a 9-byte tag, protobuf's parser refuses it.
      {"a tag of 9 bytes", std::string("\xcb\xca\xca\xca\xca\xc7\xca\xf4\x0a", 9),
       "request: malformed protobuf at byte 0 of the request (a field tag is cut short, zero or longer than 5 bytes)"},
      {"a label's length in 6 bytes", std::string("\x0a\x08\x0a\x81\x80\x80\x80\x80\x00x", 10),
       "spec: malformed protobuf at byte 2 of the request (a length is cut short or longer than 5 bytes)"},
      {"an unknown field's length in 6 bytes", std::string("\x3a\x81\x80\x80\x80\x80\x00x", 8),
       "request: malformed protobuf at byte 0 of the request (field 7 with wire type 2 is cut short or invalid)"},
      {"a 6-byte tag inside an unknown group", std::string("\x3b\xbc\x80\x80\x80\x80\x00", 7),
       "request: malformed protobuf at byte 0 of the request (field 7 with wire type 3 is cut short or invalid)"},
      {"a group ended by another field's number", std::string("\x3b\x44", 2),
       "request: malformed protobuf at byte 0 of the request (field 7 with wire type 3 is cut short or invalid)"},
      {"wire type 7", std::string("\x0f", 1),
       "request: malformed protobuf at byte 0 of the request (field 1 with wire type 7"},
      {"an end-group tag outside a group", std::string("\x0a\x01\x0c", 3),
       "spec: malformed protobuf at byte 2 of the request (field 1 with wire type 4 is cut short or invalid)"},
      {"a varint of more than 10 bytes", std::string("\x0a\x0d\x22\x0b\x28") + std::string(10, '\xff'),
       "spec.options: malformed protobuf at byte 4 of the request (field 5 with wire type 0 is cut short or invalid)"},
      {"a packed shape cut short", std::string("\x0a\x0b\x12\x09\x0a\x07\x12\x05\x12\x03\x0a\x01\x80", 13),
       "spec.measure.workload.inputs[0].generated: malformed protobuf at byte 10 of the request (packed shape is cut "
       "short)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(Parses(v1::SubmitRequest(), c.wire)) << "protobuf accepts it";
    const absl::Status s = Check(type, c.wire);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message().find(c.starts), 0u) << s;
    EXPECT_NE(s.message().find("send a serialized torchscan.v1.SubmitRequest"), std::string::npos) << s;
  }
}

TEST(WireText, GroupsNestedPastTheLimitAreRefusedNotRecursedWithoutEnd) {
  // An unknown field 5 as 10000 nested groups: protobuf's skip recurses with a depth limit, as ours does.
  std::string wire;
  for (int i = 0; i < 10000; ++i) wire += '\x2b';  // field 5, start group
  for (int i = 0; i < 10000; ++i) wire += '\x2c';  // field 5, end group
  EXPECT_FALSE(Parses(v1::SubmitRequest(), wire));
  const absl::Status s = Check(*v1::SubmitRequest::descriptor(), wire);
  EXPECT_EQ(s.message().find("request: malformed protobuf at byte 0 of the request (field 5 with wire type 3"), 0u)
      << s;
}

// The check and protobuf's parser agree on every cut and every one-byte change of a request
// that uses each kind of field: what the check passes parses, what it refuses does not.
TEST(WireText, AgreesWithProtobufsParserOnEveryCutAndOneByteChange) {
  const std::string wire = RichRequest().SerializeAsString();
  ASSERT_GT(wire.size(), 100u);
  int refused = 0, variants = 0;
  const auto agree = [&](const std::string& variant, const std::string& what) {
    ++variants;
    const bool parses = Parses(v1::SubmitRequest(), variant);
    const absl::Status s = Check(*v1::SubmitRequest::descriptor(), variant, 7);
    EXPECT_EQ(s.ok(), parses) << what << ": " << s;
    if (!s.ok()) ++refused;
  };
  for (size_t cut = 0; cut < wire.size(); ++cut) agree(wire.substr(0, cut), "cut at " + std::to_string(cut));
  for (size_t at = 0; at < wire.size(); ++at)
    for (const char byte : {'\x00', '\x7f', '\x80', '\xff', '\x0a', '\x0c'}) {
      std::string variant = wire;
      variant[at] = byte;
      agree(variant, "byte " + std::to_string(at) + " set to " + std::to_string(static_cast<unsigned char>(byte)));
    }
  EXPECT_EQ(variants, static_cast<int>(wire.size() * 7));
  EXPECT_GT(refused, static_cast<int>(wire.size()) / 2) << "too few variants were malformed to prove agreement";
}

}  // namespace
}  // namespace torchscan::daemon
