// Helper clones: the rules that let a helper be copied into the loop's body lambda, and the copy's
// text (docs/design/helper-clones.md).

#include "HelperClones.h"

#include "LoopRewriter.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/IdentifierTable.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <map>
#include <vector>

namespace rotor::frontend {

using namespace clang;

namespace {

std::string who(const FunctionDecl* fn, const SourceManager& sm) {
  return "'" + fn->getNameAsString() + "' (line " +
         std::to_string(sm.getSpellingLineNumber(fn->getLocation())) + ")";
}

bool is_templated(const FunctionDecl* fn) {
  const auto* md = dyn_cast<CXXMethodDecl>(fn);
  return fn->isTemplated() || fn->getTemplatedKind() != FunctionDecl::TK_NonTemplate ||
         (md != nullptr && (md->getParent()->isDependentContext() ||
                            isa<ClassTemplateSpecializationDecl>(md->getParent())));
}

/// The first static local of `s` (it would be a second static in the clone), or nullptr.
const VarDecl* static_local(const Stmt* s) {
  if (s == nullptr) {
    return nullptr;
  }
  if (const auto* ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl* d : ds->decls()) {
      if (const auto* vd = dyn_cast<VarDecl>(d); vd != nullptr && vd->isStaticLocal()) {
        return vd;
      }
    }
  }
  for (const Stmt* child : s->children()) {
    if (const VarDecl* vd = static_local(child)) {
      return vd;
    }
  }
  return nullptr;
}

/// Why `call` does not reach `helper` by its bare name (`sampling(m, n)`), or nothing.
std::optional<std::string> call_refusal(const Expr* call, const std::string& name) {
  const std::string how = name + " is called through an object or a qualified name";
  if (isa<CXXOperatorCallExpr>(call)) {
    return name + " is called as an operator";
  }
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    const auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens());
    if (me == nullptr || !me->isImplicitAccess() || me->hasQualifier()) {
      return how;
    }
    return std::nullopt;
  }
  const auto* ce = dyn_cast<CallExpr>(call);
  const auto* dre =
      ce != nullptr ? dyn_cast<DeclRefExpr>(ce->getCallee()->IgnoreParenImpCasts()) : nullptr;
  if (dre == nullptr || dre->hasQualifier()) {
    return how;
  }
  return std::nullopt;
}

/// Whether the members named like `helper` in its class are more than `helper` itself.
bool has_overloads(const CXXMethodDecl* helper) {
  std::set<const Decl*> entities;
  for (const NamedDecl* d : helper->getParent()->lookup(helper->getDeclName())) {
    entities.insert(d->getCanonicalDecl());
  }
  return entities.size() > 1;
}

} // namespace

std::optional<std::string> clone_shape_refusal(ASTContext& ctx, const FunctionDecl* helper,
                                               const Expr* call, const CXXMethodDecl* enclosing) {
  const SourceManager& sm = ctx.getSourceManager();
  const std::string name = who(helper, sm);
  const auto* method = dyn_cast<CXXMethodDecl>(helper);
  if (call == nullptr) {
    return name + " runs as a constructor or destructor, not as a call the loop body writes";
  }
  if (enclosing == nullptr || method == nullptr || method->getParent() != enclosing->getParent()) {
    return name + " is not a member function of the class of the function around the loop";
  }
  if (!helper->hasBody() || !isa<CompoundStmt>(helper->getBody()) ||
      !sm.isWrittenInMainFile(helper->getLocation()) ||
      !sm.isWrittenInMainFile(helper->getBody()->getBeginLoc()) ||
      helper->getBody()->getBeginLoc().isMacroID()) {
    return name + " is not defined in the file rotor-cc rewrites";
  }
  if (is_templated(helper) || is_templated(enclosing)) {
    return name + " is a template or a member of one";
  }
  if (method->isVirtual()) {
    return name + " is virtual";
  }
  if (helper->isVariadic()) {
    return name + " takes variable arguments";
  }
  for (const ParmVarDecl* p : helper->parameters()) {
    if (p->hasDefaultArg() || p->getName().empty()) {
      return name + " has a default argument or an unnamed parameter";
    }
  }
  if (!method->isStatic() && (method->getMethodQualifiers() != enclosing->getMethodQualifiers() ||
                              method->getRefQualifier() != enclosing->getRefQualifier())) {
    return name + " is const, volatile or &-qualified unlike the function around the loop";
  }
  if (const VarDecl* vd = static_local(helper->getBody())) {
    return name + " has the static local '" + vd->getNameAsString() +
           "' (the clone would have its own)";
  }
  if (has_overloads(method)) {
    return name + " has overloads (the clone's name would hide them from the loop body)";
  }
  return call_refusal(call, name);
}

namespace {

/// Everything the clone's text copies: the return type, each parameter and the body.
struct CloneParts {
  CharSourceRange ret;
  std::vector<CharSourceRange> params;
  CharSourceRange body; ///< between the body's braces
};

std::optional<CloneParts> clone_parts(const FunctionDecl* helper, const SourceManager& sm) {
  CloneParts parts;
  const SourceRange ret = helper->getReturnTypeSourceRange();
  if (ret.isInvalid() || ret.getBegin().isMacroID() || ret.getEnd().isMacroID()) {
    return std::nullopt;
  }
  parts.ret = CharSourceRange::getTokenRange(ret);
  for (const ParmVarDecl* p : helper->parameters()) {
    const SourceRange r = p->getSourceRange();
    if (r.isInvalid() || r.getBegin().isMacroID() || r.getEnd().isMacroID()) {
      return std::nullopt;
    }
    parts.params.push_back(CharSourceRange::getTokenRange(r));
  }
  const auto* body = cast<CompoundStmt>(helper->getBody());
  if (body->getRBracLoc().isMacroID() ||
      sm.getFileID(body->getLBracLoc()) != sm.getFileID(body->getRBracLoc())) {
    return std::nullopt;
  }
  parts.body =
      CharSourceRange::getCharRange(body->getLBracLoc().getLocWithOffset(1), body->getRBracLoc());
  return parts;
}

std::string text(const SourceManager& sm, const LangOptions& lo, CharSourceRange r) {
  return Lexer::getSourceText(r, sm, lo).str();
}

/// The identifiers of `r` as raw tokens, with how many times each is looked up unqualified (not
/// after `.`, `->` or `::`) in `unqualified`, and every identifier in `all`.
void raw_identifiers(const SourceManager& sm, const LangOptions& lo, CharSourceRange r,
                     std::map<std::string, int>& unqualified, std::set<std::string>& all) {
  const std::string s = text(sm, lo, r);
  Lexer lexer(r.getBegin(), lo, s.data(), s.data(), s.data() + s.size());
  Token tok;
  tok::TokenKind previous = tok::unknown;
  for (lexer.LexFromRawLexer(tok); tok.isNot(tok::eof); lexer.LexFromRawLexer(tok)) {
    if (tok.is(tok::raw_identifier)) {
      const std::string id = tok.getRawIdentifier().str();
      all.insert(id);
      if (previous != tok::period && previous != tok::arrow && previous != tok::coloncolon) {
        ++unqualified[id];
      }
    }
    previous = tok.getKind();
  }
}

/// The helper's own declarations (parameters, locals, local types) and how its text uses them.
class HelperNames : public RecursiveASTVisitor<HelperNames> {
public:
  explicit HelperNames(const FunctionDecl* helper) : helper_(helper) {}

  bool VisitNamedDecl(NamedDecl* d) {
    if (d != helper_ && d->getIdentifier() != nullptr) {
      own_.insert(d);
      if (d->getLocation().isFileID()) {
        ++local_tokens[d->getName().str()];
      }
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr* e) {
    const ValueDecl* d = e->getDecl();
    note_use(d, e->getLocation(), d->getIdentifier() != nullptr ? d->getName().str() : "");
    return true;
  }
  bool VisitMemberExpr(MemberExpr* e) {
    if (e->isImplicitAccess() && e->getMemberLoc().isMacroID()) {
      from_macros.insert(e->getMemberDecl()->getNameAsString());
    }
    return true;
  }
  bool VisitCXXRecordDecl(CXXRecordDecl* rd) {
    if (!rd->isLambda() && local_class.empty()) {
      local_class = rd->getNameAsString();
    }
    return true;
  }
  bool shouldVisitImplicitCode() const { return false; }

  std::map<std::string, int> local_tokens; ///< declarations and uses of its own names, as written
  std::set<std::string> from_macros;       ///< outside names a macro's expansion uses
  std::string local_class;                 ///< the first class the helper defines, if any

private:
  void note_use(const ValueDecl* d, SourceLocation at, const std::string& name) {
    if (name.empty()) {
      return;
    }
    if (at.isMacroID()) {
      if (own_.count(d) == 0) {
        from_macros.insert(name);
      }
      return;
    }
    if (own_.count(d) != 0) {
      ++local_tokens[name];
    }
  }

  const FunctionDecl* helper_;
  std::set<const Decl*> own_;
};

/// The names (variables and members) in unevaluated operands: `sizeof(e)`, `alignof(e)`,
/// `typeid(e)`, `noexcept(e)` and `decltype(e)`, each with where it is written.
class UnevaluatedNames : public RecursiveASTVisitor<UnevaluatedNames> {
public:
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr* e) {
    if (!e->isArgumentType()) {
      names_in(e->getArgumentExpr());
    }
    return true;
  }
  bool VisitCXXTypeidExpr(CXXTypeidExpr* e) {
    if (!e->isTypeOperand()) {
      names_in(e->getExprOperand());
    }
    return true;
  }
  bool VisitCXXNoexceptExpr(CXXNoexceptExpr* e) {
    names_in(e->getOperand());
    return true;
  }
  bool VisitDecltypeTypeLoc(DecltypeTypeLoc tl) {
    names_in(tl.getTypePtr()->getUnderlyingExpr());
    return true;
  }
  bool shouldVisitImplicitCode() const { return false; }

  std::vector<UnevaluatedName> found;

private:
  void names_in(const Stmt* s) {
    if (s == nullptr) {
      return;
    }
    if (const auto* dre = dyn_cast<DeclRefExpr>(s); dre != nullptr) {
      found.push_back({dre->getDecl()->getNameAsString(), dre->getBeginLoc()});
    }
    if (const auto* me = dyn_cast<MemberExpr>(s); me != nullptr) {
      found.push_back({me->getMemberDecl()->getNameAsString(), me->getBeginLoc()});
    }
    for (const Stmt* child : s->children()) {
      names_in(child);
    }
  }
};

/// The first macro the helper's statements expand that the program defines (a system header's,
/// as RAND_MAX, means the same everywhere), and in `system` the system macros it expands.
std::optional<std::string> program_macro(const Stmt* s, const SourceManager& sm,
                                         const LangOptions& lo, std::set<std::string>& system) {
  if (s == nullptr) {
    return std::nullopt;
  }
  for (SourceLocation loc : {s->getBeginLoc(), s->getEndLoc()}) {
    while (loc.isMacroID()) {
      if (!sm.isMacroArgExpansion(loc)) {
        const std::string macro = Lexer::getImmediateMacroName(loc, sm, lo).str();
        if (!sm.isInSystemHeader(sm.getSpellingLoc(loc))) {
          return macro;
        }
        system.insert(macro);
      }
      loc = sm.getImmediateMacroCallerLoc(loc);
    }
  }
  for (const Stmt* child : s->children()) {
    if (auto m = program_macro(child, sm, lo, system)) {
      return m;
    }
  }
  return std::nullopt;
}

/// Where unqualified names in `fn`'s body are looked up from: the end of the outermost class of
/// a member defined inside it, else the definition itself.
SourceLocation lookup_point(const FunctionDecl* fn) {
  const DeclContext* lexical = fn->getLexicalDeclContext();
  const CXXRecordDecl* outermost = nullptr;
  for (; lexical != nullptr; lexical = lexical->getLexicalParent()) {
    if (const auto* rd = dyn_cast<CXXRecordDecl>(lexical)) {
      outermost = rd;
    }
  }
  return outermost != nullptr ? outermost->getBraceRange().getEnd() : fn->getBeginLoc();
}

/// The first namespace-scope declaration in `dc` strictly between `from` and `to` that is a
/// using-declaration, a using-directive or a namespace alias, or whose name is in `names`.
const Decl* declared_between(const DeclContext* dc, SourceLocation from, SourceLocation to,
                             const std::set<std::string>& names, const SourceManager& sm) {
  for (const Decl* d : dc->decls()) {
    if (isa<NamespaceDecl, LinkageSpecDecl>(d)) {
      if (const Decl* found = declared_between(cast<DeclContext>(d), from, to, names, sm)) {
        return found;
      }
      continue;
    }
    const SourceLocation at = d->getLocation();
    if (at.isInvalid() || !sm.isBeforeInTranslationUnit(from, at) ||
        !sm.isBeforeInTranslationUnit(at, to)) {
      continue;
    }
    if (isa<UsingDirectiveDecl, UsingDecl, NamespaceAliasDecl, UsingShadowDecl>(d)) {
      return d;
    }
    const auto* nd = dyn_cast<NamedDecl>(d);
    if (nd != nullptr && nd->getIdentifier() != nullptr && names.count(nd->getName().str())) {
      return d;
    }
    if (const auto* rd = dyn_cast<CXXRecordDecl>(d)) { // hidden friends (found by ADL)
      for (const Decl* member : rd->decls()) {
        if (const auto* fd = dyn_cast<FriendDecl>(member)) {
          const NamedDecl* f = fd->getFriendDecl();
          if (f != nullptr && f->getIdentifier() != nullptr && names.count(f->getName().str())) {
            return d;
          }
        }
      }
    }
  }
  return nullptr;
}

class DeclaredNames : public RecursiveASTVisitor<DeclaredNames> {
public:
  bool VisitNamedDecl(NamedDecl* d) {
    if (isa<UsingDirectiveDecl, UsingDecl, NamespaceAliasDecl>(d)) {
      names.insert("using");
    } else if (d->getIdentifier() != nullptr) {
      names.insert(d->getName().str());
    }
    return true;
  }
  std::set<std::string> names;
};

} // namespace

std::set<std::string> names_declared_in(const FunctionDecl* fn) {
  DeclaredNames v;
  v.TraverseDecl(const_cast<FunctionDecl*>(fn));
  return v.names;
}

namespace {

/// The identifiers of the clone's text (`unqualified`: how often each is looked up unqualified;
/// `all`: every one), or why the text cannot be copied: a preprocessor directive, a line comment
/// in the one-line head.
std::optional<std::string> scan_text(const SourceManager& sm, const LangOptions& lo,
                                     const CloneParts& parts, const std::string& name,
                                     std::map<std::string, int>& unqualified,
                                     std::set<std::string>& all) {
  std::vector<CharSourceRange> ranges = parts.params;
  ranges.push_back(parts.ret);
  ranges.push_back(parts.body);
  for (const CharSourceRange& r : ranges) {
    const std::string s = text(sm, lo, r);
    for (std::size_t at = s.find('#'); at != std::string::npos; at = s.find('#', at + 1)) {
      const std::size_t line = s.find_last_not_of(" \t", at == 0 ? std::string::npos : at - 1);
      if (at == 0 || line == std::string::npos || s[line] == '\n') {
        return name + " holds a preprocessor directive (line " +
               std::to_string(sm.getSpellingLineNumber(r.getBegin().getLocWithOffset(at))) + ")";
      }
    }
    if (&r != &ranges.back() && s.find("//") != std::string::npos) {
      return name + " has a line comment in its return type or a parameter";
    }
    raw_identifiers(sm, lo, r, unqualified, all);
  }
  for (const char* id : {"decltype", "__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"}) {
    if (all.count(id) != 0) {
      return name + " uses '" + id + "', which means another thing in a clone";
    }
  }
  return std::nullopt;
}

/// Why a macro in the helper could expand differently at the loop: one the program defines, or
/// an identifier of the text that is a macro its statements do not show as a system header's.
std::optional<std::string> macro_refusal(ASTContext& ctx, const FunctionDecl* helper,
                                         const std::set<std::string>& all,
                                         const std::string& name) {
  std::set<std::string> system_macros;
  if (auto macro = program_macro(helper->getBody(), ctx.getSourceManager(), ctx.getLangOpts(),
                                 system_macros)) {
    return name + " uses the macro '" + *macro + "', which the program defines";
  }
  for (const std::string& id : all) {
    const auto found = ctx.Idents.find(id);
    if (found != ctx.Idents.end() && found->getValue()->hadMacroDefinition() &&
        system_macros.count(id) == 0) {
      return name + " uses '" + id + "', a macro outside its statements";
    }
  }
  return std::nullopt;
}

/// Why a name the helper looks up unqualified would find another entity in the clone: declared
/// in the function around the loop or bound there (`names_at_loop`), and not only the helper's
/// own local; also local classes and the type or size of a buffered name.
std::optional<std::string> lookup_refusal(const FunctionDecl* helper,
                                          const FunctionDecl* loop_function,
                                          const std::map<std::string, int>& unqualified,
                                          const std::set<std::string>& names_at_loop,
                                          const std::set<std::string>& shadows,
                                          const std::string& name) {
  HelperNames own(helper);
  own.TraverseDecl(const_cast<FunctionDecl*>(helper));
  if (!own.local_class.empty()) {
    return name + " defines the class '" + own.local_class +
           "' (its members could not reach the clone's locals)";
  }
  for (const auto& [id, at] : unevaluated_names(helper)) {
    if (shadows.count(id) != 0) {
      return name + " takes the type or size of '" + id +
             "', which is another type in a clone (the worker's buffer)";
    }
  }
  const std::set<std::string> in_function = names_declared_in(loop_function);
  if (in_function.count("using") != 0) {
    return "the function around the loop holds a using-declaration or directive, which " + name +
           "'s clone would see";
  }
  // A buffered name is meant to reach the buffer's local, unless the function around the loop
  // declares it too: then the buffered container is that local, not what the helper names.
  const auto taken = [&](const std::string& id) {
    if (id == helper->getNameAsString() || (shadows.count(id) != 0 && in_function.count(id) == 0)) {
      return false;
    }
    return in_function.count(id) != 0 || names_at_loop.count(id) != 0 || id.rfind("rotor_", 0) == 0;
  };
  for (const auto& [id, count] : unqualified) {
    const auto local = own.local_tokens.find(id);
    if (taken(id) && (local == own.local_tokens.end() || local->second != count)) {
      return name + " uses '" + id + "', which names another variable or type where the loop is";
    }
  }
  for (const std::string& id : own.from_macros) {
    if (taken(id)) {
      return name + " uses '" + id +
             "' (in a macro), which names another variable where the loop is";
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> clone_name_refusal(ASTContext& ctx, const FunctionDecl* helper,
                                              const FunctionDecl* loop_function,
                                              const std::set<std::string>& names_at_loop,
                                              const std::set<std::string>& shadows) {
  const SourceManager& sm = ctx.getSourceManager();
  const std::string name = who(helper, sm);
  const std::optional<CloneParts> parts = clone_parts(helper, sm);
  if (!parts) {
    return name + " has its return type, a parameter or its body in a macro";
  }
  std::map<std::string, int> unqualified;
  std::set<std::string> all;
  if (auto no = scan_text(sm, ctx.getLangOpts(), *parts, name, unqualified, all)) {
    return no;
  }
  if (auto no = macro_refusal(ctx, helper, all, name)) {
    return no;
  }
  if (auto no = lookup_refusal(helper, loop_function, unqualified, names_at_loop, shadows, name)) {
    return no;
  }
  SourceLocation from = lookup_point(helper);
  SourceLocation to = lookup_point(loop_function);
  if (sm.isBeforeInTranslationUnit(to, from)) {
    std::swap(from, to);
  }
  if (const Decl* d = declared_between(ctx.getTranslationUnitDecl(), from, to, all, sm)) {
    const auto* nd = dyn_cast<NamedDecl>(d);
    return "'" + (nd != nullptr ? nd->getNameAsString() : std::string("a using-declaration")) +
           "' is declared at line " + std::to_string(sm.getSpellingLineNumber(d->getLocation())) +
           ", between " + name + " and the loop (the clone would see other declarations)";
  }
  return std::nullopt;
}

std::vector<UnevaluatedName> unevaluated_names(const Stmt* s) {
  UnevaluatedNames names;
  names.TraverseStmt(const_cast<Stmt*>(s));
  return names.found;
}

std::vector<UnevaluatedName> unevaluated_names(const Decl* d) {
  UnevaluatedNames names;
  names.TraverseDecl(const_cast<Decl*>(d));
  return names.found;
}

namespace {

/// Edits of a helper body's text (a copy of the source from `begin`, `size` characters), in
/// source locations: applied last offset first, a replacement before an insertion at the same
/// offset (the insertion goes in front of it), so inner edits survive the outer ones.
class BodyEdits {
public:
  BodyEdits(const SourceManager& sm, const LangOptions& lo, SourceLocation begin, std::size_t size)
      : sm_(sm), lo_(lo), begin_(begin), size_(size) {}

  void replace(SourceRange tokens, const std::string& with) {
    const unsigned end =
        sm_.getFileOffset(tokens.getEnd()) + Lexer::MeasureTokenLength(tokens.getEnd(), sm_, lo_);
    add(tokens.getBegin(), end - sm_.getFileOffset(tokens.getBegin()), with);
  }
  void insert_before(SourceLocation at, const std::string& text) { add(at, 0, text); }
  void insert_after_token(SourceLocation token, const std::string& text) {
    add(token.getLocWithOffset(static_cast<int>(Lexer::MeasureTokenLength(token, sm_, lo_))), 0,
        text);
  }

  void apply(std::string& body) {
    std::sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
      return a.at != b.at ? a.at > b.at : a.length > b.length;
    });
    for (const Edit& e : edits_) {
      body.replace(e.at, e.length, e.text);
    }
  }

private:
  struct Edit {
    std::size_t at;
    std::size_t length;
    std::string text;
  };
  /// Edits outside the body (the loop's own accesses, other helpers) are not this clone's.
  void add(SourceLocation at, unsigned length, const std::string& text) {
    if (!at.isFileID() || sm_.getFileID(at) != sm_.getFileID(begin_)) {
      return;
    }
    const unsigned offset = sm_.getFileOffset(at);
    const unsigned first = sm_.getFileOffset(begin_);
    if (offset >= first && offset + length <= first + size_) {
      edits_.push_back({offset - first, length, text});
    }
  }

  const SourceManager& sm_;
  const LangOptions& lo_;
  SourceLocation begin_;
  std::size_t size_;
  std::vector<Edit> edits_;
};

} // namespace

std::string clone_text(const SourceManager& sm, const LangOptions& lo, const FunctionDecl* helper,
                       const LoweredLoop& loop, const std::string& quoted_file,
                       const std::map<std::string, std::string>& staged_views) {
  const std::optional<CloneParts> parts = clone_parts(helper, sm);
  if (!parts) {
    return ""; // clone_name_refusal kept such a helper from being cloned
  }
  std::string params;
  for (const CharSourceRange& p : parts->params) {
    params += (params.empty() ? "" : ", ") + text(sm, lo, p);
  }
  for (char& c : params) {
    c = c == '\n' ? ' ' : c;
  }
  std::string body = text(sm, lo, parts->body);
  BodyEdits edits(sm, lo, parts->body.getBegin(), body.size());
  for (const LoweredLoop::LibcCall& c : loop.libc_calls) {
    edits.replace(c.callee, c.replacement);
  }
  for (const LoweredLoop::ColumnCheck& c : loop.column_checks) {
    const auto view = c.whole_array ? staged_views.end() : staged_views.find(c.array);
    edits.insert_before(c.column.getBegin(),
                        column_check_prefix(c, view == staged_views.end() ? "" : view->second));
    edits.insert_after_token(c.column.getEnd(), column_check_suffix(c));
  }
  edits.apply(body);
  return " auto " + helper->getNameAsString() + " = [&](" + params + ") -> " +
         text(sm, lo, parts->ret) + " {\n#line " +
         std::to_string(sm.getSpellingLineNumber(parts->body.getBegin())) + " " + quoted_file +
         "\n" + body + "\n};";
}

} // namespace rotor::frontend
