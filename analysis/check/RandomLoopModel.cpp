#include "rotor/analysis/SoundnessCheck.h"

namespace rotor::analysis {
namespace {

int uniform(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

bool chance(std::mt19937_64& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

Offset random_offset(std::mt19937_64& rng) {
  const int r = uniform(rng, 0, 19);
  if (r < 10) {
    return {};
  }
  if (r < 17) {
    return {uniform(rng, -2, 2), ""};
  }
  static const char* symbols[] = {"s", "t", "-s"};
  return {uniform(rng, -1, 1), symbols[uniform(rng, 0, 2)]};
}

Subscript random_subscript(std::mt19937_64& rng, int nfields) {
  const int r = uniform(rng, 0, 99);
  if (r < 72) {
    return Subscript::key(uniform(rng, 0, nfields - 1), random_offset(rng));
  }
  if (r < 82) {
    static const char* symbols[] = {"", "", "c", "d"};
    return Subscript::constant({uniform(rng, 0, 2), symbols[uniform(rng, 0, 3)]});
  }
  if (r < 94) {
    return Subscript::whole();
  }
  return Subscript::unknown("?");
}

} // namespace

LoopModel random_loop_model(std::mt19937_64& rng) {
  LoopModel m;
  m.loc = {"random.cpp", 1, 0};
  const int nfields = uniform(rng, 1, 3);
  m.space = chance(rng, 0.6) ? SpaceKind::dataset : SpaceKind::index_space;
  static const char* names[] = {"a", "b", "c3"};
  for (int f = 0; f < nfields; ++f) {
    m.fields.push_back(m.space == SpaceKind::dataset ? names[f] : "i" + std::to_string(f));
  }
  m.ordered = chance(rng, 0.3);
  const int narrays = uniform(rng, 1, 3);
  for (int a = 0; a < narrays; ++a) {
    m.arrays.push_back({std::string(1, static_cast<char>('A' + a)), uniform(rng, 1, 2), "float"});
    if (chance(rng, 0.12)) {
      m.buffered.push_back(m.arrays.back().name);
    }
  }
  // Each array has a usual subscript per dimension (as real loops index an array the same way
  // in most places); accesses mostly follow it, sometimes shifted, sometimes anything.
  std::vector<std::vector<Subscript>> usual;
  for (const ArrayDecl& decl : m.arrays) {
    std::vector<Subscript> dims;
    for (int d = 0; d < decl.rank; ++d) {
      dims.push_back(random_subscript(rng, nfields));
      if (dims.back().kind == Subscript::Kind::key) {
        dims.back().offset = {};
      }
    }
    usual.push_back(std::move(dims));
  }
  const int naccesses = uniform(rng, 1, 5);
  for (int i = 0; i < naccesses; ++i) {
    const int which = uniform(rng, 0, narrays - 1);
    const ArrayDecl& decl = m.arrays[static_cast<std::size_t>(which)];
    Access a;
    a.array = decl.name;
    a.write = chance(rng, 0.5);
    a.loc = {"random.cpp", 2 + i, 0};
    for (int d = 0; d < decl.rank; ++d) {
      Subscript s = usual[static_cast<std::size_t>(which)][static_cast<std::size_t>(d)];
      const int r = uniform(rng, 0, 9);
      if (r < 3 && s.kind == Subscript::Kind::key) {
        s.offset = random_offset(rng);
      } else if (r == 3) {
        s = random_subscript(rng, nfields);
      }
      a.subscripts.push_back(std::move(s));
    }
    m.accesses.push_back(std::move(a));
  }
  if (chance(rng, 0.2)) {
    m.reductions.push_back({"sum", "+", {"random.cpp", 9, 0}});
  }
  if (chance(rng, 0.02)) {
    m.escapes.push_back({Escape::Kind::unknown_call, "f()", {"random.cpp", 10, 0}});
  }
  return m;
}

LoopModel random_stencil_model(std::mt19937_64& rng) {
  LoopModel m;
  m.loc = {"stencil.cpp", 1, 0};
  m.space = SpaceKind::index_space;
  m.fields = {"i0", "i1"};
  m.ordered = chance(rng, 0.5);
  const int narrays = uniform(rng, 1, 2);
  for (int a = 0; a < narrays; ++a) {
    m.arrays.push_back({std::string(1, static_cast<char>('A' + a)), 2, "double"});
  }
  const int naccesses = uniform(rng, 1, 4);
  for (int i = 0; i < naccesses; ++i) {
    Access a;
    a.array = m.arrays[static_cast<std::size_t>(uniform(rng, 0, narrays - 1))].name;
    a.write = i == 0 || chance(rng, 0.3);
    a.loc = {"stencil.cpp", 2 + i, 0};
    for (int d = 0; d < 2; ++d) {
      a.subscripts.push_back(Subscript::key(d, {i == 0 ? 0 : uniform(rng, -1, 1), ""}));
    }
    m.accesses.push_back(std::move(a));
  }
  return m;
}

} // namespace rotor::analysis
