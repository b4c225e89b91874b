// Per-invocation lowering: a datapath, a LoadIMC, into a command-processor task.
#pragma once

#include <axcore/num/pword.hpp>

#include "lower_internal.hpp"

namespace axcore::compiler::lower_detail {

struct ImcPlace {
  uint32_t matrix_id = 1;
  uint32_t tile_base = 0;
  uint32_t core = 0;
};
using ImcOf = std::function<ImcPlace(const BufferNode&, const SourceLoc&)>;

// One task, or one per group of blocks when a unit has several (guide §6, §9.2; docs/compiler.md),
// each with the blocks it runs (an IFD or ODR block may be cut between several).
struct DatapathTask {
  Task task;
  std::vector<const StmtNode*> blocks;
};
std::vector<DatapathTask> lower_datapath(const StmtNode& dp, const std::vector<Loop>& outer, const RegionOf& region,
                                         const ImcOf& imc_of);
Task lower_loadimc(const StmtNode& block, const RegionOf& region, const ImcOf& imc_of);

}  // namespace axcore::compiler::lower_detail
