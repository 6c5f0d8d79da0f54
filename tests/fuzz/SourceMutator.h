#pragma once
/// \file
/// A seeded mutator of C++ sources for fuzzing the frontend: token-level edits aimed at the
/// annotated loops (swap identifiers, numbers and operators, delete or duplicate tokens and lines,
/// insert C++ snippets and pragma clauses, splice lines from other seeds), rarely a byte flip.
/// The same seed and inputs give the same mutants.
///
/// \code
///   rotor_fuzz::SourceMutator m({{"mf.cpp", text}}, 42);
///   rotor_fuzz::Mutant x = m.next();   // x.text: the mutated file; x.edits: what was done
/// \endcode

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace rotor_fuzz {

struct SeedSource {
  std::string path; ///< where it came from (relative includes resolve next to it)
  std::string text;
};

struct Mutant {
  int seed = 0;      ///< index into the seeds
  std::string text;  ///< the mutated source
  std::string edits; ///< the edits applied, one per line, for the crash report
};

/// Splits C++ text into tokens (identifiers, numbers, operators, whitespace, other characters);
/// concatenating the tokens gives the text back.
std::vector<std::string> tokenize(const std::string& text);

class SourceMutator {
public:
  SourceMutator(std::vector<SeedSource> seeds, std::uint64_t seed);

  /// One mutant: a random seed with 1, 2 or 4 random edits.
  Mutant next();

  const std::vector<SeedSource>& seeds() const { return seeds_; }

private:
  std::string mutate_once(const std::string& text, std::string& edit);
  std::size_t pick_token(const std::vector<std::string>& tokens);

  std::vector<SeedSource> seeds_;
  std::mt19937_64 rng_;
};

} // namespace rotor_fuzz
