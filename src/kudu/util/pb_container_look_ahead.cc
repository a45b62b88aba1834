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

#include "kudu/util/pb_container_look_ahead.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "kudu/util/crc32c.h"
#include "kudu/util/pb_container_format.h"

namespace kudu {
namespace pb_container {
namespace {

constexpr uint64_t kPrefix = 8;                // len, len_crc
constexpr uint64_t kSmallestRecord = kPrefix + 4;  // an empty body and its checksum

// A frame whose length checksum matched: its body starts at `body`.
struct Start {
  uint64_t q;
  uint64_t body;
  uint32_t len;
};
// ... and, once the running CRC reached its body, waits for the body's end:
// the body's CRC is then the running CRC there xor `shifted`.
struct Pending {
  uint64_t q;
  uint64_t end;
  uint32_t shifted;
  bool operator>(const Pending& o) const { return end != o.end ? end > o.end : q > o.q; }
};

class Scan {
 public:
  explicit Scan(const LookAhead& in) : in_(in), w0_(in.from), loaded_(in.from) {
    window_.assign(in.known.data(), in.known.data() + std::min<uint64_t>(in.known.size(),
                                                                         in.size - in.from));
    loaded_ += window_.size();
  }

  Status Run(bool* found, uint64_t* at) {
    uint64_t p = in_.from;
    while (p < in_.size) {
      if (best_ != kNone && pending_before_best_ == 0) break;
      if (best_ == kNone && starts_.empty() && pending_.empty() &&
          p + kSmallestRecord > in_.size) {
        break;
      }
      if (p + kPrefix > end() && loaded_ < in_.size) {
        RETURN_NOT_OK(Slide(p));
        continue;
      }
      while (!starts_.empty() && starts_.front().body == p) {
        const Start s = starts_.front();
        starts_.pop_front();
        if (pending_.empty()) {
          crc_at_ = p;  // a fresh base: nothing before p is needed any more
          crc_ = 0;
        } else {
          Advance(p);
        }
        if (pending_.size() >= in_.max_pending_frames) {
          return Status::Corruption(
              "more than " + std::to_string(in_.max_pending_frames) +
              " frames with a matching length checksum overlap after it: damage, not a torn write");
        }
        pending_.push_back(Pending{s.q, p + s.len, crc::Crc32cShift(crc_, s.len)});
        std::push_heap(pending_.begin(), pending_.end(), std::greater<Pending>());
      }
      while (!pending_.empty() && pending_.front().end == p) {
        const Pending c = pending_.front();
        std::pop_heap(pending_.begin(), pending_.end(), std::greater<Pending>());
        pending_.pop_back();
        if (best_ != kNone && c.q < best_) pending_before_best_--;
        Advance(p);
        if ((crc_ ^ c.shifted) != DecodeFixed32(byte(p))) continue;
        bool record = true;
        RETURN_NOT_OK(IsRecord(c.q, p - c.q - kPrefix, &record));
        if (record && c.q < best_) Found(c.q);
      }
      if (best_ == kNone && p + kSmallestRecord <= in_.size) {
        uint64_t word;
        std::memcpy(&word, byte(p), sizeof(word));
        if (word == 0) {  // len 0 with len_crc 0: no frame (CRC(0) is not 0)
          p = SkipZeros(p);
          continue;
        }
        const uint32_t len = static_cast<uint32_t>(word);
        if (crc::Crc32cFixed32(len) == static_cast<uint32_t>(word >> 32) &&
            p + kSmallestRecord + len <= in_.size) {
          starts_.push_back(Start{p, p + kPrefix, len});
        }
        p++;
      } else {
        p = NextEvent();
      }
    }
    *found = best_ != kNone;
    if (*found) *at = best_;
    return Status::OK();
  }

 private:
  static constexpr uint64_t kNone = UINT64_MAX;

  uint64_t end() const { return w0_ + window_.size(); }
  const uint8_t* byte(uint64_t pos) const { return window_.data() + (pos - w0_); }

  // Where the next start or body end is; past the file when none is.
  uint64_t NextEvent() const {
    uint64_t next = in_.size;
    if (!starts_.empty()) next = std::min(next, starts_.front().body);
    if (!pending_.empty()) next = std::min(next, pending_.front().end);
    return next;
  }

  // The running CRC moved to `to` (in the window).
  void Advance(uint64_t to) {
    crc_ = crc::Crc32cExtend(crc_, byte(crc_at_), to - crc_at_);
    crc_at_ = to;
  }

  // From p, whose 8 bytes are zero: the next offset whose 8 bytes may not
  // be, or the next event, whichever is first.
  uint64_t SkipZeros(uint64_t p) const {
    uint64_t z = p + kPrefix;
    while (z + 8 <= end()) {
      uint64_t w;
      std::memcpy(&w, byte(z), 8);
      if (w != 0) break;
      z += 8;
    }
    while (z < end() && *byte(z) == 0) z++;
    return std::min(z - (kPrefix - 1), NextEvent());
  }

  // The window from p on (from the running CRC's offset while a frame
  // waits for it: p may be past the window then, at the next body end), and
  // the next chunk of the file after it. With nothing waiting, the bytes
  // before p are not needed, read or not.
  Status Slide(uint64_t p) {
    uint64_t keep = p;
    if (!pending_.empty()) {
      Advance(std::min(p, end()));
      keep = crc_at_;
    }
    if (keep >= end()) {
      window_.clear();
      w0_ = keep;
      loaded_ = keep;
    } else {
      window_.erase(window_.begin(), window_.begin() + static_cast<ptrdiff_t>(keep - w0_));
      w0_ = keep;
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(in_.chunk_bytes, in_.size - loaded_));
    Slice s;
    RETURN_NOT_OK(in_.read(loaded_, n, &s));
    window_.insert(window_.end(), s.data(), s.data() + s.size());
    loaded_ += n;
    return Status::OK();
  }

  Status IsRecord(uint64_t q, uint64_t len, bool* record) {
    if (!in_.is_record || len > in_.max_parsed_body) return Status::OK();
    // Bodies read again to be parsed stay within twice the rest (plus one
    // body): nested frames whose checksums match around bodies that are
    // not records would otherwise make the scan quadratic.
    parsed_bytes_ += len;
    if (parsed_bytes_ > 2 * (in_.size - in_.from) + in_.max_parsed_body) {
      return Status::Corruption(
          "frames with matching checksums around bodies that are not records overlap over more "
          "than twice the rest of the file: damage, not a torn write");
    }
    Slice body;
    RETURN_NOT_OK(in_.read(q + kPrefix, static_cast<size_t>(len), &body));
    *record = in_.is_record(body);
    return Status::OK();
  }

  // A valid record at q: only frames that start before it are still of
  // interest (the lowest offset is reported).
  void Found(uint64_t q) {
    best_ = q;
    starts_.clear();  // they all start after a frame found later than them
    pending_before_best_ = 0;
    for (const Pending& c : pending_) pending_before_best_ += c.q < q;
  }

  const LookAhead& in_;
  std::vector<uint8_t> window_;  // bytes [w0_, end())
  uint64_t w0_;
  uint64_t loaded_;  // the first byte not read yet
  std::deque<Start> starts_;     // by body offset
  std::vector<Pending> pending_;  // a min-heap by body end
  uint64_t crc_at_ = 0;           // the running CRC's offset, in the window
  uint32_t crc_ = 0;              // CRC of [its base, crc_at_)
  uint64_t best_ = kNone;
  uint64_t pending_before_best_ = 0;
  uint64_t parsed_bytes_ = 0;  // bodies read again to be parsed
};

}  // namespace

Status FindValidRecord(const LookAhead& in, bool* found, uint64_t* at) {
  *found = false;
  if (in.from + kSmallestRecord > in.size) return Status::OK();
  return Scan(in).Run(found, at);
}

}  // namespace pb_container
}  // namespace kudu
