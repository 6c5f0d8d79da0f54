// Shape: a non-const reference (`auto& row = T[u]`, `auto& e = H[i]`, `for (auto& x : H)`) into
// memory other records read, written through the reference, through a second reference, a lambda,
// a helper or a pointer taken from it. Since 2026-11-28 a non-const reference whose every use only
// reads is a read (a table row only read no longer blocks its loop), so each of these loops must
// see the write behind the reference and stay serial (or equal the replay). The last loop reads
// through non-const references only: it may run in parallel.
#include "soundness.h"

#include <cstdint>
#include <vector>

constexpr std::int64_t P = 1000003;

static void bump(std::int64_t& v, std::int64_t by) {
  v = (v * 3 + by) % P;
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  std::vector<std::int64_t> W(37, 1);
  std::vector<std::int64_t> H(29, 2);
  std::vector<std::vector<std::int64_t>> T(29, std::vector<std::int64_t>(3, 5));
  for (int it = 0; it < 3; ++it) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W[r.user] = (W[r.user] * 7 + H[r.item]) % P;
      auto& e = H[(r.user + 1) % 29];
      auto& again = e; // a reference to the reference
      again = (again + 1) % P;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W[r.user] = (W[r.user] * 11 + H[r.item]) % P;
      auto& whole = H;
      for (auto& x : whole) {
        x = (x + r.user) % P;
        break;
      }
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W[r.user] = (W[r.user] * 13 + H[r.item]) % P;
      auto& e = H[(r.user + 2) % 29];
      auto add = [&](std::int64_t by) { e = (e + by) % P; };
      add(r.item);
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W[r.user] = (W[r.user] * 17 + H[r.item]) % P;
      auto& e = H[(r.user + 3) % 29];
      bump(e, r.item);
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W[r.user] = (W[r.user] * 19 + T[r.item][0]) % P;
      auto& row = T[(r.user + 4) % 29];
      std::int64_t* first = row.data();
      *first = (*first + 1) % P;
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      W[r.user] = (W[r.user] * 23 + T[r.item][1]) % P;
      auto& row = T[(r.user + 5) % 29];
      for (auto& x : row) {
        x = (x * 2 + 1) % P;
      }
    }
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      auto& row = T[r.item];
      auto& h = H[r.item];
      std::int64_t s = h;
      for (auto& x : row) {
        s += x;
      }
      for (std::int64_t x : H) {
        s += x;
      }
      W[r.user] = (W[r.user] * 29 + s) % P;
    }
  }
  snd::Hash h;
  h << W << H;
  for (const auto& row : T) {
    h << row;
  }
  h.print();
  return 0;
}
