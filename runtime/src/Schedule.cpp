#include "Schedule.h"

#include "rotor/analysis/PlanVocabulary.h"

#include <algorithm>

namespace rotor::detail {

// rotor::codegen::Kind and Role (rotor/runtime/Codegen.h, what user code sees) are the plan
// vocabulary of rotor/analysis/PlanVocabulary.h: rotor-cc writes `Kind::<name>` with the
// analysis' names, so each codegen enumerator must have the value whose analysis name it spells.
namespace {

constexpr bool same_text(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

template <class Codegen, class Analysis> constexpr bool spelled(Codegen e, const char* name) {
  return same_text(analysis::to_string(static_cast<Analysis>(e)), name);
}

#define ROTOR_SAME_KIND(k)                                                                         \
  static_assert(spelled<codegen::Kind, analysis::PlanKind>(codegen::Kind::k, #k),                  \
                "codegen::Kind::" #k " differs from analysis::PlanKind")
#define ROTOR_SAME_ROLE(r)                                                                         \
  static_assert(spelled<codegen::Role, analysis::ArrayRole>(codegen::Role::r, #r),                 \
                "codegen::Role::" #r " differs from analysis::ArrayRole")
ROTOR_SAME_KIND(independent);
ROTOR_SAME_KIND(one_d);
ROTOR_SAME_KIND(rotation);
ROTOR_SAME_KIND(wavefront);
ROTOR_SAME_KIND(unimodular);
ROTOR_SAME_KIND(data_parallel);
ROTOR_SAME_KIND(serial);
ROTOR_SAME_ROLE(partitioned);
ROTOR_SAME_ROLE(rotating);
ROTOR_SAME_ROLE(replicated);
ROTOR_SAME_ROLE(buffered);
ROTOR_SAME_ROLE(local);
#undef ROTOR_SAME_KIND
#undef ROTOR_SAME_ROLE
static_assert(analysis::plan_kinds.size() == static_cast<std::size_t>(codegen::Kind::serial) + 1,
              "a plan kind of the analysis has no codegen::Kind");
static_assert(analysis::array_roles.size() == static_cast<std::size_t>(codegen::Role::local) + 1,
              "an array role of the analysis has no codegen::Role");

} // namespace

const char* kind_name(codegen::Kind kind) {
  return analysis::to_string(static_cast<analysis::PlanKind>(kind));
}

int Schedule::coordinate(int cell, int j) const {
  for (int k = fields() - 1; k > j; --k) {
    cell /= blocks[k];
  }
  return cell % blocks[j];
}

int Schedule::cell_of(const int* coords) const {
  int c = 0;
  for (int j = 0; j < fields(); ++j) {
    c = c * blocks[j] + coords[j];
  }
  return c;
}

int Schedule::tiles_per_cell() const {
  int t = 1;
  for (int n : tiles) {
    t *= n;
  }
  return t;
}

int Schedule::block_of(int j, std::int64_t v) const {
  const std::int64_t rel = v - key_min[j];
  if (rel < 0 || rel >= bounds[j].extent()) {
    return -1;
  }
  return bounds[j].block_of(rel);
}

Schedule make_schedule(codegen::Kind kind, const std::vector<int>& field_keys, int workers,
                       int threads) {
  Schedule s;
  s.kind = kind;
  s.workers = workers;
  s.threads = threads;
  s.field_keys = field_keys;
  const int f = static_cast<int>(field_keys.size());
  const int w = workers;
  switch (kind) {
  case codegen::Kind::rotation: {
    if (f == 2 && w > 1) {
      // 2W blocks of the rotating field: worker w runs block (2w + p) mod 2W at step p, so a
      // block rests one step between workers and its transfer overlaps a whole step's compute
      s.blocks = {w, 2 * w};
      int coords[2];
      for (int p = 0; p < 2 * w; ++p) {
        std::vector<int> row(w);
        for (int worker = 0; worker < w; ++worker) {
          coords[0] = worker;
          coords[1] = (2 * worker + p) % (2 * w);
          row[worker] = s.cell_of(coords);
        }
        s.steps.push_back(row);
      }
      break;
    }
    s.blocks.assign(f, w);
    int rotating = std::max(0, f - 1);
    int step_count = 1;
    for (int k = 0; k < rotating; ++k) {
      step_count *= w;
    }
    std::vector<int> coords(f);
    for (int p = 0; p < step_count; ++p) {
      std::vector<int> row(w, -1);
      for (int worker = 0; worker < w; ++worker) {
        coords[0] = worker;
        int rest = p;
        for (int k = f - 1; k >= 1; --k) {
          coords[k] = (worker + rest % w) % w;
          rest /= w;
        }
        row[worker] = s.cell_of(coords.data());
      }
      s.steps.push_back(row);
    }
    break;
  }
  case codegen::Kind::wavefront: {
    // rows of blocks stay with a worker; the second field is cut finer so the pipeline fills
    s.blocks.assign(f, 1);
    if (f >= 1) {
      s.blocks[0] = w;
    }
    if (f >= 2) {
      s.blocks[1] = w == 1 ? 1 : 2 * w;
    }
    const int m = f >= 2 ? s.blocks[1] : 1;
    std::vector<int> coords(f, 0);
    for (int d = 0; d < w + m - 1; ++d) {
      std::vector<int> row(w, -1);
      for (int worker = 0; worker < w; ++worker) {
        int b = d - worker;
        if (b < 0 || b >= m) {
          continue;
        }
        coords[0] = worker;
        if (f >= 2) {
          coords[1] = b;
        }
        row[worker] = s.cell_of(coords.data());
      }
      s.steps.push_back(row);
    }
    break;
  }
  default: {
    // one step; cell i belongs to worker i (one_d: blocks of the first field; independent and
    // data_parallel: blocks of the first field if any, else shares of the records)
    s.blocks.assign(f, 1);
    if (f >= 1) {
      s.blocks[0] = w;
    }
    std::vector<int> row(w);
    for (int worker = 0; worker < w; ++worker) {
      row[worker] = worker;
    }
    s.steps.push_back(row);
    break;
  }
  }
  s.tiles.assign(static_cast<std::size_t>(f), 1);
  s.cells = 1;
  for (int b : s.blocks) {
    s.cells *= b;
  }
  if (f == 0) {
    s.cells = w;
  }
  s.cell_worker.resize(s.cells);
  for (int c = 0; c < s.cells; ++c) {
    s.cell_worker[c] = f == 0 ? c : s.coordinate(c, 0);
  }
  return s;
}

} // namespace rotor::detail
