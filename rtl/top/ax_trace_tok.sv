// Trace monitor of the shim token unit: one TOKEN record per token that enters the FIFO.
module ax_trace_tok
  import axcore_pkg::*;
(
  input logic   clk_i,
  input logic   valid_i,
  input token_t tok_i
);
`ifdef VERILATOR
  import "DPI-C" function void ax_trace_token(input int unsigned word);
  always_ff @(posedge clk_i) begin
    if (valid_i) ax_trace_token(tok_i);
  end
`else
  logic unused;
  assign unused = ^{clk_i, valid_i, tok_i};
`endif
endmodule
