// Brute force: concrete instances, the plan's blocks and steps, and every pair of iterations.

#include "rotor/analysis/SoundnessCheck.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

namespace rotor::analysis {
namespace {

using Index = std::optional<std::int64_t>; // nullopt: the whole dimension
using Touch = std::vector<Index>;

std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

std::string keys_text(const std::vector<std::int64_t>& k) {
  std::string s = "(";
  for (std::size_t i = 0; i < k.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(k[i]);
  }
  return s + ")";
}

/// One concrete instance: the iterations' keys and what each access touches in each iteration.
struct Instance {
  std::vector<std::vector<std::int64_t>> keys;
  std::map<std::string, std::int64_t> symbols;
  std::vector<std::vector<Touch>> touches; // [iteration][access]

  std::int64_t value(const Offset& o) const {
    if (o.symbol.empty()) {
      return o.value;
    }
    const bool negated = o.symbol[0] == '-';
    const std::int64_t s = symbols.at(negated ? o.symbol.substr(1) : o.symbol);
    return o.value + (negated ? -s : s);
  }
};

void collect_symbol(const Offset& o, std::map<std::string, std::int64_t>& symbols,
                    std::mt19937_64& rng) {
  if (!o.symbol.empty()) {
    const std::string name = o.symbol[0] == '-' ? o.symbol.substr(1) : o.symbol;
    if (!symbols.count(name)) {
      symbols[name] = uniform(rng, -2, 2);
    }
  }
}

Instance make_instance(const LoopModel& m, std::mt19937_64& rng, const CheckOptions& opt) {
  Instance in;
  const std::size_t n = m.fields.size();
  if (m.space == SpaceKind::dataset) {
    const std::int64_t records = uniform(rng, 1, opt.max_records);
    const std::int64_t range = uniform(rng, 1, opt.max_key);
    for (std::int64_t r = 0; r < records; ++r) {
      std::vector<std::int64_t> k(n);
      for (auto& v : k) {
        v = uniform(rng, 0, range - 1);
      }
      in.keys.push_back(std::move(k));
    }
  } else {
    const std::int64_t max_extent = n == 1 ? 12 : n == 2 ? 5 : 3;
    std::vector<std::int64_t> extent(n);
    for (auto& e : extent) {
      e = uniform(rng, 1, max_extent);
    }
    std::vector<std::int64_t> point(n, 0);
    while (n > 0) {
      in.keys.push_back(point);
      std::size_t d = n;
      while (d > 0 && ++point[d - 1] == extent[d - 1]) {
        point[d - 1] = 0;
        --d;
      }
      if (d == 0) {
        break;
      }
    }
    if (n == 0) {
      in.keys.push_back({});
    }
  }
  for (const Access& a : m.accesses) {
    for (const Subscript& s : a.subscripts) {
      collect_symbol(s.offset, in.symbols, rng);
    }
  }
  for (const auto& k : in.keys) {
    std::vector<Touch> per_access;
    for (const Access& a : m.accesses) {
      Touch t;
      for (const Subscript& s : a.subscripts) {
        switch (s.kind) {
        case Subscript::Kind::key:
          t.push_back(k[static_cast<std::size_t>(s.field)] + in.value(s.offset));
          break;
        case Subscript::Kind::constant:
          t.push_back(in.value(s.offset));
          break;
        case Subscript::Kind::whole:
          t.push_back(std::nullopt);
          break;
        case Subscript::Kind::unknown:
          t.push_back(uniform(rng, -2, 8));
          break;
        }
      }
      per_access.push_back(std::move(t));
    }
    in.touches.push_back(std::move(per_access));
  }
  return in;
}

bool overlap(const Touch& x, const Touch& y) {
  for (std::size_t d = 0; d < x.size() && d < y.size(); ++d) {
    if (x[d] && y[d] && *x[d] != *y[d]) {
      return false;
    }
  }
  return true;
}

/// Where the plan runs each iteration: its block and its step (blocks of one step run together;
/// steps run one after another; a block runs its iterations in key order).
struct Layout {
  std::vector<std::vector<std::int64_t>> block;
  std::vector<std::vector<std::int64_t>> step;
  std::vector<std::vector<std::int64_t>> pkeys; ///< per iteration, its block index per key
  PlanKind schedule = PlanKind::serial;         ///< the base schedule (unimodular: plan.base)
};

Layout lay_out(const LoopModel& m, const Plan& plan, const Instance& in, std::mt19937_64& rng,
               const CheckOptions& opt) {
  Layout lay;
  const std::size_t count = in.keys.size();
  const std::int64_t workers = uniform(rng, 2, opt.max_workers);
  lay.schedule = plan.kind == PlanKind::unimodular ? plan.base : plan.kind;
  std::vector<int> fields;
  for (const std::string& f : plan.fields) {
    fields.push_back(m.field_index(f));
  }
  // Partition keys per iteration: the plan's fields, or the skewed keys.
  std::vector<std::vector<std::int64_t>> pk(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (plan.kind == PlanKind::unimodular) {
      for (const auto& row : plan.matrix) {
        std::int64_t v = 0;
        for (std::size_t c = 0; c < row.size(); ++c) {
          v += row[c] * in.keys[i][static_cast<std::size_t>(fields[c])];
        }
        pk[i].push_back(v);
      }
    } else {
      for (int f : fields) {
        pk[i].push_back(in.keys[i][static_cast<std::size_t>(f)]);
      }
    }
  }
  // Contiguous blocks per key, with random boundaries (the runtime balances them by histogram).
  const std::size_t nkeys = pk.empty() ? 0 : pk[0].size();
  lay.pkeys.assign(count, std::vector<std::int64_t>(nkeys, 0));
  for (std::size_t r = 0; r < nkeys; ++r) {
    std::int64_t lo = pk[0][r], hi = pk[0][r];
    for (const auto& k : pk) {
      lo = std::min(lo, k[r]);
      hi = std::max(hi, k[r]);
    }
    std::vector<std::int64_t> cuts;
    for (std::int64_t c = 0; c + 1 < workers; ++c) {
      cuts.push_back(uniform(rng, lo, hi + 1));
    }
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t i = 0; i < count; ++i) {
      lay.pkeys[i][r] = std::upper_bound(cuts.begin(), cuts.end(), pk[i][r]) - cuts.begin();
    }
  }
  lay.block.resize(count);
  lay.step.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& b = lay.pkeys[i];
    switch (lay.schedule) {
    case PlanKind::independent:
    case PlanKind::data_parallel:
      lay.block[i] = {uniform(rng, 0, workers - 1)};
      break;
    case PlanKind::one_d:
      lay.block[i] = {b[0]};
      break;
    case PlanKind::rotation:
      lay.block[i] = b;
      for (std::size_t j = 1; j < b.size(); ++j) {
        lay.step[i].push_back(((b[j] - b[0]) % workers + workers) % workers);
      }
      break;
    case PlanKind::wavefront:
      lay.block[i] = {b[0], b[1]};
      lay.step[i] = {b[0] + b[1]};
      break;
    default:
      lay.block[i] = {0};
      break;
    }
  }
  return lay;
}

class Checker {
public:
  Checker(const LoopModel& m, const Plan& p, const Instance& in, const Layout& lay)
      : m_(m), p_(p), in_(in), lay_(lay) {}

  std::optional<std::string> run() {
    if (auto v = footprints()) {
      return v;
    }
    const std::size_t count = in_.keys.size();
    for (std::size_t p = 0; p < count; ++p) {
      for (std::size_t q = p + 1; q < count; ++q) {
        if (auto v = pair(p, q)) {
          return v;
        }
      }
    }
    return std::nullopt;
  }

private:
  std::string who(std::size_t i) const {
    return "iteration " + std::to_string(i) + " keys " + keys_text(in_.keys[i]);
  }

  const ArrayPlan* array_plan(const std::string& name) const {
    for (const ArrayPlan& a : p_.arrays) {
      if (a.name == name) {
        return &a;
      }
    }
    return nullptr;
  }

  std::optional<std::string> footprints() const {
    for (std::size_t i = 0; i < in_.keys.size(); ++i) {
      for (std::size_t a = 0; a < m_.accesses.size(); ++a) {
        const ArrayPlan* ap = array_plan(m_.accesses[a].array);
        if (!ap) {
          return "array '" + m_.accesses[a].array + "' has no role in the plan";
        }
        const Touch& t = in_.touches[i][a];
        for (std::size_t d = 0; d < ap->dims.size() && d < t.size(); ++d) {
          const DimFootprint& fp = ap->dims[d];
          if (fp.field < 0) {
            continue;
          }
          const std::int64_t key = in_.keys[i][static_cast<std::size_t>(fp.field)];
          if (!t[d] || *t[d] - key < in_.value(fp.lo) || *t[d] - key > in_.value(fp.hi)) {
            return "access " + std::to_string(a) + " of " + who(i) + " leaves the footprint of '" +
                   ap->name + "' in dimension " + std::to_string(d);
          }
        }
      }
    }
    return std::nullopt;
  }

  bool key_before(std::size_t p, std::size_t q) const {
    return in_.keys[p] < in_.keys[q] || (in_.keys[p] == in_.keys[q] && p < q);
  }

  /// The home key of an array whose role claims it follows one key's blocks strictly.
  std::optional<std::size_t> strict_home(const ArrayPlan& ap) const {
    if (ap.role != ArrayRole::partitioned && ap.role != ArrayRole::rotating) {
      return std::nullopt;
    }
    if (lay_.schedule != PlanKind::one_d && lay_.schedule != PlanKind::rotation) {
      return std::nullopt;
    }
    for (std::size_t r = 0; r < p_.fields.size(); ++r) {
      if (p_.fields[r] == ap.field) {
        return r;
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> pair(std::size_t p, std::size_t q) const {
    for (std::size_t a = 0; a < m_.accesses.size(); ++a) {
      for (std::size_t b = 0; b < m_.accesses.size(); ++b) {
        const Access& x = m_.accesses[a];
        const Access& y = m_.accesses[b];
        if (x.array != y.array || (!x.write && !y.write) || m_.is_buffered(x.array) ||
            !overlap(in_.touches[p][a], in_.touches[q][b])) {
          continue;
        }
        if (auto v = conflict(p, q, x.array)) {
          return *v + " (accesses " + std::to_string(a) + " and " + std::to_string(b) + ")";
        }
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> conflict(std::size_t p, std::size_t q,
                                      const std::string& array) const {
    const std::string both = who(p) + " and " + who(q) + " touch one element of '" + array + "'";
    if (p_.kind == PlanKind::serial) {
      return std::nullopt;
    }
    if (lay_.step[p] == lay_.step[q] && lay_.block[p] != lay_.block[q]) {
      return both + " but run concurrently";
    }
    if (m_.ordered) {
      const std::size_t first = key_before(p, q) ? p : q;
      const std::size_t second = first == p ? q : p;
      if (lay_.step[first] > lay_.step[second]) {
        return both + " but run against key order";
      }
    }
    const ArrayPlan* ap = array_plan(array);
    if (ap && ap->role == ArrayRole::local) {
      return both + " but the array is local";
    }
    if (ap) {
      if (auto r = strict_home(*ap); r && lay_.pkeys[p][*r] != lay_.pkeys[q][*r]) {
        return both + " from different blocks of " + ap->field + ", which the array follows";
      }
    }
    return std::nullopt;
  }

  const LoopModel& m_;
  const Plan& p_;
  const Instance& in_;
  const Layout& lay_;
};

} // namespace

CheckResult check_plan(const LoopModel& model, const Plan& plan, std::uint64_t seed,
                       const CheckOptions& options) {
  CheckResult result;
  if (!validate_loop_model(model).empty()) {
    result.ok = plan.kind == PlanKind::serial;
    if (!result.ok) {
      result.violation = "an invalid model got a parallel plan";
    }
    return result;
  }
  std::mt19937_64 rng(seed);
  for (int k = 0; k < options.instances; ++k) {
    const Instance in = make_instance(model, rng, options);
    const Layout lay = lay_out(model, plan, in, rng, options);
    if (auto v = Checker(model, plan, in, lay).run()) {
      std::ostringstream out;
      out << to_string(plan.kind) << " plan: " << *v;
      if (!in.symbols.empty()) {
        out << "; symbols";
        for (const auto& [name, value] : in.symbols) {
          out << " " << name << "=" << value;
        }
      }
      result.ok = false;
      result.violation = out.str();
      return result;
    }
  }
  return result;
}

} // namespace rotor::analysis
