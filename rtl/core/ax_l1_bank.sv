// One bank of the core's L1 (ax_l1): a single-port row SRAM with byte enables and a registered
// read, like ax_sram, with two requests in priority order — the unit port that won the bank
// (u_*) and, when no unit port wants it, the word slot (w_*: DMA fabric or host debug). The
// choice between them is made in the register, so the wide request multiplexers sit on the
// unit side (evaluated in the tile's clock cycles only) and nothing of the width of a row is
// rebuilt in the cycles the fabric's arbitration changes while the tile is idle (docs/rtl.md).
module ax_l1_bank
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Depth = 256,
  parameter int unsigned SelW  = 3,   // low row bits that chose the bank
  localparam int unsigned AW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic     clk_i,
  input  logic     u_req_i,
  input  mem_req_t u_i,
  input  logic     w_req_i,
  input  mem_req_t w_i,
  output row_t     rdata_o
);
  row_t    mem_q [Depth];
  row_t    rdata_q;
  logic [AW-1:0] u_entry, w_entry;
  assign u_entry = AW'(u_i.row >> SelW);
  assign w_entry = AW'(w_i.row >> SelW);

  always_ff @(posedge clk_i) begin
    if (u_req_i) begin
      if (u_i.we) begin
        for (int unsigned b = 0; b < ROW_BYTES; b++) begin
          if (u_i.be[b]) mem_q[u_entry][8*b +: 8] <= u_i.wdata[8*b +: 8];
        end
      end else begin
        rdata_q <= mem_q[u_entry];
      end
    end else if (w_req_i) begin
      if (w_i.we) begin
        for (int unsigned b = 0; b < ROW_BYTES; b++) begin
          if (w_i.be[b]) mem_q[w_entry][8*b +: 8] <= w_i.wdata[8*b +: 8];
        end
      end else begin
        rdata_q <= mem_q[w_entry];
      end
    end
  end
  assign rdata_o = rdata_q;

  // the rows above the entry bits chose the bank (or lie past the bank: the requester checked)
  logic unused;
  assign unused = ^{u_i.row, w_i.row};
endmodule
