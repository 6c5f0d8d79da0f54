// A ragged nest counted and keyed through a pointer chain (issue 16), as GibbsLDA++ writes it:
// `for (m < M) for (n < corpus->docs[m]->length) { w = corpus->docs[m]->words[n]; ... }`. The
// inspector reads each row's count and the row pointer `corpus->docs[m]->words` once a row,
// noting the row's words as one range (codegen::Inspection::ragged_rows), and run_loop checks
// that the loop writes none of what the chain reached. The plan rotates over m and the word.
#include "common.h"

#include <vector>

struct Document {
  int* words;
  int length;
};

struct Corpus {
  Document** docs;
};

struct Lda {
  Corpus* corpus = nullptr;
  int M = 0;
  int K = 8;
  std::vector<std::vector<int>> z, nw, nd;

  void sweep() {
/* #pragma rotor parallel_for */
    {
      static ::rotor::codegen::Inspection<2> rotor_inspection;
      ::rotor::codegen::ChainReads rotor_reads;
      const auto rotor_range = M;
      auto& rotor_iterations = rotor_inspection.ragged_rows(rotor_reads, rotor_range, [&](std::int64_t m) { return static_cast<std::int64_t>(rotor_reads.note((rotor_reads.note((rotor_reads.note((rotor_reads.note((this)->corpus))->docs))[m]))->length)); }, [&](std::int64_t m) { return rotor_reads.note((rotor_reads.note((rotor_reads.note((rotor_reads.note((this)->corpus))->docs))[m]))->words); });
      auto rotor_view_nd = ::rotor::codegen::stage_table(this->nd);
      auto rotor_view_nw = ::rotor::codegen::stage_table(this->nw);
      auto rotor_view_z = ::rotor::codegen::stage_table(this->z);
      ::rotor::codegen::run_loop(
        ::rotor::codegen::LoopSpec{
            "ragged_chain.cpp", 27, ::rotor::codegen::Kind::rotation,
            /*fields*/ {0, 1}, /*matrix*/ {}, /*base*/ ::rotor::codegen::Kind::serial,
            /*ordered*/ false, /*writes_records*/ false, ::rotor::codegen::Device::cpu,
            /*arrays*/ {
                {"z", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}},
                {"nw", ::rotor::codegen::Role::rotating, 1, true, {{1, 0, 0}, {-1, 0, 0}}},
                {"nd", ::rotor::codegen::Role::partitioned, 0, true, {{0, 0, 0}, {-1, 0, 0}}}},
            /*reductions*/ {}, /*reason*/ "", /*may_throw*/ false, /*views*/ {"nd", "nw", "z"}},
        rotor_iterations, ::rotor::codegen::iteration_keys<2>(),
        std::tie(rotor_view_z.array(), rotor_view_nw.array(), rotor_view_nd.array()), std::tie(),
        [&](const ::rotor::codegen::Iteration<2>& rotor_iteration, auto& rotor_table_z, auto& rotor_table_nw, auto& rotor_table_nd) { const int m = static_cast<int>(rotor_iteration.k0); (void)m; const int n = static_cast<int>(rotor_iteration.at); (void)n; auto z = ::rotor::codegen::staged_rows(rotor_view_z, rotor_table_z); auto nw = ::rotor::codegen::staged_rows(rotor_view_nw, rotor_table_nw); auto nd = ::rotor::codegen::staged_rows(rotor_view_nd, rotor_table_nd);
#line 29 "ragged_chain.cpp"
        const int w = corpus->docs[m]->words[n];
        const int t = z[m][n];
        nw[w][t] -= 1;
        nd[m][t] -= 1;
        const int new_t = (t + w + m) % K;
        nw[w][new_t] += 1;
        nd[m][new_t] += 1;
        z[m][n] = new_t;
      }); } if (::rotor::codegen::ChainReads::take_declined()) {
#line 27 "ragged_chain.cpp"
for (int m = 0; m < M; ++m) {
      for (int n = 0; n < corpus->docs[m]->length; ++n) {
        const int w = corpus->docs[m]->words[n];
        const int t = z[m][n];
        nw[w][t] -= 1;
        nd[m][t] -= 1;
        const int new_t = (t + w + m) % K;
        nw[w][new_t] += 1;
        nd[m][new_t] += 1;
        z[m][n] = new_t;
      }
    }; }
#line 38 "ragged_chain.cpp"
    
  }
};

// added by rotor-cc: the program was built by rotor-cc
extern "C" __attribute__((weak)) const int rotor_cc_built_program = 1;
