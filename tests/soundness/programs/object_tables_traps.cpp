// Traps for tables inside another object (funk-svd's `Matrix* p, q` with a `double** m`; issue
// 16). Each loop must run serially, or, where the plan is parallel, the runtime must see that the
// tables share memory and run it serially on the table itself:
// - `same`: p == q, one Matrix under both members; the analysis plans p's rows by user and q's by
//   item, and both stagings point the one row-pointer array at their copies: run_loop
//   (pointer_rows_alias) must see the overlap, point the rows back and run serially.
// - `conditional`: set_value is called under an `if`, so the rows the serial loop touches are not
//   the rows the keys name (no extent can be bounded).
// - `grows`: the method also writes the object's `row` (a write to the object itself).
// A method whose body is not visible, or virtual, is refused by the frontend before anything
// runs (tests/frontend/ObjectTablesTest.cpp): a program here could not link one.
#include "soundness.h"

#include <cstdlib>

class Matrix {
protected:
  double** m;
  int col, row;

public:
  Matrix(int r, int c) : col(c), row(r) {
    m = static_cast<double**>(std::malloc(static_cast<std::size_t>(r) * sizeof(double*)));
    for (int i = 0; i < r; i++) {
      m[i] = static_cast<double*>(std::malloc(static_cast<std::size_t>(c) * sizeof(double)));
      for (int j = 0; j < c; j++) {
        m[i][j] = 0.1 * ((i * 5 + j) % 7) + 0.25;
      }
    }
  }
  ~Matrix() {
    for (int i = 0; i < row; i++) {
      std::free(m[i]);
    }
    std::free(m);
  }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  void set_value(int i, int j, double value) { this->m[i][j] = value; }
  double get_value(int i, int j) { return this->m[i][j]; }
  void set_and_count(int i, int j, double value) {
    m[i][j] = value;
    row = row + (j == 0 ? 1 : 0) - (j == 0 ? 1 : 0);
  }
  void hash_into(snd::Hash& h) const {
    for (int i = 0; i < row; i++) {
      for (int j = 0; j < col; j++) {
        h << m[i][j];
      }
    }
  }
};

class Svd {
public:
  Matrix* p;
  Matrix* q;
  int factors;
  void same(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < factors; k++) {
        const double pu = p->get_value(r.user, k);
        const double qi = q->get_value(r.item, k);
        q->set_value(r.item, k, qi * 0.5 + pu * 0.25 + r.value);
        p->set_value(r.user, k, pu * 0.75 + qi * 0.125 + r.item);
      }
    }
  }
  void conditional(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < factors; k++) {
        if (r.item % 2 == 0) {
          p->set_value(r.user, k, p->get_value(r.user, k) * 0.5 + r.item);
        }
      }
    }
  }
  void grows(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < factors; k++) {
        q->set_and_count(r.item, k, q->get_value(r.item, k) * 0.5 + r.user);
      }
    }
  }
};

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  const int users = static_cast<int>(ratings.extent(&Rating::user));
  const int items = static_cast<int>(ratings.extent(&Rating::item));
  constexpr int kFactors = 4;
  Matrix shared(std::max(users, items), kFactors);
  Matrix q(items, kFactors);
  Svd one{&shared, &shared, kFactors};
  Svd two{&shared, &q, kFactors};
  for (int it = 0; it < 3; ++it) {
    one.same(ratings);
    two.conditional(ratings);
    two.grows(ratings);
  }
  snd::Hash h;
  shared.hash_into(h);
  q.hash_into(h);
  h.records(ratings);
  h.print();
  return 0;
}
