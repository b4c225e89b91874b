// The stream stability rule as an assertion: once valid is raised without ready, valid stays
// high and the data stays the same until the handshake. clr_i (a flush) releases the rule.
// Checked with immediate assertions on registered copies so Verilator --assert evaluates it.
module ax_stream_check #(
  parameter type T = logic
) (
  input logic clk_i,
  input logic rst_ni,
  input logic clr_i,
  input logic valid_i,
  input logic ready_i,
  input T     data_i
);
`ifndef SYNTHESIS
  logic held_q;
  T     data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
    end else begin
      held_q <= valid_i && !ready_i && !clr_i;
    end
  end

  always_ff @(posedge clk_i) begin
    data_q <= data_i;
  end

  always_ff @(posedge clk_i) begin
    if (held_q && !clr_i) begin  // held_q is 0 in reset
      assert (valid_i) else $error("stream: valid dropped before ready (%m)");
      assert (data_i == data_q) else $error("stream: data changed while valid && !ready (%m)");
    end
  end
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, clr_i, valid_i, ready_i, data_i};
`endif
endmodule
