// Everything of the device but the core tiles: the AXI4-Lite host target and its tile decode
// (row 0 shim, 1 mem, 2 + c core c), the shim and mem tiles, the DMA word fabric (initiators:
// SysDMA, MemDMA, then each core's CoreDMA, 2 * dma_channels ports each; targets: the DDR
// bridge, the L2 banks, each core's L1) and the AXI4 master to DDR. The core tiles attach
// through the core-side ports (NC = max(Cores, 1) entries; with Cores = 0, the test top ties
// them off). Trace monitors of the shim and mem tiles live here.
module ax_uncore
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Cores = 1,
  localparam int unsigned NC  = (Cores > 0) ? Cores : 1,
  localparam int unsigned NCh = 2 * DMA_CHANNELS,          // word ports per DMA engine
  localparam int unsigned NI  = NCh * (2 + Cores),         // fabric initiators
  localparam int unsigned NT  = 1 + L2_BANKS + Cores,      // fabric targets
  localparam int unsigned IdW = (NI > 1) ? $clog2(NI) : 1,
  localparam int unsigned NTiles = 2 + Cores
) (
`include "ax_top_ports.svh"
  ,
  // device status
  output logic                     busy_o,
  output logic [63:0]              cycle_o,
  output logic                     soft_reset_o,
  // core side
  output logic      [NC-1:0]              c_reg_valid_o,
  output reg_req_t                        c_reg_req_o,
  input  logic      [NC-1:0]              c_reg_rsp_valid_i,
  input  logic      [NC-1:0]              c_reg_rsp_hit_i,
  input  word_t     [NC-1:0]              c_reg_rsp_rdata_i,
  output logic      [NC-1:0]              c_l1_req_valid_o,
  output word_req_t [NC-1:0]              c_l1_req_o,
  output logic      [NC-1:0][IdW-1:0]     c_l1_req_id_o,
  input  logic      [NC-1:0]              c_l1_req_ready_i,
  input  logic      [NC-1:0][NI-1:0]      c_l1_rsp_valid_i,
  input  row_t      [NC-1:0]              c_l1_rsp_data_i,
  input  logic      [NC-1:0][NCh-1:0]     c_dma_req_valid_i,
  input  word_req_t [NC-1:0][NCh-1:0]     c_dma_req_i,
  output logic      [NC-1:0][NCh-1:0]     c_dma_req_ready_o,
  output logic      [NC-1:0][NCh-1:0]     c_dma_rsp_valid_o,
  output row_t      [NC-1:0][NCh-1:0]     c_dma_rsp_data_o,
  input  logic      [NC-1:0]              c_tok_valid_i,
  output logic      [NC-1:0]              c_tok_ready_o,
  input  token_t    [NC-1:0]              c_tok_i,
  input  logic      [NC-1:0]              c_busy_i,
  input  logic      [NC-1:0]              c_err_i
);
  localparam int unsigned TR_MM2S0 = 13;  // axcore::trace::Unit::DMA_MM2S0
  localparam int unsigned TR_S2MM0 = 17;  // axcore::trace::Unit::DMA_S2MM0

  logic trst_n, soft_rst;
  assign trst_n       = rst_ni && !soft_rst;
  assign soft_reset_o = soft_rst;

  // ---- host interface and tile decode ----
  logic [NTiles-1:0] t_valid, t_rsp_valid, t_rsp_hit;
  word_t [NTiles-1:0] t_rsp_rdata;
  reg_req_t          reg_req;

  ax_host_axil #(.NTiles(NTiles)) u_host (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .awvalid_i       (s_awvalid_i),
    .awready_o       (s_awready_o),
    .awaddr_i        (s_awaddr_i),
    .wvalid_i        (s_wvalid_i),
    .wready_o        (s_wready_o),
    .wdata_i         (s_wdata_i),
    .wstrb_i         (s_wstrb_i),
    .bvalid_o        (s_bvalid_o),
    .bready_i        (s_bready_i),
    .bresp_o         (s_bresp_o),
    .arvalid_i       (s_arvalid_i),
    .arready_o       (s_arready_o),
    .araddr_i        (s_araddr_i),
    .rvalid_o        (s_rvalid_o),
    .rready_i        (s_rready_i),
    .rdata_o         (s_rdata_o),
    .rresp_o         (s_rresp_o),
    .reg_valid_o     (t_valid),
    .reg_req_o       (reg_req),
    .reg_rsp_valid_i (t_rsp_valid),
    .reg_rsp_hit_i   (t_rsp_hit),
    .reg_rsp_rdata_i (t_rsp_rdata)
  );
  assign c_reg_req_o = reg_req;

  // ---- fabric ----
  logic      [NI-1:0]          i_valid, i_ready, i_rsp_valid;
  word_req_t [NI-1:0]          i_req;
  row_t      [NI-1:0]          i_rsp_data;
  logic      [NT-1:0]          f_valid, f_ready;
  word_req_t [NT-1:0]          f_req;
  logic      [NT-1:0][IdW-1:0] f_id;
  logic      [NT-1:0][NI-1:0]  f_rsp_valid;
  row_t      [NT-1:0]          f_rsp_data;
  logic                        wlock;
  logic      [IdW-1:0]         wlock_id;

  ax_word_xbar #(.NI(NI), .Cores(Cores)) u_xbar (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .i_req_valid_i (i_valid),
    .i_req_i       (i_req),
    .i_req_ready_o (i_ready),
    .i_rsp_valid_o (i_rsp_valid),
    .i_rsp_data_o  (i_rsp_data),
    .t_req_valid_o (f_valid),
    .t_req_o       (f_req),
    .t_req_id_o    (f_id),
    .t_req_ready_i (f_ready),
    .t_rsp_valid_i (f_rsp_valid),
    .t_rsp_data_i  (f_rsp_data),
    .wlock_i       (wlock),
    .wlock_id_i    (wlock_id)
  );

  ax_axi_bridge #(.NI(NI)) u_axi (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .t_req_valid_i (f_valid[0]),
    .t_req_i       (f_req[0]),
    .t_req_id_i    (f_id[0]),
    .t_req_ready_o (f_ready[0]),
    .t_rsp_valid_o (f_rsp_valid[0]),
    .t_rsp_data_o  (f_rsp_data[0]),
    .wlock_o       (wlock),
    .wlock_id_o    (wlock_id),
    .awvalid_o     (m_awvalid_o),
    .awready_i     (m_awready_i),
    .awid_o        (m_awid_o),
    .awaddr_o      (m_awaddr_o),
    .awlen_o       (m_awlen_o),
    .awsize_o      (m_awsize_o),
    .awburst_o     (m_awburst_o),
    .wvalid_o      (m_wvalid_o),
    .wready_i      (m_wready_i),
    .wdata_o       (m_wdata_o),
    .wstrb_o       (m_wstrb_o),
    .wlast_o       (m_wlast_o),
    .bvalid_i      (m_bvalid_i),
    .bready_o      (m_bready_o),
    .bid_i         (m_bid_i),
    .bresp_i       (m_bresp_i),
    .arvalid_o     (m_arvalid_o),
    .arready_i     (m_arready_i),
    .arid_o        (m_arid_o),
    .araddr_o      (m_araddr_o),
    .arlen_o       (m_arlen_o),
    .arsize_o      (m_arsize_o),
    .arburst_o     (m_arburst_o),
    .rvalid_i      (m_rvalid_i),
    .rready_o      (m_rready_o),
    .rid_i         (m_rid_i),
    .rdata_i       (m_rdata_i),
    .rresp_i       (m_rresp_i),
    .rlast_i       (m_rlast_i)
  );

  // ---- shim ----
  logic      [NCh-1:0] sys_valid, sys_ready, sys_rsp_valid;
  word_req_t [NCh-1:0] sys_req;
  row_t      [NCh-1:0] sys_rsp_data;
  mon_task_t  [NCh-1:0] sys_mon_task, mem_mon_task;
  mon_write_t [NCh-1:0] sys_mon_write, mem_mon_write;
  logic       mem_tok_valid, mem_tok_ready, mem_busy, mem_err, tok_mon_valid;
  token_t     mem_tok, tok_mon;
  logic [Cores:0]        tok_v, tok_r;
  token_t [Cores:0]      toks;
  logic [NC-1:0]         c_busy_m, c_err_m;

  assign tok_v[0] = mem_tok_valid;
  assign toks[0]  = mem_tok;
  assign mem_tok_ready = tok_r[0];
  for (genvar c = 0; c < Cores; c++) begin : g_ctok
    assign tok_v[1 + c]    = c_tok_valid_i[c];
    assign toks[1 + c]     = c_tok_i[c];
    assign c_tok_ready_o[c] = tok_r[1 + c];
  end
  if (Cores == 0) begin : g_no_core_tok
    assign c_tok_ready_o = '0;
  end
  assign c_busy_m = (Cores > 0) ? c_busy_i : '0;
  assign c_err_m  = (Cores > 0) ? c_err_i : '0;

  ax_shim_tile #(.Cores(Cores), .NTokSrc(1 + Cores)) u_shim (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .soft_reset_o    (soft_rst),
    .reg_valid_i     (t_valid[SHIM_ROW]),
    .reg_req_i       (reg_req),
    .reg_rsp_valid_o (t_rsp_valid[SHIM_ROW]),
    .reg_rsp_hit_o   (t_rsp_hit[SHIM_ROW]),
    .reg_rsp_rdata_o (t_rsp_rdata[SHIM_ROW]),
    .dma_req_valid_o (sys_valid),
    .dma_req_o       (sys_req),
    .dma_req_ready_i (sys_ready),
    .dma_rsp_valid_i (sys_rsp_valid),
    .dma_rsp_data_i  (sys_rsp_data),
    .tok_valid_i     (tok_v),
    .tok_ready_o     (tok_r),
    .tok_i           (toks),
    .others_busy_i   (mem_busy || |c_busy_m),
    .others_err_i    (mem_err || |c_err_m),
    .busy_o          (busy_o),
    .cycle_o         (cycle_o),
    .mon_dma_task_o  (sys_mon_task),
    .mon_dma_write_o (sys_mon_write),
    .mon_tok_valid_o (tok_mon_valid),
    .mon_tok_o       (tok_mon)
  );

  // ---- mem ----
  logic      [NCh-1:0] mem_valid, mem_ready, mem_rsp_valid;
  word_req_t [NCh-1:0] mem_req;
  row_t      [NCh-1:0] mem_rsp_data;

  ax_mem_tile #(.Cores(Cores), .FabricNI(NI)) u_mem (
    .clk_i           (clk_i),
    .rst_ni          (trst_n),
    .reg_valid_i     (t_valid[MEM_ROW]),
    .reg_req_i       (reg_req),
    .reg_rsp_valid_o (t_rsp_valid[MEM_ROW]),
    .reg_rsp_hit_o   (t_rsp_hit[MEM_ROW]),
    .reg_rsp_rdata_o (t_rsp_rdata[MEM_ROW]),
    .l2_req_valid_i  (f_valid[L2_BANKS:1]),
    .l2_req_i        (f_req[L2_BANKS:1]),
    .l2_req_id_i     (f_id[L2_BANKS:1]),
    .l2_req_ready_o  (f_ready[L2_BANKS:1]),
    .l2_rsp_valid_o  (f_rsp_valid[L2_BANKS:1]),
    .l2_rsp_data_o   (f_rsp_data[L2_BANKS:1]),
    .dma_req_valid_o (mem_valid),
    .dma_req_o       (mem_req),
    .dma_req_ready_i (mem_ready),
    .dma_rsp_valid_i (mem_rsp_valid),
    .dma_rsp_data_i  (mem_rsp_data),
    .tok_valid_o     (mem_tok_valid),
    .tok_ready_i     (mem_tok_ready),
    .tok_o           (mem_tok),
    .busy_o          (mem_busy),
    .err_o           (mem_err),
    .mon_dma_task_o  (mem_mon_task),
    .mon_dma_write_o (mem_mon_write)
  );

  // ---- initiator and target wiring ----
  assign i_valid[NCh-1:0]       = sys_valid;
  assign i_req[NCh-1:0]         = sys_req;
  assign sys_ready              = i_ready[NCh-1:0];
  assign sys_rsp_valid          = i_rsp_valid[NCh-1:0];
  assign sys_rsp_data           = i_rsp_data[NCh-1:0];
  assign i_valid[2*NCh-1:NCh]   = mem_valid;
  assign i_req[2*NCh-1:NCh]     = mem_req;
  assign mem_ready              = i_ready[2*NCh-1:NCh];
  assign mem_rsp_valid          = i_rsp_valid[2*NCh-1:NCh];
  assign mem_rsp_data           = i_rsp_data[2*NCh-1:NCh];
  for (genvar c = 0; c < Cores; c++) begin : g_core
    localparam int unsigned B = NCh * (2 + c);
    localparam int unsigned T = 1 + L2_BANKS + c;
    assign i_valid[B +: NCh]      = c_dma_req_valid_i[c];
    assign i_req[B +: NCh]        = c_dma_req_i[c];
    assign c_dma_req_ready_o[c]   = i_ready[B +: NCh];
    assign c_dma_rsp_valid_o[c]   = i_rsp_valid[B +: NCh];
    assign c_dma_rsp_data_o[c]    = i_rsp_data[B +: NCh];
    assign c_l1_req_valid_o[c]    = f_valid[T];
    assign c_l1_req_o[c]          = f_req[T];
    assign c_l1_req_id_o[c]       = f_id[T];
    assign f_ready[T]             = c_l1_req_ready_i[c];
    assign f_rsp_valid[T]         = c_l1_rsp_valid_i[c];
    assign f_rsp_data[T]          = c_l1_rsp_data_i[c];
    assign c_reg_valid_o[c]       = t_valid[FIRST_CORE_ROW + c];
    assign t_rsp_valid[FIRST_CORE_ROW + c] = c_reg_rsp_valid_i[c];
    assign t_rsp_hit[FIRST_CORE_ROW + c]   = c_reg_rsp_hit_i[c];
    assign t_rsp_rdata[FIRST_CORE_ROW + c] = c_reg_rsp_rdata_i[c];
  end
  if (Cores == 0) begin : g_no_core
    assign c_dma_req_ready_o = '0;
    assign c_dma_rsp_valid_o = '0;
    assign c_dma_rsp_data_o  = '0;
    assign c_l1_req_valid_o  = '0;
    assign c_l1_req_o        = '0;
    assign c_l1_req_id_o     = '0;
    assign c_reg_valid_o     = '0;
    logic unused_core;
    assign unused_core = ^{c_reg_rsp_valid_i, c_reg_rsp_hit_i, c_reg_rsp_rdata_i, c_l1_req_ready_i,
                           c_l1_rsp_valid_i, c_l1_rsp_data_i, c_dma_req_valid_i, c_dma_req_i,
                           c_tok_valid_i, c_tok_i, c_busy_i, c_err_i};
  end

  // ---- trace monitors of the shim and mem tiles ----
  for (genvar i = 0; i < NCh; i++) begin : g_mon
    localparam int unsigned U = (i < NCh / 2) ? TR_MM2S0 + i : TR_S2MM0 + i - NCh / 2;
    ax_trace_mon #(.Row(SHIM_ROW), .Unit(U)) u_sys (
      .clk_i   (clk_i),
      .task_i  (sys_mon_task[i]),
      .write_i (sys_mon_write[i])
    );
    ax_trace_mon #(.Row(MEM_ROW), .Unit(U)) u_mem (
      .clk_i   (clk_i),
      .task_i  (mem_mon_task[i]),
      .write_i (mem_mon_write[i])
    );
  end
  ax_trace_tok u_mon_tok (
    .clk_i   (clk_i),
    .valid_i (tok_mon_valid),
    .tok_i   (tok_mon)
  );
endmodule
