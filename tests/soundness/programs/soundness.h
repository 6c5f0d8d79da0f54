// Shared helpers of the soundness corpus: the records, a dataset with colliding keys, and a
// hash of all program state printed as one line `hash=<hex>` (rank 0 prints; see README.md).
#pragma once
#include <rotor/rotor.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};
struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

namespace snd {

/// n ratings, user (i*7)%users, item (i*13)%items, value 1..5: every key collides often.
inline std::vector<Rating> ratings(int n = 3000, int users = 37, int items = 29) {
  std::vector<Rating> v;
  for (int i = 0; i < n; ++i) {
    v.push_back({(i * 7) % users, (i * 13) % items, static_cast<float>(i % 5 + 1)});
  }
  return v;
}
/// n tokens, doc (i*7)%docs, word (i*11)%words, topic i%topics.
inline std::vector<Token> tokens(int n = 3000, int docs = 31, int words = 41, int topics = 8) {
  std::vector<Token> v;
  for (int i = 0; i < n; ++i) {
    v.push_back({(i * 7) % docs, (i * 11) % words, i % topics});
  }
  return v;
}

/// FNV-1a over the bytes of everything fed to it.
struct Hash {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void bytes(const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      h ^= c[i];
      h *= 0x100000001b3ull;
    }
  }
  template <class T> Hash& operator<<(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "hash a plain value");
    bytes(&v, sizeof v);
    return *this;
  }
  template <class T, int N> Hash& operator<<(const rotor::DistArray<T, N>& a) {
    bytes(a.data(), static_cast<std::size_t>(a.size()) * sizeof(T));
    return *this;
  }
  template <class T> Hash& operator<<(const std::vector<T>& v) {
    *this << v.size();
    for (const T& x : v) {
      *this << x;
    }
    return *this;
  }
  Hash& operator<<(const std::vector<bool>& v) {
    for (bool b : v) {
      *this << static_cast<int>(b);
    }
    return *this;
  }
  Hash& operator<<(const std::string& s) {
    *this << s.size();
    bytes(s.data(), s.size());
    return *this;
  }
  template <class K, class V> Hash& operator<<(const std::map<K, V>& m) {
    for (const auto& [k, v] : m) {
      *this << k << v;
    }
    return *this;
  }
  /// The dataset's records as a multiset (their order is the runtime's to choose), over all ranks.
  template <class R> Hash& records(const rotor::Dataset<R>& d) {
    std::int64_t n = 0, lo = 0, hi = 0;
    for (const R& r : d) {
      Hash one;
      one.bytes(&r, sizeof r);
      ++n;
      lo += static_cast<std::int64_t>(one.h & 0xffffffffu);
      hi += static_cast<std::int64_t>(one.h >> 32);
    }
    if (d.distribution() == rotor::Distribution::distributed) {
      n = rotor::detail::global_sum(n);
      lo = rotor::detail::global_sum(lo);
      hi = rotor::detail::global_sum(hi);
    }
    return *this << n << lo << hi;
  }
  void print() const { std::printf("hash=%016llx\n", static_cast<unsigned long long>(h)); }
};

} // namespace snd
