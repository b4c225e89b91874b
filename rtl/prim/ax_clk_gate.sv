// Clock gate (the integrated clock-gating cell of a standard-cell library): clk_o follows clk_i
// in the cycles whose en_i is high at the end of the low phase; a latch open while clk_i is low
// holds en_i through the high phase, so clk_o never glitches. The simulator's use: Verilator
// evaluates the logic of a clock domain only in the cycles that domain's clock rises, so an idle
// block on a gated clock costs nothing per cycle (docs/rtl.md "Clock gating of the core tiles").
module ax_clk_gate (
  input  logic clk_i,
  input  logic en_i,
  output logic clk_o
);
  logic en_l;
  always_latch begin
    if (!clk_i) en_l = en_i;
  end
  assign clk_o = clk_i & en_l;
endmodule
