// DDR target of the word fabric: turns each word request into a single-beat AXI4 transaction
// (len 0, size 4 bytes, INCR) on the device's AXI master port, with the requesting initiator
// as the AXI ID. Reads answer on R, writes on B. One transaction is outstanding at a time.
module ax_axi_bridge
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned NI = 4,
  localparam int unsigned IdW = (NI > 1) ? $clog2(NI) : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     t_req_valid_i,
  input  word_req_t                t_req_i,
  input  logic [IdW-1:0]           t_req_id_i,
  output logic                     t_req_ready_o,
  output logic [NI-1:0]            t_rsp_valid_o,
  output word_t                    t_rsp_data_o,
  // AXI4 master
  output logic                     awvalid_o,
  input  logic                     awready_i,
  output logic [7:0]               awid_o,
  output logic [DDR_ADDR_BITS-1:0] awaddr_o,
  output logic [7:0]               awlen_o,
  output logic [2:0]               awsize_o,
  output logic [1:0]               awburst_o,
  output logic                     wvalid_o,
  input  logic                     wready_i,
  output logic [31:0]              wdata_o,
  output logic [3:0]               wstrb_o,
  output logic                     wlast_o,
  input  logic                     bvalid_i,
  output logic                     bready_o,
  input  logic [7:0]               bid_i,
  input  logic [1:0]               bresp_i,
  output logic                     arvalid_o,
  input  logic                     arready_i,
  output logic [7:0]               arid_o,
  output logic [DDR_ADDR_BITS-1:0] araddr_o,
  output logic [7:0]               arlen_o,
  output logic [2:0]               arsize_o,
  output logic [1:0]               arburst_o,
  input  logic                     rvalid_i,
  output logic                     rready_o,
  input  logic [7:0]               rid_i,
  input  logic [31:0]              rdata_i,
  input  logic [1:0]               rresp_i,
  input  logic                     rlast_i
);
  // One transaction at a time (docs/timing.md): accept a word at t, present AR (or AW+W) from
  // t+1 until taken, pass the R (or B) response through in the cycle it arrives, accept the next
  // word the cycle after. A DDR read word therefore takes ddr_latency + 2 cycles, a write 4
  // (the DDR model answers a write 2 cycles after its address).
  typedef enum logic [1:0] {B_IDLE, B_ADDR, B_RESP} bstate_e;
  bstate_e                  state_q, state_d;
  logic                     we_q, aw_q, aw_d, w_q, w_d;
  logic [IdW-1:0]           id_q;
  logic [DDR_ADDR_BITS-1:0] addr_q;
  word_t                    wdata_q;
  logic                     accept, resp;

  assign t_req_ready_o = (state_q == B_IDLE);
  assign accept        = t_req_valid_i && t_req_ready_o;
  assign resp          = we_q ? bvalid_i : rvalid_i;

  always_comb begin
    state_d = state_q;
    aw_d    = aw_q && !awready_i;
    w_d     = w_q && !wready_i;
    unique case (state_q)
      B_IDLE: if (accept) begin
        state_d = B_ADDR;
        aw_d    = t_req_i.we;
        w_d     = t_req_i.we;
      end
      B_ADDR: begin
        if (we_q ? (!aw_d && !w_d) : arready_i) state_d = B_RESP;
      end
      B_RESP: if (resp) state_d = B_IDLE;
      default: state_d = B_IDLE;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= B_IDLE;
      aw_q    <= 1'b0;
      w_q     <= 1'b0;
      we_q    <= 1'b0;
      id_q    <= '0;
      addr_q  <= '0;
      wdata_q <= '0;
    end else begin
      state_q <= state_d;
      aw_q    <= aw_d;
      w_q     <= w_d;
      if (accept) begin
        we_q    <= t_req_i.we;
        id_q    <= t_req_id_i;
        addr_q  <= t_req_i.addr;
        wdata_q <= t_req_i.wdata;
      end
    end
  end

  assign awvalid_o = aw_q;
  assign awid_o    = 8'(id_q);
  assign awaddr_o  = addr_q;
  assign awlen_o   = 8'd0;
  assign awsize_o  = 3'd2;
  assign awburst_o = 2'b01;
  assign wvalid_o  = w_q;
  assign wdata_o   = wdata_q;
  assign wstrb_o   = 4'hF;
  assign wlast_o   = 1'b1;
  assign arvalid_o = (state_q == B_ADDR) && !we_q;
  assign arid_o    = 8'(id_q);
  assign araddr_o  = addr_q;
  assign arlen_o   = 8'd0;
  assign arsize_o  = 3'd2;
  assign arburst_o = 2'b01;
  assign bready_o  = 1'b1;
  assign rready_o  = 1'b1;

  // The held transaction is the only one, so its response goes to its initiator (the AXI ID is
  // informative for the DDR model).
  always_comb begin
    t_rsp_valid_o = '0;
    if (state_q == B_RESP && resp) t_rsp_valid_o[id_q] = 1'b1;
  end
  assign t_rsp_data_o = rdata_i;

  // Responses carry no error in v1 (the DDR model only answers OKAY; ranges are checked on BDs).
  logic unused;
  assign unused = ^{bresp_i, rresp_i, rlast_i, bid_i, rid_i, t_req_i.mem, t_req_i.core};
endmodule
