#include "RotorTypes.h"

#include <algorithm>

#include <clang/Basic/SourceManager.h>

#include <clang/AST/QualTypeNames.h>

#include <cctype>
#include <cstdint>

namespace rotor::frontend {

using namespace clang;

const ClassTemplateSpecializationDecl* rotor_specialization(QualType t, const char* name) {
  if (t.isNull()) {
    return nullptr;
  }
  t = t.getNonReferenceType().getCanonicalType();
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
  if (spec == nullptr || spec->getSpecializedTemplate()->getQualifiedNameAsString() != name) {
    return nullptr;
  }
  return spec;
}

bool is_dist_array(QualType t) {
  return rotor_specialization(t, "rotor::DistArray") != nullptr;
}

/// Ranks past this are no real program's (the frontend would build models of that many
/// subscripts or fields): they lower as rank 0, which the plan and the loop header refuse.
namespace {
constexpr std::int64_t kMaxRank = 64;

int checked_rank(const TemplateArgument& arg) {
  const std::int64_t n = arg.getAsIntegral().getExtValue();
  return n >= 1 && n <= kMaxRank ? static_cast<int>(n) : 0;
}
} // namespace

int dist_array_rank(QualType t) {
  const auto* spec = rotor_specialization(t, "rotor::DistArray");
  if (spec == nullptr || spec->getTemplateArgs().size() < 2 ||
      spec->getTemplateArgs()[1].getKind() != TemplateArgument::Integral) {
    return 1;
  }
  return checked_rank(spec->getTemplateArgs()[1]);
}

std::string dist_array_element(QualType t) {
  const auto* spec = rotor_specialization(t, "rotor::DistArray");
  if (spec == nullptr || spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type) {
    return "";
  }
  return spec->getTemplateArgs()[0].getAsType().getAsString();
}

namespace {
/// T as written when the runtime can hold T in a DistArray (float, double, a 32- or 64-bit
/// integer); otherwise "".
std::string supported_element(const ASTContext& ctx, QualType element) {
  element = element.getCanonicalType();
  const auto* builtin = element->getAs<BuiltinType>();
  if (builtin == nullptr || element.isConstQualified() || element.isVolatileQualified()) {
    return "";
  }
  const bool floating =
      builtin->getKind() == BuiltinType::Float || builtin->getKind() == BuiltinType::Double;
  const bool integer = builtin->isInteger() && !builtin->isBooleanType() &&
                       !builtin->isCharType() && !builtin->isWideCharType() &&
                       (ctx.getTypeSize(element) == 32 || ctx.getTypeSize(element) == 64);
  if (!floating && !integer) {
    return "";
  }
  return element.getAsString(ctx.getPrintingPolicy());
}

const ClassTemplateSpecializationDecl* specialization_of(QualType t) {
  if (t.isNull()) {
    return nullptr;
  }
  return dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
}
} // namespace

std::string row_vector_element(const ASTContext& ctx, QualType t) {
  const auto* spec = specialization_of(t);
  const std::string name =
      spec == nullptr ? "" : spec->getSpecializedTemplate()->getQualifiedNameAsString();
  if (spec == nullptr || (name != "std::vector" && name != "std::array") ||
      spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type) {
    return "";
  }
  return supported_element(ctx, spec->getTemplateArgs()[0].getAsType());
}

QualType std_vector_element(QualType t) {
  const auto* spec = specialization_of(t);
  if (spec == nullptr ||
      spec->getSpecializedTemplate()->getQualifiedNameAsString() != "std::vector" ||
      spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type) {
    return {};
  }
  return spec->getTemplateArgs()[0].getAsType();
}

std::string table_element(const ASTContext& ctx, QualType t) {
  const QualType row = std_vector_element(t);
  if (row.isNull() || std_vector_element(row).isNull()) {
    return "";
  }
  return row_vector_element(ctx, row);
}

std::string pointer_table_element(const ASTContext& ctx, QualType t, int& depth) {
  depth = 0;
  t = t.getNonReferenceType().getCanonicalType();
  if (!t->isPointerType()) {
    return "";
  }
  const QualType pointee = t->getPointeeType();
  if (std::string element = supported_element(ctx, pointee); !element.empty()) {
    depth = 1;
    return element;
  }
  if (pointee->isPointerType() && !pointee.isConstQualified()) {
    if (std::string element = supported_element(ctx, pointee->getPointeeType()); !element.empty()) {
      depth = 2;
      return element;
    }
  }
  return "";
}

char eigen_layout(const ASTContext& ctx, QualType t, std::string& element) {
  const auto* spec = specialization_of(t);
  if (spec == nullptr ||
      spec->getSpecializedTemplate()->getQualifiedNameAsString() != "Eigen::Matrix") {
    return 0;
  }
  const auto& args = spec->getTemplateArgs();
  if (args.size() < 4 || args[0].getKind() != TemplateArgument::Type ||
      args[1].getKind() != TemplateArgument::Integral ||
      args[2].getKind() != TemplateArgument::Integral ||
      args[3].getKind() != TemplateArgument::Integral) {
    return 0;
  }
  element = supported_element(ctx, args[0].getAsType());
  if (element.empty()) {
    return 0;
  }
  if (args[1].getAsIntegral() == 1 || args[2].getAsIntegral() == 1) {
    return 'V';
  }
  return (args[3].getAsIntegral().getExtValue() & 1) != 0 ? 'R' : 'C'; // Eigen::RowMajor == 1
}

std::string row_container_name(QualType t) {
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  return spec == nullptr ? "" : spec->getSpecializedTemplate()->getQualifiedNameAsString();
}

const RecordDecl* dataset_record(QualType t) {
  const auto* spec = rotor_specialization(t, "rotor::Dataset");
  if (spec == nullptr || spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type) {
    return nullptr;
  }
  return spec->getTemplateArgs()[0].getAsType()->getAsRecordDecl();
}

/// A plain record: a trivially copyable struct (not a union) with public fields only and no
/// base class, such as an aggregate, or one with constructors
/// (`struct Point { Point(double x, double y); double x, y; }`): the runtime copies it bytewise
/// and names its fields (`&Point::x`), and never constructs one.
static bool is_plain_aggregate(const ASTContext& ctx, QualType t) {
  const auto* record = t->getAsCXXRecordDecl();
  if (record == nullptr || !record->hasDefinition() || record->isUnion() ||
      !t.isTriviallyCopyableType(ctx) || record->getNumBases() != 0 || record->isPolymorphic()) {
    return false;
  }
  return std::all_of(record->field_begin(), record->field_end(),
                     [](const FieldDecl* f) { return f->getAccess() == AS_public; });
}

bool is_plain_pair(const ASTContext& ctx, QualType t) {
  const auto* spec = specialization_of(t);
  if (spec == nullptr ||
      spec->getSpecializedTemplate()->getQualifiedNameAsString() != "std::pair" ||
      spec->getTemplateArgs().size() != 2) {
    return false;
  }
  for (const TemplateArgument& a : spec->getTemplateArgs().asArray()) {
    if (a.getKind() != TemplateArgument::Type) {
      return false;
    }
    const QualType m = a.getAsType();
    if (m.isConstQualified() || m.isVolatileQualified() ||
        !(m->isArithmeticType() || is_plain_aggregate(ctx, m) || is_plain_pair(ctx, m))) {
      return false;
    }
  }
  return true;
}

const RecordDecl* vector_record(const ASTContext& ctx, QualType t) {
  const QualType element = std_vector_element(t);
  if (element.isNull() || (!is_plain_aggregate(ctx, element) && !is_plain_pair(ctx, element))) {
    return nullptr;
  }
  return element->getAsCXXRecordDecl();
}

int index_space_rank(QualType t) {
  const auto* spec = rotor_specialization(t, "rotor::IndexSpace");
  if (spec == nullptr || spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Integral) {
    return 0;
  }
  return checked_rank(spec->getTemplateArgs()[0]);
}

bool is_accumulator(QualType t) {
  return rotor_specialization(t, "rotor::Accumulator") != nullptr;
}

std::string accumulator_op(QualType t) {
  const auto* spec = rotor_specialization(t, "rotor::Accumulator");
  if (spec == nullptr || spec->getTemplateArgs().size() < 2 ||
      spec->getTemplateArgs()[1].getKind() != TemplateArgument::Type) {
    return "sum";
  }
  const RecordDecl* op = spec->getTemplateArgs()[1].getAsType()->getAsRecordDecl();
  if (op == nullptr) {
    return "sum";
  }
  std::string name = op->getNameAsString();
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

QualType accumulator_value_type(QualType t) {
  const auto* spec = rotor_specialization(t, "rotor::Accumulator");
  if (spec == nullptr || spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type) {
    return {};
  }
  return spec->getTemplateArgs()[0].getAsType();
}

bool is_rotor_decl(const Decl* d) {
  bool in_rotor = false;
  for (const DeclContext* dc = d->getDeclContext(); dc != nullptr; dc = dc->getParent()) {
    if (const auto* ns = dyn_cast<NamespaceDecl>(dc);
        ns != nullptr && ns->getParent() != nullptr && ns->getParent()->isTranslationUnit()) {
      in_rotor = ns->getName() == "rotor";
      break;
    }
  }
  if (!in_rotor) {
    return false;
  }
  // Rotor's own headers only: user code in a namespace called rotor (or the examples' headers
  // in rotor::examples) is analysed like any other code.
  const SourceManager& sm = d->getASTContext().getSourceManager();
  const std::string file = sm.getFilename(sm.getSpellingLoc(d->getLocation())).str();
  return file.find("include/rotor/") != std::string::npos;
}

std::string record_type_name(const ASTContext& ctx, const RecordDecl* record) {
  if (record->getParentFunctionOrMethod() != nullptr) {
    return record->getNameAsString();
  }
  // A record in an anonymous namespace is named without it (`ns::Example`, found through the
  // namespace's implicit using-directive), not as `ns::(anonymous namespace)::Example`.
  PrintingPolicy policy = ctx.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;
  return TypeName::getFullyQualifiedName(ctx.getRecordType(record), ctx, policy,
                                         /*WithGlobalNsPrefix=*/false);
}

} // namespace rotor::frontend
