// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

// `kudu pbc dump <file>`: the records of any PB container file, as Kudu's
// `kudu pbc dump` prints them. The record type comes from the file's own
// supplemental header (its FileDescriptorSet and type name), so metadata
// files and any other pb_type print with their field names; a type the
// header cannot describe prints by field numbers. Records are read by the
// project's one record reader (util/pb_container_reader.h), so what is a
// record, a partial trailing record or corruption is decided exactly as the
// open decides it.
//
// Exit status: 0 when the file ended cleanly; 1 for a damaged file (header,
// corruption, a partial trailing record: the records before it are printed
// first) or a failed write; 2 for a usage error (no file, a file that does
// not exist, two output modes, a bad key).
#include <gflags/gflags.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor_database.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/json_util.h>
#include <strings.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/instance_files.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/tools/tool_action.h"
#include "kudu/tools/tool_flags.h"
#include "kudu/tools/tool_output_format.h"
#include "kudu/util/file.h"
#include "kudu/util/flag_validators.h"
#include "kudu/util/pb_container_reader.h"

DEFINE_bool(oneline, false, "pbc dump: print each protobuf on a single line");
DEFINE_bool(json, false, "pbc dump: print protobufs in JSON format, one object a line");
DEFINE_bool(json_pretty, false, "pbc dump: print protobufs in JSON pretty format");
DEFINE_string(instance_file, "",
              "pbc dump: an instance file whose server key decrypts the file (Kudu's flag): the "
              "key it carries, as the default key provider unwraps it");
DEFINE_string(encryption_key_type, "server_key",
              "pbc dump --instance_file: which key of the instance file decrypts the file "
              "(Kudu's flag): 'server_key' (the default, as in Kudu) or 'tenant_key' (the key of "
              "the first tenant whose id is --tenant_id)");
DEFINE_validator(encryption_key_type, +[](const char*, const std::string& v) {
  return strcasecmp(v.c_str(), "server_key") == 0 || strcasecmp(v.c_str(), "tenant_key") == 0
             ? true
             : kudu::flags::Fail("must be 'server_key' or 'tenant_key'");
});
DEFINE_string(tenant_id, "",
              "pbc dump --instance_file --encryption_key_type=tenant_key: the tenant whose key "
              "decrypts the file (Kudu's flag; the default tenant's id is 32 zeros)");
DEFINE_bool(debug, false,
            "pbc dump: print extra debugging information: the file header, and each "
            "protobuf's offset and length");

namespace kudu {
namespace tools {
namespace {

namespace gpb = google::protobuf;

enum class DumpMode { kDefault, kOneline, kJson, kJsonPretty, kDebug };

Status ParseDumpMode(DumpMode* mode) {
  int n = 0;
  *mode = DumpMode::kDefault;
  if (FLAGS_oneline) n++, *mode = DumpMode::kOneline;
  if (FLAGS_json) n++, *mode = DumpMode::kJson;
  if (FLAGS_json_pretty) n++, *mode = DumpMode::kJsonPretty;
  if (FLAGS_debug) n++, *mode = DumpMode::kDebug;
  if (n > 1) {
    return Status::InvalidArgument("only one of --debug, --oneline, --json or --json_pretty may "
                                   "be given");
  }
  return Status::OK();
}

// The record type, from the supplemental header's FileDescriptorSet. When
// the set does not build or lacks the type, `prototype` stays null and the
// records print by field number. The files go into a database, not straight
// into the pool, so that they may come in any order, a file before the
// ones it imports (as Kudu's GetPrototype loads them).
class RecordType {
 public:
  explicit RecordType(const ContainerSupHeaderPB& sup) : pool_(&db_), factory_(&pool_) {
    for (const gpb::FileDescriptorProto& f : sup.protos().file()) {
      if (!db_.Add(f)) return;
    }
    const gpb::Descriptor* d = pool_.FindMessageTypeByName(sup.pb_type());
    if (d != nullptr) prototype_ = factory_.GetPrototype(d);
  }
  const gpb::Message* prototype() const { return prototype_; }

 private:
  gpb::SimpleDescriptorDatabase db_;
  gpb::DescriptorPool pool_;
  gpb::DynamicMessageFactory factory_;
  const gpb::Message* prototype_ = nullptr;
};

// C-escaped bytes, as the text format prints a bytes field.
std::string CEscaped(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c > 0x7e) {
          char oct[5];
          std::snprintf(oct, sizeof(oct), "\\%03o", c);
          out += oct;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

// A record of an unknown type as JSON: field number -> value (a list when
// the field repeats); varints and fixed values as numbers, length-delimited
// fields as strings.
nlohmann::json UnknownFieldsJson(const gpb::UnknownFieldSet& fields) {
  nlohmann::json o = nlohmann::json::object();
  for (int i = 0; i < fields.field_count(); i++) {
    const gpb::UnknownField& f = fields.field(i);
    nlohmann::json v;
    switch (f.type()) {
      case gpb::UnknownField::TYPE_VARINT: v = f.varint(); break;
      case gpb::UnknownField::TYPE_FIXED32: v = f.fixed32(); break;
      case gpb::UnknownField::TYPE_FIXED64: v = f.fixed64(); break;
      case gpb::UnknownField::TYPE_LENGTH_DELIMITED:
        // Bytes need not be UTF-8; nlohmann would refuse them when dumping.
        v = CEscaped(f.length_delimited());
        break;
      case gpb::UnknownField::TYPE_GROUP: v = UnknownFieldsJson(f.group()); break;
    }
    const std::string key = std::to_string(f.number());
    if (!o.contains(key)) {
      o[key] = v;
    } else {
      if (!o[key].is_array()) o[key] = nlohmann::json::array({o[key]});
      o[key].push_back(v);
    }
  }
  return o;
}

// One record in `mode`'s text (without the per-message framing).
Status FormatRecord(const RecordType& type, Slice body, DumpMode mode, std::string* out) {
  out->clear();
  if (type.prototype() != nullptr) {
    std::unique_ptr<gpb::Message> msg(type.prototype()->New());
    if (!msg->ParsePartialFromArray(body.data(), static_cast<int>(body.size()))) {
      return Status::Corruption("does not parse as " + msg->GetTypeName());
    }
    // Every required field must be there, as for the open (§2) and Kudu's
    // reader: a record without one does not parse. (Checked here rather than
    // by ParseFromArray, which logs its own line besides failing.)
    if (!msg->IsInitialized()) {
      return Status::Corruption("does not parse as " + msg->GetTypeName() +
                                ": missing required fields: " + msg->InitializationErrorString());
    }
    if (mode == DumpMode::kJson || mode == DumpMode::kJsonPretty) {
      gpb::util::JsonPrintOptions opt;
      opt.add_whitespace = mode == DumpMode::kJsonPretty;
      const auto st = gpb::util::MessageToJsonString(*msg, out, opt);
      if (!st.ok()) return Status::NotSupported("cannot convert to JSON: " + st.ToString());
      if (!out->empty() && out->back() == '\n') out->pop_back();
    } else if (mode == DumpMode::kOneline) {
      *out = msg->ShortDebugString();
    } else {
      *out = msg->DebugString();
    }
    return Status::OK();
  }
  gpb::UnknownFieldSet fields;
  if (!fields.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return Status::Corruption("is not a protobuf message");
  }
  if (mode == DumpMode::kJson || mode == DumpMode::kJsonPretty) {
    *out = JsonText(UnknownFieldsJson(fields), mode == DumpMode::kJsonPretty ? 1 : -1);
  } else {
    gpb::TextFormat::Printer printer;
    printer.SetSingleLineMode(mode == DumpMode::kOneline);
    printer.PrintUnknownFieldsToString(fields, out);
    if (mode == DumpMode::kOneline && !out->empty() && out->back() == ' ') out->pop_back();
  }
  return Status::OK();
}

constexpr char kDashes[] = "-------";

// Dumps every record; the Status is the file's problem, if any, after the
// records before it were printed.
Status Dump(const std::string& path, const ServerKey* key, DumpMode mode, StdoutWriter* out) {
  std::unique_ptr<RandomAccessFile> file;
  RETURN_NOT_OK(RandomAccessFile::Open(path, nullptr, &file));
  // With a key, a file without the encryption magic is read as plain, as
  // Kudu's tool does: instance files never are encrypted, and one key serves
  // a whole server's files.
  uint8_t magic[8];
  const size_t head = static_cast<size_t>(std::min<uint64_t>(sizeof(magic), file->size()));
  if (key != nullptr && (file->size() == 0 || !file->Read(0, magic, head).ok() ||
                         HasEncryptionMagic(Slice(magic, head)))) {
    RETURN_NOT_OK(RandomAccessFile::Open(path, key, &file));
  }
  FileRecordSource source(file.get());
  PbContainerRecordReader<FileRecordSource> reader(&source);
  ContainerSupHeaderPB sup;
  RETURN_NOT_OK(reader.ReadHeaders("", &sup));
  if (mode == DumpMode::kDebug) {
    out->Append(std::string("File header\n") + kDashes + "\nProtobuf container version: " +
                std::to_string(reader.version()) + "\nTotal container file size: " +
                std::to_string(file->size()) + "\nEntry PB type: " + sup.pb_type() + "\n\n");
  }
  const RecordType type(sup);
  std::string text;
  for (uint64_t i = 0;; i++) {
    Slice body;
    Status s = reader.ReadNextRecord(&body);
    if (s.IsEndOfFile()) return Status::OK();
    const uint64_t offset = reader.record_offset();
    if (s.ok()) {
      s = FormatRecord(type, body, mode, &text);
      if (!s.ok()) {
        s = Status::Corruption(path + ": record at offset " + std::to_string(offset) + " " +
                               s.message());
      }
    }
    if (!s.ok()) {
      // Kudu's block for any record that does not read or parse.
      if (mode == DumpMode::kDebug) {
        out->Append("Message " + std::to_string(i) +
                    "\nerror: failed to parse protobuf message\noffset: " +
                    std::to_string(offset) + "\nremaining file length: " +
                    std::to_string(file->size() - offset) + "\n" + kDashes + "\n");
      }
      return s;
    }
    switch (mode) {
      case DumpMode::kOneline:
        out->Append(std::to_string(i) + "\t" + text + "\n");
        break;
      case DumpMode::kJson:
      case DumpMode::kJsonPretty:
        out->Append(text + "\n");
        break;
      case DumpMode::kDefault:
      case DumpMode::kDebug:
        out->Append("Message " + std::to_string(i) + "\n");
        if (mode == DumpMode::kDebug) {
          out->Append("offset: " + std::to_string(offset) + "\nlength: " +
                      std::to_string(reader.next_offset() - offset) + "\n");
        }
        out->Append(std::string(kDashes) + "\n" + text + "\n");
        break;
    }
  }
}

// The key Kudu's `pbc dump` takes from --instance_file
// (tools/tool_action_common.cc, SetEncryptionKey): the server key by
// default, or a tenant's; an empty field, or no such tenant, is no key. The
// open instead gives tenants priority (fs::ServerKeyFromInstance).
// `*no_key` says why when there is none, for the error an encrypted file
// then gives.
Status KeyFromInstanceFile(const InstanceMetadataPB& instance, bool* have_key, ServerKey* key,
                           std::string* no_key) {
  *have_key = false;
  *no_key = FLAGS_instance_file + " holds no server key";
  if (strcasecmp(FLAGS_encryption_key_type.c_str(), "server_key") == 0) {
    return fs::ServerKeyFromField(FLAGS_instance_file, "server_key", instance.server_key(),
                                  have_key, key);
  }
  for (const InstanceMetadataPB::TenantMetadataPB& t : instance.tenants()) {
    if (t.tenant_id() == FLAGS_tenant_id) {
      *no_key = FLAGS_instance_file + " holds no key for tenant '" + FLAGS_tenant_id + "'";
      return fs::ServerKeyFromField(FLAGS_instance_file, "tenant_key", t.tenant_key(), have_key,
                                    key);
    }
  }
  *no_key = FLAGS_instance_file + " has no tenant '" + FLAGS_tenant_id + "'";
  return Status::OK();
}

int RunPbcDump(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageErrorWithHelp("pbc", "dump",
                              args.empty() ? "give the path of a PB container file"
                                           : "give one file, not " + std::to_string(args.size()));
  }
  DumpMode mode;
  Status s = ParseDumpMode(&mode);
  if (!s.ok()) return UsageError(s.message());
  ServerKey key;
  bool have_key = false;
  std::string no_key;  // why --instance_file gave no key
  s = LoadServerKey(&key, &have_key);
  if (!s.ok()) return UsageError(s.message());
  if (!FLAGS_instance_file.empty()) {
    if (have_key) return UsageError("give the server key once: --instance_file or a key flag");
    InstanceMetadataPB instance;
    s = fs::ReadPBContainerFromPath(FLAGS_instance_file, &instance);
    if (s.ok()) s = KeyFromInstanceFile(instance, &have_key, &key, &no_key);
    if (!s.ok()) return UsageError("--instance_file: " + s.ToString());
  }
  struct stat st;
  if (::stat(args[0].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return UsageError(args[0] + ": not a regular file that exists");
  }
  StdoutWriter out;
  s = Dump(args[0], have_key ? &key : nullptr, mode, &out);
  if (!s.ok()) {
    // The records before the problem go out first, then the one line.
    const int written = FinishOutput(&out, kExitInconsistent);
    std::string error = s.ToString();
    // The key was to come from the instance file, not a key flag.
    const std::string no_key_flag = "no server key was given (--server_key_hex)";
    const size_t at = error.find(no_key_flag);
    if (!have_key && !no_key.empty() && at != std::string::npos) {
      error.replace(at, no_key_flag.size(), "no server key: " + no_key);
    }
    std::cerr << "kudu: error: " << error << std::endl;
    return written;
  }
  return FinishOutput(&out, kExitOk);
}

[[maybe_unused]] const bool pbc_registered = RegisterToolAction(ToolAction{
    "pbc", "dump", "Dump a PBC (protobuf container) file",
    &RunPbcDump,
    {"oneline", "json", "json_pretty", "debug", "server_key_hex", "server_key_test_provider_hex",
     "instance_file", "encryption_key_type", "tenant_id"},
    "<file>",
    "Prints every record of a PB container file (a .metadata file, or any other record "
    "type), typed by the file's own supplemental header: by default `Message <i>` and the "
    "protobuf text format; --oneline `<i><TAB><short text>`; --json one object a line; "
    "--json_pretty; --debug the file header (container version, file size, record type) "
    "and each record's offset and length. Encrypted files need the server key "
    "(--server_key_hex, or --instance_file=<root>/instance for the key it carries); with a "
    "key, a file that is not encrypted is read as plain. A damaged file prints the records before the damage, then the "
    "error with its offset (exit 1)."});

}  // namespace
}  // namespace tools
}  // namespace kudu
