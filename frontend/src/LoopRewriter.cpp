#include "LoopRewriter.h"

#include "CopiedScalars.h"
#include "HelperClones.h"

#include "rotor/analysis/Format.h"

#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace rotor::frontend {

using namespace clang;
using analysis::join;

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string column_check_prefix(const LoweredLoop::ColumnCheck& c, const std::string& staged_view) {
  return std::string(c.whole_array ? "::rotor::codegen::checked_index("
                                   : "::rotor::codegen::checked_column(") +
         (staged_view.empty() ? c.table : staged_view) + ", ";
}

std::string column_check_suffix(const LoweredLoop::ColumnCheck& c) {
  return ", " + quoted(c.where) + ")";
}

namespace {

/// The row vector bound as model array `name`, or nullptr when `name` is a DistArray.
const LoweredLoop::RowVector* row_vector(const LoweredLoop& loop, const std::string& name) {
  for (const auto& rv : loop.row_vectors) {
    if (rv.name == name) {
      return &rv;
    }
  }
  return nullptr;
}

/// `rotor_view_` + this names the view of container `name`: a table of another object
/// (`this->p->m`) gets `this__p__m`.
std::string view_id(const std::string& name) {
  std::string id = name;
  for (char& c : id) {
    c = std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
  }
  return id;
}

/// False for a row vector the runtime does not get: a serial plan runs the body on the
/// container itself, as for any outside state (docs/design/containers.md).
bool is_bound(const LoweredLoop& loop, const analysis::Plan& plan, const std::string& name) {
  const LoweredLoop::RowVector* rv = row_vector(loop, name);
  return rv == nullptr || (plan.kind != analysis::PlanKind::serial && !rv->view.empty());
}

/// The declarations of the views of the bound row vectors, each followed by `separator`.
std::string row_vector_views(const LoweredLoop& loop, const analysis::Plan& plan,
                             const std::string& separator) {
  std::string out;
  for (const auto& rv : loop.row_vectors) {
    if (is_bound(loop, plan, rv.name)) {
      out += "auto rotor_view_" + view_id(rv.name) + " = " + rv.view + ";" + separator;
      if (rv.buffered) {
        out += "const std::size_t rotor_size_" + rv.name + " = " + rv.size + ";" + separator;
      }
    }
  }
  return out;
}

int field_index(const analysis::LoopModel& m, const std::string& name) {
  return m.field_index(name);
}

std::string source_text(const SourceManager& sm, const LangOptions& lo, SourceRange r) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(r), sm, lo).str();
}

/// True when only blanks follow `loc` (exclusive) up to the end of its line; `end` is set to
/// just past the newline.
bool rest_of_line_blank(const SourceManager& sm, SourceLocation loc, unsigned& length) {
  bool invalid = false;
  const char* p = sm.getCharacterData(loc, &invalid);
  if (invalid) {
    return false;
  }
  const char* q = p;
  while (*q == ' ' || *q == '\t' || *q == '\r') {
    ++q;
  }
  if (*q != '\n') {
    return false;
  }
  length = static_cast<unsigned>(q - p + 1);
  return true;
}

/// Replaces the characters [begin, end) by `text`.
void replace_chars(Rewriter& rw, SourceLocation begin, SourceLocation end,
                   const std::string& text) {
  const SourceManager& sm = rw.getSourceMgr();
  const unsigned length = sm.getFileOffset(end) - sm.getFileOffset(begin);
  rw.ReplaceText(begin, length, text);
}

} // namespace

std::string loop_spec_text(const LoweredLoop& loop, const analysis::Plan& plan,
                           const std::string& file_name, const std::string& indent) {
  const analysis::LoopModel& m = loop.model;
  std::ostringstream os;
  std::vector<std::string> fields;
  for (const std::string& f : plan.fields) {
    fields.push_back(std::to_string(field_index(m, f)));
  }
  std::vector<std::string> rows;
  for (const auto& row : plan.matrix) {
    std::vector<std::string> cells;
    for (std::int64_t v : row) {
      cells.push_back(std::to_string(v));
    }
    rows.push_back("{" + join(cells) + "}");
  }
  os << "::rotor::codegen::LoopSpec{\n"
     << indent << "    " << quoted(file_name) << ", " << m.loc.line
     << ", ::rotor::codegen::Kind::" << analysis::to_string(plan.kind) << ",\n"
     << indent << "    /*fields*/ {" << join(fields) << "}, /*matrix*/ {" << join(rows)
     << "}, /*base*/ ::rotor::codegen::Kind::" << analysis::to_string(plan.base) << ",\n"
     << indent << "    /*ordered*/ " << (m.ordered ? "true" : "false") << ", /*writes_records*/ "
     << (loop.writes_records && !loop.over_vector ? "true" : "false")
     << ", ::rotor::codegen::Device::" << (loop.gpu ? "gpu" : "cpu") << ",\n"
     << indent << "    /*arrays*/ {";
  std::vector<std::string> specs;
  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    if (!is_bound(loop, plan, m.arrays[i].name)) {
      continue;
    }
    const analysis::ArrayPlan* ap = nullptr;
    for (const auto& a : plan.arrays) {
      if (a.name == m.arrays[i].name) {
        ap = &a;
      }
    }
    analysis::ArrayPlan fallback;
    fallback.name = m.arrays[i].name;
    fallback.written = true;
    if (ap == nullptr) {
      ap = &fallback;
    }
    std::vector<std::string> dims;
    for (const auto& d : ap->dims) {
      dims.push_back("{" + std::to_string(d.field) + ", " +
                     analysis::offset_text(d.lo, analysis::OffsetStyle::cpp) + ", " +
                     analysis::offset_text(d.hi, analysis::OffsetStyle::cpp) + "}");
    }
    std::ostringstream spec;
    spec << "\n"
         << indent << "        {" << quoted(ap->name)
         << ", ::rotor::codegen::Role::" << analysis::to_string(ap->role) << ", "
         << field_index(m, ap->field) << ", " << (ap->written ? "true" : "false") << ", {"
         << join(dims) << "}}";
    specs.push_back(spec.str());
  }
  os << join(specs, ",");
  std::vector<std::string> reds;
  for (const std::string& r : loop.reductions) {
    reds.push_back(quoted(r));
  }
  std::vector<std::string> views;
  for (const auto& rv : loop.row_vectors) {
    if (is_bound(loop, plan, rv.name)) {
      views.push_back(quoted(rv.name));
    }
  }
  if (loop.over_vector && loop.writes_records) {
    views.push_back(quoted(loop.range)); // the body writes the vector's elements in place
  }
  os << "},\n"
     << indent << "    /*reductions*/ {" << join(reds) << "}, /*reason*/ "
     << quoted(plan.kind == analysis::PlanKind::serial ? plan.reason : "") << ", /*may_throw*/ "
     << (loop.may_throw ? "true" : "false");
  std::vector<std::string> private_state;
  for (const LoweredLoop::PrivateBinding& v : loop.privates) {
    if (v.reseed) {
      private_state.push_back(quoted(v.name));
    }
  }
  for (const std::string& g : loop.libc_generators) {
    private_state.push_back(quoted(g));
  }
  if (!views.empty() || !private_state.empty()) {
    os << ", /*views*/ {" << join(views) << "}";
  }
  if (!private_state.empty()) {
    os << ", /*private_state*/ {" << join(private_state) << "}";
  }
  os << "}";
  if (loop.memory_checks.empty() || plan.kind == analysis::PlanKind::serial) {
    return os.str();
  }
  std::vector<std::string> pairs;
  for (const auto& [read, written] : loop.memory_checks) {
    pairs.push_back("{::rotor::codegen::memory_of(" + read + "), ::rotor::codegen::memory_of(" +
                    written + ")}");
  }
  return "::rotor::codegen::unless_shared(" + os.str() + ",\n" + indent + "    {" + join(pairs) +
         "})";
}

namespace {

/// `::rotor::codegen::SparseCapable<positions>{}` when the plan buffers arrays and the body uses
/// each of them only by subscript, row or shape query (so a SparseBuffer can stand in for the
/// DistArray copy); empty otherwise.
std::string sparse_capable_text(const LoweredLoop& lowered, const analysis::Plan& plan) {
  if (plan.kind == analysis::PlanKind::serial) {
    return "";
  }
  const analysis::LoopModel& m = lowered.model;
  std::vector<std::string> positions;
  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    const std::string& name = m.arrays[i].name;
    const auto planned = std::find_if(plan.arrays.begin(), plan.arrays.end(),
                                      [&](const analysis::ArrayPlan& a) { return a.name == name; });
    if (planned == plan.arrays.end() || planned->role != analysis::ArrayRole::buffered) {
      continue;
    }
    if (std::find(lowered.used_whole.begin(), lowered.used_whole.end(), name) !=
        lowered.used_whole.end()) {
      return ""; // one instantiation with sparse buffers for every buffered array, or none
    }
    positions.push_back(std::to_string(i));
  }
  if (positions.empty()) {
    return "";
  }
  return "::rotor::codegen::SparseCapable<" + join(positions) + ">{}";
}

/// The per-worker copies of the loop's private variables (rotor/runtime/Private.h), declared
/// before the call: `::rotor::codegen::WorkerCopies<decltype(p)> rotor_private_p(p, false);`.
std::string private_copies(const LoweredLoop& lowered, const std::string& separator) {
  std::string out;
  for (const LoweredLoop::PrivateBinding& v : lowered.privates) {
    if (!v.length.empty()) { // a `T*` member: each worker's own elements
      out += "::rotor::codegen::PrivateArray<std::remove_pointer_t<decltype(" + v.expression +
             ")>> rotor_private_" + v.name + "(" + v.expression + ", " + v.length + ");" +
             separator;
      continue;
    }
    out += "::rotor::codegen::WorkerCopies<decltype(" + v.name + ")> rotor_private_" + v.name +
           "(" + v.name + ", " + (v.reseed ? "true" : "false") + ");" + separator;
  }
  for (const std::string& g : lowered.libc_generators) { // private(random) / private(rand)
    out += "::rotor::codegen::LibcPrivate rotor_private_libc_" + g +
           "(::rotor::codegen::LibcPrivate::" + g + "_k);" + separator;
  }
  return out;
}

/// Whether a device loop's body can be emitted as a `__host__ __device__` lambda (nvcc allows no
/// generic parameters there, so each parameter is typed through codegen/DeviceLoop.h's aliases):
/// a Dataset loop whose bound arrays are DistArrays named by plain identifiers and used only by
/// subscripts, rows and shape queries (an ArrayRef stands in for them; an array passed to a
/// helper or bound to a reference needs the DistArray: `used_whole`), without `break`, private
/// copies or container views. Other device loops keep the CPU body (they run on CPU workers,
/// as docs/user/gpu.md says).
bool device_body_possible(const LoweredLoop& lowered, const analysis::Plan& plan) {
  if (!lowered.gpu || plan.kind == analysis::PlanKind::serial || lowered.index_rank > 0 ||
      !lowered.bindings.empty() || !lowered.breaks.empty() || !lowered.privates.empty() ||
      !lowered.row_vectors.empty() || lowered.over_vector) {
    return false;
  }
  if (!lowered.used_whole.empty()) {
    return false;
  }
  for (const auto& a : lowered.model.arrays) {
    const bool identifier = std::all_of(a.name.begin(), a.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    });
    if (!identifier) {
      return false;
    }
  }
  return true;
}

/// The device body's record parameter: the loop variable as declared, or, where its type is
/// deduced (`const auto& r`), the dataset's record type named through decltype of the range.
std::string device_record_param(const std::string& declared, const std::string& range,
                                const std::string& name, bool is_const) {
  if (declared.find("auto") == std::string::npos) {
    return declared;
  }
  return std::string(is_const ? "const " : "") + "::rotor::codegen::DeviceRecord<decltype(" +
         range + ")>& " + name;
}

/// A ragged nest's inspector (LoweredLoop::ragged_index): the iterations are the pairs (i, n)
/// with n < the inner bound at i; the keys are functions of both indices.
std::string ragged_inspector_prelude(const LoweredLoop& lowered, const std::string& range,
                                     const std::string& separator) {
  const analysis::LoopModel& m = lowered.model;
  const std::string outer = "std::int64_t " + m.fields.front();
  const std::string inner = "std::int64_t " + lowered.ragged_index;
  std::string readers = ", [&](" + outer + ") { return static_cast<std::int64_t>(" +
                        lowered.ragged_bound_read + "); }";
  const bool by_rows = lowered.chain_reads && !lowered.key_rows.empty() &&
                       std::none_of(lowered.key_rows.begin(), lowered.key_rows.end(),
                                    [](const std::string& row) { return row.empty(); });
  if (by_rows) { // each key's row pointer once a row: `C[d]->g`
    for (const std::string& row : lowered.key_rows) {
      readers += ", [&](" + outer + ") { return " + row + "; }";
    }
  } else {
    for (const std::string& read : lowered.key_reads) {
      readers += ", [&](" + outer + ", " + inner + ") { (void)" + lowered.ragged_index +
                 "; return static_cast<std::int64_t>(" + read + "); }";
    }
  }
  const std::string reads =
      lowered.chain_reads ? "::rotor::codegen::ChainReads rotor_reads;" + separator : "";
  const std::string call = by_rows ? "rotor_inspection.ragged_rows(rotor_reads, rotor_range"
                                   : "rotor_inspection.ragged(rotor_range";
  return "static ::rotor::codegen::Inspection<" + std::to_string(m.fields.size()) +
         "> rotor_inspection;" + separator + reads + "const auto rotor_range = " + range + ";" +
         separator + "auto& rotor_iterations = " + call + readers + ");" + separator;
}

/// A ragged nest read through a pointer chain (LoweredLoop::chain_reads): after the call, the
/// loop as written, for when run_loop declined it (the loop writes what the chain reached).
std::string as_written_fallback(const LoweredLoop& lowered, const LoopSite& loop,
                                const SourceManager& sm, const std::string& file) {
  if (!lowered.chain_reads) {
    return "";
  }
  return " if (::rotor::codegen::ChainReads::take_declined()) {\n#line " +
         std::to_string(sm.getSpellingLineNumber(loop.for_loc)) + " " + file + "\n" +
         lowered.original_loop + "; }"; // `;`: a body statement's own ends past the range
}

/// A loop over a std::vector: the inspector's declarations before the call (the call site's
/// Inspection, the range bound once, the iteration dataset; rotor/runtime/Inspector.h).
std::string inspector_prelude(const LoweredLoop& lowered, const std::string& range,
                              const std::string& separator) {
  const analysis::LoopModel& m = lowered.model;
  std::string fields;
  if (!lowered.ragged_index.empty()) { // a ragged nest: each row's count, keys of (i, n)
    return ragged_inspector_prelude(lowered, range, separator);
  }
  if (lowered.int_range) { // the keys of iteration i, read through the index's name
    const std::string index = m.fields.front();
    for (const std::string& read : lowered.key_reads) {
      fields +=
          ", [&](std::int64_t " + index + ") { return static_cast<std::int64_t>(" + read + "); }";
    }
    return "static ::rotor::codegen::Inspection<" + std::to_string(m.fields.size()) +
           "> rotor_inspection;" + separator + "const auto rotor_range = " + range + ";" +
           separator + "auto& rotor_iterations = rotor_inspection.range(rotor_range" + fields +
           ");" + separator;
  }
  for (std::size_t k = 0; k < m.fields.size(); ++k) {
    const std::string& f = m.fields[k];
    if (static_cast<int>(k) == lowered.position_key) {
      fields += ", ::rotor::codegen::RecordPosition{}";
    } else {
      fields += f.find('.') == std::string::npos
                    ? ", &" + lowered.record_type + "::" + f
                    : ", [](const auto& rotor_record) { return rotor_record." + f + "; }";
    }
  }
  return "static ::rotor::codegen::Inspection<" + std::to_string(m.fields.size()) +
         "> rotor_inspection;" + separator + "auto&& rotor_range = " + range + ";" + separator +
         "auto& rotor_iterations = rotor_inspection.records(rotor_range" + fields + ");" +
         separator;
}

/// The body's first statement in a loop over a vector: the user's loop variable, declared as
/// written, names the iteration's element (a range-for), or the index is the iteration's
/// position (an index loop; read only, as the lowering checked).
std::string vector_loop_prologue(const LoopSite& loop, const SourceManager& sm,
                                 const LangOptions& lo) {
  const VarDecl* var = loop.var;
  const auto bind = [&](const VarDecl* v, const std::string& from) {
    const std::string type = v->getType().getUnqualifiedType().getAsString(PrintingPolicy(lo));
    return " const " + type + " " + v->getNameAsString() + " = static_cast<" + type + ">(" + from +
           "); (void)" + v->getNameAsString() + ";";
  };
  if (loop.inner != nullptr) { // a ragged nest: key 0 is the outer index, `at` the inner one
    return bind(var, "rotor_iteration.k0") + bind(loop.inner_var, "rotor_iteration.at");
  }
  if (loop.index_loop) {
    return bind(var, "rotor_iteration.at");
  }
  return " " + source_text(sm, lo, SourceRange(var->getBeginLoc(), var->getLocation())) +
         " = rotor_range[rotor_iteration.at];";
}

/// The host body's capture list: by reference, except the read-only arithmetic locals
/// CopiedScalars.h proves a copy may stand for (`&, lr, reg`), which then stay in registers.
std::string host_captures(const LoweredLoop& lowered, const analysis::Plan& plan,
                          const LoopSite& loop) {
  std::set<std::string> bound(lowered.reductions.begin(), lowered.reductions.end());
  bound.insert(lowered.bindings.begin(), lowered.bindings.end());
  bound.insert(lowered.unused_in_body.begin(), lowered.unused_in_body.end());
  for (const auto& a : lowered.model.arrays) {
    bound.insert(a.name);
  }
  for (const LoweredLoop::PrivateBinding& v : lowered.privates) {
    bound.insert(v.name);
  }
  if (loop.var != nullptr) {
    bound.insert(loop.var->getNameAsString());
  }
  std::string captures = "&";
  for (const VarDecl* v : copied_scalars(loop, bound, plan.kind != analysis::PlanKind::serial)) {
    captures += ", " + v->getNameAsString();
  }
  return captures;
}

} // namespace

bool runs_as_written(const LoweredLoop& lowered, const analysis::Plan& plan) {
  return lowered.over_vector && plan.kind == analysis::PlanKind::serial;
}

namespace {

/// The location just after the loop statement (after its body's `}` or `;`).
SourceLocation after_loop(const LoopSite& loop, const SourceManager& sm, const LangOptions& lo) {
  if (const auto* compound = dyn_cast<CompoundStmt>(loop.body)) {
    return compound->getRBracLoc().getLocWithOffset(1);
  }
  SourceLocation end = Lexer::getLocForEndOfToken(loop.body->getEndLoc(), 0, sm, lo);
  bool invalid = false;
  const char* p = sm.getCharacterData(end, &invalid);
  return !invalid && *p == ';' ? end.getLocWithOffset(1) : end;
}

/// A serial loop over a std::vector or an integer range stays as the user wrote it (its bound
/// is read each iteration, a body that resizes the vector through a pointer behaves as in the
/// original): `{ serial_loop_as_written(); for (...) ... }` starts the runtime there, as a
/// parallel loop would. The block keeps an unbraced `if (c) for (...)` one statement.
void wrap_as_written(Rewriter& rw, const LoopSite& loop) {
  const SourceManager& sm = rw.getSourceMgr();
  LoopSite whole = loop;
  if (loop.inner != nullptr) { // a ragged nest: the outer loop's own body
    whole.body = cast<ForStmt>(loop.stmt)->getBody();
  }
  rw.InsertTextBefore(loop.for_loc, "{ ::rotor::codegen::serial_loop_as_written(); ");
  rw.InsertTextAfter(after_loop(whole, sm, rw.getLangOpts()), " }");
}

} // namespace

void rewrite_loop(Rewriter& rw, const LoopSite& loop, const RotorPragma& pragma,
                  const LoweredLoop& lowered, const analysis::Plan& plan,
                  const std::string& file_name) {
  const SourceManager& sm = rw.getSourceMgr();
  const LangOptions& lo = rw.getLangOpts();
  const std::string file = quoted(file_name);

  // The pragma line becomes a comment.
  const SourceLocation pragma_end = Lexer::getLocForEndOfToken(pragma.last, 0, sm, lo);
  rw.InsertTextBefore(pragma.hash, "/* ");
  rw.InsertTextAfter(pragma_end, " */");
  if (runs_as_written(lowered, plan)) {
    wrap_as_written(rw, loop);
    return;
  }
  if (!lowered.member_access.empty()) {
    rw.InsertTextBefore(lowered.member_access_at, lowered.member_access);
  }

  // Indentation of the `for`.
  const unsigned col = sm.getSpellingColumnNumber(loop.for_loc);
  const std::string indent(col > 0 ? col - 1 : 0, ' ');
  const bool returns_bool = !lowered.breaks.empty();

  const bool device = device_body_possible(lowered, plan);
  // Bound row vectors get their views in a block around the call.
  const std::string views = row_vector_views(lowered, plan, "\n" + indent + "  ");
  const std::string copies = private_copies(lowered, "\n" + indent + "  ");
  const std::string range = source_text(sm, lo, loop.range->getSourceRange());
  const std::string inspector =
      lowered.over_vector ? inspector_prelude(lowered, range, "\n" + indent + "  ") : "";
  const bool block = !views.empty() || !copies.empty() || !inspector.empty();
  const std::string block_open = block ? "{\n" + indent + "  " + inspector + views + copies : "";
  // A body that wrote the vector's elements: every rank gets the other ranks' writes.
  const std::string block_close = std::string(lowered.over_vector && lowered.writes_records
                                                  ? " rotor_inspection.share_written(rotor_range);"
                                                  : "") +
                                  (block ? " }" : "") +
                                  as_written_fallback(lowered, loop, sm, quoted(file_name));
  const analysis::LoopModel& m = lowered.model;
  std::ostringstream head;
  head << block_open << "::rotor::codegen::run_loop(\n"
       << indent << "    " << loop_spec_text(lowered, plan, file_name, indent + "    ") << ",\n";
  head << indent << "    " << (lowered.over_vector ? "rotor_iterations" : range) << ", ";
  if (lowered.over_vector) {
    head << "::rotor::codegen::iteration_keys<" << m.fields.size() << ">()";
  } else if (lowered.index_rank > 0) {
    head << "::rotor::codegen::index_keys<" << lowered.index_rank << ">()";
  } else if (m.fields.empty()) {
    head << "::rotor::codegen::keys<" << lowered.record_type << ">()";
  } else {
    std::vector<std::string> keys;
    for (const std::string& f : m.fields) {
      keys.push_back("&" + lowered.record_type + "::" + f);
    }
    head << "::rotor::codegen::keys(" << join(keys) << ")";
  }
  std::vector<std::string> arrays;
  std::vector<std::string> params;
  std::string tables; // declarations of the body's names of staged tables and buffered containers
  bool buffers_bound = false;
  for (const auto& a : m.arrays) {
    if (!is_bound(lowered, plan, a.name)) {
      continue;
    }
    if (const LoweredLoop::RowVector* rv = row_vector(lowered, a.name);
        rv != nullptr && rv->swapped) {
      // The table's row pointers point at the staged rows: the body (and the methods it calls)
      // keep naming the table.
      arrays.push_back("rotor_view_" + view_id(a.name) + ".array()");
      params.push_back("auto& /*" + a.name + "*/");
      continue;
    }
    if (const LoweredLoop::RowVector* rv = row_vector(lowered, a.name);
        rv != nullptr && rv->table) {
      // The body's name of the table is a local over the staged rows the executor gives it.
      arrays.push_back("rotor_view_" + a.name + ".array()");
      params.push_back("auto& rotor_table_" + a.name);
      tables += (" auto " + a.name + " = ::rotor::codegen::staged_rows(rotor_view_" + a.name +
                 ", rotor_table_" + a.name + ");");
      continue;
    }
    if (const LoweredLoop::RowVector* rv = row_vector(lowered, a.name);
        rv != nullptr && rv->buffered) {
      // The body's name of a buffered container is a local over the worker's buffer.
      arrays.push_back("rotor_view_" + a.name);
      params.push_back("auto& rotor_buffer_" + a.name);
      tables += " auto " + a.name + " = ::rotor::codegen::buffered_elements(rotor_buffer_" +
                a.name + ", rotor_size_" + a.name + ");";
      buffers_bound = true;
      continue;
    }
    if (row_vector(lowered, a.name) != nullptr) {
      // The body keeps naming the container, whose memory the view is.
      arrays.push_back("rotor_view_" + view_id(a.name));
      params.push_back("auto& /*" + a.name + "*/");
      continue;
    }
    arrays.push_back(a.name);
    if (device) {
      params.push_back("::rotor::codegen::DeviceArray<decltype(" + a.name + ")> " + a.name);
      continue;
    }
    // `model.W` (a member of an outside object) cannot be a parameter's name: the body keeps
    // naming the object's member, the same DistArray the runtime was given.
    const bool identifier = std::all_of(a.name.begin(), a.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    });
    params.push_back("auto& " +
                     (identifier ? a.name : "rotor_array_" + std::to_string(params.size())));
  }
  for (const std::string& r : lowered.reductions) {
    params.push_back(device ? "::rotor::codegen::DeviceReduction<decltype(" + r + ")>& " + r
                            : "auto& " + r);
  }
  head << ",\n"
       << indent << "    std::tie(" << join(arrays) << "), std::tie(" << join(lowered.reductions)
       << "),\n";
  if (const std::string sparse = device ? "" : sparse_capable_text(lowered, plan);
      !sparse.empty()) {
    head << indent << "    " << sparse << ",\n";
  }
  std::string first_param;
  std::string prologue;
  if (!lowered.bindings.empty()) {
    first_param = "const ::rotor::Index<" + std::to_string(lowered.index_rank) + ">& rotor_point";
    prologue = " auto [" + join(lowered.bindings) + "] = rotor_point;";
  } else if (lowered.over_vector) {
    first_param = "const ::rotor::codegen::Iteration<" + std::to_string(m.fields.size()) +
                  ">& rotor_iteration";
    prologue = vector_loop_prologue(loop, sm, lo);
  } else {
    const VarDecl* var = loop.var;
    first_param = source_text(sm, lo, SourceRange(var->getBeginLoc(), var->getLocation()));
    if (device) {
      first_param = device_record_param(
          first_param, source_text(sm, lo, loop.range->getSourceRange()), var->getNameAsString(),
          var->getType().getNonReferenceType().isConstQualified());
    }
  }
  params.insert(params.begin(), first_param);
  for (const LoweredLoop::PrivateBinding& v : lowered.privates) {
    prologue += (v.length.empty() ? " auto& " : " auto ") + v.name + " = rotor_private_" + v.name +
                ".local();";
    buffers_bound = buffers_bound || !v.length.empty(); // helpers naming it are cloned too
  }
  // A device body captures by value under nvcc (a GPU cannot reach the host stack), by
  // reference for any other compiler, as every other body (DeviceLoop.h).
  head << indent
       << (device ? "    [ROTOR_DEVICE_CAPTURE] ROTOR_DEVICE_LAMBDA ("
                  : "    [" + host_captures(lowered, plan, loop) + "](")
       << join(params) << ")" << (returns_bool ? " -> bool" : "") << " {" << prologue << tables;
  if (buffers_bound && !device) { // helpers that use a buffered container, after its local
    std::map<std::string, std::string> staged_views; // swapped tables: their bound views
    for (const auto& rv : lowered.row_vectors) {
      if (rv.swapped && is_bound(lowered, plan, rv.name)) {
        staged_views[rv.name] = "rotor_view_" + view_id(rv.name);
      }
    }
    for (const FunctionDecl* helper : lowered.clones) {
      head << clone_text(sm, lo, helper, lowered, file, staged_views);
    }
  }
  for (const std::string& unused : lowered.unused_in_body) {
    head << " (void)" << unused << ";";
  }

  // Replace `for (...) {` (and a blank rest of its line) by the call's head. A ragged nest's
  // call runs the inner loop's body: both headers go, and the outer body's `}` with them.
  const Stmt* body = loop.inner != nullptr ? loop.inner->getBody() : loop.body;
  if (const auto* outer = loop.inner != nullptr
                              ? dyn_cast<CompoundStmt>(cast<ForStmt>(loop.stmt)->getBody())
                              : nullptr) {
    rw.RemoveText(outer->getRBracLoc(), 1);
  }
  const auto* compound = dyn_cast<CompoundStmt>(body);
  SourceLocation body_start = compound ? compound->getLBracLoc() : body->getBeginLoc();
  unsigned blank = 0;
  const SourceLocation after_brace = body_start.getLocWithOffset(1);
  unsigned line = sm.getSpellingLineNumber(body_start);
  if (compound != nullptr) {
    if (rest_of_line_blank(sm, after_brace, blank)) {
      replace_chars(rw, loop.for_loc, after_brace.getLocWithOffset(blank),
                    head.str() + "\n#line " + std::to_string(line + 1) + " " + file + "\n");
    } else {
      replace_chars(rw, loop.for_loc, after_brace,
                    head.str() + "\n#line " + std::to_string(line) + " " + file + "\n");
    }
  } else {
    replace_chars(rw, loop.for_loc, body_start,
                  head.str() + "\n#line " + std::to_string(line) + " " + file + "\n");
  }

  // Control flow.
  for (const SourceLocation& c : lowered.continues) {
    rw.ReplaceText(c, 8, returns_bool ? "return true" : "return");
  }
  for (const SourceLocation& b : lowered.breaks) {
    rw.ReplaceText(b, 5, "return false");
  }

  // The closing brace: `});` and a #line for what follows.
  const std::string tail_ret = returns_bool ? "return true; " : "";
  if (compound != nullptr) {
    const SourceLocation rbrace = compound->getRBracLoc();
    const unsigned end_line = sm.getSpellingLineNumber(rbrace);
    unsigned rest = 0;
    if (rest_of_line_blank(sm, rbrace.getLocWithOffset(1), rest)) {
      replace_chars(rw, rbrace, rbrace.getLocWithOffset(1 + rest),
                    tail_ret + "});" + block_close + "\n#line " + std::to_string(end_line + 1) +
                        " " + file + "\n");
    } else {
      rw.ReplaceText(rbrace, 1,
                     tail_ret + "});" + block_close + "\n#line " + std::to_string(end_line) + " " +
                         file + "\n");
    }
  } else {
    const SourceLocation end = Lexer::getLocForEndOfToken(body->getEndLoc(), 0, sm, lo);
    // A statement body ends with `;` (included by getEndLoc for most statements).
    SourceLocation semi = end;
    bool invalid = false;
    const char* p = sm.getCharacterData(semi, &invalid);
    if (!invalid && *p == ';') {
      semi = semi.getLocWithOffset(1);
    }
    const unsigned end_line = sm.getSpellingLineNumber(semi);
    rw.InsertTextAfter(semi, " " + tail_ret + "});" + block_close + "\n#line " +
                                 std::to_string(end_line) + " " + file + "\n");
  }
}

} // namespace rotor::frontend
