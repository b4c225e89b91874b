#include "axcore/compiler/diag.hpp"

#include <optional>

namespace axcore::compiler {

namespace {
thread_local std::optional<SourceLoc> g_front_end_loc;
}  // namespace

const SourceLoc* front_end_location() { return g_front_end_loc ? &*g_front_end_loc : nullptr; }

void set_front_end_location(const SourceLoc* loc) {
  if (loc)
    g_front_end_loc = *loc;
  else
    g_front_end_loc.reset();
}

std::string SourceLoc::str() const {
  if (!known()) return "<unknown>";
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

static std::string compose(const SourceLoc& loc, const std::string& m, const std::string& h) {
  std::string s = loc.str() + ": error: " + m;
  if (!h.empty()) s += "\n  write instead: " + h;
  return s;
}

CompileError::CompileError(SourceLoc loc, std::string message, std::string hint)
    : std::runtime_error(compose(loc, message, hint)),
      loc_(std::move(loc)),
      message_(std::move(message)),
      hint_(std::move(hint)) {}

void fail(const SourceLoc& loc, const std::string& message, const std::string& hint) {
  throw CompileError(loc, message, hint);
}

std::string Diagnostic::full_message() const {
  if (related_what.empty()) return message;
  return message + " (" + related_what + ": " + related.str() + ")";
}

std::string Diagnostic::str() const {
  std::string s = loc.str() + ": warning: " + message + " [-W" + kind + "]";
  if (!related_what.empty()) s += "\n  " + related.str() + ": note: " + related_what;
  if (!hint.empty()) s += "\n  write instead: " + hint;
  return s;
}

}  // namespace axcore::compiler
