// Host interface: a 32-bit AXI4-Lite target turned into the internal register bus. One
// transaction at a time (writes win a tie). Address = col << 25 | row << 20 | offset; the row
// selects the tile (0 shim, 1 mem, 2 + c core c). A column other than 0, a row without a tile
// or an offset no register answers gives SLVERR (reads return 0).
module ax_host_axil
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned NTiles = 3
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               awvalid_i,
  output logic               awready_o,
  input  logic [31:0]        awaddr_i,
  input  logic               wvalid_i,
  output logic               wready_o,
  input  logic [31:0]        wdata_i,
  input  logic [3:0]         wstrb_i,
  output logic               bvalid_o,
  input  logic               bready_i,
  output logic [1:0]         bresp_o,
  input  logic               arvalid_i,
  output logic               arready_o,
  input  logic [31:0]        araddr_i,
  output logic               rvalid_o,
  input  logic               rready_i,
  output logic [31:0]        rdata_o,
  output logic [1:0]         rresp_o,
  // register bus to the tiles
  output logic [NTiles-1:0]  reg_valid_o,
  output reg_req_t           reg_req_o,
  input  logic [NTiles-1:0]  reg_rsp_valid_i,
  input  logic [NTiles-1:0]  reg_rsp_hit_i,
  input  word_t [NTiles-1:0] reg_rsp_rdata_i
);
  localparam int unsigned TW = (NTiles > 1) ? $clog2(NTiles) : 1;
  typedef enum logic [1:0] {H_IDLE, H_BUS, H_B, H_R} hstate_e;
  hstate_e     state_q, state_d;
  reg_req_t    req_q, req_d;
  logic [TW-1:0] tile_q, tile_d;
  logic        bad_q, bad_d;
  word_t       rdata_q, rdata_d;
  logic [1:0]  resp_q, resp_d;
  logic [31:0] addr;

  // Column 0 only; rows 0 .. NTiles - 1.
  function automatic logic bad_tile(logic [31:ADDR_ROW_SHIFT] a);
    return (a[31:ADDR_COL_SHIFT] != '0) || (32'(a[ADDR_COL_SHIFT-1:ADDR_ROW_SHIFT]) >= NTiles);
  endfunction

  assign awready_o = (state_q == H_IDLE) && awvalid_i && wvalid_i;
  assign wready_o  = (state_q == H_IDLE) && awvalid_i && wvalid_i;
  assign arready_o = (state_q == H_IDLE) && !(awvalid_i && wvalid_i) && arvalid_i;
  assign addr      = (awvalid_i && wvalid_i) ? awaddr_i : araddr_i;

  always_comb begin
    state_d = state_q;
    req_d   = req_q;
    tile_d  = tile_q;
    bad_d   = bad_q;
    rdata_d = rdata_q;
    resp_d  = resp_q;
    unique case (state_q)
      H_IDLE: begin
        if ((awvalid_i && wvalid_i) || arvalid_i) begin
          req_d.we    = awvalid_i && wvalid_i;
          req_d.addr  = addr[ADDR_ROW_SHIFT-1:0];
          req_d.wdata = (awvalid_i && wvalid_i) ? wdata_i : '0;
          tile_d      = TW'(addr[ADDR_COL_SHIFT-1:ADDR_ROW_SHIFT]);
          bad_d       = bad_tile(addr[31:ADDR_ROW_SHIFT]) || (awvalid_i && wvalid_i && wstrb_i != 4'hF) ||
                        (addr[1:0] != 2'b00);
          state_d     = H_BUS;
        end
      end
      H_BUS: begin
        if (bad_q) begin
          rdata_d = '0;
          resp_d  = 2'b10;
          state_d = req_q.we ? H_B : H_R;
        end else if (reg_rsp_valid_i[tile_q]) begin
          rdata_d = reg_rsp_hit_i[tile_q] ? reg_rsp_rdata_i[tile_q] : '0;
          resp_d  = reg_rsp_hit_i[tile_q] ? 2'b00 : 2'b10;
          state_d = req_q.we ? H_B : H_R;
        end
      end
      H_B: if (bready_i) state_d = H_IDLE;
      H_R: if (rready_i) state_d = H_IDLE;
      default: state_d = H_IDLE;
    endcase
  end

  // The registers run on a gated clock (rtl/prim/ax_clk_gate), on while a transaction is in
  // flight or one is offered: idle, nothing changes. So the request every tile decodes
  // (reg_req_o, reg_valid_o) changes only in those cycles, and the tiles' register logic that
  // reads it is evaluated only then in the Verilated model (docs/rtl.md).
  logic clk_h;
  ax_clk_gate u_cg (
    .clk_i (clk_i), .rst_ni (rst_ni), .en_i ((state_q != H_IDLE) || (awvalid_i && wvalid_i) || arvalid_i),
    .clk_o (clk_h)
  );

  always_ff @(posedge clk_h or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= H_IDLE;
      req_q   <= '0;
      tile_q  <= '0;
      bad_q   <= 1'b0;
      rdata_q <= '0;
      resp_q  <= '0;
    end else begin
      state_q <= state_d;
      req_q   <= req_d;
      tile_q  <= tile_d;
      bad_q   <= bad_d;
      rdata_q <= rdata_d;
      resp_q  <= resp_d;
    end
  end

  always_comb begin
    reg_valid_o = '0;
    if (state_q == H_BUS && !bad_q) reg_valid_o[tile_q] = 1'b1;
  end
  assign reg_req_o = req_q;
  assign bvalid_o  = (state_q == H_B);
  assign bresp_o   = resp_q;
  assign rvalid_o  = (state_q == H_R);
  assign rdata_o   = rdata_q;
  assign rresp_o   = resp_q;
endmodule
