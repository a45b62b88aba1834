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

// Status: the outcome of an operation, carried everywhere instead of
// exceptions (as in Kudu and LevelDB). An OK status holds no allocation, so
// returning it on the hot path costs nothing.
#pragma once

#include <memory>
#include <string>

#include "kudu/util/slice.h"

namespace kudu {

class Status {
 public:
  enum class Code : int {
    kOk = 0,
    kNotFound,
    kCorruption,
    kIncomplete,
    kEndOfFile,
    kIOError,
    kInvalidArgument,
    kNotSupported,
    kAborted,
    kIllegalState,
    kAlreadyPresent,
  };

  Status() = default;
  Status(const Status& other) { *this = other; }
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  static Status NotFound(Slice msg, Slice msg2 = Slice(), int posix_errno = 0) {
    return Status(Code::kNotFound, msg, msg2, posix_errno);
  }
  static Status Corruption(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kCorruption, msg, msg2, 0);
  }
  static Status Incomplete(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kIncomplete, msg, msg2, 0);
  }
  static Status EndOfFile(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kEndOfFile, msg, msg2, 0);
  }
  static Status IOError(Slice msg, Slice msg2 = Slice(), int posix_errno = 0) {
    return Status(Code::kIOError, msg, msg2, posix_errno);
  }
  static Status InvalidArgument(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kInvalidArgument, msg, msg2, 0);
  }
  static Status NotSupported(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kNotSupported, msg, msg2, 0);
  }
  static Status Aborted(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kAborted, msg, msg2, 0);
  }
  static Status IllegalState(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kIllegalState, msg, msg2, 0);
  }
  static Status AlreadyPresent(Slice msg, Slice msg2 = Slice()) {
    return Status(Code::kAlreadyPresent, msg, msg2, 0);
  }
  // An I/O error from a failed system call, naming the file.
  static Status FromErrno(const std::string& context, int err);

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsIncomplete() const { return code() == Code::kIncomplete; }
  bool IsEndOfFile() const { return code() == Code::kEndOfFile; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsNotSupported() const { return code() == Code::kNotSupported; }
  bool IsAborted() const { return code() == Code::kAborted; }
  bool IsIllegalState() const { return code() == Code::kIllegalState; }
  bool IsAlreadyPresent() const { return code() == Code::kAlreadyPresent; }
  int posix_code() const { return rep_ ? rep_->posix_errno : 0; }

  // "Corruption: <message>", or "OK".
  std::string ToString() const;
  // The message alone, without the code name.
  std::string message() const { return rep_ ? rep_->message : std::string(); }
  std::string CodeAsString() const;

  // A copy with `prefix: ` in front of the message (same code).
  Status CloneAndPrepend(Slice prefix) const;

 private:
  struct Rep {
    Code code;
    int posix_errno;
    std::string message;
  };
  Status(Code code, Slice msg, Slice msg2, int posix_errno);

  std::unique_ptr<Rep> rep_;
};

}  // namespace kudu

#define KUDU_RETURN_NOT_OK(expr)                 \
  do {                                           \
    ::kudu::Status _s = (expr);                  \
    if (!_s.ok()) return _s;                     \
  } while (0)

#define RETURN_NOT_OK(expr) KUDU_RETURN_NOT_OK(expr)

#define RETURN_NOT_OK_PREPEND(expr, prefix)      \
  do {                                           \
    ::kudu::Status _s = (expr);                  \
    if (!_s.ok()) return _s.CloneAndPrepend(prefix); \
  } while (0)
