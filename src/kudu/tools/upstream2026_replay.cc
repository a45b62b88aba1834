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

#include "kudu/tools/upstream2026_replay.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <openssl/evp.h>

#include <cstring>
#include <memory>
#include <string>

#include "kudu/fs/block_record.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_reader.h"
#include "kudu/util/pb_util.pb.h"

namespace kudu {
namespace tools {

const char kUpstream2026Name[] = "upstream2026";

namespace {

const EVP_CIPHER* CtrCipherFor(CipherAlgorithm alg) {
  switch (alg) {
    case CipherAlgorithm::kAes128Ctr: return EVP_aes_128_ctr();
    case CipherAlgorithm::kAes192Ctr: return EVP_aes_192_ctr();
    case CipherAlgorithm::kAes256Ctr: return EVP_aes_256_ctr();
  }
  return nullptr;
}

// One read's buffer as upstream's faststring holds it: this many bytes
// inline, a heap allocation of the exact size above.
constexpr size_t kInlineReadBytes = 32;

// The in-memory file of upstream (MemoryReadableFile) under the reference
// reader: the cached payload, each read a copy into a buffer of its own,
// decrypted on its own when the file is encrypted.
class UpstreamMemorySource {
 public:
  UpstreamMemorySource(RandomAccessFile* file, const uint8_t* payload)
      : file_(file), payload_(payload), header_(file->encryption_header_size()) {}

  const std::string& filename() const { return file_->filename(); }
  uint64_t size() const { return file_->size(); }
  uint64_t data_start() const { return header_; }

  Status Read(uint64_t offset, size_t n, Slice* out) {
    if (offset < header_ || offset > size() || n > size() - offset) {
      return Status::IOError(filename() + ": offset " + std::to_string(offset) +
                             ": in-memory read of " + std::to_string(n) +
                             " bytes outside the file");
    }
    // A fresh buffer per read, the previous one freed, as each
    // ReadPBStartingAt call's faststrings are.
    heap_.reset(n > kInlineReadBytes ? new uint8_t[n] : nullptr);
    uint8_t* buf = heap_ ? heap_.get() : inline_;
    std::memcpy(buf, payload_ + (offset - header_), n);
    if (file_->encrypted()) RETURN_NOT_OK(DecryptOnItsOwn(offset, buf, n));
    *out = Slice(buf, n);
    last_ = *out;
    return Status::OK();
  }

  Status ReadIsAllZero(uint64_t offset, uint64_t n, bool* all_zero) {
    while (n > 0) {
      const size_t chunk =
          n < pb_container::kZeroCheckChunkSize ? n : pb_container::kZeroCheckChunkSize;
      Slice s;
      RETURN_NOT_OK(Read(offset, chunk, &s));
      if (!IsAllZero(s.data(), s.size())) {
        *all_zero = false;
        return Status::OK();
      }
      offset += chunk;
      n -= chunk;
    }
    *all_zero = true;
    return Status::OK();
  }

  // The bytes of the last read (valid until the next one).
  Slice last_read() const { return last_; }

 private:
  // Upstream's DoDecryptV for one read: a cipher context created, keyed
  // and freed for this read alone; all-zero ciphertext left as it is.
  Status DecryptOnItsOwn(uint64_t offset, uint8_t* buf, size_t n) {
    if (IsAllZero(buf, n)) return Status::OK();
    const FileCipher* file_cipher = file_->cipher();
    uint8_t iv[16] = {0};
    const uint64_t block = offset / 16;
    for (int i = 0; i < 8; i++) iv[15 - i] = static_cast<uint8_t>(block >> (8 * i));
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                       &EVP_CIPHER_CTX_free);
    const auto* key = reinterpret_cast<const uint8_t*>(file_cipher->key().data());
    int outl = 0;
    bool ok = ctx != nullptr &&
              EVP_DecryptInit_ex(ctx.get(), CtrCipherFor(file_cipher->algorithm()), nullptr, key,
                                 iv) == 1 &&
              EVP_CIPHER_CTX_set_padding(ctx.get(), 0) == 1;
    const int skip = static_cast<int>(offset % 16);
    if (ok && skip != 0) {
      // Enter the keystream mid-block, as upstream does.
      uint8_t scratch[16] = {0};
      ok = EVP_DecryptUpdate(ctx.get(), scratch, &outl, scratch, skip) == 1;
    }
    ok = ok && EVP_DecryptUpdate(ctx.get(), buf, &outl, buf, static_cast<int>(n)) == 1;
    if (!ok) {
      return Status::IOError(filename() + ": offset " + std::to_string(offset) +
                             ": AES-CTR decryption of a " + std::to_string(n) + "-byte read failed");
    }
    return Status::OK();
  }

  RandomAccessFile* const file_;
  const uint8_t* const payload_;
  const uint64_t header_;
  std::unique_ptr<uint8_t[]> heap_;
  uint8_t inline_[kInlineReadBytes];
  Slice last_;
};

// ReadPBStartingAt's parse, on a message constructed for this record.
// ConsumedEntireMessage keeps ParseFromArray's decision (see the header).
bool ParseIntoFreshMessage(Slice body, fs::BlockRecord* record) {
  BlockRecordPB pb;
  google::protobuf::io::ArrayInputStream ais(body.data(), static_cast<int>(body.size()));
  google::protobuf::io::CodedInputStream cis(&ais);
  cis.SetTotalBytesLimit(512 * 1024 * 1024);
  if (!pb.ParsePartialFromCodedStream(&cis) || !cis.ConsumedEntireMessage() ||
      !pb.IsInitialized()) {
    return false;
  }
  *record = fs::BlockRecordFromPB(pb);
  return true;
}

fs::ReplayOutcome ReplayFromMemory(UpstreamMemorySource* source, fs::BlockRecordSink* sink) {
  PbContainerRecordReader<UpstreamMemorySource> reader(source);
  Status s = reader.ReadHeaders(fs::BlockRecordTypeName());
  if (!s.ok()) {
    return fs::MakeReplayOutcome(s.IsEndOfFile() ? Status::Corruption(s.message()) : s,
                             reader.record_offset(), 0);
  }
  {
    // The reader's last read was the supplemental header's body and
    // checksum; upstream parses it for every file (the reader skips
    // bytes it has accepted before).
    const Slice sup = source->last_read();
    ContainerSupHeaderPB header;
    header.ParsePartialFromArray(sup.data(), static_cast<int>(sup.size() - 4));
  }
  uint64_t records = 0;
  Slice body;
  fs::BlockRecord record;
  while (true) {
    s = reader.ReadNextRecord(&body);
    if (!s.ok()) break;
    if (!ParseIntoFreshMessage(body, &record)) {
      // The message Streaming gives, so that outcomes compare equal.
      s = Status::Corruption(source->filename() + ": record at offset " +
                                 std::to_string(reader.record_offset()),
                             "body of " + std::to_string(body.size()) +
                                 " bytes does not parse as " + fs::BlockRecordTypeName());
      break;
    }
    sink->OnRecord(record, reader.record_offset());
    records++;
  }
  return fs::MakeReplayOutcome(s, s.IsEndOfFile() ? reader.next_offset() : reader.record_offset(),
                           records);
}

}  // namespace

fs::ReplayOutcome Upstream2026Replay::Replay(RandomAccessFile* file, fs::BlockRecordSink* sink) {
  const uint64_t header = file->encryption_header_size();
  const uint64_t payload = file->size() > header ? file->size() - header : 0;
  if (threshold_ == 0 || payload == 0 || payload > threshold_) {
    return streaming_.Replay(file, sink);
  }
  // Not zero-initialised, as faststring::resize does not.
  std::unique_ptr<uint8_t[]> buf(new uint8_t[payload]);
  if (!file->ReadRaw(header, buf.get(), payload).ok()) return streaming_.Replay(file, sink);
  UpstreamMemorySource source(file, buf.get());
  return ReplayFromMemory(&source, sink);
}

fs::ContainerReplayer::StrategyFactory Upstream2026StrategyFactory(const fs::ReplayPolicyOptions& policy) {
  const uint64_t threshold = policy.in_memory_threshold_bytes;
  fs::ReplayStrategyOptions options;
  options.window_bytes = policy.window_bytes ? policy.window_bytes : options.window_bytes;
  options.direct_read = policy.direct_read;
  return [threshold, options](fs::ReplayStrategyKind kind) -> std::unique_ptr<fs::MetadataReplayStrategy> {
    if (kind == fs::ReplayStrategyKind::kStreaming) {
      return std::make_unique<Upstream2026Replay>(threshold);
    }
    return fs::NewReplayStrategy(kind, options);
  };
}

}  // namespace tools
}  // namespace kudu
