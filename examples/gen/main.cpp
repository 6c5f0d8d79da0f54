// rotor-gen: deterministic synthetic data for the examples and benchmarks.
//
//   rotor-gen ratings --preset 10m --out train.csv --test-out test.csv [--seed 1]
//   rotor-gen ratings --users 1000 --items 500 --ratings 20000 --out r.csv
//   rotor-gen lda --documents 18846 --vocabulary 19976 --topics 20 --out docword.synth.txt

#include "CorpusGenerator.h"
#include "RatingsGenerator.h"

#include "../common/Flags.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

namespace {

const char* const k_usage =
    "ratings|lda [flags]\n"
    "  ratings: --out FILE [--test-out FILE] [--test-fraction 0.1 if --test-out]\n"
    "           [--preset 1m|10m|netflix] [--users N] [--items N] [--ratings N] [--rank 10]\n"
    "           [--user-exponent 0.5] [--item-exponent 0.6] [--mean 3.6] [--signal 0.9]\n"
    "           [--noise 0.5] [--real] [--no-shuffle] [--format csv|tsv|space] [--header]\n"
    "           [--seed 1]\n"
    "  lda:     --out DOCWORD [--vocab-out FILE] [--documents 1000] [--vocabulary 5000]\n"
    "           [--topics 20] [--length 100] [--alpha 0.1] [--word-shape 0.1] [--seed 1]";

char delimiter_of(rotor::examples::Flags& flags) {
  const std::string format = flags.str("format", "csv");
  if (format == "csv") {
    return ',';
  }
  if (format == "tsv") {
    return '\t';
  }
  if (format == "space") {
    return ' ';
  }
  flags.fail("--format: expected csv, tsv or space, got '" + format + "'");
}

int run_ratings(rotor::examples::Flags& flags) {
  rotor::gen::RatingsSpec spec;
  if (flags.has("preset")) {
    try {
      spec = rotor::gen::ratings_preset(flags.str("preset", ""));
    } catch (const std::exception& e) {
      flags.fail(e.what());
    }
  }
  spec.users = flags.integer("users", spec.users);
  spec.items = flags.integer("items", spec.items);
  spec.ratings = flags.integer("ratings", spec.ratings);
  spec.rank = static_cast<int>(flags.integer("rank", spec.rank));
  spec.user_exponent = flags.real("user-exponent", spec.user_exponent);
  spec.item_exponent = flags.real("item-exponent", spec.item_exponent);
  spec.mean = flags.real("mean", spec.mean);
  spec.signal_stddev = flags.real("signal", spec.signal_stddev);
  spec.noise_stddev = flags.real("noise", spec.noise_stddev);
  spec.integer_ratings = !flags.flag("real");
  spec.shuffle = !flags.flag("no-shuffle");
  spec.delimiter = delimiter_of(flags);
  spec.header = flags.flag("header");
  spec.seed = static_cast<std::uint64_t>(flags.integer("seed", 1));
  const std::string out = flags.required("out");
  const std::string test_out = flags.str("test-out", "");
  spec.test_fraction = flags.real("test-fraction", test_out.empty() ? 0.0 : 0.1);
  flags.finish();

  const auto t0 = std::chrono::steady_clock::now();
  const auto s = rotor::gen::generate_ratings(spec, out, test_out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rotor-gen: ratings users=%lld items=%lld train=%lld test=%lld "
              "max_user_degree=%lld max_item_degree=%lld seconds=%.1f\n",
              static_cast<long long>(spec.users), static_cast<long long>(spec.items),
              static_cast<long long>(s.train), static_cast<long long>(s.test),
              static_cast<long long>(s.max_user_degree), static_cast<long long>(s.max_item_degree),
              seconds);
  return 0;
}

int run_lda(rotor::examples::Flags& flags) {
  rotor::gen::CorpusSpec spec;
  spec.documents = flags.integer("documents", spec.documents);
  spec.vocabulary = flags.integer("vocabulary", spec.vocabulary);
  spec.topics = static_cast<int>(flags.integer("topics", spec.topics));
  spec.mean_length = flags.real("length", spec.mean_length);
  spec.alpha = flags.real("alpha", spec.alpha);
  spec.word_shape = flags.real("word-shape", spec.word_shape);
  spec.seed = static_cast<std::uint64_t>(flags.integer("seed", 1));
  const std::string out = flags.required("out");
  const std::string vocab_out = flags.str("vocab-out", "");
  flags.finish();

  const auto t0 = std::chrono::steady_clock::now();
  const auto s = rotor::gen::generate_corpus(spec, out, vocab_out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rotor-gen: lda documents=%lld vocabulary=%lld nonzeros=%lld tokens=%lld "
              "seconds=%.1f\n",
              static_cast<long long>(spec.documents), static_cast<long long>(spec.vocabulary),
              static_cast<long long>(s.nonzeros), static_cast<long long>(s.tokens), seconds);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const bool has_kind = argc > 1 && argv[1][0] != '-';
  const std::string kind = has_kind ? argv[1] : "";
  rotor::examples::Flags flags(has_kind ? argc - 1 : argc, has_kind ? argv + 1 : argv,
                               "rotor-gen" + (has_kind ? " " + kind : ""), k_usage);
  try {
    if (kind == "ratings") {
      return run_ratings(flags);
    }
    if (kind == "lda") {
      return run_lda(flags);
    }
    flags.fail(kind.empty() ? "missing kind (ratings or lda)" : "unknown kind '" + kind + "'");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rotor-gen: error: %s\n", e.what());
    return 1;
  }
}
