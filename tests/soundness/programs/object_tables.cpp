// Good shape: funk-svd's factor tables (issue 16): `class Matrix` keeps its rows in a protected
// `double** m` (one allocation per row) behind get_value/set_value, and the trainer holds
// `Matrix* p, q` members and calls the methods in the loop (also inside its own `predict`).
// funk-svd's own loop over its std::vector of ratings. The same tables reached through a pointer
// parameter, a reference parameter and member objects. Each loop must be parallel: rotor-cc stages
// the reached rows and points the table's row pointers at them for the loop
// (docs/design/containers.md, "Tables inside another object").
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
        m[i][j] = 0.1 * ((i * 7 + j * 3) % 11) + 0.05;
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
  void fill(double value) {
    for (int i = 0; i < row; i++) {
      for (int j = 0; j < col; j++) {
        m[i][j] = value;
      }
    }
  }
  void set_value(int i, int j, double value) { this->m[i][j] = value; }
  double get_value(int i, int j) { return this->m[i][j]; }
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
  double predict(int user, int item) {
    double s = 0.0;
    for (int i = 0; i < factors; i++) {
      s += p->get_value(user, i) * q->get_value(item, i);
    }
    return s;
  }
  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const double error = r.value - predict(r.user, r.item);
      for (int k = 0; k < factors; k++) {
        const double qc = 0.01 * error * p->get_value(r.user, k);
        const double pc = 0.01 * error * q->get_value(r.item, k);
        q->set_value(r.item, k, q->get_value(r.item, k) + qc);
        p->set_value(r.user, k, p->get_value(r.user, k) + pc);
      }
    }
  }
};

// funk-svd's own loop: an index loop over a std::vector of ((user, item), rating) with the
// scratch scalars declared outside it; the tables' rows are counted from the inspected keys. The
// serial replay cannot reorder a plain vector, so the updates commute (integer-valued doubles,
// exact; the prediction is read but only decides between two increments for ratings no record
// has): an update a rank never receives, or two workers on one row, still changes the hash.
class FunkSvd {
  Matrix* q;
  Matrix* p;
  int factors;
  std::vector<std::pair<std::pair<int, int>, double>> dense_users;

public:
  FunkSvd(Matrix* p_, Matrix* q_, int k, const std::vector<Rating>& ratings)
      : q(q_), p(p_), factors(k) {
    for (const Rating& r : ratings) {
      dense_users.push_back({{r.user, r.item}, r.value});
    }
  }
  double predict(int user, int item) {
    double prediction = 0.0;
    for (int i = 0; i < this->factors; i++) {
      prediction += p->get_value(user, i) * q->get_value(item, i);
    }
    return prediction;
  }
  void train_epoch() {
    int u_id, i_id;
    double rating, error, q_correction, p_correction;
#pragma rotor parallel_for
    for (std::size_t j = 0; j < this->dense_users.size(); j++) {
      u_id = this->dense_users[j].first.first;
      i_id = this->dense_users[j].first.second;
      rating = this->dense_users[j].second;
      error = rating - predict(u_id, i_id);
      for (int k = 0; k < this->factors; k++) {
        q_correction = (error > 1e300 ? 1.0 : 2.0) * (u_id % 3 + k);
        p_correction = i_id % 5 + 1;
        q->set_value(i_id, k, q->get_value(i_id, k) + q_correction);
        p->set_value(u_id, k, p->get_value(u_id, k) + p_correction);
      }
    }
  }
};

static void decay(rotor::Dataset<Rating>& ratings, Matrix* P, Matrix& Q, int K) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int k = 0; k < K; ++k) {
      P->set_value(r.user, k, P->get_value(r.user, k) * 0.75 + r.value);
      Q.set_value(r.item, k, Q.get_value(r.item, k) * 0.5 + P->get_value(r.user, k) * 0.0);
    }
  }
}

struct Pair {
  Matrix U;
  Matrix V;
  int K;
  Pair(int users, int items, int k) : U(users, k), V(items, k), K(k) {}
  void epoch(rotor::Dataset<Rating>& ratings) {
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      for (int k = 0; k < K; ++k) {
        U.set_value(r.user, k, U.get_value(r.user, k) * 0.5 + r.value * (k + 1));
        V.set_value(r.item, k, V.get_value(r.item, k) * 0.25 + r.user);
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
  Matrix p(users, kFactors);
  Matrix q(items, kFactors);
  Svd svd{&p, &q, kFactors};
  Pair pair(users, items, kFactors);
  Matrix fp(users, kFactors);
  Matrix fq(items, kFactors);
  fp.fill(1.0);
  fq.fill(2.0);
  FunkSvd funk(&fp, &fq, kFactors, snd::ratings());
  for (int it = 0; it < 3; ++it) {
    svd.epoch(ratings);
    decay(ratings, &p, q, kFactors);
    pair.epoch(ratings);
    funk.train_epoch();
  }
  snd::Hash h;
  p.hash_into(h);
  q.hash_into(h);
  pair.U.hash_into(h);
  pair.V.hash_into(h);
  fp.hash_into(h);
  fq.hash_into(h);
  h.records(ratings);
  h.print();
  return 0;
}
