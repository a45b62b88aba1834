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

#include "kudu/util/status.h"

#include <cstring>

namespace kudu {

Status::Status(Code code, Slice msg, Slice msg2, int posix_errno)
    : rep_(new Rep{code, posix_errno, msg.ToString()}) {
  if (!msg2.empty()) {
    rep_->message.append(": ");
    rep_->message.append(msg2.cdata(), msg2.size());
  }
}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
  }
  return *this;
}

Status Status::FromErrno(const std::string& context, int err) {
  Code code = (err == ENOENT) ? Code::kNotFound : Code::kIOError;
  return Status(code, context, std::strerror(err), err);
}

std::string Status::CodeAsString() const {
  switch (code()) {
    case Code::kOk: return "OK";
    case Code::kNotFound: return "Not found";
    case Code::kCorruption: return "Corruption";
    case Code::kIncomplete: return "Incomplete";
    case Code::kEndOfFile: return "End of file";
    case Code::kIOError: return "IO error";
    case Code::kInvalidArgument: return "Invalid argument";
    case Code::kNotSupported: return "Not implemented";
    case Code::kAborted: return "Aborted";
    case Code::kIllegalState: return "Illegal state";
    case Code::kAlreadyPresent: return "Already present";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = CodeAsString();
  out.append(": ");
  out.append(rep_->message);
  if (rep_->posix_errno != 0) {
    out.append(" (error ");
    out.append(std::to_string(rep_->posix_errno));
    out.append(")");
  }
  return out;
}

Status Status::CloneAndPrepend(Slice prefix) const {
  if (ok()) return Status();
  Status s;
  s.rep_.reset(new Rep(*rep_));
  s.rep_->message = prefix.ToString() + ": " + rep_->message;
  return s;
}

}  // namespace kudu
