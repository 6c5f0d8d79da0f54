// Traps for raw pointer tables (issue 16, item 1): each loop must run serially (or, where the
// plan is parallel, the runtime must see the overlap and run it serially on the table itself).
// - `aliased`: two rows of an `int**` table are one allocation (nw[1] == nw[0]); the analysis
//   plans by word, the staged copy would lose one word's writes: run_loop must run it serially.
// - `into_vector`: the rows of an `int**` table are rows of a std::vector the loop also writes.
// - `conditional`: the only write is under a condition, so the rows the serial loop touches are
//   not the rows the keys name (no extent can be bounded).
// - `unbounded_column`: nw[word][topic]: the column is data, not a loop bound (no row length).
// - `helper`: the pointer passed to a helper that writes through it.
#include "soundness.h"

constexpr std::int64_t P = 1000003;
constexpr int K = 4;

static void aliased(rotor::Dataset<Token>& tokens, int** nw) {
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    for (int k = 0; k < K; ++k) {
      nw[t.word][k] = static_cast<int>((nw[t.word][k] * 3 + t.doc + k) % P);
    }
  }
}

static void shared_rows(rotor::Dataset<Rating>& ratings, int** rows, std::vector<int>& flat) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int k = 0; k < K; ++k) {
      rows[r.item][k] = static_cast<int>((rows[r.item][k] * 5 + r.user) % P);
      flat[r.user * K + k] = static_cast<int>((flat[r.user * K + k] * 7 + r.item) % P);
    }
  }
}

static void conditional(rotor::Dataset<Rating>& ratings, std::int64_t* bias) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    if (r.user % 2 == 0) {
      bias[r.user] = (bias[r.user] * 3 + r.item) % P;
    }
  }
}

static void unbounded_column(rotor::Dataset<Token>& tokens, int** nw) {
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    nw[t.word][t.topic % K] = static_cast<int>((nw[t.word][t.topic % K] * 3 + t.doc) % P);
  }
}

static void bump(std::int64_t* b, int i) {
  b[i] = (b[i] * 11 + i) % P;
}

static void helper(rotor::Dataset<Rating>& ratings, std::int64_t* bias) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    bump(bias, r.item);
  }
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Token> tokens(snd::tokens());
  rotor::Dataset<Rating> ratings(snd::ratings());
  const int words = static_cast<int>(tokens.extent(&Token::word));
  const int users = static_cast<int>(ratings.extent(&Rating::user));
  const int items = static_cast<int>(ratings.extent(&Rating::item));
  std::vector<int> storage(static_cast<std::size_t>(words) * K, 1);
  std::vector<int*> nw(static_cast<std::size_t>(words));
  for (int w = 0; w < words; ++w) {
    nw[static_cast<std::size_t>(w)] = storage.data() + (w == 1 ? 0 : w) * K; // row 1 is row 0
  }
  std::vector<int> flat(static_cast<std::size_t>(std::max(users, items)) * K, 2);
  std::vector<int*> rows(static_cast<std::size_t>(items));
  for (int i = 0; i < items; ++i) {
    rows[static_cast<std::size_t>(i)] = flat.data() + i * K; // the rows are flat's rows
  }
  std::vector<std::int64_t> bias(static_cast<std::size_t>(std::max(users, items)), 1);
  for (int it = 0; it < 3; ++it) {
    aliased(tokens, nw.data());
    shared_rows(ratings, rows.data(), flat);
    conditional(ratings, bias.data());
    unbounded_column(tokens, nw.data());
    helper(ratings, bias.data());
  }
  snd::Hash h;
  h << storage << flat << bias;
  h.records(tokens);
  h.records(ratings);
  h.print();
  return 0;
}
