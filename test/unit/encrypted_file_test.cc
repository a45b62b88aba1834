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

// Encrypted files (§5 of docs/on-disk-format.md) through the file layer and
// the container reader: the header and the ciphertext land at the right raw
// offsets (checked against an independent OpenSSL computation), reads
// decrypt with the all-zero rule applied per read, and a missing or wrong
// server key is detected where the format allows.
#include "kudu/util/file.h"

#include <fcntl.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/pb_container_reader.h"
#include "util/encryption_reference.h"
#include "util/read_buffers.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

// ---------------------------------------------------------------------------
// Encrypted files through the file layer

class EncryptedFileTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(EncryptedFileTest, WritableFileWritesHeaderAndCiphertextAtTheRightOffsets) {
  for (CipherAlgorithm alg : kAllAlgorithms) {
    for (size_t sk_size : kServerKeySizes) {
      SCOPED_TRACE(std::to_string(static_cast<int>(alg)) + "/" + std::to_string(sk_size));
      ServerKey sk = TestServerKey(sk_size);
      std::string path = dir_.Join("enc-" + std::to_string(static_cast<int>(alg)) + "-" +
                                   std::to_string(sk_size));
      WriteEncryption enc;
      enc.server_key = &sk;
      enc.algorithm = alg;
      enc.file_key = FileKeyFor(alg, 11);
      std::unique_ptr<WritableFile> f;
      ASSERT_OK(WritableFile::Open(path, CreateMode::kCreateNew, enc, &f));
      EXPECT_EQ(64u, f->size());
      EXPECT_EQ(64u, f->encryption_header_size());
      std::string p1 = RandomBytes(1000, 1), p2 = RandomBytes(77, 2), p3 = RandomBytes(5, 3);
      ASSERT_OK(f->Append(p1));
      ASSERT_OK(f->Append(p2));
      ASSERT_OK(f->Write(5000, p3));  // leaves a hole
      EXPECT_EQ(5005u, f->size());
      // Writing into the header is refused.
      for (uint64_t off : {0, 1, 63}) {
        Status s = f->Write(off, "x");
        EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
        EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
      }
      ASSERT_OK(f->Close());

      std::string disk;
      ASSERT_OK(test::ReadFileToString(path, &disk));
      ASSERT_EQ(5005u, disk.size());
      EXPECT_EQ("kuduenc", disk.substr(0, 7));
      EXPECT_EQ(static_cast<char>(alg), disk[7]);
      std::string unwrapped = RefEvp(RefEcb(sk_size), false, sk.bytes(), nullptr,
                                     disk.substr(8, WrappedKeyFieldSize(alg)));
      EXPECT_EQ(enc.file_key, unwrapped.substr(0, FileKeySize(alg)));
      EXPECT_EQ(Xor(p1, RefKeystream(enc.file_key, 64, p1.size())), disk.substr(64, 1000));
      EXPECT_EQ(RefCtrAligned(enc.file_key, 64, p1), disk.substr(64, 1000));
      EXPECT_EQ(Xor(p2, RefKeystream(enc.file_key, 1064, p2.size())), disk.substr(1064, 77));
      EXPECT_EQ(Xor(p3, RefKeystream(enc.file_key, 5000, p3.size())), disk.substr(5000, 5));
      EXPECT_EQ(std::string(5000 - 1141, '\0'), disk.substr(1141, 5000 - 1141));

      // Read back through RandomAccessFile with the key.
      std::unique_ptr<RandomAccessFile> r;
      ASSERT_OK(RandomAccessFile::Open(path, &sk, &r));
      EXPECT_TRUE(r->encrypted());
      EXPECT_EQ(64u, r->encryption_header_size());
      EXPECT_EQ(5005u, r->size());
      EXPECT_EQ(1u, r->stats().read_syscalls);  // the header
      EXPECT_EQ(64u, r->stats().bytes_read);
      ASSERT_NE(nullptr, r->cipher());
      EXPECT_EQ(enc.file_key, r->cipher()->key());
      std::string got(1077, '\0');
      ASSERT_OK(r->Read(64, U8(&got), got.size()));
      EXPECT_EQ(p1 + p2, got);
      std::string mid(33, '\0');
      ASSERT_OK(r->Read(64 + 17, U8(&mid), mid.size()));
      EXPECT_EQ(p1.substr(17, 33), mid);
      std::string raw(1000, '\0');
      ASSERT_OK(r->ReadRaw(64, U8(&raw), raw.size()));
      EXPECT_EQ(disk.substr(64, 1000), raw);
      std::string tail(5, '\0');
      ASSERT_OK(r->Read(5000, U8(&tail), 5));
      EXPECT_EQ(p3, tail);
      // The hole is all-zero ciphertext: it reads as zeros.
      std::string hole(100, 'x');
      ASSERT_OK(r->Read(2000, U8(&hole), hole.size()));
      EXPECT_EQ(std::string(100, '\0'), hole);
      // Consecutive buffers, each decrypted as its own read.
      std::string a(10, '\0'), b(1067, '\0');
      Slice bufs[] = {Slice(U8(&a), a.size()), Slice(U8(&b), b.size())};
      ASSERT_OK(test::ReadIntoBuffers(r.get(), 64, bufs, 2));
      EXPECT_EQ(p1 + p2, a + b);
    }
  }
}

TEST_F(EncryptedFileTest, RandomFileKeyByDefaultAndReopenExisting) {
  ServerKey sk = TestServerKey(32);
  std::string p1 = dir_.Join("one"), p2 = dir_.Join("two");
  WriteEncryption enc;
  enc.server_key = &sk;
  enc.algorithm = CipherAlgorithm::kAes256Ctr;
  std::unique_ptr<WritableFile> f1, f2;
  ASSERT_OK(WritableFile::Open(p1, CreateMode::kCreateNew, enc, &f1));
  ASSERT_OK(WritableFile::Open(p2, CreateMode::kCreateNew, enc, &f2));
  std::string data = RandomBytes(300, 4);
  ASSERT_OK(f1->Append(data));
  ASSERT_OK(f2->Append(data));
  f1.reset();
  f2.reset();
  std::string d1, d2;
  ASSERT_OK(test::ReadFileToString(p1, &d1));
  ASSERT_OK(test::ReadFileToString(p2, &d2));
  EXPECT_NE(d1.substr(8, 56), d2.substr(8, 56));   // different wrapped keys
  EXPECT_NE(d1.substr(64), d2.substr(64));         // so different ciphertext

  // Reopen the existing file and append: the key comes from the header.
  std::unique_ptr<WritableFile> again;
  WriteEncryption reopen;
  reopen.server_key = &sk;
  ASSERT_OK(WritableFile::Open(p1, CreateMode::kOpenExisting, reopen, &again));
  EXPECT_EQ(364u, again->size());
  std::string more = RandomBytes(50, 5);
  ASSERT_OK(again->Append(more));
  again.reset();
  std::string d1b;
  ASSERT_OK(test::ReadFileToString(p1, &d1b));
  EXPECT_EQ(d1.substr(0, 64), d1b.substr(0, 64));  // header unchanged
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(RandomAccessFile::Open(p1, &sk, &r));
  std::string got(350, '\0');
  ASSERT_OK(r->Read(64, U8(&got), got.size()));
  EXPECT_EQ(data + more, got);
}

TEST_F(EncryptedFileTest, AllZeroRuleIsPerRead) {
  ServerKey sk = TestServerKey(16);
  std::string path = dir_.Join("z");
  WriteEncryption enc;
  enc.server_key = &sk;
  std::unique_ptr<WritableFile> f;
  ASSERT_OK(WritableFile::Open(path, CreateMode::kCreateNew, enc, &f));
  std::string plain = RandomBytes(200, 6);
  ASSERT_OK(f->Append(plain));
  f.reset();
  // Zero the ciphertext of [164, 264): a torn tail.
  ASSERT_OK(test::ZeroFillFrom(path, 164));
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(RandomAccessFile::Open(path, &sk, &r));
  std::string z(100, 'x');
  ASSERT_OK(r->Read(164, U8(&z), z.size()));
  EXPECT_EQ(std::string(100, '\0'), z);  // all-zero read: left as zeros
  // A read covering ciphertext and zeros is decrypted as a whole: the zero
  // ciphertext bytes come out as keystream, not as zeros.
  std::string both(200, '\0');
  ASSERT_OK(r->Read(64, U8(&both), both.size()));
  EXPECT_EQ(plain.substr(0, 100), both.substr(0, 100));
  EXPECT_EQ(RefKeystream(r->cipher()->key(), 164, 100), both.substr(100));
  EXPECT_NE(std::string(100, '\0'), both.substr(100));
}

TEST_F(EncryptedFileTest, OpenWithKeyErrors) {
  ServerKey sk = TestServerKey(16);
  // A plain file opened with a key: no header.
  std::string plain = dir_.Join("plain");
  ASSERT_OK(test::WriteStringToFile(plain, std::string(100, 'p')));
  std::unique_ptr<RandomAccessFile> r;
  Status s = RandomAccessFile::Open(plain, &sk, &r);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), plain)) << s.ToString();
  // Too short for a header.
  std::string tiny = dir_.Join("tiny");
  ASSERT_OK(test::WriteStringToFile(tiny, "kuduenc"));
  s = RandomAccessFile::Open(tiny, &sk, &r);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), tiny)) << s.ToString();
  // An empty key means no encryption.
  ServerKey none;
  ASSERT_OK(RandomAccessFile::Open(plain, &none, &r));
  EXPECT_FALSE(r->encrypted());
}

TEST_F(EncryptedFileTest, FileFromAnOpenDescriptorIsTheFileOpenGives) {
  ServerKey sk = TestServerKey(16);
  const std::string path = dir_.Join("e");
  WriteEncryption enc;
  enc.server_key = &sk;
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(WritableFile::Open(path, CreateMode::kCreateNew, enc, &w));
  const std::string plain = RandomBytes(500, 9);
  ASSERT_OK(w->Append(plain));
  w.reset();
  int fd = -1;
  struct stat st;
  ASSERT_OK(RandomAccessFile::OpenDescriptorAt(AT_FDCWD, path.c_str(), path, &fd, &st));
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(RandomAccessFile::FromOpenFd(fd, path, st.st_size, &sk, &r));
  EXPECT_TRUE(r->encrypted());
  EXPECT_EQ(564u, r->size());
  std::string got(500, '\0');
  ASSERT_OK(r->Read(64, U8(&got), got.size()));
  EXPECT_EQ(plain, got);
  // A file too short for its header: the error Open gives, and the
  // descriptor closed.
  const std::string tiny = dir_.Join("tiny");
  ASSERT_OK(test::WriteStringToFile(tiny, "kuduenc"));
  ASSERT_OK(RandomAccessFile::OpenDescriptorAt(AT_FDCWD, tiny.c_str(), tiny, &fd, &st));
  Status s = RandomAccessFile::FromOpenFd(fd, tiny, st.st_size, &sk, &r);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), tiny)) << s.ToString();
  EXPECT_EQ(-1, ::fcntl(fd, F_GETFD));
}

// ---------------------------------------------------------------------------
// Encrypted containers and the reader

// Without a key a file is read as a plain one (§5): an encryption header
// where the PB container magic should be is a bad magic at offset 0 (§2),
// and the message says why.
TEST_F(EncryptedFileTest, ContainerReadWithoutItsKeyHasABadMagic) {
  ServerKey sk = TestServerKey(24);
  std::string path = dir_.Join("c.metadata");
  test::MetadataFileOptions opts;
  opts.server_key = &sk;
  opts.algorithm = CipherAlgorithm::kAes192Ctr;
  ASSERT_OK(test::WriteMetadataFile(path, test::MakeRecordSequence(10), opts));

  std::unique_ptr<RandomAccessFile> f;
  ASSERT_OK(RandomAccessFile::Open(path, nullptr, &f));
  FileRecordSource src(f.get());
  PbContainerRecordReader<FileRecordSource> reader(&src);
  Status s = reader.ReadHeaders("kudu.BlockRecordPB");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 0: bad PB container magic")) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "encryption header, but no server key")) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();

  // With the key every record comes back.
  ASSERT_OK(RandomAccessFile::Open(path, &sk, &f));
  FileRecordSource src2(f.get());
  PbContainerRecordReader<FileRecordSource> reader2(&src2);
  ASSERT_OK(reader2.ReadHeaders("kudu.BlockRecordPB"));
  auto records = test::MakeRecordSequence(10);
  for (const auto& want : records) {
    Slice body;
    ASSERT_OK(reader2.ReadNextRecord(&body));
    BlockRecordPB got;
    ASSERT_TRUE(got.ParseFromArray(body.data(), static_cast<int>(body.size())));
    EXPECT_EQ(want.SerializeAsString(), got.SerializeAsString());
  }
  Slice body;
  EXPECT_TRUE(reader2.ReadNextRecord(&body).IsEndOfFile());
}

TEST_F(EncryptedFileTest, WrongServerKeyIsDetectedByTheContainerReader) {
  ServerKey sk = TestServerKey(16);
  std::string path = dir_.Join("c.metadata");
  test::MetadataFileOptions opts;
  opts.server_key = &sk;
  ASSERT_OK(test::WriteMetadataFile(path, test::MakeRecordSequence(3), opts));
  std::string wrong_bytes = sk.bytes();
  wrong_bytes[15] ^= 0x80;
  ServerKey wrong = ServerKey::FromBytes(wrong_bytes);
  std::unique_ptr<RandomAccessFile> f;
  // The open itself cannot tell (no key check value in the header)...
  ASSERT_OK(RandomAccessFile::Open(path, &wrong, &f));
  FileRecordSource src(f.get());
  PbContainerRecordReader<FileRecordSource> reader(&src);
  // ...but the decrypted bytes are not a container.
  Status s = reader.ReadHeaders("kudu.BlockRecordPB");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), path)) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "offset 64")) << s.ToString();
}

}  // namespace
}  // namespace test
}  // namespace kudu
