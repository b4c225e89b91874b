// The device: ax_uncore (host port, shim, mem tile, word fabric, DDR master) and Cores AI core
// tiles (rows 2 .. 1 + Cores), with the barrier network across the cores and the trace
// monitors of each core. The Verilator harness (rtl/sim) supplies DDR behind the m_* port.
module axcore_top
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Cores = CORES,
  localparam int unsigned NCh = 2 * DMA_CHANNELS,
  localparam int unsigned NI  = NCh * (2 + Cores),
  localparam int unsigned IdW = (NI > 1) ? $clog2(NI) : 1
) (
`include "ax_top_ports.svh"
  ,
  output logic        busy_o,
  output logic [63:0] cycle_o
);
  localparam int unsigned TR_CMDPROC = 1, TR_MVM_ODR = 6, TR_DW_ODR = 11, TR_LOADIMC = 12;
  localparam int unsigned TR_MM2S0 = 13, TR_S2MM0 = 17;

`ifndef SYNTHESIS
  initial begin
    assert (Cores >= 1 && Cores <= MAX_CORES) else $fatal(1, "axcore_top: Cores must be 1..%0d", MAX_CORES);
  end
`endif

  logic                              soft_rst;
  logic      [Cores-1:0]             reg_valid, reg_rsp_valid, reg_rsp_hit;
  reg_req_t                          reg_req;
  word_t     [Cores-1:0]             reg_rsp_rdata;
  logic      [Cores-1:0]             l1_valid, l1_ready;
  word_req_t [Cores-1:0]             l1_req;
  logic      [Cores-1:0][IdW-1:0]    l1_id;
  logic      [Cores-1:0][NI-1:0]     l1_rsp_valid;
  row_t      [Cores-1:0]             l1_rsp_data;
  logic      [Cores-1:0][NCh-1:0]    dma_valid, dma_ready, dma_rsp_valid;
  word_req_t [Cores-1:0][NCh-1:0]    dma_req;
  row_t      [Cores-1:0][NCh-1:0]    dma_rsp_data;
  logic      [Cores-1:0]             tok_valid, tok_ready, c_busy, c_err;
  token_t    [Cores-1:0]             tok;
  logic      [Cores-1:0]             bar_arrive, bar_release;
  logic      [Cores-1:0][7:0]        bar_id, bar_mask;

  ax_uncore #(.Cores(Cores)) u_uncore (
`include "ax_top_conn.svh"
    .busy_o            (busy_o),
    .cycle_o           (cycle_o),
    .soft_reset_o      (soft_rst),
    .c_reg_valid_o     (reg_valid),
    .c_reg_req_o       (reg_req),
    .c_reg_rsp_valid_i (reg_rsp_valid),
    .c_reg_rsp_hit_i   (reg_rsp_hit),
    .c_reg_rsp_rdata_i (reg_rsp_rdata),
    .c_l1_req_valid_o  (l1_valid),
    .c_l1_req_o        (l1_req),
    .c_l1_req_id_o     (l1_id),
    .c_l1_req_ready_i  (l1_ready),
    .c_l1_rsp_valid_i  (l1_rsp_valid),
    .c_l1_rsp_data_i   (l1_rsp_data),
    .c_dma_req_valid_i (dma_valid),
    .c_dma_req_i       (dma_req),
    .c_dma_req_ready_o (dma_ready),
    .c_dma_rsp_valid_o (dma_rsp_valid),
    .c_dma_rsp_data_o  (dma_rsp_data),
    .c_tok_valid_i     (tok_valid),
    .c_tok_ready_o     (tok_ready),
    .c_tok_i           (tok),
    .c_busy_i          (c_busy),
    .c_err_i           (c_err)
  );

  // Barrier: every arrived core whose mask's cores have all arrived with its id is released
  // (a one-cycle pulse; the pulse is not repeated while the core lowers bar_arrive).
  logic [Cores-1:0] rel_q;
  always_comb begin
    for (int unsigned c = 0; c < Cores; c++) begin
      logic all_in;
      all_in = bar_arrive[c];
      for (int unsigned o = 0; o < Cores; o++) begin
        if (bar_mask[c][o] && !(bar_arrive[o] && bar_id[o] == bar_id[c])) all_in = 1'b0;
      end
      bar_release[c] = all_in && !rel_q[c];
    end
  end
  // rel_q changes only while a core waits at a barrier (or right after): a gated clock, so the
  // command processors' logic that reads bar_release runs only then (docs/rtl.md)
  logic clk_bar;
  ax_clk_gate u_cg_bar (.clk_i (clk_i), .rst_ni (rst_ni), .en_i ((|bar_arrive) || (|rel_q)), .clk_o (clk_bar));
  always_ff @(posedge clk_bar or negedge rst_ni) begin
    if (!rst_ni) rel_q <= '0;
    else         rel_q <= bar_release;
  end

  for (genvar c = 0; c < Cores; c++) begin : g_core
    localparam int unsigned Row = FIRST_CORE_ROW + c;
    mon_task_t  [CORE_QUEUES-1:0] mon_cmd;
    mon_write_t                   mon_mvm_odr, mon_dw_odr, mon_loadimc;
    mon_task_t  [NCh-1:0]         mon_dma_task;
    mon_write_t [NCh-1:0]         mon_dma_write;

    ax_core_tile #(
      .Row      (Row),
      .Cores    (Cores),
      .FabricNI (NI)
    ) u_core (
      .clk_i           (clk_i),
      .rst_ni          (rst_ni),
      .clr_i           (soft_rst),
      .reg_valid_i     (reg_valid[c]),
      .reg_req_i       (reg_req),
      .reg_rsp_valid_o (reg_rsp_valid[c]),
      .reg_rsp_hit_o   (reg_rsp_hit[c]),
      .reg_rsp_rdata_o (reg_rsp_rdata[c]),
      .l1_req_valid_i  (l1_valid[c]),
      .l1_req_i        (l1_req[c]),
      .l1_req_id_i     (l1_id[c]),
      .l1_req_ready_o  (l1_ready[c]),
      .l1_rsp_valid_o  (l1_rsp_valid[c]),
      .l1_rsp_data_o   (l1_rsp_data[c]),
      .dma_req_valid_o (dma_valid[c]),
      .dma_req_o       (dma_req[c]),
      .dma_req_ready_i (dma_ready[c]),
      .dma_rsp_valid_i (dma_rsp_valid[c]),
      .dma_rsp_data_i  (dma_rsp_data[c]),
      .tok_valid_o     (tok_valid[c]),
      .tok_ready_i     (tok_ready[c]),
      .tok_o           (tok[c]),
      .bar_arrive_o    (bar_arrive[c]),
      .bar_id_o        (bar_id[c]),
      .bar_mask_o      (bar_mask[c]),
      .bar_release_i   (bar_release[c]),
      .busy_o          (c_busy[c]),
      .err_o           (c_err[c]),
      .mon_cmd_o       (mon_cmd),
      .mon_mvm_odr_o   (mon_mvm_odr),
      .mon_dw_odr_o    (mon_dw_odr),
      .mon_loadimc_o   (mon_loadimc),
      .mon_dma_task_o  (mon_dma_task),
      .mon_dma_write_o (mon_dma_write)
    );

    // Trace monitors: command queues (CMDPROC), ODR and LoadIMC writes, CoreDMA channels.
    for (genvar q = 0; q < CORE_QUEUES; q++) begin : g_q
      ax_trace_mon #(.Row(Row), .Unit(TR_CMDPROC)) u_mon (
        .clk_i   (clk_i),
        .task_i  (mon_cmd[q]),
        .write_i ('0)
      );
    end
    ax_trace_mon #(.Row(Row), .Unit(TR_MVM_ODR)) u_mon_mvm_odr (
      .clk_i   (clk_i),
      .task_i  ('0),
      .write_i (mon_mvm_odr)
    );
    ax_trace_mon #(.Row(Row), .Unit(TR_DW_ODR)) u_mon_dw_odr (
      .clk_i   (clk_i),
      .task_i  ('0),
      .write_i (mon_dw_odr)
    );
    ax_trace_mon #(.Row(Row), .Unit(TR_LOADIMC)) u_mon_loadimc (
      .clk_i   (clk_i),
      .task_i  ('0),
      .write_i (mon_loadimc)
    );
    for (genvar i = 0; i < NCh; i++) begin : g_dma
      localparam int unsigned U = (i < NCh / 2) ? TR_MM2S0 + i : TR_S2MM0 + i - NCh / 2;
      ax_trace_mon #(.Row(Row), .Unit(U)) u_mon (
        .clk_i   (clk_i),
        .task_i  (mon_dma_task[i]),
        .write_i (mon_dma_write[i])
      );
    end
  end
endmodule
