#include "KnownCallees.h"

#include <clang/AST/DeclTemplate.h>

#include <set>
#include <string>

namespace rotor::frontend {

using namespace clang;

namespace {

/// The outermost named namespace of `d` ("std", "Eigen", "__gnu_cxx", ...), or "" at file scope.
std::string top_namespace(const Decl* d) {
  std::string top;
  for (const DeclContext* dc = d->getDeclContext(); dc != nullptr; dc = dc->getParent()) {
    if (const auto* ns = dyn_cast<NamespaceDecl>(dc); ns != nullptr && !ns->isInline()) {
      top = ns->getName().str();
    }
  }
  return top;
}

const CXXRecordDecl* record_of(QualType t) {
  t = t.getNonReferenceType();
  if (t->isPointerType()) {
    return nullptr;
  }
  return t->getAsCXXRecordDecl();
}

/// The class's own name, or its template's name for a specialization.
std::string class_name(const CXXRecordDecl* rd) {
  return rd->getName().str();
}

const std::set<std::string>& pure_names() {
  static const std::set<std::string> names = {
      // <cmath> and <math.h> (float and long double variants too)
      "sqrt", "sqrtf", "sqrtl", "cbrt", "cbrtf", "exp", "expf", "expl", "exp2", "exp2f", "expm1",
      "expm1f", "log", "logf", "logl", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "pow",
      "powf", "powl", "fabs", "fabsf", "fabsl", "abs", "labs", "llabs", "floor", "floorf", "ceil",
      "ceilf", "round", "roundf", "lround", "llround", "trunc", "truncf", "rint", "nearbyint",
      "fmod", "fmodf", "remainder", "tanh", "tanhf", "sinh", "cosh", "sin", "sinf", "cos", "cosf",
      "tan", "asin", "acos", "atan", "atan2", "atan2f", "hypot", "fmin", "fminf", "fmax", "fmaxf",
      "fdim", "fma", "fmaf", "erf", "erff", "erfc", "tgamma", "isnan", "isinf", "isfinite",
      "isnormal", "signbit", "copysign", "copysignf", "nextafter", "ldexp", "frexp", "modf",
      "fpclassify", "isgreater", "isless", "__isnan", "__isinf", "__isfinite", "__signbit",
      "__fpclassify",
      // <algorithm>, <utility>, <iterator>, <tuple> helpers that touch only their arguments
      "min", "max", "clamp", "minmax", "swap", "move", "forward", "move_if_noexcept", "addressof",
      "as_const", "get", "make_pair", "make_tuple", "tie", "forward_as_tuple", "begin", "end",
      "cbegin", "cend", "rbegin", "rend", "size", "empty", "data", "distance", "next", "prev",
      "__addressof", "__get_helper", "__niter_base", "__miter_base",
      // <cstring> on the caller's memory (written arguments are checked like any other)
      "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp",
      // <bit>
      "bit_cast", "popcount", "countl_zero", "countr_zero", "__builtin_memcpy"};
  return names;
}

} // namespace

bool is_known_pure_function(const FunctionDecl* fd) {
  if (fd == nullptr) {
    return false;
  }
  const std::string ns = top_namespace(fd);
  if (!ns.empty() && ns != "std" && ns != "__gnu_cxx") {
    return false;
  }
  if (isa<CXXMethodDecl>(fd)) {
    return false;
  }
  const std::string name = fd->getNameAsString();
  if (name.rfind("__builtin_", 0) == 0) {
    return true;
  }
  return pure_names().count(name) != 0;
}

bool is_eigen_decl(const Decl* d) {
  return top_namespace(d) == "Eigen";
}

bool is_type_erased_callable(QualType t) {
  const CXXRecordDecl* rd = record_of(t);
  if (rd == nullptr) {
    return false;
  }
  const std::string name = class_name(rd);
  return top_namespace(rd) == "std" &&
         (name == "function" || name == "move_only_function" || name == "packaged_task");
}

bool is_callable_argument(QualType t) {
  t = t.getNonReferenceType();
  if (t->isFunctionPointerType() || t->isFunctionType() || t->isMemberFunctionPointerType()) {
    return true;
  }
  if (const CXXRecordDecl* rd = record_of(t)) {
    return rd->isLambda() || is_type_erased_callable(t);
  }
  return false;
}

bool owns_elements(QualType t) {
  const CXXRecordDecl* rd = record_of(t);
  if (rd == nullptr) {
    return false;
  }
  static const std::set<std::string> std_owners = {
      "vector",   "array",         "deque",    "basic_string",  "bitset", "map",
      "multimap", "unordered_map", "set",      "unordered_set", "list",   "forward_list",
      "pair",     "tuple",         "optional", "valarray"};
  static const std::set<std::string> eigen_owners = {"Matrix", "Array"};
  const std::string ns = top_namespace(rd);
  const std::string name = class_name(rd);
  return (ns == "std" && std_owners.count(name)) || (ns == "Eigen" && eigen_owners.count(name));
}

bool is_eigen_view_type(QualType t) {
  const CXXRecordDecl* rd = record_of(t);
  return rd != nullptr && is_eigen_decl(rd) && !owns_elements(t);
}

bool is_element_accessor(const CXXMethodDecl* md) {
  if (md == nullptr) {
    return false;
  }
  const std::string cls = class_name(md->getParent());
  const OverloadedOperatorKind op = md->getOverloadedOperator();
  const bool map_like = cls == "map" || cls == "unordered_map" || cls == "multimap";
  if (op == OO_Subscript) {
    return !map_like; // a map's operator[] inserts
  }
  if (op == OO_Call) {
    return top_namespace(md) == "Eigen"; // std's operator() are engines, distributions: stateful
  }
  if (op == OO_Star || op == OO_Arrow) {
    return top_namespace(md) == "Eigen" || top_namespace(md) == "std" ||
           top_namespace(md) == "__gnu_cxx";
  }
  static const std::set<std::string> names = {"at",          "front",      "back",
                                              "data",        "begin",      "end",
                                              "rbegin",      "rend",       "cbegin",
                                              "cend",        "coeffRef",   "row",
                                              "col",         "segment",    "head",
                                              "tail",        "block",      "topRows",
                                              "bottomRows",  "leftCols",   "rightCols",
                                              "middleRows",  "middleCols", "array",
                                              "matrix",      "derived",    "const_cast_derived",
                                              "get",         "find",       "lower_bound",
                                              "upper_bound", "equal_range"};
  return names.count(md->getNameAsString()) != 0;
}

bool is_eigen_view_method(const CXXMethodDecl* md) {
  static const std::set<std::string> views = {"transpose", "adjoint",   "array",
                                              "matrix",    "conjugate", "noalias"};
  return md->getNumParams() == 0 && views.count(md->getNameAsString()) != 0 && is_eigen_decl(md);
}

} // namespace rotor::frontend
