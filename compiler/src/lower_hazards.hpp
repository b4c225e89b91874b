// The guide's §14 silent hazards that the lowering can see, checked in program order as the
// launches are made (lower.cpp calls it; docs/compiler.md "Hazards"):
//   - an MVM reading an IMC matrix whose residency another matrix ended (or that was never loaded
//     on its core): the device computes with stale weights and counts IMC_STALE_READS;
//   - a launch that depends on a launch tagged id= which no A.sync waited for before it (the wait
//     was placed after both): the compiler orders them anyway and says so;
//   - a MatMul datapath whose ODR stores the rows an earlier MatMul datapath stored and nobody
//     read in between (a K-tiled matmul that overwrites instead of accumulating), or that stores
//     the same rows several times itself.
// Each is a Diagnostic (diag.hpp): a warning, or with `as_errors` a CompileError at the first.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "axcore/compiler/program.hpp"

namespace axcore::compiler::lower_detail {

class HazardChecker {
 public:
  HazardChecker(bool as_errors, std::vector<Diagnostic>& out) : as_errors_(as_errors), out_(out) {}

  // A LoadIMC of `b` (placed in residency `matrix_id`) on `core`: returns true when it begins a
  // residency on the device (a matrix_id other than the current one invalidates every tile).
  bool loadimc(uint32_t core, const BufferNode& b, uint32_t matrix_id, const SourceLoc& loc);
  // A datapath on `core` whose MVM reads `b`.
  void mvm_reads(uint32_t core, const BufferNode& b, const SourceLoc& loc);

  // Before every launch, `s` (the K-tile check: what it reads and what a MatMul stores).
  void launching(const Step& s, const SourceLoc& loc);
  // Before a launch written in the program (a datapath, LoadIMC or DMA block, not a copy the
  // compiler inserts), after launching(): whether it must follow a tagged launch nobody waited for.
  void before_launch(const Step& s, const std::vector<Step>& steps, const SourceLoc& loc);
  // After it: a launch tagged id= by the author is in flight until an A.sync waits for it.
  void tagged(std::size_t index, const std::string& id, const SourceLoc& loc);
  // An A.sync waited for launch `index`: it and the earlier launches of its channel / queue.
  void fenced(std::size_t index, const std::vector<Step>& steps);

 private:
  void report(Diagnostic d);

  struct Residency {
    uint32_t matrix_id = 0;
    std::set<const BufferNode*> loaded;  // matrices loaded since it began
    std::string began_by;                // the matrix whose LoadIMC began it
    SourceLoc began_at;
  };
  struct Tagged {
    std::string id;
    SourceLoc loc;
  };
  // An MVMEXE datapath's ODR store that no later launch has read yet.
  struct Store {
    uint32_t core = 0;
    std::vector<uint32_t> odr, words;  // the walk's words, the whole descriptor
    int64_t lo = 0, hi = 0;            // rows it writes (inclusive)
    SourceLoc loc;
  };

  bool as_errors_;
  std::vector<Diagnostic>& out_;
  std::set<std::string> said_;  // loc + message: each hazard once (an unrolled loop repeats it)
  std::map<uint32_t, Residency> imc_;
  std::map<uint32_t, std::set<const BufferNode*>> ever_loaded_;
  std::map<std::size_t, Tagged> tagged_;
  std::vector<Store> stores_;
};

}  // namespace axcore::compiler::lower_detail
