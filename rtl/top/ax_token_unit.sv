// Shim token unit: completion tokens from N sources (round-robin, one per cycle) into a
// token_fifo_depth FIFO that the host pops through TOKEN_POP. A token arriving at a full FIFO
// is accepted and dropped: TOKEN_DROPPED counts it and the shim records TOKEN_OVERFLOW.
module ax_token_unit
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned N = 3
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic   [N-1:0]    tok_valid_i,
  output logic   [N-1:0]    tok_ready_o,
  input  token_t [N-1:0]    tok_i,
  input  logic              pop_i,       // TOKEN_POP read
  output word_t             pop_data_o,  // head token, 0 when empty
  output logic [TOKEN_CNT_W-1:0] count_o,
  output word_t             dropped_o,
  output logic              drop_o,      // a token was dropped this cycle
  output logic              mon_valid_o, // a token entered the FIFO this cycle
  output token_t            mon_token_o
);
  logic [N-1:0]          gnt;
  logic [$clog2(N)-1:0]  idx;
  logic                  any, fifo_ready, fifo_valid;
  token_t                head, unused_next;
  word_t                 dropped_q;

  // Gated clock: on while a token is offered or popped (nothing else changes the arbiter, the
  // FIFO or the drop count), so the cores' token handshakes are evaluated only in those cycles.
  logic clk;
  ax_clk_gate u_cg (.clk_i (clk_i), .rst_ni (rst_ni), .en_i ((|tok_valid_i) || pop_i), .clk_o (clk));

  ax_rr_arb #(.N(N)) u_arb (
    .clk_i   (clk),
    .rst_ni  (rst_ni),
    .req_i   (tok_valid_i),
    .ack_i   (1'b1),
    .gnt_o   (gnt),
    .idx_o   (idx),
    .valid_o (any)
  );
  assign tok_ready_o = gnt;

  ax_fifo #(.T(token_t), .Depth(TOKEN_FIFO_DEPTH), .CheckIn(1'b0)) u_fifo (  // full: dropped
    .clk_i       (clk),
    .rst_ni      (rst_ni),
    .clr_i       (1'b0),
    .in_valid_i  (any),
    .in_ready_o  (fifo_ready),
    .in_data_i   (tok_i[idx]),
    .out_valid_o (fifo_valid),
    .out_ready_i (pop_i),
    .out_data_o  (head),
    .out_next_o  (unused_next),
    .count_o     (count_o)
  );

  assign pop_data_o  = fifo_valid ? word_t'(head) : '0;
  assign drop_o      = any && !fifo_ready;
  assign mon_valid_o = any && fifo_ready;
  assign mon_token_o = tok_i[idx];

  always_ff @(posedge clk or negedge rst_ni) begin
    if (!rst_ni)     dropped_q <= '0;
    else if (drop_o) dropped_q <= dropped_q + 1'b1;
  end
  assign dropped_o = dropped_q;
endmodule
