// DDR target of the DMA fabric: AXI4 master with INCR bursts and outstanding transactions
// (docs/timing.md "DDR reads/writes", "Outstanding rule", "Bridge and DDR model timing").
// A read request is one burst over whole 64-byte rows (AR address = its first row, AxLEN + 1 =
// rows * 64 / AXI_DATA_BYTES); its rows are returned in order to the requesting initiator in
// the cycle each row's last R beat arrives. A write beat is one row sent as 64 / AXI_DATA_BYTES
// W beats with the beat's strobes; the first beat of a burst also issues AW, and from it to the
// burst's last beat the write path is held for that initiator (wlock_o). Up to AXI_MAX_READS
// read and AXI_MAX_WRITES write bursts are outstanding; completion is in order (the AXI ID is
// informative).
module ax_axi_bridge
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned NI = 4,
  localparam int unsigned IdW = (NI > 1) ? $clog2(NI) : 1,
  localparam int unsigned ADB = AXI_DATA_BYTES,
  localparam int unsigned DW = 8 * ADB
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     t_req_valid_i,
  input  word_req_t                t_req_i,
  input  logic [IdW-1:0]           t_req_id_i,
  output logic                     t_req_ready_o,
  output logic [NI-1:0]            t_rsp_valid_o,
  output row_t                     t_rsp_data_o,
  output logic                     wlock_o,
  output logic [IdW-1:0]           wlock_id_o,
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
  output logic [DW-1:0]            wdata_o,
  output logic [ADB-1:0]           wstrb_o,
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
  input  logic [DW-1:0]            rdata_i,
  input  logic [1:0]               rresp_i,
  input  logic                     rlast_i
);
  localparam int unsigned K = ROW_BYTES / ADB;  // AXI beats per 64-byte row
  localparam int unsigned KW = (K > 1) ? $clog2(K) : 1;
`ifndef SYNTHESIS
  initial begin
    assert (ADB == 16 || ADB == 32 || ADB == 64) else $fatal(1, "ax_axi_bridge: axi_data_bytes must be 16, 32 or 64");
  end
`endif

  typedef struct packed {
    logic [IdW-1:0] id;
    logic [6:0]     rows;
  } burst_t;

  function automatic logic [7:0] axlen(logic [6:0] rows);
    return 8'(32'(rows) * K - 1);
  endfunction

  // Gated clock: on while a request comes from the fabric, an AR/AW/W is pending or an R/B beat
  // arrives; nothing of the bridge changes otherwise (its state, its FIFOs, the write lock).
  logic clk, ar_q, aw_q, w_q;
  ax_clk_gate u_cg (
    .clk_i (clk_i), .rst_ni (rst_ni), .en_i (t_req_valid_i || ar_q || aw_q || w_q || rvalid_i || bvalid_i),
    .clk_o (clk)
  );

  // ---- read path ----
  logic [DDR_ADDR_BITS-1:0] ar_addr_q;
  logic [7:0]               ar_len_q;
  logic [IdW-1:0]           ar_id_q;
  logic                     rq_ready, rq_valid, rq_pop, rd_ok, acc_rd;
  burst_t                   rq_head, unused_rq_next;
  logic [KW-1:0]            rbeat_q;
  logic [6:0]               rrow_q;
  row_t                     rbuf_q, rrow_data;
  logic                     row_done;

  assign rd_ok  = rq_ready && (!ar_q || arready_i);
  assign acc_rd = t_req_valid_i && !t_req_i.we && rd_ok;

  ax_fifo #(.T(burst_t), .Depth(AXI_MAX_READS)) u_rq (
    .clk_i       (clk),
    .rst_ni      (rst_ni),
    .clr_i       (1'b0),
    .in_valid_i  (acc_rd),
    .in_ready_o  (rq_ready),
    .in_data_i   ('{id: t_req_id_i, rows: t_req_i.rows}),
    .out_valid_o (rq_valid),
    .out_ready_i (rq_pop),
    .out_data_o  (rq_head),
    .out_next_o  (unused_rq_next),
    .count_o     (unused_rq_count)
  );
  logic [$clog2(AXI_MAX_READS + 1)-1:0] unused_rq_count;

  assign row_done = rvalid_i && (32'(rbeat_q) == K - 1);
  assign rq_pop   = row_done && rq_valid && (rrow_q == rq_head.rows - 7'd1);
  always_comb begin
    rrow_data = rbuf_q;
    rrow_data[(K - 1) * DW +: DW] = rdata_i;
  end

  // ---- write path ----
  logic                     wlast_row_q, lock_q, bq_ready, bq_valid, w_free, wr_ok, acc_wr;
  logic [DDR_ADDR_BITS-1:0] aw_addr_q;
  logic [7:0]               aw_len_q;
  logic [IdW-1:0]           aw_id_q, lock_id_q, bq_head, unused_bq_next;
  logic [KW-1:0]            wbeat_q;
  row_t                     wrow_q;
  row_be_t                  wbe_q;

  assign w_free = !w_q || (wready_i && 32'(wbeat_q) == K - 1);
  assign wr_ok  = w_free && (!t_req_i.bfirst || (bq_ready && (!aw_q || awready_i)));
  assign acc_wr = t_req_valid_i && t_req_i.we && wr_ok;

  ax_fifo #(.T(logic [IdW-1:0]), .Depth(AXI_MAX_WRITES)) u_bq (
    .clk_i       (clk),
    .rst_ni      (rst_ni),
    .clr_i       (1'b0),
    .in_valid_i  (acc_wr && t_req_i.bfirst),
    .in_ready_o  (bq_ready),
    .in_data_i   (t_req_id_i),
    .out_valid_o (bq_valid),
    .out_ready_i (bvalid_i),
    .out_data_o  (bq_head),
    .out_next_o  (unused_bq_next),
    .count_o     (unused_bq_count)
  );
  logic [$clog2(AXI_MAX_WRITES + 1)-1:0] unused_bq_count;

  assign t_req_ready_o = t_req_i.we ? wr_ok : rd_ok;

  always_ff @(posedge clk or negedge rst_ni) begin
    if (!rst_ni) begin
      ar_q        <= 1'b0;
      ar_addr_q   <= '0;
      ar_len_q    <= '0;
      ar_id_q     <= '0;
      rbeat_q     <= '0;
      rrow_q      <= '0;
      rbuf_q      <= '0;
      aw_q        <= 1'b0;
      aw_addr_q   <= '0;
      aw_len_q    <= '0;
      aw_id_q     <= '0;
      w_q         <= 1'b0;
      wbeat_q     <= '0;
      wrow_q      <= '0;
      wbe_q       <= '0;
      wlast_row_q <= 1'b0;
      lock_q      <= 1'b0;
      lock_id_q   <= '0;
    end else begin
      if (ar_q && arready_i) ar_q <= 1'b0;
      if (acc_rd) begin
        ar_q      <= 1'b1;
        ar_addr_q <= {t_req_i.addr[DDR_ADDR_BITS-1:6], 6'd0};
        ar_len_q  <= axlen(t_req_i.rows);
        ar_id_q   <= t_req_id_i;
      end
      if (rvalid_i) begin
        if (row_done) begin
          rbeat_q <= '0;
          rrow_q  <= rq_pop ? '0 : rrow_q + 7'd1;
        end else begin
          rbuf_q[32'(rbeat_q) * DW +: DW] <= rdata_i;
          rbeat_q <= rbeat_q + 1'b1;
        end
      end
      if (aw_q && awready_i) aw_q <= 1'b0;
      if (w_q && wready_i) begin
        if (32'(wbeat_q) == K - 1) w_q <= 1'b0;
        wbeat_q <= (32'(wbeat_q) == K - 1) ? '0 : wbeat_q + 1'b1;
      end
      if (acc_wr) begin
        w_q         <= 1'b1;
        wbeat_q     <= '0;
        wrow_q      <= t_req_i.wdata;
        wbe_q       <= beat_be(t_req_i.addr[5:2], t_req_i.nw[4:0]);
        wlast_row_q <= t_req_i.blast;
        lock_q      <= !t_req_i.blast;
        lock_id_q   <= t_req_id_i;
        if (t_req_i.bfirst) begin
          aw_q      <= 1'b1;
          aw_addr_q <= {t_req_i.addr[DDR_ADDR_BITS-1:6], 6'd0};
          aw_len_q  <= axlen(t_req_i.rows);
          aw_id_q   <= t_req_id_i;
        end
      end
    end
  end

  assign wlock_o    = lock_q;
  assign wlock_id_o = lock_id_q;

  assign awvalid_o = aw_q;
  assign awid_o    = 8'(aw_id_q);
  assign awaddr_o  = aw_addr_q;
  assign awlen_o   = aw_len_q;
  assign awsize_o  = 3'($clog2(ADB));
  assign awburst_o = 2'b01;
  assign wvalid_o  = w_q;
  assign wdata_o   = wrow_q[32'(wbeat_q) * DW +: DW];
  assign wstrb_o   = wbe_q[32'(wbeat_q) * ADB +: ADB];
  assign wlast_o   = wlast_row_q && (32'(wbeat_q) == K - 1);
  assign arvalid_o = ar_q;
  assign arid_o    = 8'(ar_id_q);
  assign araddr_o  = ar_addr_q;
  assign arlen_o   = ar_len_q;
  assign arsize_o  = 3'($clog2(ADB));
  assign arburst_o = 2'b01;
  assign bready_o  = 1'b1;
  assign rready_o  = 1'b1;

  // R rows and B acks go to the oldest burst of their kind (in-order completion).
  always_comb begin
    t_rsp_valid_o = '0;
    if (row_done && rq_valid) t_rsp_valid_o[rq_head.id] = 1'b1;
    if (bvalid_i && bq_valid) t_rsp_valid_o[bq_head] = 1'b1;
  end
  assign t_rsp_data_o = rrow_data;

  // Responses carry no error (the DDR model only answers OKAY; ranges are checked on BDs).
  logic unused;
  assign unused = ^{bresp_i, rresp_i, rlast_i, bid_i, rid_i, t_req_i.mem, t_req_i.core, t_req_i.nw[BEAT_NW_W-1:5]};
endmodule
