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

// Status: codes, messages, ToString, CloneAndPrepend, copies and moves.
#include "kudu/util/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kudu {
namespace {

struct CodeCase {
  std::function<Status(Slice, Slice)> make;
  Status::Code code;
  const char* name;
  std::function<bool(const Status&)> is;
};

std::vector<CodeCase> AllCodes() {
  return {
      {[](Slice a, Slice b) { return Status::NotFound(a, b); }, Status::Code::kNotFound,
       "Not found", [](const Status& s) { return s.IsNotFound(); }},
      {[](Slice a, Slice b) { return Status::Corruption(a, b); }, Status::Code::kCorruption,
       "Corruption", [](const Status& s) { return s.IsCorruption(); }},
      {[](Slice a, Slice b) { return Status::Incomplete(a, b); }, Status::Code::kIncomplete,
       "Incomplete", [](const Status& s) { return s.IsIncomplete(); }},
      {[](Slice a, Slice b) { return Status::EndOfFile(a, b); }, Status::Code::kEndOfFile,
       "End of file", [](const Status& s) { return s.IsEndOfFile(); }},
      {[](Slice a, Slice b) { return Status::IOError(a, b); }, Status::Code::kIOError, "IO error",
       [](const Status& s) { return s.IsIOError(); }},
      {[](Slice a, Slice b) { return Status::InvalidArgument(a, b); },
       Status::Code::kInvalidArgument, "Invalid argument",
       [](const Status& s) { return s.IsInvalidArgument(); }},
      {[](Slice a, Slice b) { return Status::NotSupported(a, b); }, Status::Code::kNotSupported,
       "Not implemented", [](const Status& s) { return s.IsNotSupported(); }},
      {[](Slice a, Slice b) { return Status::Aborted(a, b); }, Status::Code::kAborted, "Aborted",
       [](const Status& s) { return s.IsAborted(); }},
      {[](Slice a, Slice b) { return Status::IllegalState(a, b); }, Status::Code::kIllegalState,
       "Illegal state", [](const Status& s) { return s.IsIllegalState(); }},
      {[](Slice a, Slice b) { return Status::AlreadyPresent(a, b); },
       Status::Code::kAlreadyPresent, "Already present",
       [](const Status& s) { return s.IsAlreadyPresent(); }},
  };
}

// Every IsX predicate, to check that exactly one of them holds.
int CountTruePredicates(const Status& s) {
  int n = 0;
  for (const auto& c : AllCodes()) n += c.is(s) ? 1 : 0;
  return n;
}

TEST(StatusTest, OkIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(Status::Code::kOk, s.code());
  EXPECT_EQ("OK", s.ToString());
  EXPECT_EQ("OK", s.CodeAsString());
  EXPECT_EQ("", s.message());
  EXPECT_EQ(0, s.posix_code());
  EXPECT_EQ(0, CountTruePredicates(s));
  EXPECT_TRUE(Status::OK().ok());
}

TEST(StatusTest, EveryCodeHasItsPredicateNameAndMessage) {
  for (const auto& c : AllCodes()) {
    SCOPED_TRACE(c.name);
    Status s = c.make("file.metadata: record at offset 42", Slice());
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(c.code, s.code());
    EXPECT_TRUE(c.is(s));
    EXPECT_EQ(1, CountTruePredicates(s));
    EXPECT_EQ(c.name, s.CodeAsString());
    EXPECT_EQ("file.metadata: record at offset 42", s.message());
    EXPECT_EQ(std::string(c.name) + ": file.metadata: record at offset 42", s.ToString());
    EXPECT_EQ(0, s.posix_code());
  }
}

TEST(StatusTest, SecondMessageIsJoinedWithColon) {
  for (const auto& c : AllCodes()) {
    SCOPED_TRACE(c.name);
    Status s = c.make("/data/abc.metadata", "body checksum mismatch");
    EXPECT_EQ("/data/abc.metadata: body checksum mismatch", s.message());
    EXPECT_EQ(std::string(c.name) + ": /data/abc.metadata: body checksum mismatch", s.ToString());
  }
  // An empty second part adds nothing.
  EXPECT_EQ("x", Status::Corruption("x", "").message());
  // An empty first part is kept as is.
  EXPECT_EQ(": y", Status::Corruption("", "y").message());
}

TEST(StatusTest, MessagesAreBinarySafe) {
  std::string with_nul("a\0b", 3);
  Status s = Status::Corruption(Slice(with_nul), Slice(with_nul));
  EXPECT_EQ(std::string("a\0b: a\0b", 8), s.message());
}

TEST(StatusTest, PosixCodes) {
  Status s = Status::IOError("f", "boom", EIO);
  EXPECT_EQ(EIO, s.posix_code());
  EXPECT_EQ("IO error: f: boom (error " + std::to_string(EIO) + ")", s.ToString());
  Status nf = Status::NotFound("f", "", ENOENT);
  EXPECT_EQ(ENOENT, nf.posix_code());
}

TEST(StatusTest, FromErrno) {
  Status s = Status::FromErrno("/some/path", ENOENT);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_EQ(ENOENT, s.posix_code());
  EXPECT_EQ(std::string("/some/path: ") + std::strerror(ENOENT), s.message());

  Status e = Status::FromErrno("/other/path", EIO);
  EXPECT_TRUE(e.IsIOError()) << e.ToString();
  EXPECT_EQ(EIO, e.posix_code());
  EXPECT_NE(std::string::npos, e.ToString().find("/other/path"));
  EXPECT_NE(std::string::npos, e.ToString().find(std::strerror(EIO)));

  EXPECT_TRUE(Status::FromErrno("p", EACCES).IsIOError());
  EXPECT_TRUE(Status::FromErrno("p", ENOSPC).IsIOError());
}

TEST(StatusTest, CloneAndPrepend) {
  Status s = Status::Corruption("record at offset 7", "bad crc");
  Status p = s.CloneAndPrepend("/d/x.metadata");
  EXPECT_TRUE(p.IsCorruption());
  EXPECT_EQ("/d/x.metadata: record at offset 7: bad crc", p.message());
  EXPECT_EQ("Corruption: /d/x.metadata: record at offset 7: bad crc", p.ToString());
  // The original is untouched.
  EXPECT_EQ("record at offset 7: bad crc", s.message());

  // Chains.
  Status pp = p.CloneAndPrepend("open");
  EXPECT_EQ("open: /d/x.metadata: record at offset 7: bad crc", pp.message());
  EXPECT_TRUE(pp.IsCorruption());

  // The posix code survives.
  Status io = Status::IOError("read", "", EIO).CloneAndPrepend("file");
  EXPECT_TRUE(io.IsIOError());
  EXPECT_EQ(EIO, io.posix_code());
  EXPECT_EQ("file: read", io.message());

  // OK stays OK, with no message.
  Status ok = Status::OK().CloneAndPrepend("prefix");
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ("OK", ok.ToString());

  // Every code keeps its code.
  for (const auto& c : AllCodes()) {
    Status x = c.make("m", Slice()).CloneAndPrepend("pre");
    EXPECT_EQ(c.code, x.code()) << c.name;
    EXPECT_EQ("pre: m", x.message()) << c.name;
  }
}

TEST(StatusTest, CopyIsDeep) {
  Status a = Status::IOError("first", "detail", EIO);
  Status b(a);
  EXPECT_EQ(a.ToString(), b.ToString());
  EXPECT_EQ(a.code(), b.code());
  EXPECT_EQ(a.posix_code(), b.posix_code());

  // Changing the copy (by assignment) leaves the original alone.
  b = Status::NotFound("second");
  EXPECT_TRUE(a.IsIOError());
  EXPECT_EQ("first: detail", a.message());
  EXPECT_TRUE(b.IsNotFound());
  EXPECT_EQ("second", b.message());

  // Copy-assign over a non-OK status, and from / to OK.
  Status c = Status::Aborted("c");
  c = a;
  EXPECT_EQ(a.ToString(), c.ToString());
  c = Status::OK();
  EXPECT_TRUE(c.ok());
  EXPECT_TRUE(a.IsIOError());
  Status d;
  d = a;
  EXPECT_EQ(a.ToString(), d.ToString());

  // Self-assignment keeps the status.
  Status& ref = d;
  d = ref;
  EXPECT_EQ(a.ToString(), d.ToString());

  // Copies outlive the original.
  Status e;
  {
    Status tmp = Status::Corruption(std::string(1000, 'x'));
    e = tmp;
  }
  EXPECT_EQ(std::string(1000, 'x'), e.message());

  // Copy of OK is OK.
  Status ok;
  Status ok2(ok);
  EXPECT_TRUE(ok2.ok());
}

TEST(StatusTest, Move) {
  Status a = Status::Corruption("moved");
  Status b(std::move(a));
  EXPECT_TRUE(b.IsCorruption());
  EXPECT_EQ("moved", b.message());
  Status c;
  c = std::move(b);
  EXPECT_TRUE(c.IsCorruption());
  EXPECT_EQ("moved", c.message());
  std::vector<Status> v;
  for (int i = 0; i < 100; i++) v.push_back(Status::IOError(std::to_string(i)));
  for (int i = 0; i < 100; i++) EXPECT_EQ(std::to_string(i), v[i].message());
}

Status ReturnsNotOk(const Status& inner, bool* reached_end) {
  RETURN_NOT_OK(inner);
  *reached_end = true;
  return Status::OK();
}

Status ReturnsNotOkPrepend(const Status& inner, bool* reached_end) {
  RETURN_NOT_OK_PREPEND(inner, "ctx");
  *reached_end = true;
  return Status::OK();
}

TEST(StatusTest, Macros) {
  bool end = false;
  EXPECT_TRUE(ReturnsNotOk(Status::OK(), &end).ok());
  EXPECT_TRUE(end);
  end = false;
  Status s = ReturnsNotOk(Status::Corruption("c"), &end);
  EXPECT_FALSE(end);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ("c", s.message());

  end = false;
  EXPECT_TRUE(ReturnsNotOkPrepend(Status::OK(), &end).ok());
  EXPECT_TRUE(end);
  end = false;
  s = ReturnsNotOkPrepend(Status::IOError("io"), &end);
  EXPECT_FALSE(end);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ("ctx: io", s.message());
}

TEST(SliceTest, Basics) {
  std::string s = "hello";
  Slice a(s);
  EXPECT_EQ(5u, a.size());
  EXPECT_EQ("hello", a.ToString());
  EXPECT_EQ('e', a[1]);
  Slice b = a;
  b.remove_prefix(2);
  EXPECT_EQ("llo", b.ToString());
  b.truncate(1);
  EXPECT_EQ("l", b.ToString());
  EXPECT_TRUE(Slice().empty());
  EXPECT_EQ(Slice("abc"), Slice(std::string("abc")));
  EXPECT_NE(Slice("abc"), Slice("abd"));
  EXPECT_LT(Slice("ab").compare(Slice("abc")), 0);
  EXPECT_GT(Slice("abc").compare(Slice("ab")), 0);
  EXPECT_LT(Slice("abc").compare(Slice("abd")), 0);
  EXPECT_EQ(0, Slice().compare(Slice("")));
  std::string with_nul("a\0b", 3);
  EXPECT_EQ(3u, Slice(with_nul).size());
}

}  // namespace
}  // namespace kudu
