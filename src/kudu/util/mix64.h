// A 64-bit mixing function: every input bit affects every output bit, and
// distinct inputs give distinct outputs (it is a bijection). For hashing
// integers whose patterns (consecutive, strided, high bits only) must not
// show in the result: block ids into the block map's tables, live sets
// into the bench's fingerprints.
#pragma once

#include <cstdint>

namespace kudu {

// splitmix64's finaliser (Steele, Lea and Flood, 2014).
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace kudu
