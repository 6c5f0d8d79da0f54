#pragma once
// Private: one loop's --explain content, shared by the text and HTML reports.

#include "ExplainSource.h"
#include "rotor/frontend/Frontend.h"

#include <string>
#include <vector>

namespace rotor::frontend::detail {

struct ArrayReport {
  std::string name;
  std::string role;     ///< contract §3 role
  std::string sentence; ///< "H rotates by item: its rows are indexed by item; ..."
};

struct BlockerReport {
  std::string what;        ///< the escape or the conflicting accesses, in words
  std::string where;       ///< "lda.cpp:11:5" (may be empty)
  int line = 0;            ///< 0 when unknown
  int col = 0;             ///< 0 when unknown
  std::string source_line; ///< the line it is on (empty when the file cannot be read)
};

struct LoopReport {
  std::string file;
  int line = 0;
  std::string header;   ///< "loop over a Dataset with key fields (user, item)"
  std::string plan;     ///< "rotation by user, item"
  std::string sentence; ///< the plan in one sentence
  std::vector<ArrayReport> arrays;
  std::vector<std::string> reductions;
  std::vector<std::string> dependences; ///< "H (*, 0)", distinct
  std::vector<std::string> notes;
  std::vector<BlockerReport> blockers;  ///< serial loops only
  std::vector<std::string> suggestions; ///< serial loops only
  int first_line = 0;                   ///< of `source` (the pragma and the loop), 0 if unknown
  std::vector<std::string> source;
};

LoopReport make_report(const LoopResult& loop, SourceCache& sources);

} // namespace rotor::frontend::detail
