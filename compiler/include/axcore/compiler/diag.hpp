// Diagnostics: every user-facing compiler error carries the user's source location (a C++
// std::source_location captured by the builder, or a YAML line:column) and says what to write
// instead. Errors that quote the language guide use its text verbatim.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "axcore/compiler/source_location.hpp"

namespace axcore::compiler {

struct SourceLoc;
// A front end that is not C++ (the Python package, python/) builds through the same builder: it
// says where the statement it is building was written, and while that is set every location the
// builder would take from its C++ caller is that one instead. Per thread; nullptr when unset.
const SourceLoc* front_end_location();
void set_front_end_location(const SourceLoc* loc);  // copies *loc; nullptr unsets

struct SourceLoc {
  std::string file;
  uint32_t line = 0, column = 0;
  static SourceLoc from(const source_location& l) {
    if (const SourceLoc* f = front_end_location()) return *f;
    return {l.file_name(), static_cast<uint32_t>(l.line()), static_cast<uint32_t>(l.column())};
  }
  bool known() const { return line != 0; }
  std::string str() const;  // "file:line:column" (or "<unknown>")
};

class CompileError : public std::runtime_error {
 public:
  CompileError(SourceLoc loc, std::string message, std::string hint = {});
  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }

 private:
  SourceLoc loc_;
  std::string message_, hint_;
};

[[noreturn]] void fail(const SourceLoc& loc, const std::string& message, const std::string& hint = {});

// L1 is too small for the buffers placed in it (the L1 placement, or a directed A.tiles whose tiles
// do not fit): compile() first moves the largest weak scratch buffer still in L1 to L2 and compiles
// again (guide §5.1), and reports this only when no weak buffer is left to move.
class L1Overflow : public CompileError {
 public:
  using CompileError::CompileError;
};

// A hazard of the guide's §14: the program compiles and runs as written, but what it computes is
// most likely not what its author meant (stale IMC weights, a partial result overwritten, a
// consumer launched before its producer was waited for). A warning by default
// (CompileResult::warnings, `axc` prints them); an error with CompileOptions::hazards_are_errors
// (`axc compile --Werror=hazard`, Python `compile(..., werror=True)`).
struct Diagnostic {
  std::string kind = "hazard";  // the -W name
  SourceLoc loc;                // the statement that goes wrong
  std::string message;
  std::string hint;          // what to write instead
  SourceLoc related;         // the other statement involved
  std::string related_what;  // what it is ("the LoadIMC that began the new residency")
  // "file:line:col: warning: MESSAGE [-Whazard]\n  file:line:col: note: RELATED_WHAT\n  write instead: HINT"
  std::string str() const;
  // The message with the related statement's location, for the error form.
  std::string full_message() const;
};

}  // namespace axcore::compiler
