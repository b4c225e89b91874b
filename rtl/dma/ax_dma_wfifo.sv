// The MM2S -> S2MM stream of a DMA channel pair: a FIFO of Depth 32-bit words that takes up to
// 16 words and gives up to 16 words per cycle (docs/timing.md). Registered: words pushed in
// cycle t are counted and visible from t + 1; count_o is the count at the start of the cycle
// (both sides decide on it). out_data_o holds the 16 words from the head (word 0 = oldest).
module ax_dma_wfifo
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Depth = 64,
  localparam int unsigned CntW = $clog2(Depth + 1),
  localparam int unsigned PtrW = $clog2(Depth)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            clr_i,
  input  logic            push_i,
  input  logic [4:0]      push_n_i,   // 1..16 words, in_data_i[32k +: 32] = word k
  input  row_t            in_data_i,
  input  logic            pop_i,
  input  logic [4:0]      pop_n_i,    // 1..16 words
  output row_t            out_data_o,
  output logic [CntW-1:0] count_o
);
`ifndef SYNTHESIS
  initial begin
    assert ((Depth & (Depth - 1)) == 0 && Depth >= 32) else $fatal(1, "ax_dma_wfifo: Depth must be a power of two >= 32");
  end
`endif
  logic [Depth-1:0][31:0] buf_q;
  logic [PtrW-1:0]        rd_q, wr_q;
  logic [CntW-1:0]        cnt_q;

  always_comb begin
    for (int unsigned k = 0; k < 16; k++) out_data_o[32*k +: 32] = buf_q[PtrW'(rd_q + PtrW'(k))];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q  <= '0;
      wr_q  <= '0;
      cnt_q <= '0;
    end else if (clr_i) begin
      rd_q  <= '0;
      wr_q  <= '0;
      cnt_q <= '0;
    end else begin
      if (push_i) wr_q <= wr_q + PtrW'(push_n_i);
      if (pop_i) rd_q <= rd_q + PtrW'(pop_n_i);
      cnt_q <= cnt_q + (push_i ? CntW'(push_n_i) : '0) - (pop_i ? CntW'(pop_n_i) : '0);
    end
  end

  // Pushed words go into the buffer in the register itself (no copy of the whole buffer
  // through a next-state variable in every evaluation).
  always_ff @(posedge clk_i) begin
    for (int unsigned k = 0; k < 16; k++) begin
      if (push_i && 5'(k) < push_n_i) buf_q[PtrW'(wr_q + PtrW'(k))] <= in_data_i[32*k +: 32];
    end
  end

  assign count_o = cnt_q;
endmodule
