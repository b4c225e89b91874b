// Clock gate (the integrated clock-gating cell of a standard-cell library, plus an idle tail):
// clk_o follows clk_i in the cycles whose en_i is high and in the Tail cycles after the last of
// them; a latch open while clk_i is low holds the enable through the high phase, so clk_o
// never glitches. The tail lets the one-cycle pulses and responses an active cycle leaves
// behind complete and clear before the clock stops. The simulator's use: Verilator evaluates
// the logic of a clock domain only in the cycles that domain's clock rises, so an idle block on
// a gated clock costs nothing per cycle (docs/rtl.md "Clock gating of the core tiles").
// Synthesis (SYNTHESIS defined: the FPGA flows) keeps the clock ungated — a latch and a LUT on a
// clock path do not belong in an FPGA (an ASIC flow maps this module to its gating cell). The
// cycles are the same either way: the gated blocks change no state in a gated cycle.
module ax_clk_gate #(
  parameter int unsigned Tail = 8
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic en_i,
  output logic clk_o
);
`ifdef SYNTHESIS
  assign clk_o = clk_i;
  logic unused;
  assign unused = ^{rst_ni, en_i, 32'(Tail)};
`else
  localparam int unsigned TW = $clog2(Tail + 1);
  logic [TW-1:0] tail_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)              tail_q <= TW'(Tail);
    else if (en_i)            tail_q <= TW'(Tail);
    else if (tail_q != '0)    tail_q <= tail_q - 1'b1;
  end
  logic en_l;
  always_latch begin
    if (!clk_i) en_l = en_i || (tail_q != '0);
  end
  assign clk_o = clk_i & en_l;
`endif
endmodule
