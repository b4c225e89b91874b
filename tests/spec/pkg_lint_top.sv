// Uses the generated package's types so `verilator --lint-only -Wall` elaborates all of it.
module pkg_lint_top
  import axcore_pkg::*;
(
  input  dma_bd_t      bd_i,
  input  walk_t        walk_i,
  input  dpu_instr_t   instr_i,
  input  queue_push_t  push_i,
  output token_t       token_o,
  output logic         parity_o
);
  assign token_o = '{valid: 1'b1, error: 1'b0, code: ERROR_CODE_NONE, tag: push_i.tag,
                     col: 7'(bd_i.core), row: 5'(walk_i.ndims), dir: 1'b0, channel: 5'(instr_i.op)};
  assign parity_o = ^{bd_i, walk_i, instr_i, push_i, SHIM_ID_RESET, 32'(DMA_BD_WORDS)};
endmodule
