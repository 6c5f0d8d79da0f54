#include "common.h"

void tensor(rotor::Dataset<Triple>& triples, rotor::DistArray<float, 2>& A,
            rotor::DistArray<float, 2>& B, rotor::DistArray<float, 2>& C, float lr) {
#pragma rotor parallel_for
  for (const Triple& t : triples) {
    auto a = A.row(t.a);
    auto b = B.row(t.b);
    auto c = C.row(t.c);
    const float e = t.value - a.cwiseProduct(b).dot(c);
    a += lr * e * b.cwiseProduct(c);
    b += lr * e * a.cwiseProduct(c);
    c += lr * e * a.cwiseProduct(b);
  }
}
