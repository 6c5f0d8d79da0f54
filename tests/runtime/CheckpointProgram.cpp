// A training program for the checkpoint tests: each epoch runs an SGD-MF rotation loop (W, H)
// and an LDA-shaped rotation loop that writes its records (topics) and counts (dt, wt); at the
// end an independent loop copies every token's topic into an array, and rank 0 writes W, H, dt,
// wt and the topics to OUT.h5. User code is unchanged by checkpointing: the --rotor-checkpoint
// flags do everything.
// Usage: runtime_checkpoint_program EPOCHS OUT.h5 [DIE_AFTER_EPOCH] [--rotor-...]
//   DIE_AFTER_EPOCH: rank 0 SIGKILLs itself after that epoch (its checkpoint is written).

#include "LoopTestUtil.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace rotor;
using namespace rotor::test;
using codegen::Kind;
using codegen::Role;

namespace {

struct Word {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
  std::int32_t id;
};

constexpr int kUsers = 60, kItems = 45, kRank = 6;
constexpr int kDocs = 30, kWords = 40, kTopics = 5, kTokens = 3000;

} // namespace

int main(int argc, char** argv) {
  Session session(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s EPOCHS OUT.h5 [DIE_AFTER_EPOCH]\n", argv[0]);
    return 2;
  }
  const int epochs = std::atoi(argv[1]);
  const std::string out = argv[2];
  const int die_after = argc > 3 ? std::atoi(argv[3]) : -1;

  Dataset<Rating> ratings(make_ratings(5000, kUsers, kItems, 3));
  DistArray<float, 2> W({kUsers, kRank}), H({kItems, kRank});
  W.fill_normal(0.f, 0.1f, 1);
  H.fill_normal(0.f, 0.1f, 2);

  std::vector<Word> words;
  for (int k = 0; k < kTokens; ++k) {
    std::uint64_t h = mix(77u * 1000003u + static_cast<std::uint64_t>(k));
    words.push_back({static_cast<std::int32_t>(h % kDocs),
                     static_cast<std::int32_t>((h >> 16) % kWords),
                     static_cast<std::int32_t>((h >> 30) % kTopics), k});
  }
  DistArray<std::int32_t, 2> dt({kDocs, kTopics}), wt({kWords, kTopics});
  for (const Word& t : words) {
    ++dt(t.doc, t.topic);
    ++wt(t.word, t.topic);
  }
  Dataset<Word> tokens(words);

  auto mf = spec(Kind::rotation, {0, 1},
                 {array("W", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                  array("H", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  auto lda = spec(Kind::rotation, {0, 1},
                  {array("dt", Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}),
                   array("wt", Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}})});
  lda.writes_records = true;
  mf.line = __LINE__; // distinct loop sites, as rotor-cc emits them
  lda.line = __LINE__;
  std::tuple<> none;

  for (int epoch = 0; epoch < epochs; ++epoch) {
    const float lr = 0.05f / static_cast<float>(1 + epoch); // user state derived from the epoch
    codegen::run_loop(mf, ratings, codegen::keys(&Rating::user, &Rating::item), std::tie(W, H),
                      none, [&](const Rating& r, auto& W, auto& H) {
                        float err = r.value - W.row(r.user).dot(H.row(r.item));
                        W.row(r.user) += lr * err * H.row(r.item);
                        H.row(r.item) += lr * err * W.row(r.user);
                      });
    codegen::run_loop(lda, tokens, codegen::keys(&Word::doc, &Word::word), std::tie(dt, wt), none,
                      [&](Word& t, auto& dt, auto& wt) {
                        --dt(t.doc, t.topic);
                        --wt(t.word, t.topic);
                        int best = 0;
                        std::int64_t best_score = -1;
                        for (int z = 0; z < kTopics; ++z) {
                          std::int64_t score =
                              (dt(t.doc, z) + 1) * (wt(t.word, z) + 2) +
                              static_cast<std::int64_t>(mix(t.id * 131u + z + epoch) % 7);
                          if (score > best_score) {
                            best_score = score;
                            best = z;
                          }
                        }
                        t.topic = best;
                        ++dt(t.doc, t.topic);
                        ++wt(t.word, t.topic);
                      });
    session.out() << "epoch " << epoch << std::endl;
    if (epoch == die_after && session.rank() == 0) {
      std::raise(SIGKILL);
    }
  }

  DistArray<std::int32_t, 1> topic_of({kTokens});
  auto copy = spec(Kind::independent, {}, {array("topic_of", Role::local, 2, true, {{2, 0, 0}})});
  codegen::run_loop(copy, tokens, codegen::keys(&Word::doc, &Word::word, &Word::id),
                    std::tie(topic_of), none,
                    [&](const Word& t, auto& topic_of) { topic_of(t.id) = t.topic; });
  if (session.is_root()) {
    W.save_hdf5(out, "W");
    H.save_hdf5(out, "H");
    dt.save_hdf5(out, "dt");
    wt.save_hdf5(out, "wt");
    topic_of.save_hdf5(out, "topics");
  }
  return 0;
}
